"""``unary_math_function_unittest``: the standard tests of an elementwise unary function.

Decorating an empty ``unittest.TestCase`` generates, for ``shape`` in ``(3, 2)`` and ``()``
and ``dtype`` in float16/32/64 (Chainer's parameterization and class names),
``test_forward_cpu`` (against ``func_expected`` or the NumPy function of the same name),
``test_backward_cpu``, ``test_double_backward_cpu`` and their ``_gpu`` twins (marked
``gpu``), with tolerances loosened for float16.

Example:
    >>> import unittest
    >>> import chainlet.functions as F
    >>> from chainlet import testing
    >>> @testing.unary_math_function_unittest(F.exp)
    ... class TestExp(unittest.TestCase):
    ...     pass
"""
from __future__ import annotations

import unittest
import warnings
from typing import Any, Callable

import numpy

from chainlet import backend
from chainlet.testing import attr


def _old_style_function_class() -> Any:
    # Chainer's old-style ``Function`` where chainlet provides it.
    try:
        from chainlet.function import Function
    except ImportError:
        return None
    return Function


def _func_name(func: Any) -> str:
    old = _old_style_function_class()
    if old is not None and isinstance(func, old):
        return type(func).__name__.lower()
    return func.__name__


def _func_class(func: Any) -> Any:
    old = _old_style_function_class()
    if old is not None and isinstance(func, old):
        return type(func)
    from chainlet import functions
    return getattr(functions, func.__name__.capitalize(), None)


def _make_data_default(shape: tuple, dtype: Any) -> tuple:
    x = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    gy = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    ggx = numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
    return x, gy, ggx


def _nonlinear(func: Callable) -> Callable:
    def aux(x: Any) -> Any:
        y = func(x)
        return y * y
    return aux


