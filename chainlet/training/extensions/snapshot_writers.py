"""Snapshot writers: how the ``snapshot`` extensions put a file on disk.

Every writer here writes atomically: the save function writes a hidden temporary file in the
output folder, which is flushed and then renamed over the final name. A crash or a kill in the
middle of a save leaves the previous snapshots untouched and at most a stray ``.<name>.*.tmp``
file (ignored when looking for snapshots).

:class:`SimpleWriter` saves in the training loop. The others save in the background, as
Chainer's do: :class:`ThreadWriter` and :class:`ProcessWriter` start one worker per snapshot
(waiting for the previous one first), :class:`ThreadQueueWriter` and
:class:`ProcessQueueWriter` feed one long-lived consumer through a queue. Unlike Chainer's, a
background writer first copies the target's state (its ``serialize`` output, arrays copied to
the host) in the training loop, so the file holds the state at the moment of the snapshot even
though training goes on while it is written.

Example:
    >>> import os, tempfile, numpy as np, chainlet
    >>> from chainlet.training.extensions import snapshot_writers
    >>> link = chainlet.Link()
    >>> with link.init_scope():
    ...     link.w = chainlet.Parameter(np.zeros(2, np.float32))
    >>> out = tempfile.mkdtemp()
    >>> snapshot_writers.SimpleWriter()('model.npz', out, link)
    >>> os.listdir(out)
    ['model.npz']
"""
from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import traceback
from typing import Any, Callable, Optional

import numpy

from chainlet.training._files import atomic_write_path


def _default_savefun() -> Callable:
    from chainlet.serializers import save_npz
    return save_npz


class Writer:
    """Base class of snapshot writers: ``writer(filename, outdir, target)`` saves ``target``.

    Subclasses implement ``__call__``, usually with :meth:`save`.
    """

    def __init__(self) -> None:
        self._post_save_hooks: list = []

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Save ``target`` to ``outdir/filename``."""
        raise NotImplementedError

    def _add_cleanup_hook(self, hook: Callable[[], None]) -> None:
        self._post_save_hooks.append(hook)

    def save(self, filename: str, outdir: str, target: Any, savefun: Callable,
             **kwds: Any) -> None:
        """Run ``savefun(tmp_path, target, **kwds)`` and atomically rename the result.

        Then run the post-save hooks (e.g. the removal of old snapshots).
        """
        os.makedirs(outdir, exist_ok=True)
        with atomic_write_path(os.path.join(outdir, filename)) as tmp:
            savefun(tmp, target, **kwds)
        self._post_save()

    def _post_save(self) -> None:
        for hook in self._post_save_hooks:
            hook()

    def finalize(self) -> None:
        """Wait for pending writes (nothing to wait for in synchronous writers)."""


class SimpleWriter(Writer):
    """Save synchronously, in the training loop.

    Args:
        savefun: ``savefun(path, target, **kwds)``; :func:`chainlet.serializers.save_npz` by
            default.
        kwds: Extra keyword arguments for ``savefun``.
    """

    def __init__(self, savefun: Optional[Callable] = None, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun if savefun is not None else _default_savefun()
        self._kwds = kwds

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Save ``target`` to ``outdir/filename`` now."""
        self.save(filename, outdir, target, self._savefun, **self._kwds)


class _FrozenState:
    """The state of an object at one moment: replays its ``serialize`` output when saved."""

    def __init__(self, values: dict) -> None:
        self._values = values

    def serialize(self, serializer: Any) -> None:
        for key, value in self._values.items():
            serializer(key, value)


def _freeze(target: Any) -> Any:
    """A copy of ``target``'s state taken now, for saving while training goes on."""
    serialize = getattr(target, 'serialize', None)
    if isinstance(target, (dict, _FrozenState)) or not callable(serialize):
        return target
    from chainlet.serializers.npz import DictionarySerializer
    from chainlet.serializers._base import is_none_array
    recorder = DictionarySerializer()
    serialize(recorder)
    values = {}
    for key, value in recorder.target.items():
        array = numpy.asarray(value)
        values[key] = None if is_none_array(array) else numpy.array(array, copy=True)
    return _FrozenState(values)


