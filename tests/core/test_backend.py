import sys
import types

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import backend


def test_get_array_module_numpy():
    assert backend.get_array_module(np.zeros(1)) is np
    assert backend.get_array_module(chainlet.Variable(np.zeros(1))) is np
    assert backend.get_array_module() is np
    assert backend.get_array_module(None, 3) is np


def test_import_does_not_need_cupy():
    code = ('import sys, chainlet, numpy, chainlet.functions as F;'
            'F.tanh(numpy.zeros(1)).backward() if False else None;'
            'assert "cupy" not in sys.modules')
    import subprocess
    subprocess.run([sys.executable, '-c', code], check=True)


def test_to_cpu():
    a = np.arange(3.0)
    assert backend.to_cpu(a) is a
    assert backend.to_cpu(None) is None
    assert isinstance(backend.to_cpu(np.float32(1)), np.ndarray)
    assert backend.to_cpu([a, a])[0] is a
    with pytest.raises(TypeError, match='to_cpu: expected a numpy or cupy ndarray, got str'):
        backend.to_cpu('x')


@pytest.fixture
def fake_cupy(monkeypatch):
    """A stand-in 'cupy' module whose ndarray is a NumPy subclass, to test dispatch paths."""
    mod = types.ModuleType('cupy')

    class ndarray(np.ndarray):
        pass
    ndarray.__module__ = 'cupy'
    mod.ndarray = ndarray
    monkeypatch.setitem(sys.modules, 'cupy', mod)
    return mod


def test_mixed_array_modules_raise(fake_cupy):
    a = np.zeros(2, np.float32)
    b = np.zeros(2, np.float32).view(fake_cupy.ndarray)
    assert backend.get_array_module(b) is fake_cupy
    with pytest.raises(TypeError, match=r'(Add|_ \+ _): .*input 0 is numpy.ndarray but input 1 is '
                                        r'cupy.ndarray'):
        F.add(a, b)


def test_to_gpu_without_cupy_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, 'cupy', None)  # makes `import cupy` fail
    with pytest.raises(RuntimeError, match=r'pip install "chainlet-dl\[cuda12\]"'):
        backend.to_gpu(np.zeros(1))
    assert backend.gpu_available() is False


@pytest.mark.parametrize('spec,expected', [
    ('@numpy', -1), (-1, -1), ('cpu', -1), (None, -1), ('@cupy:1', 1), ('cuda:0', 0), (2, 2),
    ('cuda', 0), ('-1', -1), ('0', 0), ('2', 2)])
def test_parse_device_spec(spec, expected):
    assert backend.parse_device_spec(spec) == expected


@pytest.mark.parametrize('spec', ['@tpu:0', 'cuda:x', True, 1.5])
def test_parse_device_spec_rejects(spec):
    with pytest.raises((ValueError, TypeError), match='device'):
        backend.parse_device_spec(spec)


def test_non_array_input_rejected():
    with pytest.raises(TypeError, match='input 0 must be a Variable or an ndarray, got list'):
        F.tanh([1.0, 2.0])


def test_chainer_cuda_module_names(monkeypatch):
    from chainlet import cuda
    from chainlet.backends import cuda as backends_cuda
    assert cuda.to_cpu is backends_cuda.to_cpu
    from chainlet.cuda import to_cpu  # the form Chainer scripts use
    assert to_cpu is backends_cuda.to_cpu
    a = np.arange(3.0)
    assert cuda.to_cpu(a) is a and cuda.get_array_module(a) is np
    monkeypatch.setitem(sys.modules, 'cupy', None)
    assert cuda.available is False
    with pytest.raises(RuntimeError, match='CuPy is not installed'):
        cuda.check_cuda_available()
    with pytest.raises(AttributeError, match='CuPy is not installed'):
        cuda.cupy.zeros


def test_chainer_config_keys_exist():
    assert chainlet.config.use_cudnn == 'auto'
    assert chainlet.config.cudnn_deterministic is False


def test_scalar_and_none_inputs_get_clear_errors():
    with pytest.raises(TypeError, match=r'Maximum: input 1 must be a Variable or an ndarray, '
                                        r'got float \(wrap scalars'):
        F.maximum(np.ones(2), 0.0)
    p = chainlet.Parameter()
    with pytest.raises(TypeError, match='Tanh: input 0 has no data'):
        F.tanh(p)


# -- Chainer's device API (chainer.backend) --

def test_cpu_device_chainer_api():
    device = backend.CpuDevice()
    assert device.xp is np and device.supported_array_types == (np.ndarray,)
    assert device.name == str(device) == '@numpy' and repr(device) == '<CpuDevice (numpy)>'
    assert isinstance(hash(device), int) and device == backend.CpuDevice()
    assert not (device != backend.CpuDevice())
    arr = np.zeros(2, np.float32)
    assert backend.CpuDevice.from_array(arr) == device
    for value in (None, 1, (), np.float32(1)):
        assert backend.CpuDevice.from_array(value) is None
    assert device.is_array_supported(arr) and not device.is_array_supported(1.0)
    with device.create_context():
        pass
    with device as entered:  # chainlet allows `with device` (Chainer raises)
        assert entered is device


