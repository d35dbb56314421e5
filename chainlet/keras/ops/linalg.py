"""``keras.ops.linalg``: inverse, determinant, solve, Cholesky, norms, and decompositions.

``inv``, ``det``, ``solve``, ``solve_triangular``, ``cholesky`` and ``norm`` are differentiable
and take batches of matrices (leading axes). ``qr``, ``svd``, ``eig``, ``eigh``, ``lstsq`` and
``lu_factor`` run on the arrays without a gradient (chainlet has no differentiable
decompositions); their results are cut from the graph.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import ops
    >>> ops.det(np.array([[2.0, 0.0], [0.0, 3.0]])).item()
    6.0
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet.keras.ops._dispatch import axis_tuple, keras_op, promote, to_float


def _square(name: str, x: Any) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f'keras.ops.{name}: expected (batches of) square matrices, got shape '
                         f'{tuple(x.shape)}')


@keras_op('x', module='linalg')
def inv(x: Any) -> Any:
    """Matrix inverse (of every matrix in a batch)."""
    x = to_float(x)
    _square('inv', x)
    if x.ndim == 2:
        return F.inv(x)
    n = x.shape[-1]
    return F.reshape(F.batch_inv(F.reshape(x, (-1, n, n))), x.shape)


@keras_op('x', module='linalg')
def det(x: Any) -> Any:
    """Determinant (of every matrix in a batch)."""
    x = to_float(x)
    _square('det', x)
    n = x.shape[-1]
    return F.reshape(F.batch_det(F.reshape(x, (-1, n, n))), x.shape[:-2])


@keras_op('a', 'b', module='linalg')
def solve(a: Any, b: Any) -> Any:
    """``x`` with ``a @ x = b`` (``b`` a vector or a matrix per batch)."""
    a, b = promote(a, b, floating=True)
    _square('solve', a)
    ainv = inv.impl(a)
    if b.ndim == a.ndim - 1:
        return F.squeeze(F.matmul(ainv, F.expand_dims(b, b.ndim)), -1)
    return F.matmul(ainv, b)


@keras_op('a', 'b', module='linalg')
def solve_triangular(a: Any, b: Any, lower: bool = False) -> Any:
    """``solve`` for a triangular ``a`` (only its ``lower`` or upper triangle is read)."""
    a, b = promote(a, b, floating=True)
    _square('solve_triangular', a)
    xp = a.xp
    n = a.shape[-1]
    mask = xp.tri(n, dtype=a.dtype) if lower else xp.tri(n, dtype=a.dtype).T
    return solve.impl(a * mask, b)


@keras_op('x', module='linalg')
def cholesky(x: Any, upper: bool = False) -> Any:
    """Cholesky factor ``L`` with ``x = L @ L.T`` (``U = L.T`` with ``upper=True``)."""
    x = to_float(x)
    _square('cholesky', x)
    n = x.shape[-1]
    flat = F.reshape(x, (-1, n, n))
    factors = [F.cholesky(flat[i]) for i in range(flat.shape[0])]
    out = F.reshape(F.stack(factors), x.shape) if factors else x * 0
    return F.swapaxes(out, -1, -2) if upper else out


@keras_op('x', module='linalg')
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Vector norms (``ord`` None/2, 1, inf, -inf, 0 or p) over one axis, Frobenius norm
    (``ord`` None/'fro') over two; with ``axis=None`` the flattened vector's 2-norm or the
    Frobenius norm of a matrix."""
    x = to_float(x)
    axes = axis_tuple(axis, x.ndim)
    if axes is None:
        axes = tuple(range(x.ndim))
        if ord is not None and x.ndim > 2:
            raise ValueError('keras.ops.norm: ord needs axis for inputs of rank > 2')
    if len(axes) == 2:
        if ord in (None, 'fro'):
            return F.sqrt(F.sum(F.square(x), axis=axes, keepdims=keepdims))
        if ord in (1, -1, numpy.inf, -numpy.inf):
            a0, a1 = axes
            if ord in (numpy.inf, -numpy.inf):
                a0, a1 = a1, a0
            sums = F.sum(F.absolute(x), axis=a0, keepdims=True)
            red = F.max if ord in (1, numpy.inf) else F.min
            return red(sums, axis=a1 if a1 < a0 else a1, keepdims=True) if keepdims else \
                F.reshape(red(sums, axis=a1, keepdims=True),
                          tuple(s for i, s in enumerate(x.shape) if i not in axes))
        raise ValueError(f"keras.ops.norm: matrix ord must be None, 'fro', 1, -1, inf or -inf "
                         f'(the spectral and nuclear norms need a differentiable SVD), got '
                         f'{ord!r}')
    if len(axes) != 1 and ord is not None:
        raise ValueError(f'keras.ops.norm: ord={ord!r} needs one axis or two, got {axis!r}')
    if ord is None or ord == 2:
        return F.sqrt(F.sum(F.square(x), axis=axes, keepdims=keepdims))
    a = F.absolute(x)
    if ord == numpy.inf:
        return F.max(a, axis=axes, keepdims=keepdims)
    if ord == -numpy.inf:
        return F.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return F.sum((x.array != 0).astype(x.dtype) + 0 * x, axis=axes, keepdims=keepdims)
    if ord == 1:
        return F.sum(a, axis=axes, keepdims=keepdims)
    p = float(ord)
    return F.sum(a ** p, axis=axes, keepdims=keepdims) ** (1.0 / p)


