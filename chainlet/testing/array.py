"""Array assertions: Chainer's ``assert_allclose`` and the non-contiguous copy tests use.

``assert_allclose(x, y, atol, rtol, verbose)`` accepts NumPy and CuPy arrays (and Variables,
scalars, lists) on either side, compares on the CPU with ``numpy.testing.assert_allclose``
(so a scalar or a broadcastable side is allowed, as in Chainer), and on failure adds the
shapes, dtypes and the worst element to NumPy's report. ``check_dtype=True`` also requires
equal dtypes and shapes, which the function-test engine uses.

Example:
    >>> import numpy as np
    >>> from chainlet import testing
    >>> testing.assert_allclose(np.float32([1.0]), np.float32([1.0 + 1e-7]))
    >>> testing.assert_allclose(np.zeros(3), 0)
    >>> x = testing.array._as_noncontiguous_array(np.arange(6.0).reshape(2, 3))
    >>> x.flags.c_contiguous, x.tolist()
    (False, [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
"""
from __future__ import annotations

import io
from typing import Any

import numpy

from chainlet import backend


def _to_cpu_array(x: Any) -> numpy.ndarray:
    x = getattr(x, 'array', x)  # a Variable compares by its data
    if backend.is_array(x):
        return backend.to_cpu(x)
    return numpy.asarray(x)


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4,
                    verbose: bool = True, *, check_dtype: bool = False,
                    err_msg: str = '') -> None:
    """Assert that ``x`` and ``y`` are equal within ``atol + rtol * |y|`` elementwise.

    Args:
        x: Actual value: a NumPy or CuPy array, a Variable, a scalar or a nested list.
        y: Expected value, the same kinds.
        atol: Absolute tolerance.
        rtol: Relative tolerance (relative to ``y``).
        verbose: Include the conflicting values in NumPy's part of the message.
        check_dtype: Also require the same shape and dtype (and ``x`` to be an array, not a
            NumPy scalar); chainlet's addition, off by default as in Chainer.
        err_msg: Text put in front of the failure message.

    Raises:
        AssertionError: With NumPy's report, the shapes, dtypes and the worst element.
    """
    if check_dtype:
        raw = getattr(x, 'array', x)
        if not backend.is_array(raw):
            raise AssertionError(f'{err_msg}expected an ndarray, got {type(raw).__name__}')
    x = _to_cpu_array(x)
    y = _to_cpu_array(y)
    if check_dtype and (x.shape != y.shape or x.dtype != y.dtype):
        raise AssertionError(f'{err_msg}shape/dtype mismatch: actual {x.shape} {x.dtype}, '
                             f'expected {y.shape} {y.dtype}')
    try:
        numpy.testing.assert_allclose(x, y, atol=atol, rtol=rtol, verbose=verbose,
                                      err_msg=err_msg)
    except AssertionError as e:
        raise AssertionError(_failure_report(str(e), x, y, atol, rtol)) from None


def _failure_report(numpy_message: str, x: numpy.ndarray, y: numpy.ndarray, atol: float,
                    rtol: float) -> str:
    f = io.StringIO()
    f.write(numpy_message + '\n\n')
    f.write('assert_allclose failed: \n'
            f'  shape: {x.shape} {y.shape}\n'
            f'  dtype: {x.dtype} {y.dtype}\n')
    if x.shape == y.shape and x.size > 0 and x.dtype.kind in 'biufc' \
            and y.dtype.kind in 'biufc':
        xx = numpy.atleast_1d(x).astype(numpy.complex128 if 'c' in x.dtype.kind + y.dtype.kind
                                        else numpy.float64)
        yy = numpy.atleast_1d(y).astype(xx.dtype)
        with numpy.errstate(invalid='ignore'):
            err = numpy.abs(xx - yy)
            excess = numpy.nan_to_num(err - (atol + rtol * numpy.abs(yy)), nan=numpy.inf)
        i = numpy.unravel_index(numpy.argmax(excess), err.shape)
        # A zero expected value has an infinite relative error; say so instead of dividing.
        rel = 'inf' if yy[i] == 0 else err[i] / numpy.abs(yy[i])
        f.write(f'  i: {i}\n'
                f'  x[i]: {xx[i]}\n'
                f'  y[i]: {yy[i]}\n'
                f'  relative error[i]: {rel}\n'
                f'  absolute error[i]: {err[i]}\n')
    with numpy.printoptions(threshold=10000):
        f.write('x: ' + numpy.array2string(x, prefix='x: ') + '\n')
        f.write('y: ' + numpy.array2string(y, prefix='y: ') + '\n')
    return f.getvalue()


def _as_noncontiguous_array(array: Any) -> Any:
    """Return an equal array that is not C-contiguous (lists and tuples element-wise).

    ``None`` passes through; arrays with at most one element are returned as they are (they
    are contiguous in every layout). The copy sits at the even positions, along every axis,
    of a buffer twice as long, on the array's own device.
    """
    if isinstance(array, (list, tuple)):
        return type(array)([_as_noncontiguous_array(a) for a in array])
    if array is None or array.size <= 1:
        return array
    xp = backend.get_array_module(array)
    slices = (slice(None, None, 2),) * array.ndim
    if xp is numpy:
        buf = numpy.empty(tuple(2 * s for s in array.shape), dtype=array.dtype)
        buf[slices] = array
        out = buf[slices]
    else:
        with array.device:
            buf = xp.empty(tuple(2 * s for s in array.shape), dtype=array.dtype)
            buf[slices] = array
            out = buf[slices]
    assert not out.flags.c_contiguous
    return out
