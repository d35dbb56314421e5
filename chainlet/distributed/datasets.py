"""``scatter_dataset``: give every process its own shard of rank ``root``'s dataset (and
``scatter_index``, which hands out only the bounds)."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet.distributed import _mpi


class DataSizeError(RuntimeError):
    """A dataset's size does not fit the operation (ChainerMN's name)."""


def shard_bounds(n_total: int, size: int, force_equal_length: bool = True) -> list:
    """The ``(begin, end)`` positions of each of ``size`` shards of ``n_total`` examples.

    With ``force_equal_length`` (default) every shard holds ``ceil(n_total / size)``
    examples; shard ``i`` begins at ``floor(n_total * i / size)``, so when ``size`` does not
    divide ``n_total`` neighbouring shards share a few examples (the same layout as ChainerMN).
    Every process then runs the same number of iterations per epoch, which keeps the
    collectives in step. Without it the shards are disjoint and cover every example once, the
    first ``n_total % size`` holding one more (for an exact evaluation of a test set).

    Example:
        >>> from chainlet.distributed import shard_bounds
        >>> shard_bounds(10, 4)
        [(0, 3), (2, 5), (5, 8), (7, 10)]
        >>> shard_bounds(8, 2)
        [(0, 4), (4, 8)]
        >>> shard_bounds(10, 3, force_equal_length=False)
        [(0, 4), (4, 7), (7, 10)]
    """
    if isinstance(size, bool) or not isinstance(size, (int, numpy.integer)) or size <= 0:
        raise ValueError(f'shard_bounds: argument size: expected a positive int, got {size!r}')
    if isinstance(n_total, bool) or not isinstance(n_total, (int, numpy.integer)) \
            or n_total < 0:
        raise ValueError(f'shard_bounds: argument n_total: expected an int >= 0, got '
                         f'{n_total!r}')
    if force_equal_length:
        n_sub = -(-n_total // size)
        return [(n_total * i // size, n_total * i // size + n_sub) for i in range(size)]
    base, extra = divmod(n_total, size)
    bounds, begin = [], 0
    for i in range(size):
        end = begin + base + (1 if i < extra else 0)
        bounds.append((begin, end))
        begin = end
    return bounds


def scatter_index(n_total_samples: int, comm: Any, root: int = 0, *,
                  force_equal_length: bool = True) -> tuple:
    """This process's ``(begin, end)`` of :func:`shard_bounds`, decided by ``root``
    (collective).

    Scatters only the bounds, for processes that each hold the whole dataset already::

        b, e = scatter_index(len(dataset), comm)
        dataset = chainlet.datasets.SubDataset(dataset, b, e)

    Args:
        n_total_samples: The number of examples (read on ``root``).
        comm: A communicator from :func:`create_communicator`.
        root: The rank that decides.
        force_equal_length: See :func:`shard_bounds`.

    Returns:
        ``(begin, end)``, end excluded.
    """
    if comm.rank == root:
        mine: tuple = ()
        for i, bounds in enumerate(shard_bounds(n_total_samples, comm.size,
                                                force_equal_length)):
            if i == root:
                mine = bounds
            else:
                comm.send_obj(bounds, dest=i)
        return mine
    return comm.recv_obj(source=root)


def create_empty_dataset(dataset: Any) -> list:
    """A dataset of ``len(dataset)`` empty tuples, for a model part whose inputs come from
    other processes (its forward starts with ``recv``) but which must iterate in step.

    Example:
        >>> from chainlet.distributed import create_empty_dataset
        >>> create_empty_dataset([5, 6, 7])
        [(), (), ()]
    """
    return [()] * len(dataset)


def _take(dataset: Any, index: numpy.ndarray) -> Any:
    """The examples ``index`` of ``dataset`` as a compact dataset (only these get sent)."""
    from chainlet.datasets import TupleDataset
    if isinstance(dataset, numpy.ndarray):
        return dataset[index]
    if type(dataset) is TupleDataset and all(
            isinstance(d, numpy.ndarray) for d in dataset.datasets):
        return TupleDataset(*(d[index] for d in dataset.datasets))
    return [dataset[int(i)] for i in index]


def scatter_dataset(dataset: Any, comm: Any, root: int = 0, shuffle: bool = False,
                    seed: Optional[int] = None,
                    max_buf_len: int = _mpi.DEFAULT_MAX_BUF_LEN, *,
                    force_equal_length: bool = True) -> Any:
    """Split rank ``root``'s dataset into one shard per process and send each its own
    (collective).

    Only the root needs the data (other processes may pass ``None``); each process receives
    only its shard. Shards all have ``ceil(N / size)`` examples, laid out by
    :func:`shard_bounds` (a few examples are shared by neighbouring shards when ``size`` does
    not divide ``N``).

    Args:
        dataset: The dataset on ``root`` (a list, an ndarray, a ``TupleDataset``, any
            dataset); ignored elsewhere.
        comm: A communicator from :func:`create_communicator`.
        root: The rank that holds the data.
        shuffle: Permute the examples before splitting.
        seed: Seed of the permutation (``numpy.random.RandomState``); ``None`` draws one.
        max_buf_len: Largest message in bytes; bigger shards are sent in chunks.
        force_equal_length: Equal shards, neighbours sharing a few examples (default; what
            training needs), or disjoint shards of sizes differing by one (see
            :func:`shard_bounds`).

    Returns:
        A :class:`~chainlet.datasets.SubDataset` holding this process's shard.

    Example (under ``mpiexec -n 2``)::

        train = chainlet.datasets.get_digits()[0] if comm.rank == 0 else None
        train = chainlet.distributed.scatter_dataset(train, comm, shuffle=True, seed=0)
    """
    from chainlet.datasets import SubDataset
    size = comm.size
    if isinstance(root, bool) or not isinstance(root, (int, numpy.integer)) \
            or not 0 <= root < size:
        raise ValueError(f'scatter_dataset: argument root: expected an int in [0, {size}), '
                         f'got {root!r}')
    max_buf_len = _mpi.check_max_buf_len('scatter_dataset', max_buf_len)
    if comm.rank == root:
        if dataset is None:
            raise ValueError(f'scatter_dataset: argument dataset: the root (rank {root}) must '
                             f'pass the dataset, got None')
        n_total = len(dataset)
        order = numpy.random.RandomState(seed).permutation(n_total) if shuffle \
            else numpy.arange(n_total)
        mine: Any = None  # set when the loop reaches the root's own shard
        for i, (b, e) in enumerate(shard_bounds(n_total, size, force_equal_length)):
            shard = _take(dataset, order[b:e])
            if i == root:
                mine = shard
            else:
                comm.send_obj(shard, dest=i, tag=0, max_buf_len=max_buf_len)
    else:
        mine = comm.recv_obj(source=root, tag=0, max_buf_len=max_buf_len)
    return SubDataset(mine, 0, len(mine))
