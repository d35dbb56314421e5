"""Sparse matrices in coordinate (COO) format, the input of ``functions.sparse_matmul``.

A :class:`CooMatrix` holds three equally shaped arrays: the values ``data`` (wrapped in a
``Variable`` so that gradients can flow into them), and their ``row`` and ``col`` indices. A
batch of matrices has 2-d arrays, one row per matrix. Arrays may be longer than the number of
stored entries (so that every matrix of a batch has the same length); the unused slots hold
value 0 at index -1. Entries with the same index add up, as in SciPy.

``order`` records how the entries are sorted: ``'C'`` (by row, then column), ``'F'`` (by
column, then row) or ``'other'``; ``sparse_matmul`` uses it to pick a faster kernel.

Example:
    >>> import numpy as np
    >>> x = to_coo(np.array([[0, 2, 0], [-1, 0, 0]], np.float32))
    >>> x.data.array, x.row, x.col, x.shape, x.order
    (array([ 2., -1.], dtype=float32), array([0, 1], dtype=int32), array([1, 0], dtype=int32), (2, 3), 'C')
    >>> x.to_dense()
    array([[ 0.,  2.,  0.],
           [-1.,  0.,  0.]], dtype=float32)
"""  # noqa: E501
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import backend


class CooMatrix:
    """A sparse matrix, or a batch of them, in COO format.

    Args:
        data: Values of the entries: shape ``(nnz,)``, or ``(batch, nnz)`` for a batch.
        row: Row indices of the entries, same shape as ``data`` (``-1`` marks an unused slot).
        col: Column indices of the entries, same shape as ``data``.
        shape: ``(rows, cols)`` of the dense matrix (of each matrix of a batch).
        order: ``'C'``, ``'F'``, ``'other'``, or ``None`` to find it from ``row`` and ``col``
            with :func:`get_order`.
        requires_grad: Whether ``data`` (a ``Variable``) gets a gradient in backward.

    Attributes:
        data: A ``Variable`` wrapping the values.
        row, col: The index arrays.
        shape: The dense shape of one matrix.
        order: As above, never ``None``.

    Raises:
        ValueError: ``data`` is not 1-d or 2-d, the three arrays differ in ndim, ``shape`` is not
            two positive ints, or ``order`` is not one of the accepted values.
    """

    def __init__(self, data: Any, row: Any, col: Any, shape: Sequence[int],
                 order: Optional[str] = None, requires_grad: bool = False) -> None:
        # Imported here: chainlet.utils sits below the core, which imports it.
        from chainlet.variable import Variable

        if not 1 <= data.ndim <= 2:
            raise ValueError(f'CooMatrix: argument data: expected ndim 1 or 2, got shape '
                             f'{data.shape}')
        if not data.ndim == row.ndim == col.ndim:
            raise ValueError(f'CooMatrix: data, row and col must have the same ndim, got shapes '
                             f'{data.shape}, {row.shape} and {col.shape}')
        if len(shape) != 2:
            raise ValueError(f'CooMatrix: argument shape: expected (rows, cols), got {shape!r}')
        if not (shape[0] > 0 and shape[1] > 0):
            raise ValueError(f'CooMatrix: argument shape: expected positive sizes, got {shape!r}')
        if order not in ('C', 'F', 'other', None):
            raise ValueError(f"CooMatrix: argument order: expected 'C', 'F', 'other' or None, "
                             f"got {order!r}")
        self.data = Variable(data, requires_grad=requires_grad)
        self.row = row
        self.col = col
        self.shape = tuple(shape)
        self.order = get_order(row, col) if order is None else order

    def to_dense(self) -> Any:
        """Return the dense matrix (or batch of matrices); duplicate entries are summed."""
        data = self.data.array
        xp = backend.get_array_module(data)
        used = (self.row >= 0) & (self.col >= 0)
        index: tuple  # (row, col) indexes, with the batch index first for a batch
        if data.ndim == 1:
            dense = xp.zeros(self.shape, dtype=data.dtype)
            index = (self.row[used], self.col[used])
        else:
            dense = xp.zeros((data.shape[0],) + self.shape, dtype=data.dtype)
            batch = xp.broadcast_to(xp.arange(data.shape[0])[:, None], data.shape)
            index = (batch[used], self.row[used], self.col[used])
        values = data[used]
        if xp is numpy:
            numpy.add.at(dense, index, values)
        else:
            import cupyx
            cupyx.scatter_add(dense, index, values)
        return dense


