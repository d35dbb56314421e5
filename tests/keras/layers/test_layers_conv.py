"""Convolution layers against a direct NumPy loop implementation (Keras layouts)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import layers


def _same_pads(length, k, s, d):
    dk = k + (k - 1) * (d - 1)
    out = math.ceil(length / s)
    total = max((out - 1) * s + dk - length, 0)
    return total // 2, total - total // 2


def conv_ref(x, kernel, bias, strides, padding, dilation, groups=1):
    """Channels-last N-D convolution: x (N, *L, C), kernel (*k, C / groups, O)."""
    rank = x.ndim - 2
    ks = kernel.shape[:rank]
    if padding == 'same':
        pads = [_same_pads(x.shape[1 + i], ks[i], strides[i], dilation[i]) for i in range(rank)]
    elif padding == 'causal':
        pads = [((ks[0] - 1) * dilation[0], 0)]
    else:
        pads = [(0, 0)] * rank
    xp = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    dks = [k + (k - 1) * (d - 1) for k, d in zip(ks, dilation)]
    outs = [(xp.shape[1 + i] - dks[i]) // strides[i] + 1 for i in range(rank)]
    cin_g, n_out = kernel.shape[-2], kernel.shape[-1]
    out_g = n_out // groups
    y = np.zeros((x.shape[0],) + tuple(outs) + (n_out,))
    for pos in itertools.product(*[range(o) for o in outs]):
        for o in range(n_out):
            g = o // out_g
            acc = np.zeros(x.shape[0])
            for kpos in itertools.product(*[range(k) for k in ks]):
                idx = tuple(p * s + q * d for p, s, q, d in zip(pos, strides, kpos, dilation))
                window = xp[(slice(None),) + idx + (slice(g * cin_g, (g + 1) * cin_g),)]
                acc += window @ kernel[kpos + (slice(None), o)]
            y[(slice(None),) + pos + (o,)] = acc + (0 if bias is None else bias[o])
    return y


def conv_transpose_ref(x, kernel, bias, strides, padding, output_padding=None):
    """Channels-last transposed convolution: kernel (*k, O, C), TensorFlow's placement."""
    rank = x.ndim - 2
    ks = kernel.shape[:rank]
    full_len = [(x.shape[1 + i] - 1) * strides[i] + ks[i] for i in range(rank)]
    n_out = kernel.shape[-2]
    full = np.zeros((x.shape[0],) + tuple(full_len) + (n_out,))
    for pos in itertools.product(*[range(n) for n in x.shape[1:-1]]):
        for kpos in itertools.product(*[range(k) for k in ks]):
            idx = tuple(p * s + q for p, s, q in zip(pos, strides, kpos))
            full[(slice(None),) + idx] += x[(slice(None),) + pos] @ kernel[kpos].T
    target = []
    for i in range(rank):
        n, k, s = x.shape[1 + i], ks[i], strides[i]
        if output_padding is None:
            target.append(n * s + max(k - s, 0) if padding == 'valid' else n * s)
        else:
            pad = k // 2 if padding == 'same' else 0
            target.append((n - 1) * s + k - 2 * pad + output_padding[i])
    y = np.zeros((x.shape[0],) + tuple(target) + (n_out,))
    index = [slice(None)]
    for i in range(rank):
        # Forward 'same' convolution from the target length back to the input length.
        total = max((x.shape[1 + i] - 1) * strides[i] + ks[i] - target[i], 0)
        before = total // 2 if padding == 'same' else 0
        index.append(slice(before, before + target[i]))
    cropped = full[tuple(index)]
    y[tuple(slice(0, n) for n in cropped.shape)] = cropped
    return y + (0 if bias is None else bias)


def _random_weights(layer, rng):
    layer.set_weights([rng.standard_normal(w.shape) for w in layer.get_weights()])


@pytest.mark.parametrize('padding', ['valid', 'same'])
@pytest.mark.parametrize('strides,dilation', [((1, 1), (1, 1)), ((2, 2), (1, 1)),
                                              ((2, 1), (1, 1)), ((1, 1), (2, 1))])
@pytest.mark.parametrize('size', [(5, 6), (6, 7)])
def test_conv2d_matches_loop(padding, strides, dilation, size):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2,) + size + (3,))
    layer = layers.Conv2D(4, (3, 2), strides=strides, padding=padding, dilation_rate=dilation,
                          dtype='float64')
    layer(x)
    _random_weights(layer, rng)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 2, 3, 4)
    y = layer(x).array
    np.testing.assert_allclose(y, conv_ref(x, kernel, bias, strides, padding, dilation),
                               atol=1e-10)
    assert layer.compute_output_shape((None,) + x.shape[1:])[1:] == y.shape[1:]


def test_conv2d_same_odd_padding_extra_on_bottom_right():
    # 4x4 input, 2x2 kernel of ones, stride 1: the single padding row/column goes after.
    x = np.arange(16, dtype=np.float64).reshape(1, 4, 4, 1)
    layer = layers.Conv2D(1, 2, padding='same', use_bias=False, kernel_initializer='ones',
                          dtype='float64')
    y = layer(x).array[0, :, :, 0]
    assert y[0, 0] == 0 + 1 + 4 + 5
    assert y[3, 3] == 15
    assert y[0, 3] == 3 + 7


@pytest.mark.parametrize('padding', ['valid', 'same', 'causal'])
@pytest.mark.parametrize('strides,dilation', [(1, 1), (2, 1), (1, 2)])
def test_conv1d_matches_loop(padding, strides, dilation):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 7, 3))
    layer = layers.Conv1D(2, 3, strides=strides, padding=padding, dilation_rate=dilation,
                          dtype='float64')
    layer(x)
    _random_weights(layer, rng)
    kernel, bias = layer.get_weights()
    np.testing.assert_allclose(layer(x).array,
                               conv_ref(x, kernel, bias, (strides,), padding, (dilation,)),
                               atol=1e-10)


