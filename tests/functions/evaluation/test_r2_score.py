import numpy as np
import pytest

import chainlet.functions as F


def _r2(pred, true, w=None):
    w = np.ones(len(pred)) if w is None else w
    w = w.reshape((-1,) + (1,) * (pred.ndim - 1))
    mean = (w * true).sum(0) / w.sum()
    ss_res = (w * (pred - true) ** 2).sum(0)
    ss_tot = (w * (true - mean) ** 2).sum(0)
    return 1 - ss_res / ss_tot


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('shape', [(6,), (6, 3), (5, 2, 2)])
def test_matches_reference(dtype, shape):
    true = np.random.uniform(-1, 1, shape)
    pred = true + np.random.uniform(-0.3, 0.3, shape)
    raw = F.r2_score(pred.astype(dtype), true.astype(dtype), multioutput='raw_values')
    assert raw.dtype == dtype and raw.shape == shape[1:]
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(raw.array, _r2(pred, true), rtol=tol, atol=tol)
    avg = F.r2_score(pred.astype(dtype), true.astype(dtype))
    assert avg.shape == ()
    np.testing.assert_allclose(avg.array, _r2(pred, true).mean(), rtol=tol, atol=tol)


def test_sample_weight():
    true = np.random.randn(6, 2)
    pred = true + 0.1 * np.random.randn(6, 2)
    w = np.random.uniform(0.5, 2, 6)
    got = F.r2_score(pred, true, sample_weight=w, multioutput='raw_values')
    np.testing.assert_allclose(got.array, _r2(pred, true, w))


def test_constant_target_scores_zero():
    assert float(F.r2_score(np.array([1.0, 2.0]), np.array([3.0, 3.0])).array) == 0


def test_errors():
    x = np.zeros(3)
    with pytest.raises(ValueError, match='r2_score: argument multioutput'):
        F.r2_score(x, x, multioutput='variance_weighted')
    with pytest.raises(TypeError, match='r2_score: argument true: expected shape'):
        F.r2_score(x, np.zeros(4))
    with pytest.raises(TypeError, match='r2_score: argument sample_weight'):
        F.r2_score(x, x, sample_weight=np.ones(2))