def to_coo(x: Any, ldnz: Optional[int] = None, requires_grad: bool = False) -> CooMatrix:
    """Return the nonzero entries of a dense matrix (or a batch of them) as a :class:`CooMatrix`.

    Args:
        x: A 2-d array (one matrix) or a 3-d array (a batch along the first axis).
        ldnz: Length of the ``data``, ``row`` and ``col`` arrays; the length used is the larger
            of this and the largest number of nonzeros of one matrix. Unused slots hold value 0
            at index -1.
        requires_grad: Whether the values get a gradient in backward.

    Returns:
        A :class:`CooMatrix` with ``int32`` indices in C order.

    Raises:
        ValueError: ``x`` is not 2-d or 3-d.

    Example:
        >>> import numpy as np
        >>> x = to_coo(np.eye(2, dtype=np.float32), ldnz=3)
        >>> x.row, x.col
        (array([ 0,  1, -1], dtype=int32), array([ 0,  1, -1], dtype=int32))
    """
    xp = backend.get_array_module(x)
    if x.ndim == 2:
        data, row, col = _to_coo_arrays(xp, x, ldnz)
        return CooMatrix(data, row, col, x.shape, requires_grad=requires_grad)
    if x.ndim == 3:
        most = max([int(xp.count_nonzero(m)) for m in x], default=0)
        length = most if ldnz is None else max(ldnz, most)
        data = xp.zeros((len(x), length), dtype=x.dtype)
        row = xp.full((len(x), length), -1, dtype=numpy.int32)
        col = xp.full((len(x), length), -1, dtype=numpy.int32)
        for i, m in enumerate(x):
            data[i], row[i], col[i] = _to_coo_arrays(xp, m, length)
        return CooMatrix(data, row, col, x.shape[1:], requires_grad=requires_grad)
    raise ValueError(f'to_coo: argument x: expected ndim 2 or 3, got shape {x.shape}')


def _to_coo_arrays(xp: Any, x: Any, ldnz: Optional[int]) -> tuple:
    # Values and int32 indices of the nonzeros of one matrix, padded to ``ldnz`` slots.
    rows, cols = xp.nonzero(x)
    nnz = len(rows)
    length = nnz if ldnz is None or ldnz < nnz else ldnz
    data = xp.zeros(length, dtype=x.dtype)
    row = xp.full(length, -1, dtype=numpy.int32)
    col = xp.full(length, -1, dtype=numpy.int32)
    data[:nnz] = x[rows, cols]
    row[:nnz] = rows
    col[:nnz] = cols
    return data, row, col


def get_order(row: Any, col: Any) -> str:
    """How the entries of a COO matrix are sorted.

    Args:
        row: Row indices (1-d, or 2-d for a batch); ``-1`` marks unused slots.
        col: Column indices, same shape.

    Returns:
        ``'C'`` when sorted by row and then column, ``'F'`` when sorted by column and then row
        (``'C'`` wins when both hold), ``'other'`` otherwise.

    Raises:
        ValueError: ``row`` and ``col`` differ in shape, or one is ``-1`` where the other is
            not.

    Example:
        >>> import numpy as np
        >>> get_order(np.array([0, 1, 1]), np.array([2, 0, 1]))
        'C'
        >>> get_order(np.array([1, 0, 1]), np.array([0, 1, 1]))
        'F'
    """
    if _is_c_order(row, col):
        return 'C'
    if _is_c_order(col, row):
        return 'F'
    return 'other'


def _is_c_order(row: Any, col: Any) -> bool:
    # True when the used entries are sorted by ``row`` and, within a row, by ``col``.
    if row.shape != col.shape:
        raise ValueError(f'get_order: row and col must have the same shape, got {row.shape} '
                         f'and {col.shape}')
    if row.ndim != 1:
        return all(_is_c_order(r, c) for r, c in zip(row, col))
    xp = backend.get_array_module(row)
    row_used = row[col >= 0]
    col_used = col[row >= 0]
    if row_used.shape != col_used.shape or bool((row_used < 0).any()) \
            or bool((col_used < 0).any()):
        raise ValueError('get_order: invalid index combination of row and col: an index is -1 '
                         'where the other is not')
    if row_used.size <= 1:
        return True
    row_step = xp.diff(row_used)
    if bool((row_step < 0).any()):
        return False
    col_step = xp.diff(col_used)
    # Only steps inside one row must not decrease.
    return not bool(((col_step < 0) & (row_step == 0)).any())
