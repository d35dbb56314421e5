"""``PytestFunctionTestCase``: one declaration, every standard test of a differentiable function.

Subclass it in a test module and implement ``generate_inputs``, ``forward`` and
``forward_expected``. pytest then collects ``test_forward``, ``test_backward`` and
``test_double_backward``, each parametrized over ``params`` (hyper-parameter dicts whose entries
become attributes), ``dtypes`` (float16/32/64 by default) and contiguous or non-contiguous inputs.

When CuPy and a CUDA device are present, every case also runs on GPU 0 (``test_forward_gpu``,
``test_backward_gpu``, ``test_double_backward_gpu``, marked ``gpu``): the same inputs are sent
to the GPU, the outputs are compared with ``forward_expected`` and the gradients are checked
there. Without a GPU a single ``test_gpu`` per class is collected and skipped with the reason,
so the CPU suite does not grow. ``forward`` receives the device (a
:class:`~chainlet.backend.CpuDevice` or :class:`~chainlet.backend.GpuDevice`, which compares
equal to ``'@numpy'`` / ``'@cupy:0'``) for functions that need it.

The checks themselves (non-contiguous layout, "inputs not modified", output comparison,
gradient checks) are those of ``chainlet.testing._function_check``, shared with Chainer's
unittest :class:`~chainlet.testing.FunctionTestCase`; this front end adds pytest
parametrization and dtype-dependent default tolerances.

Example (in a test module)::

    class TestTanh(PytestFunctionTestCase):
        params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (0, 2)}]

        def generate_inputs(self):
            return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

        def forward(self, inputs, device):
            return F.tanh(inputs[0]),

        def forward_expected(self, inputs):
            return np.tanh(inputs[0]),
"""
from __future__ import annotations

import functools
import zlib
from typing import Any, Optional

import numpy
import pytest

from chainlet import backend
from chainlet.testing import _function_check as engine
from chainlet.variable import Variable

_F16, _F32, _F64 = numpy.dtype(numpy.float16), numpy.dtype(numpy.float32), \
    numpy.dtype(numpy.float64)

_DEFAULTS = {
    'forward': {_F16: dict(atol=1e-3, rtol=1e-3), _F32: dict(atol=1e-5, rtol=1e-4),
                _F64: dict(atol=1e-7, rtol=1e-6)},
    'backward': {_F16: dict(atol=5e-3, rtol=5e-2), _F32: dict(atol=1e-4, rtol=1e-3),
                 _F64: dict(atol=1e-6, rtol=1e-5)},
    'double_backward': {_F16: dict(atol=1e-2, rtol=1e-1), _F32: dict(atol=1e-3, rtol=1e-2),
                        _F64: dict(atol=1e-5, rtol=1e-4)},
}


def default_tolerances(kind: str, dtype: Any) -> dict:
    """Default ``atol``/``rtol`` of a check kind (``'forward'``, ``'backward'``,
    ``'double_backward'``) for ``dtype``."""
    return dict(_DEFAULTS[kind].get(numpy.dtype(dtype), _DEFAULTS[kind][_F64]))


def _cases(cls: type[PytestFunctionTestCase]) -> tuple[list, list]:
    cases, ids = [], []
    dtypes = [numpy.dtype(d) for d in cls.dtypes]
    noncontig_dtype = _F64 if _F64 in dtypes else dtypes[-1]
    for k, param in enumerate(cls.params):
        pid = '-'.join(f'{key}={value}' for key, value in param.items()) or f'p{k}'
        for dtype in dtypes:
            cases.append((param, dtype, True))
            ids.append(f'{pid}-{dtype.name}')
        if cls.test_noncontiguous:
            cases.append((param, noncontig_dtype, False))
            ids.append(f'{pid}-{noncontig_dtype.name}-noncontiguous')
    return cases, ids


