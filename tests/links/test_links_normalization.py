import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet.gradient_check import check_backward


def _bn_reference(x, gamma, beta, eps):
    mean, var = x.mean(axis=0), x.var(axis=0)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta, mean, var


def test_batch_normalization_training_updates_running_averages():
    rng = np.random.RandomState(0)
    bn = L.BatchNormalization(3, decay=0.8, initial_gamma=np.array([1.0, 2.0, 0.5]),
                              initial_beta=np.array([0.0, 1.0, -1.0]), dtype=np.float64)
    avg_mean, avg_var = np.zeros(3), np.ones(3)
    for step in range(3):
        x = rng.randn(6, 3) * (step + 1) + step
        y = bn(x)
        expected, mean, var = _bn_reference(x, bn.gamma.array, bn.beta.array, bn.eps)
        np.testing.assert_allclose(y.array, expected, rtol=1e-10, atol=1e-12)
        avg_mean = 0.8 * avg_mean + 0.2 * mean
        avg_var = 0.8 * avg_var + 0.2 * var * 6 / 5
        np.testing.assert_allclose(bn.avg_mean, avg_mean, rtol=1e-12)
        np.testing.assert_allclose(bn.avg_var, avg_var, rtol=1e-12)
    assert bn.N == 0


def test_batch_normalization_test_mode_uses_running_statistics():
    rng = np.random.RandomState(1)
    bn = L.BatchNormalization(2, dtype=np.float64)
    bn(rng.randn(5, 2))
    mean, var = bn.avg_mean.copy(), bn.avg_var.copy()
    x = rng.randn(4, 2)
    with chainlet.using_config('train', False):
        y = bn(x)
    np.testing.assert_allclose(y.array, (x - mean) / np.sqrt(var + 2e-5), rtol=1e-10)
    np.testing.assert_array_equal(bn.avg_mean, mean)  # not updated at test time
    np.testing.assert_array_equal(bn.avg_var, var)


def test_batch_normalization_finetune_accumulates_exact_mean():
    rng = np.random.RandomState(2)
    bn = L.BatchNormalization(2, dtype=np.float64)
    batches = [rng.randn(4, 2) + i for i in range(3)]
    for x in batches:
        bn(x, finetune=True)
    assert bn.N == 3
    np.testing.assert_allclose(bn.avg_mean, np.mean([x.mean(0) for x in batches], 0))
    np.testing.assert_allclose(bn.avg_var, np.mean([x.var(0, ddof=1) for x in batches], 0))
    bn.start_finetuning()
    assert bn.N == 0
    bn(batches[0], finetune=True)
    np.testing.assert_allclose(bn.avg_mean, batches[0].mean(0))


def test_batch_normalization_images_axis_and_lazy():
    rng = np.random.RandomState(3)
    x = rng.randn(2, 3, 4, 4).astype(np.float32)
    bn = L.BatchNormalization(3)
    y = bn(x)
    np.testing.assert_allclose(y.array.mean(axis=(0, 2, 3)), 0, atol=1e-5)
    lazy = L.BatchNormalization(axis=(0, 2, 3))
    assert lazy.avg_mean is None and lazy.gamma.array is None
    np.testing.assert_allclose(lazy(x).array, y.array, rtol=1e-5, atol=1e-6)
    assert lazy.avg_mean.shape == (3,) and lazy.gamma.shape == (3,)
    per_pixel = L.BatchNormalization(axis=0)
    assert per_pixel(x).shape == x.shape and per_pixel.avg_mean.shape == (3, 4, 4)
    with pytest.raises(ValueError, match='size and axis'):
        L.BatchNormalization()


def test_batch_normalization_without_gamma_beta_and_repr():
    bn = L.BatchNormalization(2, use_gamma=False, use_beta=False)
    assert bn.gamma is None and bn.beta is None and list(bn.params()) == []
    x = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    np.testing.assert_allclose(bn(x).array, [[-1, -1], [1, 1]], atol=1e-4)
    assert repr(bn) == "BatchNormalization(size=(2,), decay=0.9, eps=2e-05, dtype='float32')"
    assert sorted(bn._persistent) == ['N', 'avg_mean', 'avg_var']


def test_batch_normalization_gradient_check():
    rng = np.random.RandomState(4)
    bn = L.BatchNormalization(3, dtype=np.float64, initial_gamma=rng.rand(3) + 0.5,
                              initial_beta=rng.randn(3))
    x = rng.randn(5, 3)
    check_backward(bn, x, rng.randn(5, 3), params=list(bn.params()), seed=0)
    with chainlet.using_config('train', False):
        check_backward(bn, x, rng.randn(5, 3), params=list(bn.params()), seed=0)


