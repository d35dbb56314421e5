"""The engine under both function-test front ends.

:class:`chainlet.testing.FunctionTestCase` (Chainer's unittest class, driven by
``inject_backend_tests``) and :class:`chainlet.testing.PytestFunctionTestCase` (our declarative
pytest class) differ only in how cases are generated and which defaults they use. What a test
*does* lives here, once: copying and laying out arrays (contiguous or not), running the forward
on Variables, checking that forward left its inputs untouched, comparing outputs with the
expected arrays (count, shapes, dtypes, values), and calling
:func:`~chainlet.gradient_check.check_backward` / ``check_double_backward`` (resampling inputs
when ``dodge_nondifferentiable`` meets a kink).
"""
from __future__ import annotations

import contextlib
import io
from typing import Any, Callable, Iterator, Sequence, cast

import numpy

from chainlet import backend
from chainlet import gradient_check
from chainlet.testing import array as array_module
from chainlet.variable import Variable


class _TestError(AssertionError):
    """Base of the errors that say the code under test (not the test) is wrong."""

    @classmethod
    def check(cls, expr: Any, message: str) -> None:
        """Raise ``cls(message)`` unless ``expr`` holds."""
        if not expr:
            raise cls(message)

    @classmethod
    def fail(cls, message: str, exc: BaseException | None = None) -> None:
        """Raise ``cls`` with ``message`` (and the cause ``exc`` appended)."""
        if exc is not None:
            raise cls(f'{message}\n\n(caused by)\n{type(exc).__name__}: {exc}') from exc
        raise cls(message)

    @classmethod
    @contextlib.contextmanager
    def raise_if_fail(cls, message: str,
                      error_types: Any = AssertionError) -> Iterator[None]:
        """Turn an ``error_types`` exception raised in the block into ``cls``."""
        try:
            yield
        except error_types as e:
            cls.fail(message, e)


def format_array_props(arrays: Sequence[Any]) -> str:
    """``'(shape, dtype), ...'`` of a sequence of arrays (``None`` shown as such)."""
    items = ['None' if a is None else f'{a.shape}:{a.dtype.name}' for a in arrays]
    return '({})'.format(', '.join(items))


def copy_arrays(arrays: Sequence[Any]) -> tuple:
    """Independent copies (``None`` stays ``None``)."""
    return tuple(None if a is None else a.copy() for a in arrays)


def layout(arrays: Sequence[Any], contiguous: Any) -> tuple:
    """Arrays laid out as asked: ``None`` non-contiguous where possible, ``'C'`` as given."""
    if contiguous is None:
        return tuple(array_module._as_noncontiguous_array(tuple(arrays)))
    if contiguous == 'C':
        return tuple(arrays)
    raise ValueError(f"Invalid value of `contiguous`: {contiguous!r} (expected None or 'C')")


def check_inputs_unchanged(originals: Sequence[Any], inputs: Sequence[Any],
                           error_cls: type = AssertionError) -> None:
    """Raise ``error_cls`` naming the inputs that forward modified in place."""
    changed = []
    for i, (x0, x) in enumerate(zip(originals, inputs)):
        if x0 is None:
            continue
        a, b = backend.to_cpu(x0), backend.to_cpu(x)
        if a.shape != b.shape or not numpy.array_equal(a, b, equal_nan=a.dtype.kind in 'fc'):
            changed.append(i)
    if not changed:
        return
    f = io.StringIO()
    f.write('Input arrays have been modified during forward.\n'
            f'Indices of modified inputs: {", ".join(str(i) for i in changed)}\n'
            f'Input array shapes and dtypes: {format_array_props(inputs)}\n')
    for i in changed:
        f.write(f'\nInput[{i}]:\nOriginal:\n{originals[i]}\nAfter forward:\n{inputs[i]}\n')
    raise error_cls(f.getvalue())


