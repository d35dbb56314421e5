import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check


def _cyclic_sampler(high):
    return lambda shape: (np.arange(np.prod(shape)) % high).reshape(shape).astype(np.int32)


@pytest.mark.parametrize('t', [[0, 2], [-1, 1, 2]])
@pytest.mark.parametrize('reduce', ['sum', 'no'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_negative_sampling(t, reduce, dtype):
    t = np.array(t, np.int32)
    x = np.random.uniform(-1, 1, (len(t), 3)).astype(dtype)
    W = np.random.uniform(-1, 1, (5, 3)).astype(dtype)
    y, samples = F.negative_sampling(chainlet.Variable(x), t, chainlet.Variable(W),
                                     _cyclic_sampler(5), 2, reduce=reduce, return_samples=True)
    assert samples is y.creator.samples and samples.shape == (len(t), 3)
    expected = np.zeros(len(t))
    for i in range(len(t)):
        if t[i] != -1:
            assert samples[i, 0] == t[i]
            f = W[samples[i]].astype(np.float64) @ x[i]
            f[0] *= -1
            expected[i] = np.logaddexp(f, 0).sum()
    expected = expected.sum() if reduce == 'sum' else expected
    assert y.dtype == dtype
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)

    def f(x, W):
        return F.negative_sampling(x, t, W, _cyclic_sampler(5), 2, reduce=reduce)

    gy = np.asarray(np.random.uniform(-1, 1, y.shape), dtype)
    opts = dict(eps=1e-2, atol=1e-3, rtol=1e-2)
    gradient_check.check_backward(f, (x, W), gy, **opts)
    gradient_check.check_double_backward(
        f, (x, W), gy, (np.random.uniform(-1, 1, x.shape).astype(dtype),
                        np.random.uniform(-1, 1, W.shape).astype(dtype)), **opts)


def test_negative_sampling_errors():
    x, t, W = np.zeros((2, 3), np.float32), np.zeros(2, np.int32), np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match='argument reduce'):
        F.negative_sampling(x, t, W, _cyclic_sampler(4), 2, reduce='mean')
    with pytest.raises(TypeError, match='argument W'):
        F.negative_sampling(x, t, np.zeros((4, 2), np.float32), _cyclic_sampler(4), 2)


@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_black_out(reduce):
    x = np.random.uniform(-1, 1, (5, 4))
    t = np.random.randint(0, 3, 5).astype(np.int32)
    W = np.random.uniform(-1, 1, (3, 4))
    samples = np.random.randint(0, 3, (5, 2)).astype(np.int32)
    expected = []
    for b in range(5):
        scores = np.concatenate([[W[t[b]] @ x[b]], W[samples[b]] @ x[b]])
        p = np.exp(scores) / np.exp(scores).sum()
        expected.append(-np.log(p[0]) - np.log(1 - p[1:]).sum())
    expected = np.mean(expected) if reduce == 'mean' else np.array(expected)
    y = F.black_out(x, t, W, samples, reduce)
    np.testing.assert_allclose(y.array, expected)

    def f(x, W):
        return F.black_out(x, t, W, samples, reduce)

    gy = np.asarray(np.random.uniform(-1, 1, y.shape))
    gradient_check.check_backward(f, (x, W), gy)
    gradient_check.check_double_backward(f, (x, W), gy, (np.random.uniform(-1, 1, x.shape),
                                                         np.random.uniform(-1, 1, W.shape)))


def test_black_out_errors():
    with pytest.raises(ValueError, match='black_out: argument reduce'):
        F.black_out(np.zeros((1, 2)), np.zeros(1, np.int32), np.zeros((3, 2)),
                    np.zeros((1, 2), np.int32), reduce='sum')
    with pytest.raises(ValueError, match='black_out: expected'):
        F.black_out(np.zeros((1, 2)), np.zeros(2, np.int32), np.zeros((3, 2)),
                    np.zeros((1, 2), np.int32))
