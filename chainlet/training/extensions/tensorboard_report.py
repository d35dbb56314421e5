"""``TensorBoardReport``: write what ``LogReport`` logs as TensorBoard scalars.

Design: the extension *is* a :class:`~chainlet.training.extensions.LogReport` (same
``keys``, ``trigger`` and ``postprocess``, same averaging over the interval, same
:attr:`log`), so that a TensorBoard curve and the JSON log always agree. Each new entry is
written through ``tensorboardX`` (the ``tensorboard`` extra; imported when the extension is
made, never by ``import chainlet``): every number in it becomes a scalar whose tag is the
entry's key (``main/loss``, ``validation/main/accuracy``, ``epoch``, ``elapsed_time``, ...) and
whose step is the entry's ``iteration``. TensorBoard groups the tags by their first ``/``.

Snapshots: the state is ``LogReport``'s (trigger, running means, log). After a resume the
writer opens with ``purge_step`` at the first iteration it sees, so TensorBoard drops the
points that the interrupted run wrote after the snapshot was taken and the curves do not
fold back on themselves.

Example:
    >>> from chainlet.training import extensions
    >>> report = extensions.TensorBoardReport(trigger=(1, 'epoch'))  # doctest: +SKIP
    >>> trainer.extend(report)  # doctest: +SKIP
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Optional, Sequence

from chainlet.training.extensions.log_report import LogReport

_INSTALL_HINT = 'pip install "chainlet-dl[tensorboard]"'


class TensorBoardReport(LogReport):
    """Average the observations over an interval (as ``LogReport``) and write each entry to
    TensorBoard event files.

    Args:
        keys: Observation keys to record; ``None`` records every scalar.
        trigger: The interval (default ``(1, 'epoch')``).
        postprocess: Called as ``postprocess(entry)`` on each entry before it is written.
        log_dir: Folder of the event files; ``None`` (the default) is the trainer's ``out``
            folder, so ``tensorboard --logdir <out>`` shows it.
        filename: Also write the JSON log under this name in ``trainer.out``, as
            ``LogReport`` does; ``None`` (the default) keeps the log in memory only.
        flush_secs: Seconds between flushes of the event file (entries are also flushed at
            the end of training).

    Raises:
        ImportError: ``tensorboardX`` is not installed.
    """

    default_name = 'TensorBoardReport'

    def __init__(self, keys: Optional[Sequence[str]] = None, trigger: Any = (1, 'epoch'),
                 postprocess: Optional[Callable[[dict], Any]] = None,
                 log_dir: Optional[str] = None, filename: Optional[str] = None,
                 flush_secs: int = 30) -> None:
        try:
            from tensorboardX import SummaryWriter
        except ImportError as exc:
            raise ImportError(f'TensorBoardReport writes TensorBoard event files through the '
                              f'tensorboardX package, which is not installed; install it '
                              f'with {_INSTALL_HINT}') from exc
        super().__init__(keys=keys, trigger=trigger, postprocess=postprocess,
                         filename=filename, log_name=None)
        self._writer_class = SummaryWriter
        self._log_dir = None if log_dir is None else os.fspath(log_dir)
        self._flush_secs = flush_secs
        self._writer: Any = None
        self._resumed = False

    @property
    def writer(self) -> Any:
        """The ``tensorboardX.SummaryWriter`` (``None`` until the first call)."""
        return self._writer

    def __call__(self, trainer: Any) -> None:
        """Add this iteration's observation; at the end of an interval, log and write it."""
        if self._writer is None:
            purge = trainer.updater.iteration if self._resumed else None
            log_dir = self._log_dir if self._log_dir is not None else trainer.out
            # tensorboardX names a file by the second it was opened and truncates a file of
            # the same name (a quick resume would erase the first run's events); the
            # nanoseconds keep names unique and in the order TensorBoard reads them.
            self._writer = self._writer_class(
                logdir=log_dir, purge_step=purge, flush_secs=self._flush_secs,
                filename_suffix=f'.{time.time_ns() % 10 ** 9:09d}')
        before = len(self._log)
        super().__call__(trainer)
        if len(self._log) > before:
            self._write_scalars(self._log[-1])

    def _write_scalars(self, entry: dict) -> None:
        step = int(entry['iteration'])
        for key, value in entry.items():
            if key == 'iteration':
                continue
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue  # a postprocess may add values that are not numbers
            self._writer.add_scalar(key, number, step)

    def finalize(self) -> None:
        """Flush and close the event file."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def serialize(self, serializer: Any) -> None:
        """Save or load ``LogReport``'s state; after a load the writer purges later points."""
        super().serialize(serializer)
        from chainlet.serializers import Serializer
        if not isinstance(serializer, Serializer):
            self._resumed = True
