"""``TensorBoardReport``: write what ``LogReport`` logs as TensorBoard scalars.

Design: the extension *is* a :class:`~chainlet.training.extensions.LogReport` (same
``keys``, ``trigger`` and ``postprocess``, same averaging over the interval, same
:attr:`log`), so that a TensorBoard curve and the JSON log always agree. Each new entry is
written through ``tensorboardX`` (the ``tensorboard`` extra; imported when the extension is
made, never by ``import chainlet``): every number in it becomes a scalar whose tag is the
entry's key (``main/loss``, ``validation/main/accuracy``, ``epoch``, ``elapsed_time``, ...) and
whose step is the entry's ``iteration``. TensorBoard groups the tags by their first ``/``.

Writing: the events are written in the training thread, through tensorboardX's synchronous
``RecordWriter``, not through ``SummaryWriter``, whose worker thread dies on a write error
(a full disk: ``ENOSPC``) and leaves the next ``queue.put`` blocked for ever, hanging the
training. Here a failed write, flush or open (``OSError``) gives one ``RuntimeWarning`` that
names the log folder and the error; the report stops writing events and the training goes on
(the entries stay in :attr:`log`).

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
import socket
import time
import warnings
from typing import Any, Callable, Optional, Sequence

from chainlet.training.extensions.log_report import LogReport

_INSTALL_HINT = 'pip install "chainlet-dl[tensorboard]"'


class SyncEventWriter:
    """One TensorBoard event file, written synchronously in the caller's thread.

    Args:
        log_dir: The folder of the event file (created if missing).
        purge_step: If given, the file starts with a purge marker at this step, so TensorBoard
            drops the points of older files from that step on (as ``SummaryWriter`` does).
        flush_secs: Seconds between two flushes to disk (the first entry is flushed at once).
        filename_suffix: Appended to the file name.

    Raises:
        OSError: the folder or the file cannot be created or written (also from
            :meth:`add_scalar`, :meth:`flush` and :meth:`close`).

    Example:
        >>> import os, tempfile
        >>> from chainlet.training.extensions.tensorboard_report import SyncEventWriter
        >>> folder = tempfile.mkdtemp()
        >>> writer = SyncEventWriter(folder)  # doctest: +SKIP
        >>> writer.add_scalar('main/loss', 0.5, step=10)  # doctest: +SKIP
        >>> writer.close()  # doctest: +SKIP
        >>> [name.startswith('events.out.tfevents.') for name in os.listdir(folder)]
        ... # doctest: +SKIP
        [True]
    """

    def __init__(self, log_dir: str, purge_step: Optional[int] = None,
                 flush_secs: float = 30, filename_suffix: str = '') -> None:
        from tensorboardX.proto import event_pb2
        from tensorboardX.record_writer import RecordWriter
        from tensorboardX.summary import scalar
        self._event_class = event_pb2.Event
        self._scalar = scalar
        self.log_dir = log_dir
        self._flush_secs = flush_secs
        self._next_flush = 0.0  # the first entry goes to disk at once
        os.makedirs(log_dir, exist_ok=True)
        # TensorBoard finds event files by the 'tfevents' in their names (tensorboardX's form).
        name = (f'events.out.tfevents.{str(time.time())[:10]}.{socket.gethostname()}'
                f'{filename_suffix}')
        self._records = RecordWriter(os.path.join(log_dir, name))
        self._write(self._event_class(wall_time=time.time(), file_version='brain.Event:2'))
        if purge_step is not None:
            session = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
            self._write(self._event_class(step=purge_step, file_version='brain.Event:2'))
            self._write(self._event_class(step=purge_step, session_log=session))

    def _write(self, event: Any) -> None:
        self._records.write(event.SerializeToString())

    def add_scalar(self, tag: str, value: float, step: int) -> None:
        """Append one scalar point (buffered; see :meth:`flush_if_due`)."""
        self._write(self._event_class(summary=self._scalar(tag, value), step=int(step),
                                      wall_time=time.time()))

    def flush_if_due(self) -> None:
        """Flush when ``flush_secs`` passed since the last flush (or nothing was flushed)."""
        if time.monotonic() >= self._next_flush:
            self.flush()

    def flush(self) -> None:
        """Write the buffered events to disk."""
        self._records.flush()
        self._next_flush = time.monotonic() + self._flush_secs

    def close(self) -> None:
        """Flush and close the file (closed also when the flush fails)."""
        try:
            self._records.flush()
        finally:
            self._records.close()


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
            import tensorboardX.record_writer  # noqa: F401
        except ImportError as exc:
            raise ImportError(f'TensorBoardReport writes TensorBoard event files through the '
                              f'tensorboardX package, which is not installed; install it '
                              f'with {_INSTALL_HINT}') from exc
        super().__init__(keys=keys, trigger=trigger, postprocess=postprocess,
                         filename=filename, log_name=None)
        self._log_dir = None if log_dir is None else os.fspath(log_dir)
        self._flush_secs = flush_secs
        self._writer: Optional[SyncEventWriter] = None
        self._failed = False  # a write failed: no more events (see the module docstring)
        self._resumed = False

    @property
    def writer(self) -> Optional[SyncEventWriter]:
        """The :class:`SyncEventWriter` (``None`` before the first call, after the end of
        training, and after a write failed)."""
        return self._writer

    def __call__(self, trainer: Any) -> None:
        """Add this iteration's observation; at the end of an interval, log and write it."""
        before = len(self._log)
        super().__call__(trainer)
        if len(self._log) > before and not self._failed:
            log_dir = self._log_dir if self._log_dir is not None else trainer.out
            try:
                self._write_scalars(self._log[-1], trainer, log_dir)
            except OSError as exc:
                self._fail(log_dir, exc)

    def _write_scalars(self, entry: dict, trainer: Any, log_dir: str) -> None:
        if self._writer is None:
            purge = trainer.updater.iteration if self._resumed else None
            # tensorboardX names a file by the second it was opened and truncates a file of
            # the same name (a quick resume would erase the first run's events); the
            # nanoseconds keep names unique and in the order TensorBoard reads them.
            self._writer = SyncEventWriter(log_dir, purge_step=purge,
                                           flush_secs=self._flush_secs,
                                           filename_suffix=f'.{time.time_ns() % 10 ** 9:09d}')
        step = int(entry['iteration'])
        for key, value in entry.items():
            if key == 'iteration':
                continue
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue  # a postprocess may add values that are not numbers
            self._writer.add_scalar(key, number, step)
        self._writer.flush_if_due()

    def _fail(self, log_dir: str, exc: OSError) -> None:
        self._failed = True
        warnings.warn(f'TensorBoardReport: cannot write TensorBoard events to {log_dir!r} '
                      f'({exc}); no more events are written, training goes on (the entries '
                      f'stay in the report\'s log)', RuntimeWarning, stacklevel=3)
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except (OSError, ValueError):  # the same failure again, or already closed
                pass

    def finalize(self) -> None:
        """Flush and close the event file."""
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except OSError as exc:
                self._fail(writer.log_dir, exc)

    def serialize(self, serializer: Any) -> None:
        """Save or load ``LogReport``'s state; after a load the writer purges later points."""
        super().serialize(serializer)
        from chainlet.serializers import Serializer
        if not isinstance(serializer, Serializer):
            self._resumed = True
