"""chainlet.backends.cuda (alias chainlet.cuda): Chainer's module, without CuPy and with the
CuPy stand-in of tools/cupy_emulator."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import chainlet
from chainlet import backend
from chainlet.backends import cuda

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def no_cupy(monkeypatch):
    """CuPy made unimportable for the test (``import cupy`` raises ImportError)."""
    monkeypatch.setitem(sys.modules, 'cupy', None)


@pytest.fixture
def cupy(monkeypatch):
    """The CPU stand-in for CuPy, installed for the test (one emulated GPU unless set)."""
    if 'cupy' in sys.modules and sys.modules['cupy'] is not None and not getattr(
            sys.modules['cupy'], '__version__', '').endswith('+emulated'):
        pytest.skip('a real CuPy is imported in this process')
    monkeypatch.syspath_prepend(ROOT)
    import tools.cupy_emulator as emulator
    emulator.install()
    import cupy
    yield cupy
    emulator.uninstall()


# -- the module paths Chainer code uses --

@pytest.mark.parametrize('code', [
    'from chainlet import cuda; cuda.get_device_from_id',
    'import chainlet.cuda; chainlet.cuda.get_device_from_id',
    'import chainlet; chainlet.cuda.get_device_from_id',
    'from chainlet.cuda import to_cpu, DummyDevice, available',
    'import chainlet, chainlet.cuda, chainlet.backends.cuda as c; '
    'assert chainlet.cuda is c and sys.modules["chainlet.cuda"] is c',
])
def test_alias_module_imports_in_a_fresh_process(code):
    subprocess.run([sys.executable, '-c', 'import sys; ' + code], check=True)


def test_alias_has_the_same_names():
    import chainlet.cuda
    assert chainlet.backends.cuda is cuda
    # (chainlet.cuda is cuda itself, unless a tool loaded chainlet/cuda.py on its own)
    assert chainlet.cuda.to_cpu is cuda.to_cpu and chainlet.cuda.DummyDevice is cuda.DummyDevice
    assert chainlet.cuda.cupy is cuda.cupy and 'to_gpu' in dir(chainlet.cuda)


# -- without CuPy --

def test_availability_flags_without_cupy(no_cupy):
    assert cuda.available is False
    assert cuda.cudnn_enabled is False
    assert chainlet.should_use_cudnn('>=auto') is False
    assert cuda.should_use_cudnn('==always', 7000) is False
    with pytest.raises(ValueError, match='invalid cuDNN use level'):
        cuda.should_use_cudnn('always')
    assert cuda.should_use_cudnn_tensor_core(np.float16) is False
    with chainlet.using_config('use_cudnn_tensor_core', 'sometimes'):
        with pytest.raises(ValueError, match='use_cudnn_tensor_core'):
            cuda.should_use_cudnn_tensor_core(np.float16)
    assert cuda.get_max_workspace_size() == 0
    cuda.set_max_workspace_size(1024)
    with pytest.raises(RuntimeError, match='cuDNN is not enabled'):
        cuda.get_cudnn_dropout_states()


def test_placeholders_without_cupy(no_cupy):
    x = np.zeros(2, np.float32)
    assert cuda.cupy is not None and cuda.cupy is not np
    assert np is not cuda.cupy  # the `xp is cuda.cupy` idiom
    assert not isinstance(x, cuda.ndarray) and not isinstance(x, cuda.cupy.ndarray)
    assert cuda.cupy.ndarray is cuda.ndarray
    with pytest.raises(AttributeError, match=r'cuda.cupy.random: CuPy is not installed'):
        cuda.cupy.random
    assert not hasattr(cuda.cupy, 'float32')
    with pytest.raises(RuntimeError, match='CuPy is not installed'):
        cuda.ndarray((2,), np.float32)
    with pytest.raises(AttributeError, match='CuPy is not installed'):
        cuda.cupyx.scatter_add
    with pytest.raises(AttributeError, match='CuPy is not installed'):
        cuda.memory_pool
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        cuda.no_such_name
    with cuda.Device(1):  # Chainer's dummy: a context that does nothing
        pass
    assert cuda.Stream.null is None
    assert {'cupy', 'available', 'ndarray'} <= set(dir(cuda))


def test_dummy_device():
    assert int(cuda.DummyDeviceType()) == -1 and cuda.DummyDevice.id == -1
    assert cuda.DummyDeviceType() == cuda.DummyDevice and cuda.DummyDevice != 1
    assert hash(cuda.DummyDevice) == hash(cuda.DummyDeviceType())
    with cuda.DummyDevice as device:
        device.use()
        device.synchronize()
    assert chainlet.get_device(cuda.DummyDevice) == backend.CpuDevice()


def test_device_lookups_without_cupy(no_cupy):
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    assert cuda.get_device_from_id(-1) is cuda.DummyDevice
    with pytest.raises(RuntimeError, match='CuPy is not installed'):
        cuda.get_device_from_id(0)
    for value in (np.int64(0), np.zeros(1), None, chainlet.Variable(np.zeros(1))):
        assert cuda.get_device_from_array(value) is cuda.DummyDevice
    with pytest.warns(DeprecationWarning, match='get_device is deprecated'):
        assert cuda.get_device(np.zeros(1), 'x') is cuda.DummyDevice
    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError):
        cuda.get_device(0)


def test_check_cuda_available_and_to_gpu_raise(no_cupy):
    with pytest.raises(RuntimeError, match=r'CuPy is not installed.*pip install'):
        cuda.check_cuda_available()
    with pytest.raises(RuntimeError, match='CuPy is not installed'):
        cuda.to_gpu(np.zeros(1))
    with pytest.raises(RuntimeError, match='CuPy is not installed'):
        cuda.copy(np.zeros(1))


@pytest.mark.parametrize('value', [
    np.bool_(True), np.uint8(3), np.int64(3), np.float16(3.2), np.float32(3.2),
    np.complex128(3.2 - 2.4j), 2.5, 7])
def test_to_cpu_scalars_become_0d_arrays(value):
    y = cuda.to_cpu(value)
    assert isinstance(y, np.ndarray) and y.shape == () and y == value
    if isinstance(value, np.generic):
        assert y.dtype == value.dtype


def test_to_cpu_arrays_lists_and_errors():
    a = np.arange(6.0).reshape(2, 3)
    assert cuda.to_cpu(a) is a and cuda.to_cpu(a.T) is not None
    assert cuda.to_cpu(None) is None
    s = np.float32(1)
    out = cuda.to_cpu([a, None, s, a, s])
    assert isinstance(out, list) and out[0] is a and out[3] is a and out[1] is None
    assert out[2] is out[4]  # one object converted once
    assert isinstance(cuda.to_cpu((a,)), tuple)
    with pytest.raises(TypeError, match='to_cpu: .*Variable'):
        cuda.to_cpu(chainlet.Variable(a))
    with pytest.raises(TypeError, match='to_cpu: .*str'):
        cuda.to_cpu('x')


def test_memoize_and_fuse_without_cupy(no_cupy):
    calls = []

    @cuda.memoize()
    def f(x):
        calls.append(x)
        return x * 2

    assert f(2) == 4 and f(2) == 4 and calls == [2, 2]  # a pass-through without CuPy
    cuda.clear_memo()

    def g(x):
        return x + 1
    assert cuda.fuse(g) is g and cuda.fuse()(g) is g and cuda.fuse(kernel_name='k')(g) is g


def test_kernels_raise_only_when_called(no_cupy):
    kernels = [cuda.elementwise('T x', 'T y', 'y = x', 'copy_kernel'),
               cuda.reduce('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'sum_kernel'),
               cuda.raw('extern "C" __global__ void k() {}', 'k')]
    for kernel in kernels:
        assert 'CuPy is not available' in repr(kernel)
        with pytest.raises(RuntimeError, match='CuPy is not installed'):
            kernel(np.zeros(2))


def test_get_array_module_delegates():
    assert cuda.get_array_module(np.zeros(1), chainlet.Variable(np.zeros(1))) is np


# -- with CuPy (the emulator) --

def test_names_are_cupys_with_cupy(cupy):
    assert cuda.available is True
    assert cuda.cupy is cupy and cuda.ndarray is cupy.ndarray and cuda.cuda is cupy.cuda
    assert cuda.Device is cupy.cuda.Device and cuda.Stream is cupy.cuda.Stream
    assert cuda.memory_pool is cupy.get_default_memory_pool()
    x = cupy.arange(3, dtype=np.float32)
    assert isinstance(x, cuda.ndarray)
    assert cuda.get_array_module(x) is cupy and backend.get_array_types()[1] is cupy.ndarray
    cuda.check_cuda_available()
    assert cuda.cudnn_enabled is False and cuda.should_use_cudnn('>=auto') is False


def test_transfers_with_cupy(cupy):
    a = np.arange(6.0).reshape(2, 3)
    x = cuda.to_gpu(a)
    assert isinstance(x, cupy.ndarray) and x.device.id == 0
    np.testing.assert_array_equal(cuda.to_cpu(x), a)
    assert cuda.to_gpu(x) is x  # already there: not copied
    assert cuda.to_gpu(None) is None
    s = cuda.to_gpu(np.float16(3))
    assert isinstance(s, cupy.ndarray) and s.shape == () and s.dtype == np.float16
    xs = cuda.to_gpu([a, None, a, x])
    assert xs[0] is xs[2] and xs[1] is None and xs[3] is x
    back = cuda.to_cpu((x, a, None))
    assert isinstance(back, tuple) and back[1] is a and isinstance(back[0], np.ndarray)
    with pytest.raises(TypeError, match='to_gpu: .*Variable'):
        cuda.to_gpu(chainlet.Variable(a))
    with pytest.raises(ValueError, match='invalid CUDA device specifier'):
        cuda.to_gpu(a, device=-2)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        with pytest.raises(DeprecationWarning, match='stream option is deprecated'):
            cuda.to_gpu(a, stream=cuda.Stream())
    y = cuda.copy(x)
    assert y is not x and isinstance(y, cupy.ndarray)
    np.testing.assert_array_equal(cuda.to_cpu(y), a)


def test_device_lookups_with_cupy(cupy):
    x = cupy.zeros(2, np.float32)
    assert cuda.get_device_from_array(np.zeros(1), x) == cupy.cuda.Device(0)
    assert cuda.get_device_from_id(0) == cupy.cuda.Device(0)
    assert cuda.get_device_from_id(np.int64(0)) == cupy.cuda.Device(0)
    with pytest.warns(DeprecationWarning):
        assert cuda.get_device(x) == cupy.cuda.Device(0)
    assert backend.GpuDevice.from_array(x) == backend.GpuDevice(0)
    assert backend.GpuDevice.from_array(np.zeros(1)) is None
    with pytest.raises(ValueError, match='invalid CUDA device id'):
        backend.GpuDevice.from_device_id(0.0)


def test_memoize_caches_with_cupy(cupy):
    calls = []

    @cuda.memoize(for_each_device=True)
    def f(x):
        calls.append(x)
        return [x]

    assert f(1) is f(1) and calls == [1]
    cuda.clear_memo()
    f(1)
    assert calls == [1, 1]


def test_elementwise_kernel_runs_with_cupy(cupy):
    from tools import cupy_emulator
    if not cupy_emulator.available():
        pytest.skip('the CuPy emulator needs g++ to run kernels')
    kernel = cuda.elementwise('T x', 'T y', 'y = x * 2', 'chainlet_test_double')
    assert cuda.elementwise('T x', 'T y', 'y = x * 2', 'chainlet_test_double') is kernel
    y = kernel(cupy.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(cuda.to_cpu(y), [0, 2, 4])


def test_blocking_cupy_is_not_remembered(monkeypatch):
    monkeypatch.setattr(cuda, '_probed', False)
    with monkeypatch.context() as m:
        m.setitem(sys.modules, 'cupy', None)
        assert cuda.available is False
    assert cuda._probed is False  # a later real import is still tried
