"""Chainer's unittest base classes for function and link tests.

* :class:`FunctionTestCase`: implement ``generate_inputs``, ``forward`` and
  ``forward_expected``; ``test_forward``, ``test_backward`` and ``test_double_backward`` take a
  :class:`~chainlet.testing.BackendConfig`, so the class is used under
  :func:`~chainlet.testing.inject_backend_tests`.
* :class:`LinkTestCase`: ``generate_params``, ``create_link``, ``generate_inputs`` and
  ``forward_expected``; tests forward and backward (gradients of inputs and of the
  parameters named in ``param_names``).
* :class:`LinkInitializersTestCase`: ``get_initializers``; checks that each initializer
  given to the link's constructor is what fills the parameter.

Failures of the code under test raise :class:`FunctionTestError` / :class:`LinkTestError`
(both ``AssertionError``), so that they read differently from a broken test. Inputs are
non-contiguous unless ``contiguous = 'C'``. The checks themselves are those of
``chainlet.testing._function_check``, shared with :class:`~chainlet.testing.
PytestFunctionTestCase`.

Example:
    >>> import unittest, numpy
    >>> import chainlet.functions as F
    >>> from chainlet import testing
    >>> @testing.inject_backend_tests(None, [{}])
    ... class TestTanh(testing.FunctionTestCase):
    ...     def generate_inputs(self):
    ...         return numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32),
    ...     def forward(self, inputs, device):
    ...         return F.tanh(inputs[0]),
    ...     def forward_expected(self, inputs):
    ...         return numpy.tanh(inputs[0]),
"""
from __future__ import annotations

import unittest
from typing import Any

import numpy

import chainlet
from chainlet import backend
from chainlet.testing import _function_check as engine
from chainlet.testing._function_check import _TestError


class FunctionTestError(_TestError):
    """Raised when the function under test is implemented incorrectly."""


class LinkTestError(_TestError):
    """Raised when the link under test is implemented incorrectly."""


def _array_types() -> tuple:
    cupy = backend._cupy_if_loaded()
    return (numpy.ndarray,) if cupy is None else (numpy.ndarray, cupy.ndarray)


def _check_is_initializer_like(initializer: Any) -> None:
    if not (initializer is None or callable(initializer)
            or isinstance(initializer, _array_types()) or numpy.isscalar(initializer)):
        raise TypeError(f'Initializer is of wrong type: {type(initializer).__name__}. '
                        'Allowed types are Initializer, ndarray, scalar and None.')


class InitializerArgument:
    """A link constructor argument paired with the initializer the link should end up using.

    Use it in :meth:`LinkInitializersTestCase.get_initializers` (and ``generate_params``)
    when the argument is not itself an initializer, e.g. ``InitializerArgument(None, 0)`` for
    a bias that defaults to zeros.

    Args:
        argument_value: What is passed to the link's constructor.
        expected_initializer: The initializer-like (not ``None``) the parameter must match.
    """

    def __init__(self, argument_value: Any, expected_initializer: Any) -> None:
        if expected_initializer is None:
            raise ValueError('Expected initialized cannot be None.')
        _check_is_initializer_like(expected_initializer)
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer


def _check_array_types(arrays: Any, device: Any, func_name: str) -> None:
    if not isinstance(arrays, tuple):
        raise TypeError(f'`{func_name}()` must return a tuple, not {type(arrays)}.')
    if not all(a is None or (backend.is_array(a) and device.is_array_supported(a))
               for a in arrays):
        raise TypeError(f'{func_name}() must return a tuple of arrays supported by device '
                        f'{device} or None.\nActual: {tuple(type(a) for a in arrays)}')


