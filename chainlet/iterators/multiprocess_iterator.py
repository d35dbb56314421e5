"""``MultiprocessIterator``: examples loaded by a pool of worker processes, batches prefetched.

The batch order is computed in the main process by the same state machine as
:class:`~chainlet.iterators.SerialIterator`, so for the same order sampler both iterators
yield the same batches; the workers only run ``dataset[i]`` (useful when reading or
augmenting an example is slow). Up to ``n_prefetch`` batches are requested ahead of the one
being returned.

Nothing a dataset does can hang the iterator. The workers are those of
:mod:`chainlet.iterators._process_pool` (one pipe each, no lock shared between processes, so a
worker that dies is noticed and shutdown is bounded). A worker pickles each example itself and
sends bytes, and it sends an exception only after checking that it survives a pickle round trip
(an exception whose constructor takes two arguments, like botocore's ``ClientError``, does
not); otherwise a ``RuntimeError`` carrying its type, message and traceback is raised instead.
Every error names the failing example's index.
"""
from __future__ import annotations

import collections
import multiprocessing
import numbers
import pickle
import signal
import time
import traceback
import warnings
import weakref
from typing import Any, Callable, Optional

from chainlet.iterators import _process_pool, _statemachine
from chainlet.iterators.serial_iterator import _add_note, _check_batch_size, _choose_order_sampler
from chainlet.iterators.serial_iterator import _StatefulIterator


_POLL_SECONDS = 0.05


class TimeoutWarning(RuntimeWarning):
    """Loading a batch took longer than ``dataset_timeout`` seconds."""


_worker_dataset: Any = None  # set in each worker process by _init_worker


def _init_worker(dataset: Any) -> None:
    global _worker_dataset
    _worker_dataset = dataset
    # Ctrl-C is for the main process, which then shuts the pool down; workers dying on their
    # own would only print one traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class WorkerTraceback(Exception):
    """The traceback of an exception raised in a worker process (set as ``__cause__``)."""

    def __str__(self) -> str:
        return '\n"""\n' + str(self.args[0]).rstrip('\n') + '\n"""'


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not hide the original error
        text = '<str() failed>'
    return f'{type(exc).__module__}.{type(exc).__qualname__}: {text}'


def _error_payload(index: int, exc: BaseException, problem: str) -> tuple:
    tb = ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    blob = None
    if problem == 'raised':
        _add_note(exc, f'MultiprocessIterator: raised while loading dataset[{index}] in a '
                       f'worker process')
        try:
            blob = pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL)
            if type(pickle.loads(blob)) is not type(exc):
                blob = None
        except Exception:  # cannot travel: the main process raises a RuntimeError instead
            blob = None
    return ('error', index, problem, blob, _describe(exc), tb)


def _fetch_in_worker(indices: list[int]) -> tuple:
    blobs = []
    for i in indices:
        try:
            example = _worker_dataset[i]
        except Exception as e:
            return _error_payload(i, e, 'raised')
        try:
            blobs.append(pickle.dumps(example, protocol=pickle.HIGHEST_PROTOCOL))
        except Exception as e:
            return _error_payload(i, e, 'cannot be pickled')
    return ('ok', indices, blobs)


def _unpack(payload: tuple) -> list:
    """Turn a worker's payload back into examples, or raise the error it reports."""
    if payload[0] == 'ok':
        _, indices, blobs = payload
        examples = []
        for i, blob in zip(indices, blobs):
            try:
                examples.append(pickle.loads(blob))
            except Exception as e:
                raise RuntimeError(f'MultiprocessIterator: dataset[{i}] was loaded by a worker '
                                   f'but cannot be unpickled in the main process: '
                                   f'{_describe(e)}') from e
        return examples
    _, index, problem, blob, description, tb = payload
    if blob is not None:
        exc = pickle.loads(blob)
        raise exc from WorkerTraceback(tb)
    if problem == 'raised':
        message = (f'MultiprocessIterator: dataset[{index}] raised {description} in a worker '
                   f'process (the exception itself cannot be pickled, so it is replaced by this '
                   f'RuntimeError)')
    else:
        message = (f'MultiprocessIterator: dataset[{index}] cannot be sent from the worker '
                   f'process: the example cannot be pickled ({description})')
    raise RuntimeError(message) from WorkerTraceback(tb)


def _shutdown_pool(pool: Any) -> None:
    pool.terminate()
    pool.join()


def _chunks(indices: list[int], n: int) -> list[list[int]]:
    # Contiguous chunks, one per worker, keep the batch order when concatenated.
    size, extra = divmod(len(indices), n)
    chunks, start = [], 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        if end > start:
            chunks.append(indices[start:end])
        start = end
    return chunks


