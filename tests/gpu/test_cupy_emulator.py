"""The CPU stand-in for CuPy (tools/cupy_emulator) and the GPU suite run on it.

The emulator is what lets the ``gpu`` tests run on a machine without a GPU; these tests check
that it is as strict as CuPy where chainlet's code could go wrong, and run the whole ``gpu``
suite on it in a subprocess. They need g++ (the kernels are compiled for the host).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
import tools.cupy_emulator as emulator  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not emulator.available(),
                       reason='the CuPy emulator needs g++ to run kernels'),
    # It stands for CuPy 14, which needs NumPy 2: with an older NumPy that pairing cannot exist
    # (and NumPy 1.x lacks names the emulator maps CuPy's onto).
    pytest.mark.skipif(int(np.__version__.split('.')[0]) < 2,
                       reason='the CuPy emulator stands for CuPy 14, which needs NumPy >= 2'),
]


@pytest.fixture
def cupy():
    if 'cupy' in sys.modules and not getattr(sys.modules['cupy'], '__version__', '').endswith(
            '+emulated'):
        pytest.skip('a real CuPy is imported in this process')
    emulator.install()
    import cupy
    yield cupy
    emulator.uninstall()


def test_implicit_conversion_and_host_arrays_raise(cupy):
    x = cupy.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(TypeError, match='Implicit conversion to a NumPy array'):
        np.asarray(x)
    with pytest.raises(TypeError, match='Unsupported type'):
        x + np.ones(3, np.float32)
    with pytest.raises(TypeError, match='Unsupported type'):
        np.ones(3, np.float32) * x
    with pytest.raises(TypeError, match='Unsupported type'):
        cupy.concatenate([x, np.ones((1, 3), np.float32)])
    assert isinstance(x + np.float32(1), cupy.ndarray)
    assert isinstance(np.exp(x), cupy.ndarray)  # NumPy's ufuncs dispatch to CuPy's
    assert isinstance(x[np.array([1, 0])], cupy.ndarray)  # host index arrays are allowed
    np.testing.assert_array_equal(cupy.asnumpy(x), np.arange(6).reshape(2, 3))


def test_reductions_give_0d_device_arrays_without_index(cupy):
    s = cupy.ones((2, 3), np.float32).sum()
    assert isinstance(s, cupy.ndarray) and s.shape == ()
    assert float(s) == 6.0 and int(s) == 6 and bool(s)
    with pytest.raises(TypeError):
        range(s)  # CuPy arrays have no __index__


def test_only_cupy_names_and_arguments(cupy):
    with pytest.raises(AttributeError, match='not in CuPy'):
        cupy.nanpercentile  # NumPy has it, CuPy 14.2 does not
    with pytest.raises(AttributeError, match='not in CuPy'):
        cupy.ones(2).resize
    with pytest.raises(TypeError, match="unexpected keyword argument 'where'"):
        cupy.sum(cupy.ones(3), where=cupy.ones(3, bool))
    with pytest.raises(TypeError, match='where='):
        cupy.add(cupy.ones(2), 1, where=cupy.ones(2, bool))
    with pytest.raises(TypeError, match='unsupported type list'):
        cupy.prod([2, 3])  # NumPy takes a list, CuPy only arrays
    with pytest.raises(TypeError, match='Unsupported type'):
        cupy.exp([1.0, 2.0])


def test_kernels_launch_on_the_current_device_only(cupy):
    from tools.cupy_emulator import _api
    _api._state['count'] = 2
    try:
        with cupy.cuda.Device(1):
            x = cupy.ones(3, np.float32)
        assert x.device.id == 1
        with pytest.raises(ValueError, match=r'resides \(1\) is different from the current '
                                             r'device \(0\)'):
            x + 1
        with pytest.raises(ValueError, match='current device'):
            cupy.ElementwiseKernel('T x', 'T y', 'y = x', 'copy')(x)
        with cupy.cuda.Device(1):
            assert (x + 1).device.id == 1
        assert cupy.ones_like(x).device.id == 0  # allocation reads nothing
        # copies between GPUs, as CuPy documents them
        y = cupy.asarray(x)
        assert y.device.id == 0 and y is not x
        assert x.copy().device.id == 0
        z = cupy.zeros(3, np.float32)
        cupy.copyto(z, x)
        np.testing.assert_array_equal(cupy.asnumpy(z), [1, 1, 1])
    finally:
        _api._state['count'] = 1


def test_random_and_atomics_follow_cupy(cupy):
    with pytest.raises(TypeError, match='only supports float32 and float64'):
        cupy.random.uniform(size=3, dtype=np.float16)
    assert cupy.random.normal(size=(2, 2), dtype=np.float32).dtype == np.float32
    a = cupy.zeros(3, np.float32)
    cupy.add.at(a, cupy.asarray(np.array([0, 0, 2])), cupy.ones(3, np.float32))
    np.testing.assert_array_equal(cupy.asnumpy(a), [2, 0, 1])
    with pytest.raises(TypeError, match='only supports int32'):
        cupy.add.at(cupy.zeros(3, np.int64), cupy.asarray(np.array([0])), 1)


def test_elementwise_kernel(cupy):
    k = cupy.ElementwiseKernel(
        'T x, raw T w, float32 s', 'T y', 'y = (T)((float)x * s + (float)w[i % 2] + i)', 'k')
    x = cupy.asarray(np.arange(6, dtype=np.float16).reshape(2, 3))
    w = cupy.asarray(np.array([10, 20], np.float16))
    y = k(x, w, 0.5)
    idx = np.arange(6).reshape(2, 3)
    expected = (np.arange(6).reshape(2, 3) * 0.5 + np.where(idx % 2, 20, 10) + idx)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(cupy.asnumpy(y), expected.astype(np.float16))
    # broadcasting of non-raw arguments, and an output given by the caller
    add = cupy.ElementwiseKernel('T a, T b', 'T c', 'c = a + b', 'add')
    out = cupy.zeros((2, 3), np.float32)
    add(cupy.ones((2, 1), np.float32), cupy.ones(3, np.float32), out)
    np.testing.assert_array_equal(cupy.asnumpy(out), np.full((2, 3), 2))
    with pytest.raises(TypeError, match='Type is mismatched'):
        add(cupy.ones(2, np.float32), cupy.ones(2, np.float64))
    with pytest.raises(TypeError, match='Type is mismatched'):
        k(x, w.astype(np.float32), 0.5)
    with pytest.raises(ValueError, match='Out shape is mismatched'):
        add(cupy.ones(2, np.float32), cupy.ones(2, np.float32), cupy.zeros(3, np.float32))
    with pytest.raises(RuntimeError, match='failed to compile'):
        cupy.ElementwiseKernel('T x', 'T y', 'y = x +', 'broken')(cupy.ones(2))


def test_reduction_kernel(cupy):
    k = cupy.ReductionKernel('T x, T m', 'float64 s', 'exp((double)x - (double)m)', 'a + b',
                             's = log(a)', '0', 'lse', reduce_type='double')
    x = np.random.default_rng(0).standard_normal((3, 4, 2))
    m = x.max(axis=1, keepdims=True)
    s = k(cupy.asarray(x), cupy.asarray(m), axis=1, keepdims=True)
    assert s.shape == (3, 1, 2)
    np.testing.assert_allclose(cupy.asnumpy(s), np.log(np.exp(x - m).sum(1, keepdims=True)))
    assert k(cupy.asarray(x), cupy.asarray(x), axis=(0, 2)).shape == (4,)


def test_fft_has_cupys_names_dtypes_and_checks(cupy):
    import cupy.fft  # noqa: F401  (a module, as in CuPy)
    x = np.random.default_rng(0).standard_normal((3, 8))
    for dtype, complex_dtype, real_dtype in ((np.float32, np.complex64, np.float32),
                                             (np.float16, np.complex64, np.float32),
                                             (np.float64, np.complex128, np.float64)):
        a = cupy.asarray(x.astype(dtype))
        y = cupy.fft.fft(a)
        assert type(y) is cupy.ndarray and y.dtype == complex_dtype  # cuFFT's precision
        np.testing.assert_allclose(cupy.asnumpy(y), np.fft.fft(x.astype(dtype)), rtol=1e-3,
                                   atol=1e-3)
        assert cupy.fft.irfft(cupy.fft.rfft(a)).dtype == real_dtype
    a = cupy.asarray(x)
    for name in ('ifft', 'fft2', 'ifft2', 'fftn', 'ifftn', 'rfft', 'irfft', 'rfft2',
                 'irfft2', 'rfftn', 'irfftn', 'hfft', 'ihfft'):
        np.testing.assert_allclose(cupy.asnumpy(getattr(cupy.fft, name)(a)),
                                   getattr(np.fft, name)(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cupy.asnumpy(cupy.fft.fft(a, 4, 0, 'ortho')),
                               np.fft.fft(x, 4, 0, 'ortho'), rtol=1e-12)
    with pytest.raises(TypeError, match='must be a cupy.ndarray'):
        cupy.fft.fft(x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        cupy.fft.fft(a, out=a)  # NumPy 2 has out=, CuPy does not
    with pytest.raises(ValueError, match='Invalid norm'):
        cupy.fft.fft(a, norm='none')
    freq = cupy.fft.fftfreq(4, 0.5)
    assert type(freq) is cupy.ndarray and freq.dtype == np.float64
    np.testing.assert_array_equal(cupy.asnumpy(freq), np.fft.fftfreq(4, 0.5))
    # the shifts convert their input with cupy.asarray, as CuPy's do
    np.testing.assert_array_equal(cupy.asnumpy(cupy.fft.fftshift(np.arange(5))),
                                  np.fft.fftshift(np.arange(5)))
    with pytest.raises(AttributeError, match='not in CuPy'):
        cupy.fft.fft3


def test_scipy_special_wraps_scipy_for_device_arrays(cupy):
    special = pytest.importorskip('scipy.special')
    import cupyx
    from cupyx.scipy import special as cupyx_special
    assert cupyx.scipy.special is cupyx_special
    x = np.linspace(0.1, 2.0, 6)
    a = cupy.asarray(x)
    for name in ('digamma', 'gammaln', 'erf', 'erfc', 'erfcx', 'ndtr', 'log_ndtr', 'expit'):
        y = getattr(cupyx_special, name)(a)
        assert type(y) is cupy.ndarray
        np.testing.assert_array_equal(cupy.asnumpy(y), getattr(special, name)(x))
    p = cupy.asarray(x / 2.5)
    for name in ('erfinv', 'ndtri', 'erfcinv'):
        np.testing.assert_array_equal(cupy.asnumpy(getattr(cupyx_special, name)(p)),
                                      getattr(special, name)(x / 2.5))
    np.testing.assert_array_equal(cupy.asnumpy(cupyx_special.polygamma(2, a)),
                                  special.polygamma(2, x))
    np.testing.assert_array_equal(cupy.asnumpy(cupyx_special.zeta(a + 1, 2.0)),
                                  special.zeta(x + 1, 2.0))
    out = cupy.zeros(6)
    assert cupyx_special.erf(a, out=out) is out
    np.testing.assert_array_equal(cupy.asnumpy(out), special.erf(x))
    assert cupyx_special.psi is not None and cupyx_special.sinc(a).shape == (6,)
    with pytest.raises(TypeError, match='Unsupported type'):
        cupyx_special.digamma(x)  # CuPy's ufuncs refuse host arrays
    with pytest.raises(TypeError, match='Unsupported type'):
        cupyx_special.erf([0.5])
    with pytest.raises(AttributeError, match='not in CuPy'):
        cupyx_special.owens_t  # SciPy has it, CuPy 14.2 does not
    with pytest.raises(AttributeError, match='not emulated'):
        cupyx.scipy.ndimage
    with pytest.raises(AttributeError, match='not in CuPy'):
        cupyx.scipy.odr


def test_real_imag_setters_newaxis_and_device_id(cupy):
    z = cupy.zeros(3, np.complex64)
    z.real = cupy.arange(3, dtype=np.float32)
    z.imag = 2
    np.testing.assert_array_equal(cupy.asnumpy(z), np.arange(3) + 2j)
    with pytest.raises(TypeError, match='Unsupported type'):
        z.real = np.ones(3)  # an elementwise copy in CuPy: host arrays are refused
    with pytest.raises(TypeError):
        cupy.zeros(3).imag = 1  # a real array has no imaginary part to set
    assert cupy.newaxis is None
    assert cupy.ones(3)[:, cupy.newaxis].shape == (3, 1)
    assert cupy.cuda.get_device_id() == 0
    b = cupy.broadcast(cupy.ones((2, 1)), cupy.ones(3), 1.0)
    assert (b.shape, b.size, b.nd) == ((2, 3), 6, 2)
    assert all(type(v) is cupy.ndarray and v.shape == (2, 3) for v in b.values)
    with pytest.raises(TypeError, match='Unsupported type'):
        cupy.broadcast(cupy.ones(3), np.ones(3))


def test_random_states_are_per_device_as_in_cupy(cupy):
    from tools.cupy_emulator import _api
    assert not hasattr(cupy.random, 'generator')  # CuPy 14 has only _generator
    generator = cupy.random._generator
    saved = generator._random_states
    _api._state['count'] = 2
    try:
        generator._random_states = {}
        cupy.random.seed(5)
        a = cupy.random.rand(3)
        with cupy.cuda.Device(1):
            b = cupy.random.rand(3)
            assert b.device.id == 1
        assert sorted(generator._random_states) == [0, 1]
        cupy.random.seed(5)
        np.testing.assert_array_equal(cupy.asnumpy(cupy.random.rand(3)), cupy.asnumpy(a))
        rs = cupy.random.RandomState(5)
        np.testing.assert_array_equal(cupy.asnumpy(rs.rand(3)), cupy.asnumpy(a))
        cupy.random.set_random_state(rs)
        assert cupy.random.get_random_state() is rs
        with pytest.raises(TypeError, match='RandomState'):
            cupy.random.set_random_state(np.random.RandomState(0))
        with pytest.raises(TypeError, match='only supports float32 and float64'):
            rs.normal(size=2, dtype=np.float16)
        cupy.random.reset_states()
        assert generator._random_states == {}
    finally:
        generator._random_states = saved
        _api._state['count'] = 1


def test_fix_random_saves_and_seeds_cupys_states(cupy):
    # chainlet.testing's fix_random reaches CuPy's states through cupy.random._generator
    from chainlet.testing import random as test_random
    rs = cupy.random.get_random_state()
    draws = []
    for _ in range(2):
        test_random.do_setup()
        assert cupy.random.get_random_state() is not rs
        draws.append(cupy.asnumpy(cupy.random.rand(3)))
        test_random.do_teardown()
        assert cupy.random.get_random_state() is rs
    np.testing.assert_array_equal(draws[0], draws[1])


def test_memory_pointers_view_an_allocation(cupy):
    x = cupy.arange(8, dtype=np.float32)
    v = x[2:6]
    assert v.data.mem.size == 32 and v.data.ptr - v.data.mem.ptr == 8
    view = cupy.ndarray((2,), np.float32, cupy.cuda.MemoryPointer(v.data.mem, 4), (12,))
    np.testing.assert_array_equal(cupy.asnumpy(view), [1, 4])
    view[0] = -1  # a view: writes reach the allocation
    assert float(x[1]) == -1
    with pytest.raises(ValueError, match='outside the allocation'):
        cupy.cuda.MemoryPointer(x.data.mem, 40)


@pytest.mark.slow
def test_gpu_suite_passes_on_the_emulator():
    # two emulated GPUs, so that the tests of arrays on a non-current GPU run too
    env = dict(os.environ, CHAINLET_EMULATE_CUPY='1', CHAINLET_CUPY_EMULATOR_GPUS='2',
               PYTHONDONTWRITEBYTECODE='1')
    proc = subprocess.run(
        [sys.executable, '-m', 'pytest', '-m', 'gpu', '-q', '-p', 'no:cacheprovider',
         '-W', 'error', '-r', 'fEs'], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=900)
    tail = proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    passed = re.search(r'(\d+) passed', proc.stdout)
    assert passed and int(passed.group(1)) > 5000, tail
    # only cases the CPU suite disables too may skip: those a test case declares itself
    # (a disabled check, a distribution method outside its test_targets) skip there as well
    own = re.compile(r'disabled for this case|does not exist in test_targets')
    skipped = sum(int(n) for n, reason in re.findall(r'^SKIPPED \[(\d+)\] [^:]+:\d+: (.*)$',
                                                     proc.stdout, re.M)
                  if not own.search(reason))
    assert skipped < 50, tail


_RUN_ON_EMULATOR = '''
import runpy, sys
sys.path.insert(0, {root!r})
import tools.cupy_emulator
tools.cupy_emulator.install()
sys.argv = {argv!r}
runpy.run_path(sys.argv[0], run_name='__main__')
'''


@pytest.mark.slow
@pytest.mark.parametrize('argv, expect', [
    (['train_digits.py', '--epochs', '2'], 'final test accuracy'),
    (['convnet.py', '--epochs', '1'], 'final test accuracy'),
    (['gradient_penalty.py', '--steps', '20'], 'final mean input-gradient norm'),
    (['train_digits_trainer.py', '--epochs', '1', '--progress-interval', '1000'],
     'validation/main/accuracy'),
])
def test_examples_run_with_device_cupy(tmp_path, argv, expect):
    argv = [os.path.join(ROOT, 'examples', argv[0])] + argv[1:] + ['--device', '@cupy:0']
    if 'trainer' in argv[0]:
        argv += ['--out', str(tmp_path / 'result')]
    proc = subprocess.run([sys.executable, '-c', _RUN_ON_EMULATOR.format(root=ROOT, argv=argv)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert expect in proc.stdout


def test_float64_loss_kernel_computes_in_float64(cupy):
    # The loss kernel's first argument is the integer labels; its precision once came from
    # them, so float64 losses were computed in float32.
    import chainlet.functions as F
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4))
    t = np.array([0, 3, -1, 1, 2], np.int32)
    cpu = F.softmax_cross_entropy(x, t, reduce='no').array
    gpu = F.softmax_cross_entropy(cupy.asarray(x), cupy.asarray(t), reduce='no').array
    np.testing.assert_allclose(cupy.asnumpy(gpu), cpu, rtol=1e-14, atol=0)
