"""``TabularDataset``: a dataset whose examples all have the same named columns.

Design: a tabular dataset answers one question, ``get_examples(indices, key_indices)``, with
whole *columns* (one list or array per requested key). Everything else is a lazy view built
on that question: ``slice`` narrows rows and columns, ``concat`` stacks rows, ``join`` stacks
columns, ``transform`` / ``transform_batch`` compute new columns, ``astuple`` / ``asdict``
change how an example is presented, and ``with_converter`` changes how fetched columns become
model inputs. A view never copies data; it rewrites the question and forwards it, so that a
chain of views over a large dataset reads only the rows and columns finally asked for.

``mode`` says how one example looks: ``tuple`` (``(a[i], b[i])``), ``dict``
(``{'a': a[i], 'b': b[i]}``) or ``None`` (a bare value; only for a single column).
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Optional, Sequence, Union

import numpy

from chainlet import backend
from chainlet.dataset.dataset_mixin import DatasetMixin

Indices = Union[None, slice, Sequence[int]]
KeyIndices = Optional[Sequence[int]]


class TabularDataset(DatasetMixin):
    """Abstract base of datasets made of equally long, named columns.

    A subclass implements ``__len__``, :attr:`keys`, :attr:`mode` and :meth:`get_examples`;
    indexing (``dataset[i]``, slices, index lists), iteration, :meth:`fetch` and all views
    come from this class.

    Example:
        >>> import numpy as np
        >>> from chainlet.dataset import TabularDataset
        >>> class Table(TabularDataset):
        ...     data = np.arange(12).reshape(3, 4)     # 3 columns of 4 rows
        ...     def __len__(self):
        ...         return 4
        ...     @property
        ...     def keys(self):
        ...         return ('a', 'b', 'c')
        ...     @property
        ...     def mode(self):
        ...         return tuple
        ...     def get_examples(self, indices, key_indices):
        ...         cols = self.data if indices is None else self.data[:, indices]
        ...         if key_indices is not None:
        ...             cols = cols[list(key_indices)]
        ...         return tuple(col.tolist() for col in cols)
        >>> table = Table()
        >>> table[1]
        (1, 5, 9)
        >>> view = table.slice[[3, 2], ('c', 0)]
        >>> view.keys, len(view)
        (('c', 'a'), 2)
        >>> sorted(view.asdict()[0].items())
        [('a', 3), ('c', 11)]
    """

    def __len__(self) -> int:
        raise NotImplementedError

    @property
    def keys(self) -> tuple:
        """The column names, a tuple of strings."""
        raise NotImplementedError

    @property
    def mode(self) -> Any:
        """How an example is presented: ``tuple``, ``dict`` or ``None`` (one bare value)."""
        raise NotImplementedError

    def get_examples(self, indices: Indices, key_indices: KeyIndices) -> tuple:
        """Return some rows of some columns, column by column.

        Args:
            indices: The rows: a slice or a list of non-negative ints; ``None`` means all.
            key_indices: Positions in :attr:`keys` of the columns; ``None`` means all.

        Returns:
            A tuple with one list or array per requested column.
        """
        raise NotImplementedError

    @property
    def slice(self) -> Any:
        """A view of some rows and columns: ``dataset.slice[indices, keys]``.

        ``indices`` is a slice, a list/array of ints (negative counts from the end) or a
        boolean mask as long as the dataset. ``keys`` (optional) is a tuple of names or
        positions, which keeps :attr:`mode` (``None`` becomes ``tuple``), or a single name or
        position, which gives a one-column view of mode ``None``.
        """
        from chainlet.dataset.tabular import _slice
        return _slice._SliceHelper(self)

    def fetch(self) -> Any:
        """Read the whole dataset (or view) column by column.

        Returns:
            A tuple of columns (mode ``tuple``), a dict from key to column (mode ``dict``), or
            the only column (mode ``None``); each column a list or an array.
        """
        return self._present(self.get_examples(None, None))

    def convert(self, data: Any) -> Any:
        """Turn what :meth:`fetch` returned into arrays (each column becomes one ndarray).

        :meth:`with_converter` replaces this step; views built by ``concat`` and ``join`` use
        the converter of their first dataset.

        Args:
            data: A tuple, a dict or a single column, as returned by :meth:`fetch`.

        Returns:
            The same structure with each column an ndarray.
        """
        if isinstance(data, tuple):
            return tuple(_as_array(col) for col in data)
        if isinstance(data, dict):
            return {key: _as_array(col) for key, col in data.items()}
        return _as_array(data)

    def astuple(self) -> TabularDataset:
        """A view of this dataset whose :attr:`mode` is ``tuple``."""
        from chainlet.dataset.tabular import _asmode
        return _asmode._Astuple(self)

    def asdict(self) -> TabularDataset:
        """A view of this dataset whose :attr:`mode` is ``dict``."""
        from chainlet.dataset.tabular import _asmode
        return _asmode._Asdict(self)

    def concat(self, *datasets: TabularDataset) -> TabularDataset:
        """Stack datasets with the same :attr:`keys` after this one, row-wise.

        Raises:
            ValueError: when the keys (names and order) differ.
        """
        from chainlet.dataset.tabular import _concat
        return _concat._Concat(self, *datasets)

    def join(self, *datasets: TabularDataset) -> TabularDataset:
        """Put the columns of equally long datasets beside those of this one.

        Raises:
            ValueError: when the lengths differ or a key appears twice.
        """
        from chainlet.dataset.tabular import _join
        return _join._Join(self, *datasets)

    def transform(self, keys: Any, transform: Callable[..., Any]) -> TabularDataset:
        """A view computing new columns ``keys`` from each example.

        ``transform`` receives an example as positional arguments (mode ``tuple`` or ``None``)
        or keyword arguments (mode ``dict``) and returns a tuple, a dict or, for one key, a
        bare value; that return type becomes the view's :attr:`mode`.
        """
        from chainlet.dataset.tabular import _transform
        return _transform._Transform(self, keys, transform)

    def transform_batch(self, keys: Any, transform_batch: Callable[..., Any]) -> TabularDataset:
        """Like :meth:`transform`, but ``transform_batch`` receives and returns whole columns.

        It must return columns as long as the ones it received.
        """
        from chainlet.dataset.tabular import _transform
        return _transform._TransformBatch(self, keys, transform_batch)

    def with_converter(self, converter: Callable[..., Any]) -> TabularDataset:
        """A view whose :meth:`convert` calls ``converter`` with the fetched columns.

        The columns are passed as positional arguments (mode ``tuple``), keyword arguments
        (mode ``dict``) or one argument (mode ``None``).
        """
        from chainlet.dataset.tabular import _with_converter
        return _with_converter._WithConverter(self, converter)

    def get_example(self, i: int) -> Any:
        """The ``i``-th example, presented according to :attr:`mode`."""
        return self._present(tuple(col[0] for col in self.get_examples([i], None)))

    def __iter__(self) -> Iterator[Any]:
        return (self.get_example(i) for i in range(len(self)))

    def _present(self, values: tuple) -> Any:
        # One code path for an example and for fetched columns: both are "one value per key".
        mode = self.mode
        if mode is tuple:
            return tuple(values)
        if mode is dict:
            return dict(zip(self.keys, values))
        if mode is None:
            return values[0]
        raise ValueError(f'{type(self).__name__}: mode must be tuple, dict or None, '
                         f'got {mode!r}')


def _as_array(col: Any) -> Any:
    """One column as an array, on the device of its first element (CPU for plain values)."""
    if isinstance(col, backend.get_array_types()):
        return col
    if len(col) == 0:
        return numpy.asarray(col)
    device = backend.get_device_from_array(col[0])
    with backend.using_device(device):
        return device.xp.asarray(col)
