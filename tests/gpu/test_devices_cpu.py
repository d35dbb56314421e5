"""Device objects, GPU dispatch and device errors, tested without a GPU.

A fake ``cupy`` module (its ndarray is a NumPy subclass that knows its device id) stands in for
CuPy, so the paths that only run with CuPy arrays are exercised on any machine.
"""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import backend
from chainlet.backend import CpuDevice, GpuDevice
from chainlet.function_node import FunctionNode
from chainlet.testing import PytestFunctionTestCase


class _FakeCudaDevice:
    """Stands in for cupy.cuda.Device (a context manager that makes a GPU current)."""
    current = 0
    log: list = []

    def __init__(self, device_id=0):
        self.id = device_id

    def __enter__(self):
        self._saved = _FakeCudaDevice.current
        _FakeCudaDevice.current = self.id
        _FakeCudaDevice.log.append(('enter', self.id))
        return self

    def __exit__(self, *exc):
        _FakeCudaDevice.current = self._saved
        _FakeCudaDevice.log.append(('exit', self.id))

    def use(self):
        _FakeCudaDevice.current = self.id


_FakeCudaDevice.__module__ = 'cupy.cuda.device'


@pytest.fixture
def fake_cupy(monkeypatch):
    """A stand-in 'cupy' with two GPUs whose arrays are NumPy arrays tagged with a device."""
    mod = types.ModuleType('cupy')

    class ndarray(np.ndarray):
        _device_id = 0

        def __array_finalize__(self, obj):
            self._device_id = getattr(obj, '_device_id', _FakeCudaDevice.current)

        @property
        def device(self):
            return _FakeCudaDevice(self._device_id)

    ndarray.__module__ = 'cupy'

    def asarray(a, dtype=None):
        out = np.array(a, dtype=dtype).view(ndarray)
        out._device_id = _FakeCudaDevice.current
        return out

    mod.ndarray = ndarray
    mod.asarray = asarray
    mod.count = 2
    mod.cuda = types.SimpleNamespace(
        Device=_FakeCudaDevice,
        runtime=types.SimpleNamespace(getDeviceCount=lambda: mod.count))
    monkeypatch.setitem(sys.modules, 'cupy', mod)
    monkeypatch.setattr(_FakeCudaDevice, 'current', 0)
    monkeypatch.setattr(_FakeCudaDevice, 'log', [])
    return mod


def _on(fake, array, device_id):
    out = np.asarray(array).view(fake.ndarray)
    out._device_id = device_id
    return out


# -- devices on the CPU --

@pytest.mark.parametrize('spec', ['@numpy', -1, 'cpu', None, np, CpuDevice()])
def test_get_device_cpu(spec):
    device = backend.get_device(spec)
    assert isinstance(device, CpuDevice)
    assert device.xp is np and device.device_id == -1
    assert str(device) == '@numpy' and repr(device) == '<CpuDevice (numpy)>'
    assert device == CpuDevice() and device == '@numpy' and device != 'cuda:0'
    assert hash(device) == hash(CpuDevice())
    device.use()


def test_cpu_send_structures_and_variables():
    device = CpuDevice()
    a = np.arange(3.0)
    out = device.send({'a': a, 'b': (a, [np.float32(2)]), 'c': None})
    assert out['a'] is a and out['b'][0] is a and out['c'] is None
    assert isinstance(out['b'], tuple) and out['b'][1][0].dtype == np.float32
    v = chainlet.Variable(a)
    assert device.send(v) is v
    with pytest.raises(TypeError, match=r'CpuDevice.send: expected an array, .* got str'):
        device.send('x')
    assert device.is_array_supported(a)


def test_get_device_from_array_cpu():
    assert backend.get_device_from_array(np.zeros(1)) == CpuDevice()
    assert backend.get_device_from_array(chainlet.Variable(np.zeros(1))) == '@numpy'
    # As in Chainer, what is not a GPU array counts as the CPU.
    for value in ([1.0], None, 1, object()):
        assert backend.get_device_from_array(value) == CpuDevice()


def test_using_device_cpu():
    with backend.using_device(-1) as device:
        assert device == CpuDevice()


def test_to_device_accepts_device_objects():
    x = chainlet.Variable(np.zeros(2, np.float32))
    assert x.to_device(CpuDevice()) is x and x.device == '@numpy'
    link = L.Linear(2, 3)
    assert link.to_device(backend.get_device('@numpy')) is link and link.device == '@numpy'


def test_parse_device_spec_device_objects():
    assert backend.parse_device_spec(CpuDevice()) == -1
    assert backend.parse_device_spec(np) == -1


# -- errors without CuPy, or without a device --

def test_gpu_device_without_cupy_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, 'cupy', None)  # makes `import cupy` fail
    for make in (lambda: GpuDevice(0), lambda: backend.get_device('@cupy:0'),
                 lambda: L.Linear(2, 3).to_device('cuda:0')):
        with pytest.raises(RuntimeError, match=r'pip install "chainlet-dl\[cuda12\]"'):
            make()
    assert backend.device_count() == 0


def test_gpu_device_without_a_device(fake_cupy):
    fake_cupy.count = 0
    with pytest.raises(RuntimeError, match='GpuDevice: CuPy is installed but no CUDA device '
                                           'was found'):
        GpuDevice(0)
    with pytest.raises(RuntimeError, match='no CUDA device was found'):
        backend.to_gpu(np.zeros(1))


def test_gpu_device_bad_ids(fake_cupy):
    with pytest.raises(ValueError, match=r'2 CUDA device\(s\) found, so expected a value in '
                                         r'\[0, 2\), got 2'):
        GpuDevice(2)
    with pytest.raises(ValueError, match='expected a value >= 0, got -1'):
        GpuDevice(-1)
    with pytest.raises(TypeError, match='GpuDevice: argument device_id: expected an int, '
                                        'got str'):
        GpuDevice('0')