class _PoolIterator(_StatefulIterator):
    """Shared logic of the process and thread iterators: prefetch queue over a worker pool."""

    _owner = '_PoolIterator'
    _restartable = False  # whether reset() may follow finalize()
    # Set by _setup; declared for mypy, which defers _setup (its isinstance checks narrow to
    # intersection types) and would not know their types in the other methods.
    _n_workers: int
    n_prefetch: int
    dataset_timeout: Optional[float]
    _finalized: bool
    _prefetch_state: _statemachine.IteratorState
    _end_state: _statemachine.IteratorState

    def _setup(self, dataset: Any, batch_size: int, repeat: bool, shuffle: Optional[bool],
               n_workers: Optional[int], n_prefetch: int, order_sampler: Optional[Callable],
               dataset_timeout: Optional[float]) -> None:
        owner = self._owner
        self.dataset = dataset
        self.batch_size = _check_batch_size(owner, batch_size)
        self._repeat = bool(repeat)
        self._shuffle = shuffle
        self.order_sampler = _choose_order_sampler(owner, shuffle, order_sampler)
        if n_workers is None:
            n_workers = multiprocessing.cpu_count()
        if isinstance(n_workers, bool) or not isinstance(n_workers, numbers.Integral) or \
                n_workers < 1:
            raise ValueError(f'{owner}: the number of workers must be a positive int, got '
                             f'{n_workers!r}')
        if isinstance(n_prefetch, bool) or not isinstance(n_prefetch, numbers.Integral) or \
                n_prefetch < 1:
            raise ValueError(f'{owner}: n_prefetch must be a positive int, got {n_prefetch!r}')
        if dataset_timeout is not None and dataset_timeout <= 0:
            raise ValueError(f'{owner}: dataset_timeout must be positive or None, got '
                             f'{dataset_timeout!r}')
        self._n_workers = int(n_workers)
        self.n_prefetch = int(n_prefetch)
        self.dataset_timeout = dataset_timeout
        self._pool: Any = None
        self._finalizer: Any = None
        self._finalized = False
        self._queue: collections.deque = collections.deque()
        self.reset()

    # -- the pool ---------------------------------------------------------------------------

    def _make_pool(self) -> Any:
        raise NotImplementedError

    def _submit(self, pool: Any, chunks: list[list[int]]) -> Any:
        raise NotImplementedError

    def _ensure_pool(self) -> Any:
        if self._finalized:
            raise RuntimeError(f'{self._owner}: the iterator was finalized; create a new one')
        if self._pool is None:
            self._pool = self._make_pool()
            # Runs on finalize(), on garbage collection and at interpreter exit; it holds the
            # pool, never the iterator, so it does not keep the iterator alive.
            self._finalizer = weakref.finalize(self, _shutdown_pool, self._pool)
        return self._pool

    def finalize(self) -> None:
        """Stop the workers and wait for them to exit. The iterator cannot be used after."""
        self._finalized = True
        self._queue.clear()
        if self._finalizer is not None:
            self._finalizer()
        self._pool = None

    # -- iteration --------------------------------------------------------------------------

    def _request(self) -> bool:
        """Ask the pool for the batch after the last requested one; False at the end."""
        state, indices = _statemachine.next_state(self._prefetch_state, self.batch_size,
                                                  self._repeat, self.order_sampler,
                                                  len(self.dataset))
        if indices is None or (len(indices) == 0 and not self._repeat):
            self._end_state = state
            return False
        self._prefetch_state = state
        chunks = _chunks([int(i) for i in indices], self._n_workers)
        self._queue.append((self._submit(self._pool, chunks), state))
        return True

    def _check_workers(self) -> None:
        """Raise if a worker died; a task it held would otherwise never complete."""

    def _wait(self, result: Any) -> list:
        timeout = self.dataset_timeout
        start = time.monotonic()
        warned = False
        while True:
            try:
                # Wake up now and then to notice dead workers.
                return result.get(_POLL_SECONDS)
            except multiprocessing.TimeoutError:
                pass
            self._check_workers()
            if timeout is not None and not warned and time.monotonic() - start > timeout:
                warned = True
                warnings.warn(f'{self._owner}: loading a batch has taken more than {timeout} '
                              f's (dataset_timeout); still waiting', TimeoutWarning,
                              stacklevel=3)

    def __next__(self) -> list:
        self._ensure_pool()
        if not self._queue and not self._request():
            self._state = self._end_state
            raise StopIteration
        result, state = self._queue.popleft()
        while len(self._queue) < self.n_prefetch and self._request():
            pass
        chunks = self._wait(result)
        # The position moves past a failing batch too, as in SerialIterator.
        self._previous_epoch_detail = self.epoch_detail
        self._state = state
        return [example for chunk in chunks for example in self._unpack(chunk)]

    def _unpack(self, chunk: Any) -> list:
        """The examples of one worker's chunk (the process iterator decodes them)."""
        return chunk

    def reset(self) -> None:
        """Go back to the start of epoch 0 (drawing a new order when shuffling).

        A finalized thread iterator starts new threads on the next ``next()``.

        Raises:
            NotImplementedError: A finalized process iterator (as in Chainer, it cannot be
                restarted; create a new one).
        """
        if self._finalized:
            if not self._restartable:
                raise NotImplementedError(f'{self._owner}: reset of a finalized iterator is '
                                          f'not supported; create a new one')
            self._finalized = False
        self._load_state(self._initial_state(), -1.)

    def __getstate__(self) -> dict:
        # The workers and the batches they are loading stay with this process; a copy resumes
        # from the position of the last returned batch and starts its own workers.
        state = dict(self.__dict__)
        state.update(_pool=None, _finalizer=None, _queue=collections.deque(),
                     _prefetch_state=self._state, _end_state=self._state)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def _load_state(self, state: _statemachine.IteratorState,
                    previous_epoch_detail: float) -> None:
        # Batches requested from the old state are dropped; the pool keeps running.
        self._queue.clear()
        self._state = state
        self._prefetch_state = state
        self._end_state = state
        self._previous_epoch_detail = previous_epoch_detail