def unary_math_function_unittest(func: Any, func_expected: Any = None,
                                 label_expected: Any = None, make_data: Any = None,
                                 is_linear: Any = None, forward_options: Any = None,
                                 backward_options: Any = None,
                                 double_backward_options: Any = None) -> Callable[[type], Any]:
    """Class decorator adding the standard tests of an elementwise unary function.

    Args:
        func: The function under test (e.g. ``F.erf``), or an old-style ``Function`` instance.
        func_expected: ``func_expected(x, dtype=...)`` returning the expected NumPy output;
            by default the NumPy function named like ``func``.
        label_expected: Expected ``label`` of the function node class (checked when
            ``chainlet.functions`` exposes a class named like the function).
        make_data: ``make_data(shape, dtype)`` returning ``(x, gy, ggx)`` (``(x, gy)`` for an
            old-style function); uniform in [-1, 1) by default.
        is_linear: Deprecated; a linear function is squared for the double-backward test.
        forward_options: Overrides of the ``assert_allclose`` tolerances.
        backward_options: Overrides of the ``check_backward`` options.
        double_backward_options: Overrides of the ``check_double_backward`` options.

    Raises:
        ValueError: No ``func_expected`` and NumPy has no function of that name; or a
            ``label_expected`` for a function without a node class to check it on.
    """
    attr.check_available()
    from chainlet import gradient_check
    from chainlet import testing
    from chainlet.variable import Variable

    old = _old_style_function_class()
    is_new_style = not (old is not None and isinstance(func, old))
    func_name = _func_name(func)
    func_class = _func_class(func)

    if func_expected is None:
        try:
            func_expected = getattr(numpy, func_name)
        except AttributeError:
            raise ValueError('NumPy has no functions corresponding '
                             f"to Chainer function '{func_name}'.") from None
    if label_expected is None:
        label_expected = func_name
    elif func_class is None:
        raise ValueError('Expected label is given even though Chainer '
                         'function does not have its label.')
    if make_data is None:
        if is_new_style:
            make_data = _make_data_default
        else:
            def make_data(shape: tuple, dtype: Any) -> tuple:
                return _make_data_default(shape, dtype)[:2]
    if is_linear is not None:
        warnings.warn('is_linear option is deprecated', DeprecationWarning)

    def decorate(klass: type) -> Any:
        if not issubclass(klass, unittest.TestCase):
            raise TypeError('unary_math_function_unittest decorates a unittest.TestCase')

        def setUp(self: Any) -> None:
            if is_new_style:
                self.x, self.gy, self.ggx = make_data(self.shape, self.dtype)
            else:
                self.x, self.gy = make_data(self.shape, self.dtype)
            if self.dtype == numpy.float16:
                eps16 = float(numpy.finfo('float16').eps)
                self.forward_options = {'atol': eps16, 'rtol': eps16}
                loose = {'eps': 2 ** -4, 'atol': 2 ** -4, 'rtol': 2 ** -4,
                         'dtype': numpy.float64}
                self.backward_options = dict(loose)
                self.double_backward_options = dict(loose)
            else:
                self.forward_options = {'atol': 1e-4, 'rtol': 1e-4}
                self.backward_options = {'dtype': numpy.float64, 'atol': 1e-4, 'rtol': 1e-4}
                self.double_backward_options = {'dtype': numpy.float64, 'atol': 1e-4,
                                                'rtol': 1e-4}
            self.forward_options.update(forward_options or {})
            self.backward_options.update(backward_options or {})
            self.double_backward_options.update(double_backward_options or {})

        def check_forward(self: Any, x_data: Any) -> None:
            y = func(Variable(x_data))
            self.assertEqual(y.array.dtype, x_data.dtype)
            y_expected = func_expected(backend.to_cpu(x_data), dtype=x_data.dtype)
            testing.assert_allclose(y_expected, y.array, **self.forward_options)

        def check_backward(self: Any, x_data: Any, y_grad: Any) -> None:
            gradient_check.check_backward(func, x_data, y_grad, **self.backward_options)

        def check_double_backward(self: Any, x_data: Any, y_grad: Any,
                                  x_grad_grad: Any) -> None:
            func1 = _nonlinear(func) if is_linear else func
            gradient_check.check_double_backward(func1, x_data, y_grad, x_grad_grad,
                                                 **self.double_backward_options)

        def test_forward_cpu(self: Any) -> None:
            self.check_forward(self.x)

        @attr.gpu
        def test_forward_gpu(self: Any) -> None:
            self.check_forward(backend.to_gpu(self.x))

        def test_backward_cpu(self: Any) -> None:
            self.check_backward(self.x, self.gy)

        @attr.gpu
        def test_backward_gpu(self: Any) -> None:
            self.check_backward(backend.to_gpu(self.x), backend.to_gpu(self.gy))

        def test_double_backward_cpu(self: Any) -> None:
            self.check_double_backward(self.x, self.gy, self.ggx)

        @attr.gpu
        def test_double_backward_gpu(self: Any) -> None:
            self.check_double_backward(backend.to_gpu(self.x), backend.to_gpu(self.gy),
                                       backend.to_gpu(self.ggx))

        def test_label(self: Any) -> None:
            self.assertEqual(func_class().label, label_expected)

        members: dict = {
            'setUp': setUp, 'check_forward': check_forward, 'check_backward': check_backward,
            'test_forward_cpu': test_forward_cpu, 'test_forward_gpu': test_forward_gpu,
            'test_backward_cpu': test_backward_cpu, 'test_backward_gpu': test_backward_gpu}
        if is_new_style:
            members.update(check_double_backward=check_double_backward,
                           test_double_backward_cpu=test_double_backward_cpu,
                           test_double_backward_gpu=test_double_backward_gpu)
        if func_class is not None:
            members['test_label'] = test_label
        for name, member in members.items():
            setattr(klass, name, member)
        return testing.parameterize(*testing.product({
            'shape': [(3, 2), ()],
            'dtype': [numpy.float16, numpy.float32, numpy.float64],
        }))(klass)

    return decorate


def is_available() -> bool:
    """Whether :func:`unary_math_function_unittest` can be used (it needs pytest's marks)."""
    return attr.is_available()


def check_available() -> None:
    """Raise ``RuntimeError`` when :func:`unary_math_function_unittest` cannot be used."""
    if not attr.is_available():
        error = attr.get_error()
        raise RuntimeError(f'{__name__} is not available.\n\n'
                           f'Reason: {type(error).__name__}: {error}')