def test_conv1d_same_known_values():
    x = np.arange(4, dtype=np.float32).reshape(1, 4, 1)
    layer = layers.Conv1D(1, 2, padding='same', kernel_initializer='ones', use_bias=False)
    np.testing.assert_array_equal(layer(x).array.ravel(), [1, 3, 5, 3])


def test_conv2d_groups_and_channels_first():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 5, 4))
    layer = layers.Conv2D(6, 3, groups=2, padding='same', dtype='float64')
    layer(x)
    _random_weights(layer, rng)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 3, 2, 6)
    expected = conv_ref(x, kernel, bias, (1, 1), 'same', (1, 1), groups=2)
    np.testing.assert_allclose(layer(x).array, expected, atol=1e-10)
    cf = layers.Conv2D(6, 3, groups=2, padding='same', data_format='channels_first',
                       dtype='float64')
    cf(np.moveaxis(x, -1, 1))
    cf.set_weights([kernel, bias])
    np.testing.assert_allclose(cf(np.moveaxis(x, -1, 1)).array, np.moveaxis(expected, -1, 1),
                               atol=1e-10)


@pytest.mark.parametrize('padding', ['valid', 'same'])
@pytest.mark.parametrize('strides', [(1, 1), (2, 2), (3, 2)])
@pytest.mark.parametrize('kernel_size', [(3, 3), (2, 4), (1, 1)])
def test_conv2d_transpose_matches_loop(padding, strides, kernel_size):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 3))
    layer = layers.Conv2DTranspose(2, kernel_size, strides=strides, padding=padding,
                                   dtype='float64')
    layer(x)
    _random_weights(layer, rng)
    kernel, bias = layer.get_weights()
    assert kernel.shape == kernel_size + (2, 3)
    y = layer(x).array
    np.testing.assert_allclose(y, conv_transpose_ref(x, kernel, bias, strides, padding),
                               atol=1e-10)
    assert y.shape[1:] == layer.compute_output_shape((None,) + x.shape[1:])[1:]


def test_conv_transpose_known_values_and_output_padding():
    x = np.array([1.0, 2.0]).reshape(1, 2, 1)
    layer = layers.Conv1DTranspose(1, 3, strides=2, padding='same', use_bias=False,
                                   kernel_initializer='ones', dtype='float64')
    np.testing.assert_array_equal(layer(x).array.ravel(), [1, 1, 3, 2])
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 3, 3, 2))
    layer = layers.Conv2DTranspose(2, 3, strides=2, padding='same', output_padding=0,
                                   dtype='float64')
    layer(x)
    kernel, bias = layer.get_weights()
    np.testing.assert_allclose(layer(x).array,
                               conv_transpose_ref(x, kernel, bias, (2, 2), 'same', (0, 0)),
                               atol=1e-10)


@pytest.mark.parametrize('padding', ['valid', 'same'])
@pytest.mark.parametrize('strides', [1, 2])
def test_depthwise_and_separable_match_loop(padding, strides):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 6, 5, 3))
    dw = layers.DepthwiseConv2D(3, strides=strides, padding=padding, depth_multiplier=2,
                                dtype='float64')
    dw(x)
    _random_weights(dw, rng)
    kernel, bias = dw.get_weights()
    assert kernel.shape == (3, 3, 3, 2)
    # Depthwise = grouped convolution with groups = in and kernel (*k, 1, in * m).
    grouped = kernel.reshape(3, 3, 1, 6)
    s = (strides, strides)
    expected = conv_ref(x, grouped, bias, s, padding, (1, 1), groups=3)
    np.testing.assert_allclose(dw(x).array, expected, atol=1e-10)

    sep = layers.SeparableConv2D(4, 3, strides=strides, padding=padding, depth_multiplier=2,
                                 dtype='float64')
    sep(x)
    _random_weights(sep, rng)
    dk, pk, b = sep.get_weights()
    assert (dk.shape, pk.shape, b.shape) == ((3, 3, 3, 2), (1, 1, 6, 4), (4,))
    h = conv_ref(x, dk.reshape(3, 3, 1, 6), None, s, padding, (1, 1), groups=3)
    np.testing.assert_allclose(sep(x).array, conv_ref(h, pk, b, (1, 1), 'valid', (1, 1)),
                               atol=1e-10)


def test_conv_input_spec_error_names_layer_and_ndim():
    layer = layers.Conv2D(2, 3, name='my_conv')
    with pytest.raises(ValueError, match=r'my_conv.*expected ndim=4, found ndim=3'):
        layer(np.zeros((2, 5, 3), np.float32))
    with pytest.raises(ValueError, match='my_conv'):
        layer(keras.Input(shape=(5, 3)))


def test_conv_argument_errors():
    with pytest.raises(ValueError, match='padding'):
        layers.Conv2D(2, 3, padding='full')
    with pytest.raises(ValueError, match='filters'):
        layers.Conv2D(0, 3)
    with pytest.raises(ValueError, match='dilation_rate'):
        layers.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match='kernel_size'):
        layers.Conv2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match='groups'):
        layers.Conv2D(3, 3, groups=2)
    layer = layers.Conv2D(2, 3, groups=2)
    with pytest.raises(ValueError, match='multiple of groups'):
        layer(np.zeros((1, 5, 5, 3), np.float32))