def _check_variable_types(variables: Any, device: Any, func_name: str,
                          test_error_cls: type[_TestError]) -> None:
    if not isinstance(variables, tuple):
        test_error_cls.fail(f'`{func_name}()` must return a tuple, not {type(variables)}.')
    if not all(isinstance(v, chainlet.Variable) for v in variables):
        test_error_cls.fail(f'{func_name}() must return a tuple of Variables.\nActual: '
                            + ', '.join(str(type(v)) for v in variables))
    if not all(device.is_array_supported(v.array) for v in variables):
        test_error_cls.fail(f'{func_name}() must return a tuple of Variables of arrays '
                            f'supported by device {device}.\nActual: '
                            + ', '.join(str(type(v.array)) for v in variables))


def _check_arrays_equal(actual_arrays: Any, expected_arrays: Any, test_error_cls: type,
                        **opts: Any) -> None:
    engine.check_outputs(actual_arrays, expected_arrays, test_error_cls, **opts)


class FunctionTestBase:
    """The machinery of :class:`FunctionTestCase` (without ``unittest.TestCase``)."""

    backend_config: Any = None
    check_forward_options: Any = None
    check_backward_options: Any = None
    check_double_backward_options: Any = None
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype: Any = numpy.float64
    contiguous: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check_forward_options = {}
        self.check_backward_options = {}
        self.check_double_backward_options = {}

    def before_test(self, test_name: str) -> None:
        """Called before each test with its name; raise ``unittest.SkipTest`` to skip."""

    def forward(self, inputs: tuple, device: Any) -> tuple:
        """Apply the function under test to ``inputs`` (Variables); return Variables."""
        raise NotImplementedError('forward() is not implemented.')

    def forward_expected(self, inputs: tuple) -> tuple:
        """Expected outputs (NumPy arrays) for ``inputs`` (NumPy arrays)."""
        raise NotImplementedError('forward_expected() is not implemented.')

    def generate_inputs(self) -> tuple:
        """The input arrays (NumPy)."""
        raise NotImplementedError('generate_inputs() is not implemented.')

    def generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        """Output gradients, uniform in [-1, 1) by default (``None`` entries allowed)."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in outputs_template)

    def generate_grad_grad_inputs(self, inputs_template: tuple) -> tuple:
        """Gradients of the input gradients for the double-backward test."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in inputs_template)

    def check_forward_outputs(self, outputs: tuple, expected_outputs: tuple) -> None:
        """Compare outputs with the expected ones; raise :class:`FunctionTestError`."""
        assert isinstance(outputs, tuple)
        assert isinstance(expected_outputs, tuple)
        assert all(backend.is_array(a) for a in outputs)
        assert all(backend.is_array(a) for a in expected_outputs)
        _check_arrays_equal(outputs, expected_outputs, FunctionTestError,
                            **self.check_forward_options)

    def _to_noncontiguous_as_needed(self, arrays: Any) -> tuple:
        return engine.layout(arrays, self.contiguous)

    def _generate_inputs(self) -> tuple:
        inputs = self.generate_inputs()
        _check_array_types(inputs, backend.CpuDevice(), 'generate_inputs')
        return inputs

    def _generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        grad_outputs = self.generate_grad_outputs(outputs_template)
        _check_array_types(grad_outputs, backend.CpuDevice(), 'generate_grad_outputs')
        return grad_outputs

    def _generate_grad_grad_inputs(self, inputs_template: tuple) -> tuple:
        grad_grad_inputs = self.generate_grad_grad_inputs(inputs_template)
        _check_array_types(grad_grad_inputs, backend.CpuDevice(), 'generate_grad_grad_inputs')
        return grad_grad_inputs

    def _forward_expected(self, inputs: tuple) -> tuple:
        outputs = self.forward_expected(inputs)
        _check_array_types(outputs, backend.CpuDevice(), 'forward_expected')
        return outputs

    def _forward(self, inputs: tuple, backend_config: Any) -> tuple:
        assert all(isinstance(a, chainlet.Variable) for a in inputs)
        with backend_config:
            outputs = self.forward(inputs, backend_config.device)
        _check_variable_types(outputs, backend_config.device, 'forward', FunctionTestError)
        return outputs

    def run_test_forward(self, backend_config: Any) -> None:
        """The forward test: outputs match ``forward_expected``; inputs are not modified."""
        if self.skip_forward_test:
            raise unittest.SkipTest('skip_forward_test is set')
        self.backend_config = backend_config
        self.test_name = 'test_forward'
        self.before_test(self.test_name)

        cpu_inputs = self._to_noncontiguous_as_needed(self._generate_inputs())
        inputs_copied = engine.copy_arrays(cpu_inputs)
        cpu_expected = self._forward_expected(cpu_inputs)
        inputs = self._to_noncontiguous_as_needed(backend_config.get_array(cpu_inputs))
        outputs = self._forward(engine.input_variables(inputs), backend_config)
        engine.check_inputs_unchanged(inputs_copied, inputs, FunctionTestError)
        self.check_forward_outputs(tuple(v.array for v in outputs), cpu_expected)

    def _gradient_function(self, backend_config: Any) -> Any:
        def f(*args: Any) -> tuple:
            return self._forward(args, backend_config)
        return f

    def run_test_backward(self, backend_config: Any) -> None:
        """The backward test: ``check_backward`` on freshly generated inputs."""
        if self.skip_backward_test:
            raise unittest.SkipTest('skip_backward_test is set')
        self.backend_config = backend_config
        self.test_name = 'test_backward'
        self.before_test(self.test_name)
        f = self._gradient_function(backend_config)

        def do_check() -> None:
            inputs = self._generate_inputs()
            outputs = self._forward_expected(inputs)
            grad_outputs = self._generate_grad_outputs(outputs)
            inputs = self._to_noncontiguous_as_needed(backend_config.get_array(inputs))
            grad_outputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(grad_outputs))
            engine.check_backward(f, inputs, grad_outputs, FunctionTestError,
                                  dtype=self.numerical_grad_dtype,
                                  detect_nondifferentiable=self.dodge_nondifferentiable,
                                  **self.check_backward_options)

        engine.with_resampling(do_check, self.dodge_nondifferentiable)

    def run_test_double_backward(self, backend_config: Any) -> None:
        """The double-backward test: ``check_double_backward`` on fresh inputs."""
        if self.skip_double_backward_test:
            raise unittest.SkipTest('skip_double_backward_test is set')
        self.backend_config = backend_config
        self.test_name = 'test_double_backward'
        self.before_test(self.test_name)
        f = self._gradient_function(backend_config)

        def do_check() -> None:
            inputs = self._generate_inputs()
            outputs = self._forward_expected(inputs)
            grad_outputs = self._generate_grad_outputs(outputs)
            grad_grad_inputs = self._generate_grad_grad_inputs(inputs)
            # Second-order gradients exist only for float inputs (None means omitted).
            float_grad_grad_inputs = [
                g for g in grad_grad_inputs if g is None or g.dtype.kind == 'f']
            inputs = self._to_noncontiguous_as_needed(backend_config.get_array(inputs))
            grad_outputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(grad_outputs))
            grad_grad_inputs = self._to_noncontiguous_as_needed(
                backend_config.get_array(float_grad_grad_inputs))
            with backend_config:
                engine.check_double_backward(
                    f, inputs, grad_outputs, grad_grad_inputs, FunctionTestError,
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_double_backward_options)

        engine.with_resampling(do_check, self.dodge_nondifferentiable)


