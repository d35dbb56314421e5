"""``TimerHook``: time spent in the ``forward`` of each link.

Example:
    >>> import numpy as np, chainlet.links as L
    >>> from chainlet import Sequential
    >>> from chainlet.link_hooks import TimerHook
    >>> model = Sequential(L.Linear(4, 3), L.Linear(3, 2))
    >>> with TimerHook() as hook:
    ...     _ = model(np.zeros((5, 4), np.float32))
    >>> {name: r['occurrence'] for name, r in hook.summary().items()}
    {'Linear': 2, 'Sequential': 1}
    >>> hook.total_time() >= hook.summary()['Linear']['elapsed_time']
    True
"""
from __future__ import annotations

import collections
import sys
import time
from typing import IO, Any, Callable, Optional

import numpy

from chainlet.function_hooks.timer import _UNITS, _choose_unit
from chainlet.link_hook import LinkHook


def _synchronize(link: Any) -> None:
    # GPU kernels run asynchronously: wait for the link's device so the time is the real one.
    xp = link.xp
    if xp is not numpy:
        xp.cuda.get_current_stream().synchronize()


class TimerHook(LinkHook):
    """Link hook measuring the time of ``forward`` of every hooked link.

    Links nest (a chain's forward calls its children), so the time of a chain includes the
    times of its children and the per-link times can add up to more than the wall time;
    :meth:`total_time` counts outermost calls only. On the GPU the hook waits for the device
    before reading the clock.

    Attributes:
        call_history: ``(link class name, elapsed seconds)`` of every call, in the order the
            calls ended.

    Example:
        >>> import io, numpy as np, chainlet.links as L
        >>> from chainlet.link_hooks import TimerHook
        >>> layer = L.Linear(3, 2).add_hook(TimerHook())
        >>> _ = layer(np.zeros((1, 3), np.float32))
        >>> hook = layer.local_link_hooks['TimerHook']
        >>> [name for name, seconds in hook.call_history]
        ['Linear']
        >>> out = io.StringIO()
        >>> hook.print_report(file=out)
        >>> print(out.getvalue())  # doctest: +ELLIPSIS
        LinkName  ElapsedTime  Occurrence
          Linear  ...           1
    """

    name = 'TimerHook'
    table = _UNITS

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._running: list[tuple[Any, float]] = []  # (link, start) of the calls under way
        self._total_time = 0.0

    def deleted(self, link: Any = None) -> None:
        # A forward that raised never reached its postprocess; forget its start time.
        self._running.clear()

    def forward_preprocess(self, args: Any) -> None:
        _synchronize(args.link)
        self._running.append((args.link, time.perf_counter()))

    def forward_postprocess(self, args: Any) -> None:
        link = args.link
        _synchronize(link)
        stop = time.perf_counter()
        # Entries above this call's own belong to inner calls that raised (and were caught).
        while self._running and self._running[-1][0] is not link:
            self._running.pop()
        if not self._running:  # the hook was registered while this call was under way
            return
        elapsed = stop - self._running.pop()[1]
        self.call_history.append((type(link).__name__, elapsed))
        if not self._running:
            self._total_time += elapsed

    def total_time(self) -> float:
        """Seconds spent in the outermost hooked calls (nested calls are counted once)."""
        return self._total_time

    def summary(self) -> collections.OrderedDict:
        """Per link class name, in order of the first call that ended, a dict with
        ``elapsed_time`` (seconds, summed over calls) and ``occurrence`` (number of calls)."""
        result: collections.OrderedDict = collections.OrderedDict()
        for name, elapsed in self.call_history:
            record = result.setdefault(name, {'elapsed_time': 0.0, 'occurrence': 0})
            record['elapsed_time'] += elapsed
            record['occurrence'] += 1
        return result

    def print_report(self, unit: str = 'auto', file: Optional[IO[str]] = None) -> None:
        """Print one line per link class: total time and number of calls.

        Args:
            unit: Time unit of the report: ``'auto'`` picks the one that fits the largest
                time, ``'auto_foreach'`` one per value; else ``'sec'``, ``'ms'``, ``'us'`` or
                ``'ns'``.
            file: Stream to write to; standard output by default.
        """
        summary = self.summary()
        fmt = _time_formatter('TimerHook.print_report', unit,
                              [r['elapsed_time'] for r in summary.values()])
        rows = [('LinkName', 'ElapsedTime', 'Occurrence')]
        rows += [(name, fmt(r['elapsed_time']), str(r['occurrence']))
                 for name, r in summary.items()]
        _write_table(rows, sys.stdout if file is None else file)


def _time_formatter(where: str, unit: str, times: list) -> Callable[[float], str]:
    """A function writing seconds as ``'1.23ms'`` in ``unit`` (see ``print_report``)."""
    if unit == 'auto_foreach':
        def fmt(seconds: float) -> str:
            factor, name = _choose_unit(seconds)
            return f'{seconds * factor:.2f}{name}'
        return fmt
    if unit == 'auto':
        factor, unit = _choose_unit(max(times, default=0.0))
    elif unit in _UNITS:
        factor = _UNITS[unit]
    else:
        raise ValueError(f"{where}: argument unit: expected one of 'sec', 'ms', 'us', 'ns', "
                         f"'auto', 'auto_foreach', got {unit!r}")
    return lambda seconds: f'{seconds * factor:.2f}{unit}'


def _write_table(rows: list, file: IO[str]) -> None:
    """Write ``rows`` (tuples of strings) right-aligned in columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        file.write('  '.join(cell.rjust(w) for cell, w in zip(row, widths)) + '\n')
    if hasattr(file, 'flush'):
        file.flush()
