"""chainlet.backends._cpu / cpu, intel64 (iDeep reported unavailable) and _chainerx (ChainerX
reported unavailable): Chainer's names for code that mentions these backends."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
from chainlet import backend
from chainlet.backends import _chainerx, _cpu, cpu, intel64


def test_cpu_module_names():
    assert cpu.CpuDevice is _cpu.CpuDevice is backend.CpuDevice
    a = np.zeros(2)
    assert _cpu._to_cpu(a) is a and _cpu._array_to_cpu(None) is None
    out = _cpu._to_cpu([np.int8(1), None, 2.0])
    assert out[0].dtype == np.int8 and out[1] is None and out[2].shape == ()
    with pytest.raises(TypeError, match='str'):
        _cpu._to_cpu('x')


def test_intel64_reports_ideep_unavailable():
    assert intel64.ideep is None
    assert intel64.is_ideep_available() is False
    assert intel64.should_use_ideep('>=auto') is False
    assert intel64.should_use_ideep('==always') is False
    with pytest.raises(ValueError, match='invalid iDeep use level'):
        intel64.should_use_ideep('auto')
    assert intel64.inputs_all_ready([np.zeros((2, 2), np.float32)]) is False
    assert intel64.inputs_all_ready((), supported_ndim=(2,)) is False
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        intel64.check_ideep_available()
    assert not isinstance(np.zeros(1), intel64.mdarray)
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        intel64.mdarray()


def test_intel64_device():
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        backend.Intel64Device()
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        chainlet.get_device('@intel64')
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        chainlet.get_device(intel64)
    for value in (np.zeros(1), None, 1, ()):
        assert backend.Intel64Device.from_array(value) is None
    assert backend.Intel64Device.supported_array_types == (np.ndarray, intel64.mdarray)
    assert backend.Intel64Device is intel64.Intel64Device


def test_chainerx_names():
    for value in (np.zeros(1), None, 1, ()):
        assert backend.ChainerxDevice.from_array(value) is None
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        backend.ChainerxDevice()
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        backend.ChainerxDevice.from_fallback_device(backend.CpuDevice())
    a = np.zeros(2)
    assert backend.from_chx(a) is a and backend.from_chx(None) is None
    assert backend.from_chx([a, None])[0] is a
    with pytest.raises(TypeError, match='from_chx: .*str'):
        backend.from_chx('x')
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        backend.to_chx(a)
    assert backend.to_chx is _chainerx.to_chx
    for spec in ('native', 'native:0', ('native', 0), ('cuda', 0)):
        with pytest.raises(RuntimeError, match='ChainerX'):
            chainlet.get_device(spec)


def test_backend_unknown_attribute():
    with pytest.raises(AttributeError, match="chainlet.backend has no attribute 'Nope'"):
        backend.Nope
