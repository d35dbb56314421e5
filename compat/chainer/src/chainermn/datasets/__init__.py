"""``chainermn.datasets``: :mod:`chainlet.distributed.datasets` under ChainerMN's path."""
from chainermn.datasets.empty_dataset import create_empty_dataset  # noqa: F401
from chainermn.datasets.scatter import DataSizeError  # noqa: F401
from chainermn.datasets.scatter import scatter_dataset  # noqa: F401
from chainermn.datasets.scatter import scatter_index  # noqa: F401
