"""``from_data``: a tabular dataset from lists, arrays and per-row functions.

Design: every column spec becomes a small one-column dataset (``_Array``, ``_List``, or a
``transform`` of the row numbers ``_Index`` for a function), and several columns are
``join``-ed and given the requested mode. No data is copied.
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet import backend
from chainlet.dataset.tabular import tabular_dataset


def from_data(*args: Any, size: Optional[int] = None, **kwargs: Any
              ) -> tabular_dataset.TabularDataset:
    """Create a :class:`~chainlet.dataset.TabularDataset` from lists, arrays or functions.

    A *column* is a list or array (NumPy/CuPy), ``(key, list/array/function)``, or
    ``((key, ...), function)`` for a function returning several values (a tuple, or a dict
    by key) per row. A function receives the row number. Accepted forms (Chainer's):

    - ``from_data(column)``: one column, mode ``None``;
    - ``from_data((column, column, ...))``: mode ``tuple``;
    - ``from_data({key: data, ...})``: mode ``dict``;

    and, equivalently, ``from_data(column, column, ...)`` (mode ``tuple``),
    ``from_data(key=data)`` (one column, mode ``None``) and ``from_data(a=..., b=...)``
    (mode ``dict``). A column without a key gets a generated unique name.

    Args:
        *args: The column(s), as above.
        size: The number of rows; needed only when every column is a function.
        **kwargs: Keyed columns.

    Returns:
        A :class:`~chainlet.dataset.TabularDataset` (a view; the data are not copied).

    Raises:
        ValueError: for a function without a key or without a known size, or columns of
            different lengths.
        TypeError: for a column that is not a list, an array or a callable.

    Example:
        >>> import numpy as np
        >>> from chainlet.dataset import tabular
        >>> tabular.from_data([0, 1, 2])[0]
        0
        >>> ds = tabular.from_data((('a', np.arange(3)), ('b', [3, 4, 5])))
        >>> ds.keys, ds[1][1]
        (('a', 'b'), 4)
        >>> ds.convert(ds.slice[:2].fetch())
        (array([0, 1]), array([3, 4]))
        >>> sorted(tabular.from_data({'a': [0, 1, 2], 'b': [3, 4, 5]})[0].items())
        [('a', 0), ('b', 3)]
        >>> tabular.from_data(('sq', lambda i: i * i), size=10)[5]
        25
    """
    if not args and not kwargs:
        raise TypeError('from_data: no data given')
    mode: Optional[type]  # tuple, dict or None (one column)
    if len(args) == 1 and not kwargs:
        data = args[0]
        if isinstance(data, dict):
            specs, mode = list(data.items()), dict
        elif isinstance(data, tuple) and not _is_keyed(data):
            specs, mode = list(data), tuple
        else:
            specs, mode = [data], None
    elif args:
        specs, mode = list(args) + list(kwargs.items()), tuple
    else:
        specs, mode = list(kwargs.items()), (dict if len(kwargs) > 1 else None)

    specs = [spec if _is_keyed(spec) else (None, spec) for spec in specs]
    if size is None:
        size = next((len(d) for _, d in specs if not callable(d)), None)
    datasets = [_make_dataset(key, d, size) for key, d in specs]
    if mode is None:
        return datasets[0]
    joined = datasets[0].join(*datasets[1:])
    return joined.astuple() if mode is tuple else joined.asdict()


def _is_keyed(spec: Any) -> bool:
    return isinstance(spec, tuple) and len(spec) == 2 and (
        isinstance(spec[0], str)
        or (isinstance(spec[0], tuple) and all(isinstance(k, str) for k in spec[0])))


def _make_dataset(key: Any, data: Any, size: Optional[int]) -> tabular_dataset.TabularDataset:
    if isinstance(data, backend.get_array_types()):
        return _Array('_{}'.format(id(data)) if key is None else key, data)
    if isinstance(data, list):
        return _List('_{}'.format(id(data)) if key is None else key, data)
    if callable(data):
        if key is None:
            raise ValueError('from_data: a function column needs a key: (key, function)')
        if size is None:
            raise ValueError('from_data: size= is needed when every column is a function')
        return _Index(size).transform(key, data)
    raise TypeError(f'from_data: a column must be a list, an array or a callable, got '
                    f'{type(data).__name__}')


class _List(tabular_dataset.TabularDataset):
    """One named column held in a list; every requested key gets the same column."""

    def __init__(self, key: str, data: Any) -> None:
        self._key = key
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    @property
    def keys(self) -> tuple:
        return (self._key,)

    @property
    def mode(self) -> Any:
        return None

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        n = 1 if key_indices is None else len(key_indices)
        return (self._rows(indices),) * n

    def _rows(self, indices: Any) -> Any:
        if indices is None:
            return self._data
        if isinstance(indices, slice):
            return self._data[indices]
        return [self._data[i] for i in indices]


class _Array(_List):
    """One named column held in a NumPy/CuPy array (rows read by array indexing)."""

    def _rows(self, indices: Any) -> Any:
        return self._data if indices is None else self._data[indices]


class _Index(tabular_dataset.TabularDataset):
    """The row numbers ``0 .. size-1`` as a column named ``'index'``."""

    def __init__(self, size: int) -> None:
        self._size = size

    def __len__(self) -> int:
        return self._size

    @property
    def keys(self) -> tuple:
        return ('index',)

    @property
    def mode(self) -> Any:
        return None

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        if indices is None:
            indices = slice(None)
        if isinstance(indices, slice):
            indices = list(range(*indices.indices(self._size)))
        n = 1 if key_indices is None else len(key_indices)
        return (list(indices),) * n
