import numpy as np

import chainlet
import chainlet.links as L


def test_negative_sampling_loss_matches_reference():
    rng = np.random.RandomState(0)
    ns = L.NegativeSampling(3, [10, 5, 2, 5, 2], sample_size=2)
    assert ns.W.shape == (5, 3) and not ns.W.array.any()  # zero at the start
    ns.W.array[...] = rng.uniform(-1, 1, ns.W.shape)
    x = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    t = np.array([-1, 1, 2], np.int32)
    y, samples = ns(x, t, reduce='no', return_samples=True)
    assert samples.shape == (3, 3) and samples.dtype == np.int32
    assert (samples[1:, 0] == t[1:]).all()  # the first column is the target
    expected = np.zeros(3, np.float32)
    for i in (1, 2):
        f = ns.W.array[samples[i]] @ x[i]
        f[0] *= -1
        expected[i] = np.logaddexp(f, 0).sum()
    np.testing.assert_allclose(y.array, expected, rtol=1e-5)
    total = ns(x, t)
    assert total.shape == ()
    total.backward()
    assert ns.W.grad is not None


def test_negative_sampling_samples_follow_powered_counts():
    np.random.seed(0)
    ns = L.NegativeSampling(2, [1, 0, 16], sample_size=400, power=0.5)
    _, samples = ns(np.zeros((1, 2), np.float32), np.array([0], np.int32),
                    return_samples=True)
    negatives = samples[0, 1:]
    assert not (negatives == 1).any()  # zero count is never drawn
    np.testing.assert_allclose((negatives == 2).mean(), 4 / 5, atol=0.06)  # sqrt: 1 vs 4


def test_black_out_with_fixed_samples():
    rng = np.random.RandomState(1)
    with chainlet.using_config('dtype', np.float64):
        bo = L.BlackOut(4, [3, 2, 1], sample_size=5)
    assert bo.W.dtype == np.float64 and np.isfinite(bo.W.array).all()
    x = rng.uniform(-1, 1, (3, 4))
    t = np.array([0, 2, 1], np.int32)
    bo.sample_data = bo.sampler.sample((3, 5))
    y = bo(x, t)
    W, s = bo.W.array, bo.sample_data
    expected = 0.0
    for b in range(3):
        neg = np.exp(W[s[b]] @ x[b])
        pos = W[t[b]] @ x[b]
        z = neg.sum() + np.exp(pos)
        expected += pos - np.log(z) + np.log(1 - neg / z).sum()
    np.testing.assert_allclose(y.array, -expected / 3, rtol=1e-10)