class FunctionTestCase(FunctionTestBase, unittest.TestCase):
    """Base class of Chainer-style function tests (use with ``inject_backend_tests``).

    Required: ``generate_inputs(self)`` (NumPy arrays), ``forward(self, inputs, device)``
    (Variables in, a tuple of Variables out) and ``forward_expected(self, inputs)`` (NumPy in
    and out). Optional: ``before_test``, ``generate_grad_outputs``,
    ``generate_grad_grad_inputs``, ``check_forward_outputs``. Attributes:
    ``skip_forward_test``, ``skip_backward_test``, ``skip_double_backward_test``,
    ``dodge_nondifferentiable``, ``numerical_grad_dtype`` (float64), ``contiguous`` (None:
    non-contiguous inputs; ``'C'``), and the option dicts ``check_forward_options``,
    ``check_backward_options``, ``check_double_backward_options`` (set in ``setUp``).
    """

    def test_forward(self, backend_config: Any) -> None:
        """Tests forward computation."""
        self.run_test_forward(backend_config)

    def test_backward(self, backend_config: Any) -> None:
        """Tests backward computation."""
        self.run_test_backward(backend_config)

    def test_double_backward(self, backend_config: Any) -> None:
        """Tests double-backward computation."""
        self.run_test_double_backward(backend_config)


