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
    with pytest.raises(TypeError, match=r'Add: .*input 0 is numpy.ndarray but input 1 is '
                                        r'cupy.ndarray'):
        F.add(a, b)


def test_to_gpu_without_cupy_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, 'cupy', None)  # makes `import cupy` fail
    with pytest.raises(RuntimeError, match=r'pip install "chainlet\[cuda12\]"'):
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
    with pytest.raises(RuntimeError, match='CuPy is not installed'):
        cuda.cupy


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
