"""``sparse_matmul``: batched product of a sparse COO matrix and a dense one, either order.

The sparse operand is a :class:`~chainlet.utils.CooMatrix`: its ``data`` (a Variable, the
differentiable part) and the fixed ``row``/``col`` indices, of shape ``(ldnz,)`` or
``(nb, ldnz)``; entries whose index is negative are padding. :class:`CooMatMul` computes
``C = op(A) op(B)`` with ``A`` sparse and ``B`` dense (``op`` an optional transposition of the
last two axes, and ``C`` itself optionally transposed, which gives dense-times-sparse);
:class:`CooMatMulGradSP` computes a dense product only at the sparse positions, which is the
gradient of ``A``'s data. Each node's gradients are the other node, so any order works.

No SciPy is needed: the products are a gather, a multiply and an unbuffered scatter-add
(``numpy.add.at`` / ``cupyx.scatter_add``) over the stored entries, accumulated in at least
float32 so that float16 inputs lose nothing to the sum.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def _check_indices(name: str, sp_row: Any, sp_col: Any, sp_shape: tuple) -> None:
    if sp_row.ndim != sp_col.ndim or sp_row.shape != sp_col.shape:
        raise ValueError(f'{name}: sp_row and sp_col must have the same shape, got '
                         f'{sp_row.shape} and {sp_col.shape}')
    if sp_row.ndim not in (1, 2):
        raise ValueError(f'{name}: sp_row and sp_col must have one or two axes, got shape '
                         f'{sp_row.shape}')
    if len(sp_shape) != 2:
        raise ValueError(f'{name}: sp_shape must have two entries, got {tuple(sp_shape)}')


def _batched(*arrays: Any) -> tuple:
    """Add a batch axis of one to 1-d index/data arrays (2-d matrices to 3-d)."""
    return tuple(a[None] for a in arrays)


def _scatter_add(xp: Any, target: Any, index: tuple, values: Any) -> None:
    if xp is numpy:
        numpy.add.at(target, index, values)
    else:
        import cupyx
        cupyx.scatter_add(target, index, values)


def _work_dtype(dtype: Any) -> numpy.dtype:
    return numpy.promote_types(dtype, numpy.float32)


def _valid_entries(xp: Any, row: Any, col: Any) -> tuple:
    """(batch index, row, col, position) of the non-padding entries of ``(nb, ldnz)`` indices."""
    b, k = xp.nonzero((row >= 0) & (col >= 0))
    return b, row[b, k], col[b, k], (b, k)


def coo_matmul_array(data: Any, row: Any, col: Any, sp_shape: tuple, dn: Any, transa: bool,
                     transb: bool, transc: bool, dtype: Any) -> Any:
    """``C = op(A) op(B)`` (``C^T`` when ``transc``) for a COO ``A`` with ``sp_shape``."""
    xp = backend.get_array_module(data, dn)
    if transa:
        row, col = col, row
        sp_shape = sp_shape[::-1]
    B = dn.swapaxes(-1, -2) if transb else dn
    single = B.ndim == 2
    if single:
        data, row, col, B = _batched(data, row, col, B)
    m, n = sp_shape[0], B.shape[-1]
    C = xp.zeros((B.shape[0], m, n), _work_dtype(dtype))
    b, r, c, pos = _valid_entries(xp, row, col)
    vals = data[pos].astype(C.dtype)[:, None] * B[b, c].astype(C.dtype)
    _scatter_add(xp, C, (b, r), vals)
    if single:
        C = C[0]
    if transc:
        C = C.swapaxes(-1, -2)
    return xp.ascontiguousarray(C.astype(dtype, copy=False))


def coo_matmul_gradsp_array(a: Any, b: Any, row: Any, col: Any, transa: bool, transb: bool,
                            transc: bool, dtype: Any) -> Any:
    """``(op(a) op(b))[row, col]`` at the stored positions, zero at padding."""
    xp = backend.get_array_module(a, b)
    A = a.swapaxes(-1, -2) if transa else a
    B = b.swapaxes(-1, -2) if transb else b
    if transc:
        row, col = col, row
    single = A.ndim == 2
    if single:
        row, col, A, B = _batched(row, col, A, B)
    out = xp.zeros(row.shape, dtype)
    bi, r, c, pos = _valid_entries(xp, row, col)
    work = _work_dtype(dtype)
    out[pos] = (A[bi, r, :].astype(work) * B[bi, :, c].astype(work)).sum(axis=-1)
    return out[0] if single else out


class CooMatMul(FunctionNode):
    """``C = op(A) op(B)`` for sparse ``A`` (inputs: its data, then dense ``B``).

    Args:
        sp_row, sp_col: Row and column indices of ``A``'s entries, ``(ldnz,)`` or
            ``(nb, ldnz)``; negative entries are padding.
        sp_shape: ``(m, k)``, the shape of one matrix ``A`` before ``transa``.
        sp_order: The ``order`` of the :class:`~chainlet.utils.CooMatrix` (``'C'``, ``'F'``
            or ``'other'``); accepted for Chainer's signature, the products do not need it.
        transa, transb: Transpose ``A`` / ``B`` first.
        transc: Return ``C^T``.
        dtype: Output dtype (default: the promotion of the two inputs' dtypes).
    """

    def __init__(self, sp_row: Any, sp_col: Any, sp_shape: tuple, sp_order: str = 'other',
                 transa: bool = False, transb: bool = False, transc: bool = False,
                 dtype: Any = None) -> None:
        _check_indices('CooMatMul', sp_row, sp_col, sp_shape)
        self.sp_row = sp_row
        self.sp_col = sp_col
        self.sp_shape = tuple(sp_shape)
        self.sp_order = sp_order
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = dtype

    @property
    def label(self) -> str:
        return 'sparse_matmul'

    def _check_arrays(self, in_data):
        type_check.count('sparse_matmul', in_data, 2)
        sp, dn = in_data
        type_check.argument('sparse_matmul', 'sp', sp, kind='f')
        type_check.argument('sparse_matmul', 'dn', dn, kind='f')
        if dn.ndim not in (2, 3):
            raise type_check.fail('sparse_matmul', 'dn', 'ndim 2 or 3', f'shape {dn.shape}')
        batch = () if dn.ndim == 2 else (self.sp_row.shape[0],)
        if sp.shape != batch + (self.sp_row.shape[-1],) or \
                self.sp_row.shape != batch + (self.sp_row.shape[-1],):
            raise type_check.fail('sparse_matmul', 'sp',
                                  f'shape {batch + (self.sp_row.shape[-1],)} (the shape of the '
                                  f'indices, {self.sp_row.ndim}-d for a {dn.ndim}-d dense '
                                  f'operand)', f'shape {sp.shape}')
        if dn.ndim == 3 and dn.shape[0] != self.sp_row.shape[0]:
            raise type_check.fail('sparse_matmul', 'dn',
                                  f'batch size {self.sp_row.shape[0]} (that of the sparse '
                                  f'operand)', f'shape {dn.shape}')
        k_sp = self.sp_shape[0 if self.transa else 1]
        k_dn = dn.shape[-1 if self.transb else -2]
        if k_sp != k_dn:
            raise type_check.fail('sparse_matmul', 'dn',
                                  f'{k_sp} on the contracted axis (sparse shape '
                                  f'{self.sp_shape}, transa={self.transa}, '
                                  f'transb={self.transb})', f'shape {dn.shape}')

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        sp, dn = inputs
        dtype = numpy.result_type(sp.dtype, dn.dtype) if self.dtype is None else self.dtype
        return coo_matmul_array(sp, self.sp_row, self.sp_col, self.sp_shape, dn, self.transa,
                                self.transb, self.transc, dtype),

    def backward(self, indexes, grad_outputs):
        sp, dn = self.get_retained_inputs()
        gc, = grad_outputs
        index = (self.sp_row, self.sp_col, self.sp_shape, self.sp_order)
        ret = []
        if 0 in indexes:
            ret.append(CooMatMulGradSP(*index, self.transc, not self.transb, self.transa,
                                       dtype=sp.dtype).apply((gc, dn))[0])
        if 1 in indexes:
            ret.append(CooMatMul(*index, not self.transa, self.transc, self.transb,
                                 dtype=dn.dtype).apply((sp, gc))[0])
        return tuple(ret)


class CooMatMulGradSP(FunctionNode):
    """``(op(a) op(b))`` taken at the positions ``(sp_row, sp_col)`` (transposed if ``transc``).

    Arguments as for :class:`CooMatMul`; ``sp_shape`` is the shape of the sparse result.
    """

    def __init__(self, sp_row: Any, sp_col: Any, sp_shape: tuple, sp_order: str = 'other',
                 transa: bool = False, transb: bool = False, transc: bool = False,
                 dtype: Any = None) -> None:
        _check_indices('CooMatMulGradSP', sp_row, sp_col, sp_shape)
        self.sp_row = sp_row
        self.sp_col = sp_col
        self.sp_shape = tuple(sp_shape)
        self.sp_order = sp_order
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = dtype

    @property
    def label(self) -> str:
        return 'sparse_matmul_grad'

    def _check_arrays(self, in_data):
        name = 'sparse_matmul_grad'
        type_check.count(name, in_data, 2)
        a, b = in_data
        type_check.argument(name, 'a', a, kind='f')
        type_check.argument(name, 'b', b, kind='f', ndim=a.ndim)
        if a.ndim not in (2, 3):
            raise type_check.fail(name, 'a', 'ndim 2 or 3', f'shape {a.shape}')
        m, k = (a.shape[-1], a.shape[-2]) if self.transa else a.shape[-2:]
        kb, n = (b.shape[-1], b.shape[-2]) if self.transb else b.shape[-2:]
        want = self.sp_shape[::-1] if self.transc else self.sp_shape
        if (m, n) != want or k != kb:
            raise type_check.fail(name, 'b', f'a product of shape {want}',
                                  f'a of shape {a.shape} and b of shape {b.shape}')
        if a.ndim == 3 and not a.shape[0] == b.shape[0] == self.sp_row.shape[0]:
            raise type_check.fail(name, 'b', f'batch size {self.sp_row.shape[0]}',
                                  f'a of shape {a.shape} and b of shape {b.shape}')

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        dtype = numpy.result_type(a.dtype, b.dtype) if self.dtype is None else self.dtype
        return coo_matmul_gradsp_array(a, b, self.sp_row, self.sp_col, self.transa,
                                       self.transb, self.transc, dtype),

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        g_sp, = grad_outputs
        index = (self.sp_row, self.sp_col, self.sp_shape, self.sp_order)
        ret = []
        if 0 in indexes:
            ret.append(CooMatMul(*index, self.transc, not self.transb, self.transa,
                                 dtype=a.dtype).apply((g_sp, b))[0])
        if 1 in indexes:
            ret.append(CooMatMul(*index, not self.transc, self.transa, not self.transb,
                                 dtype=b.dtype).apply((g_sp, a))[0])
        return tuple(ret)


def _is_coo(x: Any) -> bool:
    try:
        from chainlet.utils.sparse import CooMatrix
    except ImportError:  # the utilities not there: recognise the interface instead
        return all(hasattr(x, n) for n in ('data', 'row', 'col', 'shape')) and \
            not isinstance(x, Variable) and not backend.is_array(x)
    return isinstance(x, CooMatrix)


def sparse_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False,
                  dtype: Optional[Any] = None) -> Variable:
    """Batched product of a sparse COO matrix and a dense matrix, in either order.

    Computes ``C = op(a) op(b)`` where one operand is a :class:`~chainlet.utils.CooMatrix`
    (2-d, or 3-d with a batch axis) and the other a dense Variable or array, and ``op``
    transposes the last two axes when ``transa``/``transb`` is set. The gradient flows to the
    dense operand and to the sparse operand's ``data``.

    Args:
        a: Left operand: a ``CooMatrix`` or a dense Variable/array of floats.
        b: Right operand: the other kind.
        transa: Transpose each matrix of ``a`` first.
        transb: Transpose each matrix of ``b`` first.
        dtype: Output dtype (default: the promotion of the two dtypes).

    Returns:
        Dense Variable of shape ``((nb,) m, n)``.

    Raises:
        ValueError: Both or neither operand is sparse.
        InvalidType: The shapes do not fit.

    Example:
        >>> import numpy as np, chainlet.functions as F, chainlet.utils
        >>> a = chainlet.utils.to_coo(np.array([[0.0, 2.0], [1.0, 0.0]]))
        >>> F.sparse_matmul(a, np.array([[1.0, 2.0], [3.0, 4.0]])).array
        array([[6., 8.],
               [1., 2.]])
    """
    if _is_coo(a) and not _is_coo(b):
        return CooMatMul(a.row, a.col, a.shape, getattr(a, 'order', 'other'), transa=transa,
                         transb=transb, transc=False, dtype=dtype).apply((a.data, b))[0]
    if _is_coo(b) and not _is_coo(a):
        # a b = (b^T a^T)^T: the sparse operand goes first, every flag flips.
        return CooMatMul(b.row, b.col, b.shape, getattr(b, 'order', 'other'),
                         transa=not transb, transb=not transa, transc=True,
                         dtype=dtype).apply((b.data, a))[0]
    raise ValueError(f'sparse_matmul: exactly one operand must be a CooMatrix, got '
                     f'{type(a).__name__} and {type(b).__name__}')