class _LinkTestBase:
    """What :class:`LinkTestCase` and :class:`LinkInitializersTestCase` share."""

    backend_config: Any = None
    contiguous: Any = None
    # Names of the parameters under test, e.g. ('gamma', 'beta') for BatchNormalization.
    param_names: Any = ()
    # Set by the subclasses that compare forward outputs (``LinkTestCase``); declared here,
    # without a value, for ``check_forward_outputs``.
    check_forward_options: Any

    def before_test(self, test_name: str) -> None:
        """Called before each test with its name; raise ``unittest.SkipTest`` to skip."""

    def generate_params(self) -> tuple:
        """Initializer-likes, one per initializer argument of the link's constructor."""
        raise NotImplementedError('generate_params is not implemented.')

    def generate_inputs(self) -> tuple:
        """The input arrays (NumPy)."""
        raise NotImplementedError('generate_inputs is not implemented.')

    def create_link(self, initializers: Any) -> Any:
        """The link under test, built with the given initializer-likes."""
        raise NotImplementedError('create_link is not implemented.')

    def forward(self, link: Any, inputs: tuple, device: Any) -> tuple:
        """Call the link on the input Variables (override for other signatures)."""
        outputs = link(*inputs)
        if not isinstance(outputs, tuple):
            outputs = outputs,
        return outputs

    def check_forward_outputs(self, outputs: tuple, expected_outputs: tuple) -> None:
        """Compare outputs with the expected ones; raise :class:`LinkTestError`."""
        assert isinstance(outputs, tuple)
        assert isinstance(expected_outputs, tuple)
        assert all(backend.is_array(a) for a in outputs)
        assert all(backend.is_array(a) for a in expected_outputs)
        _check_arrays_equal(outputs, expected_outputs, LinkTestError,
                            **self.check_forward_options)

    def _generate_params(self) -> Any:
        params_init = self.generate_params()
        if not isinstance(params_init, (tuple, list)):
            raise TypeError('`generate_params` must return a tuple or a list.')
        for init in params_init:
            _check_generated_initializer(init)
        return params_init

    def _generate_inputs(self) -> tuple:
        inputs = self.generate_inputs()
        _check_array_types(inputs, backend.CpuDevice(), 'generate_inputs')
        return inputs

    def _create_link(self, initializers: Any, backend_config: Any) -> Any:
        link = self.create_link(initializers)
        if not isinstance(link, chainlet.Link):
            raise TypeError('`create_link` must return a chainer.Link object.')
        link.to_device(backend_config.device)
        return link

    def _create_initialized_link(self, inits: Any, backend_config: Any) -> tuple:
        # A forward pass initializes lazily shaped parameters.
        inits = [_get_initializer_argument_value(i) for i in inits]
        link = self._create_link(inits, backend_config)
        inputs_xp = self._to_noncontiguous_as_needed(
            backend_config.get_array(self._generate_inputs()))
        output_vars = self._forward(link, tuple(chainlet.Variable(x) for x in inputs_xp),
                                    backend_config)
        link.cleargrads()
        return link, inputs_xp, [v.array for v in output_vars]

    def _forward(self, link: Any, inputs: tuple, backend_config: Any) -> tuple:
        assert all(isinstance(x, chainlet.Variable) for x in inputs)
        with backend_config:
            outputs = self.forward(link, inputs, backend_config.device)
        _check_variable_types(outputs, backend_config.device, 'forward', LinkTestError)
        return outputs

    def _to_noncontiguous_as_needed(self, arrays: Any) -> tuple:
        return engine.layout(arrays, self.contiguous)