def test_layer_normalization():
    rng = np.random.RandomState(5)
    ln = L.LayerNormalization(initial_gamma=rng.rand(4) + 0.5, initial_beta=rng.randn(4))
    assert ln.gamma.dtype == np.float64
    x = rng.randn(3, 4)
    y = ln(x)
    expected = F.layer_normalization(x, ln.gamma.array, ln.beta.array, 1e-6).array
    np.testing.assert_allclose(y.array, expected, rtol=1e-12)
    ref = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(y.array, ref * ln.gamma.array + ln.beta.array, rtol=1e-10)
    check_backward(ln, x, rng.randn(3, 4), params=list(ln.params()), seed=0)
    assert L.LayerNormalization(4).gamma.shape == (4,)
    assert repr(ln) == 'LayerNormalization(size=4, eps=1e-06)'


def test_group_normalization():
    rng = np.random.RandomState(6)
    gn = L.GroupNormalization(2, initial_gamma=rng.rand(4) + 0.5, initial_beta=rng.randn(4))
    x = rng.randn(2, 4, 3)
    y = gn(x)
    assert gn.gamma.shape == (4,)
    expected = F.group_normalization(x, 2, gn.gamma.array, gn.beta.array, 1e-5).array
    np.testing.assert_allclose(y.array, expected, rtol=1e-12)
    g = x.reshape(2, 2, 6)
    ref = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5))
    ref = ref.reshape(2, 4, 3) * gn.gamma.array[:, None] + gn.beta.array[:, None]
    np.testing.assert_allclose(y.array, ref, rtol=1e-10)
    check_backward(gn, x, rng.randn(2, 4, 3), params=list(gn.params()), seed=0)
    with pytest.raises(ValueError, match='ndim >= 2'):
        gn(np.zeros((4,)))
    # (batch, channels) is accepted, as in Chainer 7: each group of 2 channels is normalized
    x2 = rng.randn(3, 4)
    g2 = x2.reshape(3, 2, 2)
    ref2 = ((g2 - g2.mean(2, keepdims=True)) / np.sqrt(g2.var(2, keepdims=True) + 1e-5))
    ref2 = ref2.reshape(3, 4) * gn.gamma.array + gn.beta.array
    np.testing.assert_allclose(gn(x2).array, ref2, rtol=1e-10)


def test_batch_normalization_call_arguments():
    bn = L.BatchNormalization(3)
    x = np.ones((4, 3), np.float32)
    with pytest.raises(ValueError, match='using_config'):
        bn(x, test=True)  # Chainer v1's argument, answered with the hint
    with pytest.raises(TypeError):
        bn(x, True)  # finetune is keyword-only
    with pytest.raises(TypeError, match='unknown_argument'):
        bn(x, unknown_argument=1)
    with pytest.raises(TypeError, match='size'):
        L.BatchNormalization({})
    bn(x, finetune=True)
    assert bn.N == 1


def test_group_normalization_groups_checked_at_call():
    gn = L.GroupNormalization(groups=3.5)  # accepted here, as in Chainer
    with pytest.raises(TypeError, match='groups'):
        gn(np.zeros((2, 5, 2), np.float32))
    with pytest.raises(ValueError):
        L.GroupNormalization(groups=3)(np.zeros((2, 5, 2), np.float32))  # 5 % 3 != 0


def test_batch_normalization_mixed16_and_missing_size():
    with chainlet.using_config('dtype', chainlet.mixed16):
        bn = L.BatchNormalization(3)
        assert bn.gamma.dtype == np.float32 and bn.avg_var.dtype == np.float32
        x = np.arange(6, dtype=np.float16).reshape(2, 3)
        y = bn(x)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.array, [[-1, -1, -1], [1, 1, 1]], atol=1e-2)
    with pytest.raises(RuntimeError, match='size'):  # Chainer's type; also a ValueError
        L.BatchNormalization()


def test_group_normalization_mixed16_keeps_float32_parameters():
    with chainlet.using_config('dtype', chainlet.mixed16):
        gn = L.GroupNormalization(3)
        y = gn(np.zeros((2, 6, 4), np.float16))
    assert gn.gamma.dtype == np.float32 and gn.beta.dtype == np.float32
    assert y.dtype == np.float16
    # The groups check comes before any dtype complaint (Chainer's ValueError).
    gn = L.GroupNormalization(groups=3)
    with pytest.raises(ValueError, match='groups'):
        gn(np.zeros((2, 5, 2), np.float16))