class MultiprocessIterator(_PoolIterator):
    """Iterate over a dataset in minibatches loaded by worker processes.

    Same batches, epochs and ``serialize`` as :class:`SerialIterator` (for the same order
    sampler); the examples are read by ``n_processes`` workers while the previous batch is
    used. The workers start on the first ``next()``. Call :meth:`finalize` (or use the
    iterator as a context manager) to stop them; they are also stopped when the iterator is
    garbage-collected and at interpreter exit.

    Args:
        dataset: The dataset; it is sent to the workers (pickled unless the start method is
            ``'fork'``), so with ``'spawn'``/``'forkserver'`` it must be picklable.
        batch_size: Number of examples per batch.
        repeat: Cycle over the dataset forever.
        shuffle: Shuffle every epoch (``None``: ``True`` unless ``order_sampler`` is given).
        n_processes: Number of worker processes (default: the number of CPUs).
        n_prefetch: Number of batches requested ahead.
        shared_mem: Accepted for compatibility with Chainer and ignored: examples come back
            through the pool's pipes.
        order_sampler: ``(current_order, current_position) -> new_order``.
        dataset_timeout: Seconds after which a :class:`TimeoutWarning` says a batch is slow
            (the iterator keeps waiting); ``None`` disables it.
        maxtasksperchild: Restart each worker after that many batches (``None``: never).
        start_method: ``'fork'``, ``'spawn'`` or ``'forkserver'``; ``None`` uses
            multiprocessing's default for the platform.

    Example:
        >>> from chainlet.iterators import MultiprocessIterator
        >>> with MultiprocessIterator(list(range(6)), 3, repeat=False, shuffle=False,
        ...                           n_processes=2, start_method='spawn') as it:
        ...     list(it)
        [[0, 1, 2], [3, 4, 5]]
    """

    _owner = 'MultiprocessIterator'
    TimeoutWarning = TimeoutWarning

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: Optional[bool] = None, n_processes: Optional[int] = None,
                 n_prefetch: int = 1, shared_mem: Optional[int] = None,
                 order_sampler: Optional[Callable] = None, dataset_timeout: Optional[float] = 30.0,
                 maxtasksperchild: Optional[int] = None, *,
                 start_method: Optional[str] = None) -> None:
        if start_method is not None and \
                start_method not in multiprocessing.get_all_start_methods():
            raise ValueError(f'MultiprocessIterator: start_method must be one of '
                             f'{multiprocessing.get_all_start_methods()}, got {start_method!r}')
        self.shared_mem = shared_mem
        self.maxtasksperchild = maxtasksperchild
        self.start_method = start_method
        self._setup(dataset, batch_size, repeat, shuffle, n_processes, n_prefetch,
                    order_sampler, dataset_timeout)

    @property
    def n_processes(self) -> int:
        """Number of worker processes."""
        return self._n_workers

    def _make_pool(self) -> _process_pool.ProcessPool:
        context = multiprocessing.get_context(self.start_method)
        return _process_pool.ProcessPool(context, self._n_workers, _init_worker, (self.dataset,),
                                         _fetch_in_worker, self.maxtasksperchild)

    def _check_workers(self) -> None:
        # A worker that dies (a crash, the OOM killer, a dataset that cannot be unpickled in
        # the worker) never answers the task it held.
        pool = self._pool
        worker = None if pool is None else pool.dead_worker()
        if worker is not None:
            code = worker.exitcode
            self.finalize()
            raise RuntimeError(
                f'MultiprocessIterator: worker process {worker.pid} died with exit code '
                f'{code} while loading a batch. With start_method "spawn" or "forkserver" '
                f'the dataset, and every function it uses, must be picklable and '
                f'importable by the workers (defined at the top level of a module); '
                f'a crash or running out of memory also ends a worker')

    def _submit(self, pool: Any, chunks: list[list[int]]) -> Any:
        return pool.submit(chunks)

    def _unpack(self, chunk: Any) -> list:
        return _unpack(chunk)

    def _worker_pids(self) -> list[int]:
        # For tests and debugging.
        if self._pool is None:
            return []
        return [p.pid for p in self._pool.workers() if p.pid is not None]