class LinkTestCase(_LinkTestBase, unittest.TestCase):
    """Base class of Chainer-style link forward/backward tests (use with
    ``inject_backend_tests``).

    Required: ``generate_params(self)``, ``create_link(self, initializers)``,
    ``generate_inputs(self)`` and ``forward_expected(self, link, inputs)`` (the link is on the
    CPU, ``inputs`` NumPy arrays). Optional: ``forward(self, link, inputs, device)``,
    ``before_test``, ``generate_grad_outputs``, ``check_forward_outputs``. Attributes:
    ``param_names``, ``skip_forward_test``, ``skip_backward_test``,
    ``dodge_nondifferentiable``, ``numerical_grad_dtype``, ``contiguous``,
    ``check_forward_options``, ``check_backward_options``.
    """

    check_forward_options: Any = None
    check_backward_options: Any = None
    skip_forward_test = False
    skip_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype: Any = numpy.float64

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.check_forward_options = {}
        self.check_backward_options = {}
        super().__init__(*args, **kwargs)

    def forward_expected(self, link: Any, inputs: tuple) -> tuple:
        """Expected outputs (NumPy) of the CPU ``link`` on ``inputs`` (NumPy)."""
        raise NotImplementedError('forward_expected() is not implemented.')

    def generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        """Output gradients, uniform in [-1, 1) by default."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in outputs_template)

    def test_forward(self, backend_config: Any) -> None:
        """Tests forward computation."""
        if self.skip_forward_test:
            raise unittest.SkipTest('skip_forward_test is set')
        self.backend_config = backend_config
        self.before_test('test_forward')

        link = self._create_link(self._generate_params(), backend_config)
        inputs_np = self._generate_inputs()
        inputs_xp = self._to_noncontiguous_as_needed(backend_config.get_array(inputs_np))
        output_vars = self._forward(link, tuple(chainlet.Variable(x) for x in inputs_xp),
                                    backend_config)
        outputs_xp = tuple(v.array for v in output_vars)
        # The expectation is computed on the CPU, with the link's (now initialized) values.
        link.to_device(backend.CpuDevice())
        expected = self._forward_expected(link, inputs_np)
        self.check_forward_outputs(outputs_xp, expected)

    def test_backward(self, backend_config: Any) -> None:
        """Tests backward computation (inputs and the parameters in ``param_names``)."""
        if self.skip_backward_test:
            raise unittest.SkipTest('skip_backward_test is set')
        self.backend_config = backend_config
        self.before_test('test_backward')

        def do_check() -> None:
            # A first link, run once, supplies initialized parameter values and output shapes.
            inits = self._generate_params()
            link, inputs, outputs = self._create_initialized_link(inits, backend_config)
            param_arrays = [p.array for p in _get_link_params(link, self.param_names)]
            cpu = backend.CpuDevice()
            grad_outputs = backend_config.get_array(
                self._generate_grad_outputs(tuple(cpu.send(y) for y in outputs)))
            inputs = self._to_noncontiguous_as_needed(inputs)
            params = self._to_noncontiguous_as_needed(param_arrays)
            grad_outputs = self._to_noncontiguous_as_needed(grad_outputs)

            forward_link, _, _ = self._create_initialized_link(inits, backend_config)
            param_vars = _get_link_params(forward_link, self.param_names)
            for var, value in zip(param_vars, params):
                var.array = value

            def forward(*xs: Any) -> tuple:
                return self._forward(forward_link, xs, backend_config)

            engine.check_backward(forward, inputs, grad_outputs, LinkTestError,
                                  params=tuple(param_vars), dtype=self.numerical_grad_dtype,
                                  detect_nondifferentiable=self.dodge_nondifferentiable,
                                  **self.check_backward_options)

        engine.with_resampling(do_check, self.dodge_nondifferentiable)

    def _forward_expected(self, link: Any, inputs: tuple) -> tuple:
        assert all(isinstance(x, numpy.ndarray) for x in inputs)
        outputs = self.forward_expected(link, inputs)
        _check_array_types(outputs, backend.CpuDevice(), 'forward_expected')
        return outputs

    def _generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        assert all(isinstance(x, numpy.ndarray) for x in outputs_template)
        grad_outputs = self.generate_grad_outputs(outputs_template)
        _check_array_types(grad_outputs, backend.CpuDevice(), 'generate_grad_outputs')
        return grad_outputs


class LinkInitializersTestCase(_LinkTestBase, unittest.TestCase):
    """Base class of Chainer-style tests of a link's parameter initializers.

    Required: ``generate_params``, ``create_link``, ``generate_inputs`` and
    ``get_initializers(self)``: per initializer argument, a list of initializer-likes (or
    :class:`InitializerArgument`) to try one at a time, the other arguments taken from
    ``generate_params``. Each must fill the parameter exactly as the initializer itself does.
    """

    check_initializers_options: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.check_initializers_options = {}
        super().__init__(*args, **kwargs)

    def get_initializers(self) -> tuple:
        """Per initializer argument, the initializer-likes to test."""
        raise NotImplementedError('get_initializers is not implemented.')

    def test_initializers(self, backend_config: Any) -> None:
        """Tests that the parameters of a link are correctly initialized."""
        self.backend_config = backend_config
        self.before_test('test_initializers')
        for i_param, param_inits in enumerate(self._get_initializers()):
            inits = list(self._generate_params())
            for init in param_inits:
                inits[i_param] = init
                self._test_single_initializer(i_param, inits, backend_config)

    def _get_initializers(self) -> Any:
        params_inits = self.get_initializers()
        if not isinstance(params_inits, (tuple, list)):
            raise TypeError('`get_initializers` must return a tuple or a list.')
        for param_inits in params_inits:
            if not isinstance(param_inits, (tuple, list)):
                raise TypeError('`get_initializers` must return a tuple or a list of '
                                'tuples or lists.')
            for init in param_inits:
                _check_generated_initializer(init)
        return params_inits

    def _test_single_initializer(self, i_param: int, inits: list, backend_config: Any) -> None:
        link, _, _ = self._create_initialized_link(inits, backend_config)
        param = _get_link_params(link, self.param_names)[i_param]
        param_np = backend.CpuDevice().send(param.array)
        # The initializer must be deterministic for this to hold (e.g. a Constant).
        expected_np = numpy.empty_like(param_np)
        _get_expected_initializer(inits[i_param])(expected_np)
        _check_arrays_equal((expected_np,), (param_np,), LinkTestError,
                            **self.check_initializers_options)


def _check_generated_initializer(init: Any) -> None:
    if isinstance(init, InitializerArgument):
        init = init.expected_initializer
    elif init is None:
        raise ValueError('A None initializer must be wrapped in a InitializerArgument '
                         'along with the expected initializer fallen back to.')
    _check_is_initializer_like(init)


def _get_initializer_argument_value(init: Any) -> Any:
    return init.argument_value if isinstance(init, InitializerArgument) else init


def _get_expected_initializer(init: Any) -> Any:
    if isinstance(init, InitializerArgument):
        init = init.expected_initializer
    assert init is not None
    from chainlet import initializers
    if not isinstance(init, initializers.Initializer):
        init = initializers._get_initializer(init)
    return init


def _get_link_params(link: Any, param_names: Any) -> list:
    params = []
    for name in param_names:
        param = getattr(link, name, None)
        if param is None:
            LinkTestError.fail(f"Link does not have a parameter named '{name}'.")
        params.append(param)
    return params
