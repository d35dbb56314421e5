"""``chainermn.datasets.scatter``: chainlet's ``scatter_dataset`` and ``scatter_index``."""
from typing import Iterator

from chainlet.distributed.datasets import DataSizeError  # noqa: F401
from chainlet.distributed.datasets import scatter_dataset  # noqa: F401
from chainlet.distributed.datasets import scatter_index  # noqa: F401
from chainlet.distributed.datasets import shard_bounds


def _scatter_index(n_total_samples: int, size: int, force_equal_length: bool) -> Iterator:
    """ChainerMN's private generator of ``(rank, begin, end)``: :func:`shard_bounds`."""
    for i, (b, e) in enumerate(shard_bounds(n_total_samples, size, force_equal_length)):
        yield i, b, e
