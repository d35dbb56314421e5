"""``PrintReport``: print the entries of a ``LogReport`` as a table.

Example:
    >>> import io
    >>> from chainlet.training import extensions
    >>> log = extensions.LogReport(log_name=None)
    >>> log._log.append({'epoch': 1, 'main/loss': 0.25})
    >>> out = io.StringIO()
    >>> extensions.PrintReport(['epoch', 'main/loss'], log_report=log, out=out).print_new(log)
    >>> print(out.getvalue(), end='')
    epoch       main/loss
    1           0.25
"""
from __future__ import annotations

import os
import sys
from typing import Any, Optional, Sequence, TextIO, Union

from chainlet.training import extension
from chainlet.training.extensions.log_report import LogReport


class PrintReport(extension.Extension):
    """Print new entries of a :class:`LogReport` as rows of a table, one column per entry.

    The header is printed at the first call; each call prints the log entries that appeared
    since the previous one. Missing values leave their column blank.

    Args:
        entries: Keys of the log entries to print, e.g. ``['epoch', 'main/loss',
            'validation/main/accuracy', 'elapsed_time']``.
        log_report: The name under which the ``LogReport`` is registered in the trainer, or
            the ``LogReport`` itself (then it is also called by this extension).
        out: Where to write (default ``sys.stdout``).
    """

    def __init__(self, entries: Sequence[str], log_report: Union[str, LogReport] = 'LogReport',
                 out: TextIO = sys.stdout) -> None:
        if isinstance(entries, str):
            raise TypeError('PrintReport: argument entries: expected a list of keys, got a str '
                            '(wrap it in a list)')
        self._entries = list(entries)
        self._log_report = log_report
        self._out = out
        self._log_len = 0
        widths = [max(10, len(entry)) for entry in self._entries]
        header = '  '.join(f'{entry:<{w}}' for entry, w in zip(self._entries, widths))
        self._header: Optional[str] = header.rstrip() + '\n'
        self._widths = widths

    def __call__(self, trainer: Any) -> None:
        """Print the header (first call) and the log entries not printed yet."""
        log_report = self._log_report
        if isinstance(log_report, str):
            log_report = trainer.get_extension(log_report)
        elif isinstance(log_report, LogReport):
            log_report(trainer)
        else:
            raise TypeError(f'PrintReport: log_report must be a LogReport or the name of one, '
                            f'got {type(log_report).__name__}')
        self.print_new(log_report)

    def print_new(self, log_report: LogReport) -> None:
        """Print the header if not printed yet, then the entries of ``log_report`` that are
        new since the previous call."""
        out = self._out
        if self._header:
            _write_line(out, self._header.rstrip('\n'))
            self._header = None
        log = log_report.log
        while len(log) > self._log_len:
            self._print(log[self._log_len])
            self._log_len += 1
        if hasattr(out, 'flush'):
            out.flush()

    def _print(self, entry: dict) -> None:
        cells = []
        for key, width in zip(self._entries, self._widths):
            if key not in entry:
                cells.append(' ' * width)
                continue
            value = entry[key]
            text = f'{value:<{width}g}' if isinstance(value, (int, float)) \
                else f'{value!s:<{width}}'
            cells.append(text)
        _write_line(self._out, '  '.join(cells).rstrip())

    def serialize(self, serializer: Any) -> None:
        """Save or load an owned ``LogReport`` (a resumed run reprints the whole table)."""
        if isinstance(self._log_report, LogReport):
            self._log_report.serialize(serializer['_log_report'])


def _write_line(out: Any, line: str) -> None:
    """Write one line of the table, keeping a progress bar on the same terminal intact.

    A tqdm bar (``ProgressBar`` in a terminal) leaves the cursor at the end of its own line,
    so a plain write would glue the row to the bar. ``tqdm.write`` clears the bars drawn on
    ``out``, writes the line and redraws them below it. Without tqdm, ``ESC [J`` clears what a
    plain progress display left below the cursor (as Chainer does).
    """
    if not _is_terminal(out):
        out.write(line + '\n')
        return
    tqdm = sys.modules.get('tqdm')  # only a bar that exists needs care; never import it here
    if tqdm is not None and getattr(tqdm, 'tqdm', None) is not None:
        tqdm.tqdm.write(line, file=out)
    else:
        out.write('\033[J' + line + '\n')


def _is_terminal(out: Any) -> bool:
    isatty = getattr(out, 'isatty', None)
    try:
        return bool(isatty and isatty()) and os.name != 'nt'
    except (ValueError, OSError):  # closed streams
        return False
