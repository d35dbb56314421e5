"""Array assertions and layouts used by tests."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend


def assert_allclose(actual: Any, expected: Any, atol: float = 1e-5, rtol: float = 1e-4,
                    check_dtype: bool = True, err_msg: str = '') -> None:
    """Assert that two arrays (NumPy or CuPy, or Variables) are equal within tolerance.

    Unlike ``numpy.testing.assert_allclose`` the shapes must match exactly (no broadcasting),
    the dtypes must match when ``check_dtype`` is set, and the actual value must be an ndarray
    (a NumPy scalar where a 0-d array is expected fails).
    """
    actual = getattr(actual, 'array', actual)
    expected = getattr(expected, 'array', expected)
    if not backend.is_array(actual):
        raise AssertionError(f'{err_msg}expected an ndarray, got {type(actual).__name__}')
    actual = backend.to_cpu(actual)
    expected = numpy.asarray(backend.to_cpu(expected))
    if actual.shape != expected.shape:
        raise AssertionError(f'{err_msg}shape mismatch: actual {actual.shape}, '
                             f'expected {expected.shape}')
    if check_dtype and actual.dtype != expected.dtype:
        raise AssertionError(f'{err_msg}dtype mismatch: actual {actual.dtype}, '
                             f'expected {expected.dtype}')
    numpy.testing.assert_allclose(actual.astype(numpy.float64) if actual.dtype.kind == 'f'
                                  else actual,
                                  expected.astype(numpy.float64) if expected.dtype.kind == 'f'
                                  else expected,
                                  atol=atol, rtol=rtol, err_msg=err_msg, equal_nan=True)


def make_noncontiguous(x: Any) -> Any:
    """Return a non-contiguous array equal to ``x`` (``x`` itself if that is impossible).

    The copy lives at every other position of a buffer twice as long along one axis.
    """
    if x.ndim == 0 or x.size == 0:
        return x
    axis = next((i for i, s in enumerate(x.shape) if s > 1), x.ndim - 1)
    xp = backend.get_array_module(x)
    shape = list(x.shape)
    shape[axis] *= 2
    buf = xp.zeros(shape, x.dtype)
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, 2)
    view = buf[tuple(index)]
    view[...] = x
    return view
