"""``generate_matrix``: random matrices with chosen singular values (well-conditioned inputs
for tests of ``inv``, ``det``, ``cholesky`` ...).

Example:
    >>> import numpy as np
    >>> from chainlet import testing
    >>> a = testing.generate_matrix((2, 3, 3), np.float32, singular_values=[1.0, 2.0, 3.0])
    >>> np.allclose(np.linalg.svd(a, compute_uv=False), [3.0, 2.0, 1.0], atol=1e-5)
    True
"""
from __future__ import annotations

from typing import Any

import numpy


def generate_matrix(shape: tuple, dtype: Any = float, **kwargs: Any) -> numpy.ndarray:
    """generate_matrix(shape, dtype=float, *, singular_values)

    A random matrix (or stack of matrices) with the given singular values.

    Args:
        shape: ``(B..., M, N)``, at least two axes.
        dtype: A float or complex dtype.
        singular_values: Non-negative real values broadcastable to ``(B..., min(M, N))``
            (keyword-only, required).

    Returns:
        A NumPy array of ``shape`` and ``dtype``: ``U diag(s) V^H`` with random orthonormal
        ``U``, ``V`` drawn from NumPy's global random state.

    Raises:
        ValueError: ``shape`` has fewer than two axes, a singular value is negative, or the
            singular values do not broadcast.
        TypeError: An unsupported dtype, missing or complex singular values, or an unexpected
            keyword argument.
    """
    if 'singular_values' not in kwargs:
        raise TypeError('singular_values is not given')
    singular_values = kwargs.pop('singular_values')
    if kwargs:
        raise TypeError(f'generate_matrix() got unexpected keyword argument(s) '
                        f'{", ".join(sorted(kwargs))}')
    if len(shape) <= 1:
        raise ValueError(f'shape {shape} is invalid for matrices: too few axes')
    dtype = numpy.dtype(dtype)
    if dtype.kind not in 'fc':
        raise TypeError(f'dtype {dtype} is not supported')
    if singular_values is None:
        raise TypeError('singular_values is not given')
    singular_values = numpy.asarray(singular_values)
    if not numpy.isrealobj(singular_values):
        raise TypeError('singular_values is not real')
    if (singular_values < 0).any():
        raise ValueError('negative singular value is given')

    k_shape = tuple(shape[:-2]) + (min(shape[-2:]),)
    if 0 in shape:
        _broadcast_to(singular_values, k_shape)  # still reject a shape mismatch
        return numpy.empty(shape, dtype=dtype)
    a = numpy.random.randn(*shape)
    if dtype.kind == 'c':
        a = a + 1j * numpy.random.randn(*shape)
    u, s, vh = numpy.linalg.svd(a, full_matrices=False)
    sv = _broadcast_to(singular_values, s.shape)
    return numpy.einsum('...ik,...k,...kj->...ij', u, sv, vh).astype(dtype)


def _broadcast_to(array: Any, shape: tuple) -> numpy.ndarray:
    # Chainer's tests import this name; NumPy's broadcast_to does the work.
    return numpy.broadcast_to(array, shape)