# -- GPU devices and dispatch with the fake CuPy --

def test_gpu_device_basics(fake_cupy):
    d1 = backend.get_device('@cupy:1')
    assert isinstance(d1, GpuDevice) and d1.device_id == 1 and str(d1) == '@cupy:1'
    assert repr(d1) == '<GpuDevice (cupy):1>'
    assert d1 == GpuDevice(1) == 'cuda:1' and d1 != GpuDevice(0) and d1 != CpuDevice()
    assert d1.xp is fake_cupy
    assert backend.get_device(_FakeCudaDevice(1)) == d1
    assert GpuDevice(_FakeCudaDevice(1)) == d1
    assert backend.get_device_from_array(_on(fake_cupy, np.zeros(1), 1)) == d1
    with backend.using_device('cuda:1') as device:
        assert device == d1 and _FakeCudaDevice.current == 1
    assert _FakeCudaDevice.current == 0


def test_gpu_send_and_transfer(fake_cupy):
    d1 = GpuDevice(1)
    out = d1.send([np.zeros(2), {'t': np.ones(1)}])
    assert isinstance(out[0], fake_cupy.ndarray) and out[0].device.id == 1
    assert out[1]['t'].device.id == 1
    assert d1.send(out[0]) is out[0]
    assert d1.is_array_supported(out[0]) and not GpuDevice(0).is_array_supported(out[0])
    x = chainlet.Variable(np.zeros(2, np.float32))
    x.to_device(d1)
    assert isinstance(x.array, fake_cupy.ndarray) and x.device == '@cupy:1'
    link = L.Linear(2, 3)
    link.to_device(d1)
    assert link.device == '@cupy:1' and link.W.array.device.id == 1


class _Recorder(FunctionNode):
    calls: list = []

    def forward(self, inputs):
        _Recorder.calls.append(('forward', _FakeCudaDevice.current))
        return inputs[0] * 2,

    def forward_gpu(self, inputs):
        _Recorder.calls.append(('forward_gpu', _FakeCudaDevice.current))
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


class _ForwardOverride(_Recorder):
    def forward(self, inputs):
        _Recorder.calls.append(('override', _FakeCudaDevice.current))
        return inputs[0] * 3,


class _ForwardOnly(FunctionNode):
    def forward(self, inputs):
        _Recorder.calls.append(('forward_only', _FakeCudaDevice.current))
        return inputs[0] + 0,


def test_apply_dispatches_to_forward_gpu_on_the_inputs_device(fake_cupy, monkeypatch):
    monkeypatch.setattr(_Recorder, 'calls', [])
    x = _on(fake_cupy, np.ones(2, np.float32), 1)
    y, = _Recorder().apply((x, x))
    assert _Recorder.calls == [('forward_gpu', 1)] and _FakeCudaDevice.current == 0
    assert isinstance(y.array, fake_cupy.ndarray)
    _ForwardOverride().apply((x,))
    _ForwardOnly().apply((x,))
    _Recorder().apply((np.ones(2, np.float32),))
    assert _Recorder.calls[1:] == [('override', 1), ('forward_only', 1), ('forward', 0)]
    assert _Recorder._use_forward_gpu and not _ForwardOverride._use_forward_gpu
    assert not _ForwardOnly._use_forward_gpu


def test_kernel_functions_prefer_forward_gpu():
    from chainlet.functions.activation.relu import ReLU, ReLUGrad
    from chainlet.functions.loss.softmax_cross_entropy import SoftmaxCrossEntropy
    from chainlet.functions.math.basic_math import Add
    assert ReLU._use_forward_gpu and ReLUGrad._use_forward_gpu
    assert SoftmaxCrossEntropy._use_forward_gpu and not Add._use_forward_gpu


def test_arrays_on_two_gpus_raise(fake_cupy):
    a = _on(fake_cupy, np.zeros(2, np.float32), 0)
    b = _on(fake_cupy, np.zeros(2, np.float32), 1)
    with pytest.raises(TypeError, match=r'(Add|_ \+ _): all inputs must be on the same device; '
                                        r'input 0 is on @cupy:0 but input 1 is on @cupy:1'):
        F.add(a, b)


def test_numpy_and_cupy_mixed_raise(fake_cupy):
    a = np.zeros(2, np.float32)
    b = _on(fake_cupy, np.zeros(2, np.float32), 0)
    with pytest.raises(TypeError, match=r'(Add|_ \+ _): .*input 0 is numpy.ndarray but input 1 is '
                                        r'cupy.ndarray'):
        F.add(a, b)


class TestDeviceArgument(PytestFunctionTestCase):
    """``forward`` gets a device object that matches the inputs and compares with strings."""

    params = [{'shape': (2, 3)}]
    dtypes = (np.float64,)
    skip_double_backward_test = True

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        assert device.xp is backend.get_array_module(inputs[0])
        assert device == ('@numpy' if device.xp is np else '@cupy:0')
        return F.relu(inputs[0]),

    def forward_expected(self, inputs):
        return np.maximum(inputs[0], 0),


def test_gpu_variants_collected_or_skipped_with_reason():
    from chainlet.testing import gpu_skip_reason
    reason = gpu_skip_reason()
    if reason is None:
        assert hasattr(TestDeviceArgument, 'test_forward_gpu')
    else:
        assert hasattr(TestDeviceArgument, 'test_gpu')
        assert not hasattr(TestDeviceArgument, 'test_forward_gpu')
        assert 'CuPy' in reason
