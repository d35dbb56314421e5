"""CupyMemoryProfileHook and CUDAProfileHook: their bookkeeping (with a stand-in for CuPy's
memory hook) and their errors without CuPy; PrintHook at Chainer's module path."""
import io

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.function_hooks import CUDAProfileHook, CupyMemoryProfileHook, PrintHook
from chainlet.function_hooks import cupy_memory_profile as cmp

try:
    import cupy  # noqa: F401
    HAVE_CUPY = True
except ImportError:
    HAVE_CUPY = False


class FakeMemoryHook:
    """Counts like CuPy's cumulative hook; tests add bytes to it by hand."""

    def __init__(self):
        self.used_bytes = 0
        self.acquired_bytes = 0
        self.active = False

    def __enter__(self):
        self.active = True
        return self

    def __exit__(self, *exc):
        self.active = False


class AllocatingHook(CupyMemoryProfileHook):
    """The profile hook on a fake memory hook: every forward of Exp 'allocates' 100 bytes
    (30 of them fresh from the GPU), every other function 10 (0)."""

    def __init__(self):
        self._start(FakeMemoryHook())

    def forward_preprocess(self, function, in_data):
        super().forward_preprocess(function, in_data)
        size, fresh = (100, 30) if type(function).__name__ == 'Exp' else (10, 0)
        self._memory_hook.used_bytes += size
        self._memory_hook.acquired_bytes += fresh

    def backward_preprocess(self, function, in_data, out_grad):
        super().backward_preprocess(function, in_data, out_grad)
        self._memory_hook.used_bytes += 1


def test_memory_profile_bookkeeping():
    hook = AllocatingHook()
    x = chainlet.Variable(np.ones(3, np.float32))
    with hook:
        assert hook._memory_hook.active
        y = F.sum(F.exp(x))
        y.backward()
    assert not hook._memory_hook.active
    s = hook.summary()
    assert list(s)[:2] == ['Exp', 'Sum']
    assert s['Exp']['occurrence'] == 2  # forward and backward
    assert s['Exp']['acquired_bytes'] == 30
    assert hook.call_history[0] == ('Exp', 100, 30, 0)
    outer = [h for h in hook.call_history if h[3] == 0]
    assert hook.total_used_bytes() == sum(h[1] for h in outer)
    assert hook.total_acquired_bytes() == 30
    nested = [h for h in hook.call_history if h[3] > 0]
    assert nested  # Exp's backward applies chainlet functions inside it


def test_memory_profile_report_units():
    hook = AllocatingHook()
    hook.call_history = [('Linear', 3 * 1024 ** 2, 2048, 0), ('ReLU', 512, 0, 0),
                         ('Linear', 1024 ** 2, 0, 0)]
    out = io.StringIO()
    hook.print_report(file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['FunctionName', 'UsedBytes', 'AcquiredBytes', 'Occurrence']
    assert lines[1].split() == ['Linear', '4.00MB', '2.00KB', '2']
    assert lines[2].split() == ['ReLU', '0.00MB', '0.00KB', '1']
    out = io.StringIO()
    hook.print_report(unit='auto_foreach', file=out)
    assert out.getvalue().splitlines()[2].split() == ['ReLU', '512.00B', '0.00B', '1']
    out = io.StringIO()
    hook.print_report(unit='KB', file=out)
    assert out.getvalue().splitlines()[1].split() == ['Linear', '4096.00KB', '2.00KB', '2']
    with pytest.raises(ValueError, match='argument unit'):
        hook.print_report(unit='kb')
    assert cmp._choose_unit(0) == (1.0, 'B')
    assert cmp._choose_unit(1024 ** 8 * 5) == (1024.0 ** 7, 'ZB')


@pytest.mark.skipif(HAVE_CUPY, reason='checks the error without CuPy')
@pytest.mark.parametrize('cls', [CupyMemoryProfileHook, CUDAProfileHook])
def test_gpu_hooks_need_cupy(cls):
    with pytest.raises(RuntimeError, match='CuPy'):
        cls()


def test_print_hook_module_path():
    from chainlet.function_hooks import debug_print
    assert debug_print.PrintHook is PrintHook