def test_send_converts_each_object_once_and_keeps_namedtuples():
    import collections
    device = backend.CpuDevice()
    s = np.float32(1)
    out = device.send([s, None, s])
    assert out[0] is out[2] and out[1] is None and out[0].shape == ()
    assert device.send(3).shape == () and device.send(2.5).dtype == np.float64
    Pair = collections.namedtuple('Pair', 'a b')
    pair = device.send(Pair(np.zeros(1), None))
    assert isinstance(pair, Pair) and pair.b is None


def test_get_device_chainer_specs():
    cpu = backend.CpuDevice()
    for spec in ('@numpy', -1, '-1', np, (np,), np.int64(-1), cpu):
        assert backend.get_device(spec) == cpu
    assert backend.get_device(cpu) is cpu
    for spec in ('@numpy:0', '@foo', 'nonsense'):
        with pytest.raises(ValueError):
            backend.get_device(spec)
    for spec in (True, 1.5):
        with pytest.raises(TypeError):
            backend.get_device(spec)
    with pytest.raises(ValueError, match=r'\(module, index\)'):
        backend.get_device(('abc', 0))


def test_gpu_specs_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, 'cupy', None)
    for spec in ('@cupy:0', 0, np.int32(1), '0'):
        with pytest.raises(RuntimeError, match='CuPy is not installed'):
            backend.get_device(spec)
    with pytest.raises(RuntimeError, match='CuPy is not installed'):
        backend.GpuDevice.from_device_id(0)
    assert backend.GpuDevice.from_array(np.zeros(1)) is None
    assert backend.get_device_from_array(np.zeros(1), None, 1) == backend.CpuDevice()


def test_tuple_and_invalid_gpu_specs(fake_cupy):
    count = types.SimpleNamespace(getDeviceCount=lambda: 2)
    fake_cupy.cuda = types.SimpleNamespace(runtime=count, Device=lambda i=0: None)
    assert backend.get_device((fake_cupy, 1)) == backend.GpuDevice(1)
    assert backend.get_device((fake_cupy, 1)) != backend.get_device(np)
    for bad in (None, -1, (), 0.0, np.float32(0), True):
        with pytest.raises(ValueError, match='invalid CUDA device id'):
            backend.GpuDevice.from_device_id(bad)
    with pytest.raises(ValueError, match='invalid CUDA device id'):
        backend.get_device((fake_cupy, 'foo'))
    assert backend.GpuDevice.from_device_id(np.int32(1)) == backend.get_device('@cupy:1')
    device = backend.GpuDevice(0)
    assert repr(device) == '<GpuDevice (cupy):0>' and str(device) == '@cupy:0'
    assert device.supported_array_types == (fake_cupy.ndarray,)


def test_copyto():
    dst = np.zeros(3, np.float32)
    backend.copyto(dst, np.arange(3.0))
    assert dst.tolist() == [0, 1, 2]
    backend.copyto(dst, 5.0)
    assert dst.tolist() == [5, 5, 5]
    with pytest.raises(TypeError, match='copyto: cannot copy from NoneType'):
        backend.copyto(dst, None)
    with pytest.raises(TypeError, match='copyto: cannot copy to NoneType'):
        backend.copyto(None, np.zeros(3))


def test_array_types_and_compatibility(fake_cupy):
    assert chainlet.get_cpu_array_types() == (np.ndarray,)
    assert chainlet.get_array_types() == (np.ndarray, fake_cupy.ndarray)
    a = np.zeros(2)
    g = a.view(fake_cupy.ndarray)
    assert chainlet.is_arrays_compatible([a, None, a]) and chainlet.is_arrays_compatible([])
    assert chainlet.is_arrays_compatible([g, g, None])
    assert not chainlet.is_arrays_compatible([g, a])


def test_array_types_without_cupy(monkeypatch):
    monkeypatch.delitem(sys.modules, 'cupy', raising=False)
    assert chainlet.get_array_types() == (np.ndarray,)


def test_contains_nan():
    assert backend._contains_nan(np.array([1.0, np.nan]))
    assert not backend._contains_nan(np.array([1.0, 2.0]))
    assert not backend._contains_nan(np.array([1, 2]))
    assert backend._guess_device_from_array_module(np) == backend.CpuDevice()


def test_with_device_nests_and_is_per_thread(fake_cupy):
    import threading
    fake_cupy.cuda = types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=lambda: 2), Device=_RecordingDevice)
    device = backend.GpuDevice(1)
    _RecordingDevice.log.clear()
    with device:
        with device:
            t = threading.Thread(target=lambda: device.__enter__().__exit__(None, None, None))
            t.start()
            t.join()
    assert _RecordingDevice.log == ['enter 1', 'enter 1', 'enter 1', 'exit 1', 'exit 1',
                                    'exit 1']


class _RecordingDevice:
    log: list = []

    def __init__(self, device_id=0):
        self.id = device_id

    def __enter__(self):
        self.log.append(f'enter {self.id}')
        return self

    def __exit__(self, *exc):
        self.log.append(f'exit {self.id}')
