"""chainlet.utils.WalkerAlias: the table reproduces the distribution; device moves."""
import numpy as np
import pytest

from chainlet import backend, utils


def _table_probs(sampler):
    """Exact outcome probabilities encoded by the alias table."""
    n = len(sampler.threshold)
    p = np.zeros(n)
    for i in range(n):
        t = float(sampler.threshold[i])
        p[sampler.values[2 * i]] += t / n
        p[sampler.values[2 * i + 1]] += (1 - t) / n
    return p


@pytest.mark.parametrize('probs', [[5, 3, 4, 1, 2], [1], [0, 1, 0], [0.1] * 7,
                                   [1e-6, 1, 2, 1000], list(range(1, 50))])
def test_table_is_exact(probs):
    sampler = utils.WalkerAlias(np.array(probs))
    assert sampler.threshold.dtype == np.float32 and sampler.values.dtype == np.int32
    assert sampler.values.shape == (2 * len(probs),)
    expected = np.array(probs, np.float64) / np.sum(probs)
    np.testing.assert_allclose(_table_probs(sampler), expected, atol=1e-6)


def test_sample_frequencies():
    np.random.seed(0)
    ps = np.array([5, 3, 4, 1, 2], np.int32)
    sampler = utils.WalkerAlias(ps)
    assert not sampler.use_gpu and sampler.xp is np
    vs = sampler.sample((200, 4, 3))
    assert vs.shape == (200, 4, 3) and vs.dtype == np.int32
    counts = np.bincount(vs.ravel(), minlength=5) / vs.size
    np.testing.assert_allclose(counts, ps / ps.sum(), atol=0.02)


def test_zero_probability_never_drawn():
    np.random.seed(1)
    vs = utils.WalkerAlias([0, 1, 0, 2]).sample(5000)
    assert set(np.unique(vs).tolist()) == {1, 3}


@pytest.mark.parametrize('probs', [[], [[1, 2]], [1, -1], [0, 0]])
def test_bad_probs(probs):
    with pytest.raises(ValueError, match='argument probs'):
        utils.WalkerAlias(probs)


def test_to_device_cpu_and_deprecated_to_cpu():
    sampler = utils.WalkerAlias([1, 2])
    assert sampler.to_device('@numpy') is sampler
    assert isinstance(sampler.device, backend.CpuDevice)
    with pytest.warns(DeprecationWarning, match=r"to_device\('@numpy'\)"):
        sampler.to_cpu()


def test_device_resident_accept():
    seen = []

    class Visitor:
        def visit_device_resident(self, obj):
            seen.append(obj)

        def visit_array(self, a):
            return a + 0

    sampler = utils.WalkerAlias([1, 2])
    threshold = sampler.threshold
    sampler.device_resident_accept(Visitor())
    assert seen == [sampler] and sampler.threshold is not threshold


@pytest.mark.gpu
def test_gpu():
    import cupy
    sampler = utils.WalkerAlias([5, 3, 4, 1, 2])
    with pytest.warns(DeprecationWarning):
        sampler.to_gpu(0)
    assert sampler.use_gpu and isinstance(sampler.device, backend.GpuDevice)
    vs = sampler.sample((1000, 12))
    assert isinstance(vs, cupy.ndarray) and vs.dtype == np.int32
    counts = np.bincount(vs.get().ravel(), minlength=5) / vs.size
    np.testing.assert_allclose(counts, np.array([5, 3, 4, 1, 2]) / 15, atol=0.02)
    with pytest.warns(DeprecationWarning):
        sampler.to_cpu()
    assert not sampler.use_gpu and isinstance(sampler.values, np.ndarray)
