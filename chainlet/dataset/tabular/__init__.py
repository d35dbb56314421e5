"""Tabular datasets (Chainer's ``chainer.dataset.tabular``): column-wise data and lazy views.

:class:`~chainlet.dataset.TabularDataset` (defined in ``tabular_dataset``) is the base class;
this package adds :func:`from_data` and :class:`DelegateDataset`. The private
modules hold the views that ``TabularDataset``'s methods return (``_slice``, ``_concat``,
``_join``, ``_transform``, ``_asmode``, ``_with_converter``).

Example:
    >>> from chainlet.dataset import tabular
    >>> ds = tabular.from_data({'x': [1, 2, 3], 'y': [4, 5, 6]})
    >>> ds.slice[1:, 'x'].fetch()
    [2, 3]
"""
from __future__ import annotations

from chainlet.dataset.tabular import _asmode  # noqa: F401
from chainlet.dataset.tabular import _concat  # noqa: F401
from chainlet.dataset.tabular import _join  # noqa: F401
from chainlet.dataset.tabular import _slice  # noqa: F401
from chainlet.dataset.tabular import _transform  # noqa: F401
from chainlet.dataset.tabular import _with_converter  # noqa: F401
from chainlet.dataset.tabular.delegate_dataset import DelegateDataset  # noqa: F401
from chainlet.dataset.tabular.from_data import from_data  # noqa: F401
from chainlet.dataset.tabular.tabular_dataset import TabularDataset  # noqa: F401