def check_outputs(actual: Sequence[Any], expected: Sequence[Any],
                  error_cls: type = AssertionError, **options: Any) -> None:
    """Compare output arrays with expected ones: count, shapes, dtypes, then values.

    Args:
        actual: Output arrays (NumPy or CuPy).
        expected: Expected arrays.
        error_cls: Exception raised on a mismatch.
        **options: Tolerances passed to :func:`~chainlet.testing.assert_allclose`.
    """
    message = detail = None
    if len(actual) != len(expected):
        message = f'Number of outputs ({len(actual)}, {len(expected)}) does not match'
    elif not all(y.shape == e.shape and y.dtype == e.dtype for y, e in zip(actual, expected)):
        message = 'Shapes and/or dtypes do not match'
    else:
        errors = []
        for i, (y, e) in enumerate(zip(actual, expected)):
            try:
                array_module.assert_allclose(y, e, **options)
            except AssertionError as err:
                errors.append((i, err))
        if errors:
            message = ('Outputs do not match the expected values.\n'
                       'Indices of outputs that do not match: '
                       f'{", ".join(str(i) for i, _ in errors)}')
            detail = ''.join(f'Error details of output [{i}]:\n{err}\n' for i, err in errors)
    if message is None:
        return
    msg = (f'{message}\n'
           f'Expected shapes and dtypes: {format_array_props(expected)}\n'
           f'Actual shapes and dtypes:   {format_array_props(actual)}\n')
    if detail is not None:
        msg += '\n\n' + detail
    raise error_cls(msg)


def input_variables(arrays: Sequence[Any]) -> tuple:
    """Variables for the forward; only float inputs require a gradient."""
    return tuple(Variable(a, requires_grad=a.dtype.kind == 'f') for a in arrays)


def with_resampling(check: Callable[[], None], dodge_nondifferentiable: bool) -> None:
    """Run ``check``; with ``dodge_nondifferentiable``, rerun it (on new random inputs, which
    ``check`` draws itself) while the numerical gradient meets a non-differentiable point."""
    if not dodge_nondifferentiable:
        check()
        return
    while True:
        try:
            check()
        except gradient_check.NondifferentiableError:
            continue
        return


def _drop_omitted_outputs(func: Callable[..., Any], grad_outputs: Sequence[Any]) -> tuple:
    """``func`` restricted to the outputs whose gradient is given (``None`` omits one).

    An omitted output takes no part in the checked graph, so its node's backward receives
    ``None`` for it, as Chainer's test classes promise.
    """
    keep = [g is not None for g in grad_outputs]
    if all(keep):
        return func, tuple(grad_outputs)

    def kept(*xs: Any) -> tuple:
        outputs = func(*xs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        return tuple(y for y, k in zip(outputs, keep) if k)

    return kept, tuple(g for g in grad_outputs if g is not None)


def check_backward(func: Callable[..., Any], inputs: Sequence[Any],
                   grad_outputs: Sequence[Any], error_cls: type = AssertionError,
                   message: str = 'backward is not implemented correctly',
                   **options: Any) -> None:
    """:func:`~chainlet.gradient_check.check_backward`, failures re-raised as ``error_cls``."""
    func, grad_outputs = _drop_omitted_outputs(func, grad_outputs)
    if error_cls is AssertionError:
        gradient_check.check_backward(func, tuple(inputs), tuple(grad_outputs), **options)
        return
    # Any other ``error_cls`` is a ``_TestError`` (``FunctionTestError``, ``LinkTestError``).
    test_error_cls = cast('type[_TestError]', error_cls)
    with test_error_cls.raise_if_fail(message):
        gradient_check.check_backward(func, tuple(inputs), tuple(grad_outputs), **options)


def check_double_backward(func: Callable[..., Any], inputs: Sequence[Any],
                          grad_outputs: Sequence[Any], grad_grad_inputs: Sequence[Any],
                          error_cls: type = AssertionError,
                          message: str = 'double backward is not implemented correctly',
                          **options: Any) -> None:
    """:func:`~chainlet.gradient_check.check_double_backward`, failures re-raised as
    ``error_cls``."""
    func, grad_outputs = _drop_omitted_outputs(func, grad_outputs)
    args = (func, tuple(inputs), tuple(grad_outputs), tuple(grad_grad_inputs))
    if error_cls is AssertionError:
        gradient_check.check_double_backward(*args, **options)
        return
    # Any other ``error_cls`` is a ``_TestError`` (``FunctionTestError``, ``LinkTestError``).
    test_error_cls = cast('type[_TestError]', error_cls)
    with test_error_cls.raise_if_fail(message):
        gradient_check.check_double_backward(*args, **options)