@functools.lru_cache(maxsize=None)
def gpu_skip_reason() -> Optional[str]:
    """Why GPU tests cannot run here (``None`` when CuPy and a CUDA device are present).

    Probed once per process; importing CuPy happens here, never in ``import chainlet``.
    """
    try:
        import cupy  # noqa: F401
    except ImportError:
        return 'CuPy is not installed (pip install "chainlet-dl[cuda12]" or "chainlet-dl[cuda13]")'
    except Exception as e:  # a broken installation (e.g. a CUDA library that fails to load)
        return f'CuPy failed to import: {e}'
    if backend.device_count() == 0:
        return 'CuPy is installed but no CUDA device was found'
    return None


class PytestFunctionTestCase:
    """Base class of declarative tests for differentiable functions (see module docstring).

    Class attributes:
        params: List of dicts; each entry becomes an attribute during one parametrization.
        dtypes: Float dtypes to run (``self.dtype`` holds the current one).
        test_noncontiguous: Also run once with non-contiguous inputs.
        skip_forward_test, skip_backward_test, skip_double_backward_test: Turn tests off.
        check_forward_options, check_backward_options, check_double_backward_options:
            Tolerance overrides (``atol``, ``rtol``, ``eps``, ...) set in ``setup()`` as needed.
        numerical_grad_dtype: Dtype of the numerical gradients (float64, as Chainer's
            ``FunctionTestCase``, whatever the inputs' dtype; a ``dtype`` entry of the option
            dicts wins).
    """

    params: list = [{}]
    dtypes: tuple = (numpy.float16, numpy.float32, numpy.float64)
    test_noncontiguous = True
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False
    numerical_grad_dtype: Any = numpy.float64

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cases, ids = _cases(cls)
        # A test the subclass writes itself replaces the generated one and gets no GPU twin.
        names = [n for n in ('forward', 'backward', 'double_backward')
                 if f'test_{n}' not in cls.__dict__]
        for name in names:
            setattr(cls, f'test_{name}', _make_test(name, cases, ids))
        reason = gpu_skip_reason()
        if reason is not None:
            if names and 'test_gpu' not in cls.__dict__:
                setattr(cls, 'test_gpu', _gpu_placeholder(reason))
            return
        for name in names:
            setattr(cls, f'test_{name}_gpu', _make_test(name, cases, ids, gpu=True))

    # -- hooks for subclasses --

    def setup(self) -> None:
        """Called after ``dtype`` and ``params`` are set; adjust tolerances here."""

    def generate_inputs(self) -> tuple:
        """Return the input arrays (use ``self.dtype``)."""
        raise NotImplementedError(f'{type(self).__name__} must implement generate_inputs')

    def forward(self, inputs: tuple, device: Any) -> tuple:
        """Apply the function under test to Variables; return a tuple of Variables."""
        raise NotImplementedError(f'{type(self).__name__} must implement forward')

    def forward_expected(self, inputs: tuple) -> tuple:
        """Return the expected output arrays, computed with NumPy."""
        raise NotImplementedError(f'{type(self).__name__} must implement forward_expected')

    def generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        """Output gradients for the backward checks (random normal by default)."""
        return tuple(
            numpy.random.standard_normal(y.shape).astype(y.dtype) if y.dtype.kind == 'f'
            else None for y in outputs_template)

    def generate_grad_grad_inputs(self, inputs_template: tuple) -> tuple:
        """Gradients of the input gradients for the double-backward check."""
        return tuple(numpy.random.standard_normal(x.shape).astype(x.dtype)
                     for x in inputs_template if x.dtype.kind == 'f')

    # -- machinery --

    def _prepare(self, param: dict, dtype: numpy.dtype, contiguous: bool, kind: str,
                 device: Any) -> tuple:
        for key, value in param.items():
            setattr(self, key, value)
        self.dtype = dtype
        self.contiguous = contiguous
        self.check_forward_options = default_tolerances('forward', dtype)
        self.check_backward_options = default_tolerances('backward', dtype)
        self.check_double_backward_options = default_tolerances('double_backward', dtype)
        seed = zlib.crc32(f'{type(self).__name__}{sorted(param.items())}{dtype}{kind}'.encode())
        numpy.random.seed(seed % (2 ** 32))
        self.setup()
        inputs = tuple(device.send(self.generate_inputs()))
        if not contiguous:
            inputs = engine.layout(inputs, None)
        return inputs

    def _forward(self, inputs: tuple, device: Any) -> tuple:
        outputs = self.forward(tuple(Variable(x) for x in inputs), device)
        if not isinstance(outputs, tuple):
            raise TypeError(f'{type(self).__name__}.forward must return a tuple of Variables, '
                            f'got {type(outputs).__name__}')
        return outputs

    def _run_forward(self, param: dict, dtype: numpy.dtype, contiguous: bool,
                     device: Any = None) -> None:
        if self.skip_forward_test:
            pytest.skip('forward test disabled for this case')
        device = backend.CpuDevice() if device is None else device
        inputs = self._prepare(param, dtype, contiguous, 'forward', device)
        saved = engine.copy_arrays(inputs)
        outputs = self._forward(inputs, device)
        engine.check_inputs_unchanged(saved, inputs)
        expected = self.forward_expected(tuple(backend.to_cpu(engine.copy_arrays(saved))))
        if not isinstance(expected, tuple):
            raise TypeError(f'{type(self).__name__}.forward_expected must return a tuple')
        for i, y in enumerate(outputs):
            assert isinstance(y, Variable), f'output {i} is not a Variable'
        engine.check_outputs(tuple(y.array for y in outputs),
                             tuple(numpy.asarray(e) for e in expected),
                             **self.check_forward_options)

    def _function(self, device: Any) -> Any:
        def f(*xs: Variable) -> tuple:
            return self.forward(xs, device)
        return f

    def _run_backward(self, param: dict, dtype: numpy.dtype, contiguous: bool,
                      device: Any = None) -> None:
        if self.skip_backward_test:
            pytest.skip('backward test disabled for this case')
        device = backend.CpuDevice() if device is None else device
        inputs = self._prepare(param, dtype, contiguous, 'backward', device)
        outputs = self._forward(engine.copy_arrays(inputs), device)
        gys = device.send(tuple(self.generate_grad_outputs(tuple(y.array for y in outputs))))
        # A None output gradient leaves that output out of the check (see the engine).
        engine.check_backward(self._function(device), inputs, gys,
                              **{'dtype': self.numerical_grad_dtype,
                                 **self.check_backward_options})

    def _run_double_backward(self, param: dict, dtype: numpy.dtype, contiguous: bool,
                             device: Any = None) -> None:
        if self.skip_double_backward_test:
            pytest.skip('double backward test disabled for this case')
        device = backend.CpuDevice() if device is None else device
        inputs = self._prepare(param, dtype, contiguous, 'double_backward', device)
        outputs = self._forward(engine.copy_arrays(inputs), device)
        gys = device.send(tuple(self.generate_grad_outputs(tuple(y.array for y in outputs))))
        ggxs = device.send(tuple(self.generate_grad_grad_inputs(inputs)))
        engine.check_double_backward(self._function(device), inputs, gys, ggxs,
                                     **{'dtype': self.numerical_grad_dtype,
                                        **self.check_double_backward_options})


def _make_test(name: str, cases: list, ids: list, gpu: bool = False) -> Any:
    runner = f'_run_{name}'

    @pytest.mark.parametrize('case', cases, ids=ids)
    def test(self: PytestFunctionTestCase, case: tuple) -> None:
        device = backend.GpuDevice(0) if gpu else backend.CpuDevice()
        with backend.using_device(device):
            getattr(self, runner)(*case, device)

    test.__name__ = f'test_{name}_gpu' if gpu else f'test_{name}'
    return pytest.mark.gpu(test) if gpu else test


def _gpu_placeholder(reason: str) -> Any:
    @pytest.mark.gpu
    def test_gpu(self: PytestFunctionTestCase) -> None:
        pytest.skip(f'GPU variants of this test case were not generated: {reason}')
    return test_gpu


__all__ = ['PytestFunctionTestCase', 'default_tolerances', 'gpu_skip_reason']
