"""Pooling and spatial reshaping layers against NumPy references."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import layers


def pool_ref(x, pool, strides, padding, mode):
    """Channels-last pooling; 'same' ignores the padded cells (TensorFlow)."""
    rank = x.ndim - 2
    if padding == 'same':
        outs = [math.ceil(x.shape[1 + i] / strides[i]) for i in range(rank)]
        befores = [max((o - 1) * s + k - n, 0) // 2
                   for o, s, k, n in zip(outs, strides, pool, x.shape[1:-1])]
    else:
        outs = [(n - k) // s + 1 for n, k, s in zip(x.shape[1:-1], pool, strides)]
        befores = [0] * rank
    y = np.zeros((x.shape[0],) + tuple(outs) + (x.shape[-1],))
    for pos in itertools.product(*[range(o) for o in outs]):
        index = [slice(None)]
        for p, s, k, b, n in zip(pos, strides, pool, befores, x.shape[1:-1]):
            start = p * s - b
            index.append(slice(max(start, 0), min(start + k, n)))
        window = x[tuple(index)].reshape(x.shape[0], -1, x.shape[-1])
        y[(slice(None),) + pos] = window.max(1) if mode == 'max' else window.mean(1)
    return y


@pytest.mark.parametrize('cls,mode', [(layers.MaxPooling2D, 'max'),
                                      (layers.AveragePooling2D, 'avg')])
@pytest.mark.parametrize('padding', ['valid', 'same'])
@pytest.mark.parametrize('pool,strides', [((2, 2), None), ((3, 3), (2, 2)), ((3, 2), (1, 2)),
                                          ((2, 2), (3, 3))])
def test_pooling2d_matches_reference(cls, mode, padding, pool, strides):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 7, 6, 3))
    layer = cls(pool, strides=strides, padding=padding, dtype='float64')
    y = layer(x).array
    expected = pool_ref(x, pool, strides or pool, padding, mode)
    np.testing.assert_allclose(y, expected, atol=1e-12)
    assert layer.compute_output_shape((None, 7, 6, 3)) == (None,) + y.shape[1:]


@pytest.mark.parametrize('cls,mode', [(layers.MaxPooling1D, 'max'),
                                      (layers.AveragePooling1D, 'avg')])
@pytest.mark.parametrize('padding', ['valid', 'same'])
def test_pooling1d_and_channels_first(cls, mode, padding):
    rng = np.random.default_rng(1)
    x = -np.abs(rng.standard_normal((2, 7, 3)))  # all negative: padding must never win
    y = cls(3, strides=2, padding=padding, dtype='float64')(x).array
    np.testing.assert_allclose(y, pool_ref(x, (3,), (2,), padding, mode), atol=1e-12)
    cf = cls(3, strides=2, padding=padding, data_format='channels_first', dtype='float64')
    np.testing.assert_allclose(cf(np.moveaxis(x, -1, 1)).array, np.moveaxis(y, -1, 1))


def test_global_pooling():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 5, 3))
    np.testing.assert_allclose(layers.GlobalAveragePooling2D(dtype='float64')(x).array,
                               x.mean((1, 2)))
    np.testing.assert_allclose(layers.GlobalMaxPooling2D(dtype='float64')(x).array,
                               x.max((1, 2)))
    y = layers.GlobalMaxPooling2D(keepdims=True, dtype='float64')(x)
    assert y.shape == (2, 1, 1, 3)
    s = x[:, 0]
    np.testing.assert_allclose(layers.GlobalAveragePooling1D(dtype='float64')(s).array,
                               s.mean(1))
    np.testing.assert_allclose(
        layers.GlobalMaxPooling1D(data_format='channels_first', dtype='float64')(s).array,
        s.max(2))


def test_global_average_pooling1d_honours_embedding_mask():
    emb = layers.Embedding(5, 2, mask_zero=True)
    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0]])
    e = emb(ids)
    y = layers.GlobalAveragePooling1D()(e).array
    w = emb.get_weights()[0]
    np.testing.assert_allclose(y[0], w[[1, 2]].mean(0), rtol=1e-6)
    np.testing.assert_allclose(y[1], w[3], rtol=1e-6)


def test_pooling_input_spec_error():
    with pytest.raises(ValueError, match=r'max_pooling2d.*expected ndim=4'):
        layers.MaxPooling2D(name='max_pooling2d_x')(np.zeros((2, 4, 4), np.float32))


def _bilinear_ref_1d(v, s):
    n = len(v)
    out = []
    for i in range(n * s):
        src = (i + 0.5) / s - 0.5
        lo = math.floor(src)
        frac = src - lo
        out.append(v[min(max(lo, 0), n - 1)] * (1 - frac) + v[min(max(lo + 1, 0), n - 1)] * frac)
    return np.array(out)


def test_upsampling():
    x = np.arange(6, dtype=np.float64).reshape(1, 2, 3, 1)
    y = layers.UpSampling2D((2, 3), dtype='float64')(x).array
    np.testing.assert_array_equal(y, x.repeat(2, 1).repeat(3, 2))
    v = np.array([0.0, 1.0])
    np.testing.assert_allclose(_bilinear_ref_1d(v, 2), [0, 0.25, 0.75, 1])
    y = layers.UpSampling2D(2, interpolation='bilinear', dtype='float64')(x).array
    rows = np.stack([_bilinear_ref_1d(x[0, :, j, 0], 2) for j in range(3)], 1)
    expected = np.stack([_bilinear_ref_1d(r, 2) for r in rows])
    np.testing.assert_allclose(y[0, :, :, 0], expected)
    seq = np.arange(3, dtype=np.float32).reshape(1, 3, 1)
    np.testing.assert_array_equal(layers.UpSampling1D(2)(seq).array.ravel(),
                                  [0, 0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match='interpolation'):
        layers.UpSampling2D(interpolation='cubic')


def test_zero_padding_and_cropping():
    x = np.arange(2 * 4 * 5 * 3, dtype=np.float64).reshape(2, 4, 5, 3)
    y = layers.ZeroPadding2D(((1, 2), (0, 1)), dtype='float64')(x).array
    np.testing.assert_array_equal(y, np.pad(x, ((0, 0), (1, 2), (0, 1), (0, 0))))
    y = layers.ZeroPadding2D(1, dtype='float64')(x).array
    np.testing.assert_array_equal(y, np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))))
    y = layers.Cropping2D(((1, 0), (2, 1)), dtype='float64')(x).array
    np.testing.assert_array_equal(y, x[:, 1:, 2:4])
    y = layers.Cropping2D((1, 1), data_format='channels_first', dtype='float64')(x).array
    np.testing.assert_array_equal(y, x[:, :, 1:4, 1:2])
    s = x[:, :, :, 0]
    np.testing.assert_array_equal(layers.Cropping1D((1, 2), dtype='float64')(s).array,
                                  s[:, 1:2])
    np.testing.assert_array_equal(layers.ZeroPadding1D(2, dtype='float64')(s).array,
                                  np.pad(s, ((0, 0), (2, 2), (0, 0))))
    with pytest.raises(ValueError, match='cropping'):
        layers.Cropping2D(((3, 1), (0, 0)))(x)
    inputs = keras.Input(shape=(4, 5, 3))
    assert layers.Cropping2D(((1, 0), (2, 1)))(inputs).shape == (None, 3, 2, 3)
    assert layers.ZeroPadding2D(((1, 2), (0, 1)))(inputs).shape == (None, 7, 6, 3)