@keras_op('x', module='linalg')
def cholesky_inverse(x: Any, upper: bool = False) -> Any:
    """The inverse of ``L @ L.T`` from its Cholesky factor ``L`` (``U.T @ U`` with ``upper``)."""
    x = to_float(x)
    _square('cholesky_inverse', x)
    a = F.matmul(F.swapaxes(x, -1, -2), x) if upper else F.matmul(x, F.swapaxes(x, -1, -2))
    return inv.impl(a)


def _decomposition(x: Any) -> Any:
    a = to_float(x).array
    return a, (a.dtype if a.dtype.kind == 'f' else numpy.dtype('float32'))


@keras_op('x', module='linalg')
def qr(x: Any, mode: str = 'reduced') -> Any:
    """``(q, r)`` factors (``mode`` 'reduced' or 'complete'); no gradient."""
    if mode not in ('reduced', 'complete'):
        raise ValueError(f"keras.ops.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    a, _ = _decomposition(x)
    return tuple(x.xp.linalg.qr(a, mode=mode))


@keras_op('x', module='linalg')
def svd(x: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """``(u, s, vh)``, or the singular values ``s`` alone; no gradient."""
    a, _ = _decomposition(x)
    out = x.xp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


@keras_op('x', module='linalg')
def eigh(x: Any) -> Any:
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices; no gradient."""
    a, _ = _decomposition(x)
    return tuple(x.xp.linalg.eigh(a))


@keras_op('x', module='linalg')
def eig(x: Any) -> Any:
    """Eigenvalues and eigenvectors of general matrices (NumPy arrays only); no gradient."""
    a, _ = _decomposition(x)
    if x.xp is not numpy:
        raise TypeError('keras.ops.eig: CuPy has no general eigendecomposition; use eigh for '
                        'symmetric matrices or move the input to the CPU')
    return tuple(numpy.linalg.eig(a))


@keras_op('a', 'b', module='linalg')
def lstsq(a: Any, b: Any, rcond: Optional[float] = None) -> Any:
    """Least-squares solution of ``a @ x = b``; no gradient."""
    a, b = promote(a, b, floating=True)
    return a.xp.linalg.lstsq(a.array, b.array, rcond=rcond)[0]


@keras_op('x', module='linalg')
def lu_factor(x: Any) -> Any:
    """``(lu, pivots)``: packed LU factors with row pivots (partial pivoting); no gradient."""
    a, dtype = _decomposition(x)
    a = numpy.array(numpy.asarray(a), dtype=dtype)
    n = a.shape[-1]
    flat = a.reshape(-1, n, n)
    piv = numpy.zeros(flat.shape[:-1], 'int32')
    for m, p in zip(flat, piv):
        for k in range(n):
            i = k + int(numpy.argmax(numpy.abs(m[k:, k])))
            p[k] = i
            if i != k:
                m[[k, i]] = m[[i, k]]
            if m[k, k] != 0:
                m[k + 1:, k] /= m[k, k]
                m[k + 1:, k + 1:] -= numpy.outer(m[k + 1:, k], m[k, k + 1:])
    return x.xp.asarray(flat.reshape(a.shape)), x.xp.asarray(piv.reshape(a.shape[:-1]))


__all__ = ['inv', 'det', 'solve', 'solve_triangular', 'cholesky', 'cholesky_inverse', 'norm',
           'qr', 'svd', 'eigh', 'eig', 'lstsq', 'lu_factor']