class StandardWriter(Writer):
    """Base class of writers that save in a new worker (thread or process) per snapshot.

    A call waits for the previous worker, then starts a new one running :meth:`save`;
    :meth:`finalize` waits for the last one.

    Args:
        savefun: ``savefun(path, target, **kwds)``; :func:`chainlet.serializers.save_npz` by
            default.
        kwds: Extra keyword arguments for ``savefun``.
    """

    def __init__(self, savefun: Optional[Callable] = None, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun if savefun is not None else _default_savefun()
        self._kwds = kwds
        self._worker: Any = None

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Start saving a copy of ``target``'s current state to ``outdir/filename``."""
        self._join()
        self._worker = self.create_worker(filename, outdir, _freeze(target), **self._kwds)
        self._worker.start()

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        """Return an unstarted worker (with ``start`` and ``join``) that saves ``target``."""
        raise NotImplementedError(f'{type(self).__name__} does not implement create_worker')

    def _join(self) -> None:
        if self._worker is not None:
            self._worker.join()
            self._worker = None

    def finalize(self) -> None:
        """Wait for the snapshot being written."""
        self._join()


class ThreadWriter(StandardWriter):
    """Save each snapshot in a new thread (see :class:`StandardWriter`)."""

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        return threading.Thread(target=self.save,
                                args=(filename, outdir, target, self._savefun), kwargs=kwds)


class ProcessWriter(StandardWriter):
    """Save each snapshot in a new process (see :class:`StandardWriter`).

    The post-save hooks (removal of old snapshots with ``n_retains``) run in that process too.
    """

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        return multiprocessing.Process(target=self.save,
                                       args=(filename, outdir, target, self._savefun),
                                       kwargs=kwds)


class QueueWriter(Writer):
    """Base class of writers whose snapshots are saved, in order, by one consumer of a queue.

    Each call puts ``[task, filename, outdir, state]`` into the queue; the consumer runs
    ``task(filename, outdir, state)`` and then this writer's post-save hooks (the removal of
    old snapshots). :meth:`finalize` puts ``None``, waits until the queue is drained and joins
    the consumer.

    Args:
        savefun: Used to make the default task, a :class:`SimpleWriter` with this ``savefun``.
        task: A callable with the signature of ``Writer.__call__`` to use instead.
    """

    def __init__(self, savefun: Optional[Callable] = None, task: Optional[Callable] = None
                 ) -> None:
        super().__init__()
        self._task = task if task is not None else self.create_task(
            savefun if savefun is not None else _default_savefun())
        self._errors: list = []
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._started = True

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Queue a copy of ``target``'s current state to be saved as ``outdir/filename``."""
        self._queue.put([self._task, filename, outdir, _freeze(target)])

    def create_task(self, savefun: Callable) -> Callable:
        """The default task: a :class:`SimpleWriter` saving with ``savefun``."""
        return SimpleWriter(savefun=savefun)

    def create_queue(self) -> Any:
        """Return the queue (with ``put``, ``get``, ``task_done`` and ``join``)."""
        raise NotImplementedError(f'{type(self).__name__} does not implement create_queue')

    def create_consumer(self, q: Any) -> Any:
        """Return an unstarted worker that runs :meth:`consume` on ``q``."""
        raise NotImplementedError(f'{type(self).__name__} does not implement create_consumer')

    def consume(self, q: Any) -> None:
        """Run the queued tasks until ``None`` arrives; a failing task stops the consumer."""
        while True:
            item = q.get()
            try:
                if item is None:
                    return
                item[0](item[1], item[2], item[3])
                self._post_save()
            except Exception as e:
                # finalize reports it: a thread consumer shares this list; a process consumer
                # prints the traceback here and exits with status 1.
                self._errors.append(e)
                if multiprocessing.parent_process() is None:
                    return  # a thread: finalize reads self._errors
                traceback.print_exc()
                raise SystemExit(1) from None
            finally:
                q.task_done()

    def finalize(self) -> None:
        """Save what is queued and stop the consumer.

        Raises:
            RuntimeError: The consumer failed (a task raised, or the consumer process died), so
                some snapshots were not written. Waiting for its queue would never end then.
        """
        if self._started:
            self._started = False
            self._queue.put(None)
            # Joining the consumer, not the queue: a dead consumer never drains its queue.
            self._consumer.join()
            exitcode = getattr(self._consumer, 'exitcode', 0)
            if self._errors or exitcode:
                cause = repr(self._errors[0]) if self._errors else f'exit code {exitcode}'
                raise RuntimeError(f'{type(self).__name__}: the snapshot writer failed ({cause}); '
                                   f'snapshots queued after the failure were not saved')


class ThreadQueueWriter(QueueWriter):
    """A :class:`QueueWriter` whose consumer is a thread."""

    def create_queue(self) -> Any:
        return queue.Queue()

    def create_consumer(self, q: Any) -> Any:
        return threading.Thread(target=self.consume, args=(q,), daemon=True)


class ProcessQueueWriter(QueueWriter):
    """A :class:`QueueWriter` whose consumer is a process.

    The queued items are pickled, so the task and ``savefun`` must be picklable (module-level
    functions are). The post-save hooks cannot follow the items into the process: they run in
    the training process, before each snapshot is queued and once more in :meth:`finalize`, so
    with ``n_retains=n`` up to ``n + 1`` snapshots exist while training and ``n`` at the end.
    """

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self._post_save()
        super().__call__(filename, outdir, target)

    def _post_save(self) -> None:
        if multiprocessing.parent_process() is None:  # not in the consumer process
            super()._post_save()

    def finalize(self) -> None:
        started = self._started
        super().finalize()
        if started:
            self._post_save()

    def create_queue(self) -> Any:
        return multiprocessing.JoinableQueue()

    def create_consumer(self, q: Any) -> Any:
        return multiprocessing.Process(target=self.consume, args=(q,), daemon=True)
