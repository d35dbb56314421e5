import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet.gradient_check import check_backward


def test_batch_renormalization_training_and_test():
    rng = np.random.RandomState(0)
    brn = L.BatchRenormalization(3, rmax=3.0, dmax=5.0, dtype=np.float64)
    brn.gamma.array[...] = rng.uniform(0.5, 1, 3)
    brn.beta.array[...] = rng.uniform(-1, 1, 3)
    x = rng.uniform(-1, 1, (5, 3, 2))
    running_mean = rng.uniform(-1, 1, 3)
    running_var = rng.uniform(0.5, 1.5, 3)
    brn.avg_mean[...] = running_mean
    brn.avg_var[...] = running_var
    y = brn(x)
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    sigma_b, sigma = np.sqrt(var + brn.eps), np.sqrt(running_var + brn.eps)
    r = np.clip(sigma_b / sigma, 1 / 3.0, 3.0)
    d = np.clip((mean - running_mean) / sigma, -5.0, 5.0)
    e = (None, slice(None), None)
    expected = brn.gamma.array[e] * ((x - mean[e]) / sigma_b[e] * r[e] + d[e]) + brn.beta.array[e]
    np.testing.assert_allclose(y.array, expected, rtol=1e-10)
    assert not np.allclose(brn.avg_mean, running_mean)  # the running statistics moved
    with chainlet.using_config('train', False):
        y_test = brn(x)
    expected_test = (brn.gamma.array[e] * (x - brn.avg_mean[e]) / np.sqrt(brn.avg_var[e] + brn.eps)
                     + brn.beta.array[e])
    np.testing.assert_allclose(y_test.array, expected_test, rtol=1e-10)
    # Parameter gradients (r and d are constants of backward, as in the paper and Chainer).
    brn.freeze_running_statistics = True
    brn.avg_mean[...] = running_mean
    brn.avg_var[...] = running_var
    gy = rng.randn(5, 3, 2)
    brn.cleargrads()
    y = brn(x)
    y.grad = gy
    y.backward()
    np.testing.assert_array_equal(brn.avg_mean, running_mean)  # frozen
    xr = (x - mean[e]) / sigma_b[e] * r[e] + d[e]
    np.testing.assert_allclose(brn.gamma.grad, (gy * xr).sum(axis=(0, 2)), rtol=1e-10)
    np.testing.assert_allclose(brn.beta.grad, gy.sum(axis=(0, 2)), rtol=1e-10)
    # With rmax = 1 and dmax = 0 it is batch normalization, exact gradients included.
    plain = L.BatchRenormalization(3, dtype=np.float64, freeze_running_statistics=True)
    check_backward(plain, x, gy, params=[plain.gamma, plain.beta], seed=0)


def test_batch_renormalization_finetune_statistics():
    x = np.random.RandomState(1).uniform(-1, 1, (10, 3)).astype(np.float32)
    brn = L.BatchRenormalization(3)
    assert brn.avg_mean.dtype == np.float32
    brn(x, finetune=True)
    np.testing.assert_allclose(brn.avg_mean, x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(brn.avg_var, x.var(0) * 10 / 9, rtol=1e-5)


@pytest.mark.parametrize('groups', [1, 2])
def test_decorrelated_batch_normalization_whitens_each_group_with_its_statistics(groups):
    # Chainer 7's algorithm (issue #7706): channel k*C + j is row j of group k, and each group
    # has its own mean and whitening matrix.
    rng = np.random.RandomState(2)
    dbn = L.DecorrelatedBatchNormalization(8, groups=groups, dtype=np.float64)
    C = 8 // groups
    assert dbn.avg_mean.shape == (groups, C) and dbn.avg_projection.shape == (groups, C, C)
    np.testing.assert_array_equal(dbn.avg_projection, np.tile(np.eye(C), (groups, 1, 1)))
    x = rng.uniform(-1, 1, (5, 8, 2))
    y = dbn(x)
    xg = x.transpose(1, 0, 2).reshape(groups, C, -1)
    for k in range(groups):
        xc = xg[k] - xg[k].mean(axis=1, keepdims=True)
        cov = xc @ xc.T / xg.shape[2] + dbn.eps * np.eye(C)
        w, V = np.linalg.eigh(cov)
        P = V @ np.diag(w ** -0.5) @ V.T
        expected = (P @ xc).reshape(C, 5, 2).transpose(1, 0, 2)
        np.testing.assert_allclose(y.array[:, k * C:(k + 1) * C], expected, rtol=1e-8,
                                   atol=1e-10)
    np.testing.assert_allclose(dbn.avg_mean, 0.1 * xg.mean(axis=2), rtol=1e-10)
    dbn.avg_mean[...] = rng.uniform(-1, 1, (groups, C))
    dbn.avg_projection[...] = rng.uniform(0.5, 1, (groups, C, C))
    with chainlet.using_config('train', False):
        y_test = dbn(x)
    expected_test = dbn.avg_projection @ (xg - dbn.avg_mean[:, :, None])
    expected_test = expected_test.reshape(8, 5, 2).transpose(1, 0, 2)
    np.testing.assert_allclose(y_test.array, expected_test, rtol=1e-10)
    with pytest.raises(ValueError, match='divisor'):
        L.DecorrelatedBatchNormalization(8, groups=3)
    with pytest.raises(ValueError, match='using_config'):
        dbn(x, test=True)


def test_decorrelated_batch_normalization_loads_models_of_chainer_6(tmp_path):
    from chainlet.links.normalization.decorrelated_batch_normalization import (
        fix_avg_mean, fix_avg_projection)
    rng = np.random.RandomState(3)
    old_mean, old_projection = rng.rand(4), rng.rand(4, 4)
    path = str(tmp_path / 'old.npz')
    np.savez(path, avg_mean=old_mean, avg_projection=old_projection, N=np.array(0))
    dbn = L.DecorrelatedBatchNormalization(8, groups=2, dtype=np.float64)
    with pytest.warns(UserWarning, match='Chainer < 7'):
        chainlet.serializers.load_npz(path, dbn)
    np.testing.assert_array_equal(dbn.avg_mean, [old_mean, old_mean])
    np.testing.assert_array_equal(dbn.avg_projection, [old_projection, old_projection])
    new = L.DecorrelatedBatchNormalization(8, groups=2, dtype=np.float64)
    chainlet.serializers.save_npz(str(tmp_path / 'new.npz'), dbn)
    chainlet.serializers.load_npz(str(tmp_path / 'new.npz'), new)  # the current layout as is
    np.testing.assert_array_equal(new.avg_projection, dbn.avg_projection)
    one = fix_avg_mean(old_mean, 1)  # one group: the old and new algorithms agree, no warning
    assert one.shape == (1, 4)
    assert fix_avg_projection(old_projection[None], 3).shape == (1, 4, 4)
    with pytest.raises(ValueError, match='unexpected shape of avg_mean'):
        fix_avg_mean(np.zeros((1, 1, 1)), 1)
    with pytest.raises(ValueError, match='unexpected shape of avg_projection'):
        fix_avg_projection(np.zeros(3), 1)
