"""ConvLSTM1D/2D/3D (issue 31) against a NumPy reference of Keras 3's formula (the values were
also checked against Keras 3.15 itself, to 3e-7)."""
import itertools

import numpy as np
import pytest

import chainlet
from chainlet import keras


def _same(length, k, s, d):
    out = -(-length // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - length, 0)
    return total // 2, total - total // 2


def conv_ref(x, w, strides, padding, dilation):
    """Channels-last N-D convolution: x (B, *S, C), w (*k, C, O)."""
    rank = w.ndim - 2
    if padding == 'same':
        pads = [_same(x.shape[1 + i], w.shape[i], strides[i], dilation[i]) for i in range(rank)]
        x = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    out_sp = [(x.shape[1 + i] - (w.shape[i] - 1) * dilation[i] - 1) // strides[i] + 1
              for i in range(rank)]
    y = np.zeros((x.shape[0], *out_sp, w.shape[-1]))
    for offs in itertools.product(*[range(k) for k in w.shape[:rank]]):
        idx = tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                    for o, d, n, s in zip(offs, dilation, out_sp, strides))
        y += np.tensordot(x[(slice(None),) + idx], w[offs], axes=([-1], [0]))
    return y


def conv_lstm_ref(x, kernel, rec, bias, strides, padding, dilation, go_backwards=False):
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    rank = kernel.ndim - 2
    filters = rec.shape[-2]
    if go_backwards:
        x = x[:, ::-1]
    h = c = None
    hs = []
    for t in range(x.shape[1]):
        z = conv_ref(x[:, t], kernel, strides, padding, dilation) + bias
        if h is None:
            h = c = np.zeros(z.shape[:-1] + (filters,))
        z = z + conv_ref(h, rec, (1,) * rank, 'same', (1,) * rank)
        i, f, g, o = np.split(z, 4, axis=-1)
        c = sig(f) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        hs.append(h)
    return np.stack(hs, 1), h, c


CASES = [
    (1, dict(filters=2, kernel_size=3, dilation_rate=2, go_backwards=True)),
    (2, dict(filters=3, kernel_size=3, padding='same', return_sequences=True)),
    (2, dict(filters=2, kernel_size=(2, 3), strides=2, return_state=True)),
    (3, dict(filters=2, kernel_size=2, padding='same')),
]


def _set_random_weights(layer, rng):
    layer.set_weights([rng.standard_normal(w.shape).astype(np.float32) * 0.3
                       for w in layer.get_weights()])


@pytest.mark.parametrize('rank,kwargs', CASES)
def test_matches_reference(rank, kwargs):
    rng = np.random.default_rng(rank)
    x = rng.standard_normal((2, 3) + (5,) * rank + (2,)).astype(np.float32)
    layer = getattr(keras.layers, f'ConvLSTM{rank}D')(**kwargs)
    layer(x)
    _set_random_weights(layer, rng)
    kernel, rec, bias = layer.get_weights()
    n = layer.rank
    seq, h, c = conv_lstm_ref(x, kernel, rec, bias, layer.strides, layer.padding,
                              layer.dilation_rate, layer.go_backwards)
    out = layer(x)
    if layer.return_state:
        out, h_out, c_out = out
        np.testing.assert_allclose(h_out.array, h, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(c_out.array, c, rtol=1e-4, atol=1e-5)
    want = seq if layer.return_sequences else h
    np.testing.assert_allclose(out.array, want, rtol=1e-4, atol=1e-5)
    shape = layer.compute_output_shape(x.shape)
    assert out.shape == (shape[0] if layer.return_state else shape) and n == rank


def test_channels_first_equals_channels_last():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6, 6, 2)).astype(np.float32)
    last = keras.layers.ConvLSTM2D(2, 3, padding='same', return_sequences=True)
    first = keras.layers.ConvLSTM2D(2, 3, padding='same', return_sequences=True,
                                    data_format='channels_first')
    y_last = last(x)
    first(np.moveaxis(x, -1, 2))
    first.set_weights(last.get_weights())
    np.testing.assert_allclose(first(np.moveaxis(x, -1, 2)).array,
                               np.moveaxis(y_last.array, -1, 2), rtol=1e-5, atol=1e-6)


def test_weights_layouts_and_forget_bias():
    layer = keras.layers.ConvLSTM2D(4, (3, 2))
    layer(np.zeros((1, 2, 5, 5, 3), np.float32))
    assert [w.shape for w in layer.weights] == [(3, 2, 3, 16), (3, 2, 4, 16), (16,)]
    np.testing.assert_array_equal(layer.bias.array, [0] * 4 + [1] * 4 + [0] * 8)


def test_backward_reaches_every_weight_and_the_input():
    rng = np.random.default_rng(1)
    layer = keras.layers.ConvLSTM1D(2, 3, padding='same', dropout=0.2, recurrent_dropout=0.2,
                                    seed=0)
    x = chainlet.Variable(rng.standard_normal((2, 4, 6, 3)).astype(np.float32))
    y = layer(x, training=True)
    chainlet.functions.sum(y * y).backward()
    assert x.grad is not None and np.abs(x.grad).sum() > 0
    for w in layer.weights:
        assert w.grad is not None and np.abs(w.grad).sum() > 0


def test_gradient_matches_numerical():
    rng = np.random.default_rng(2)
    layer = keras.layers.ConvLSTM1D(2, 2, padding='same', dtype='float64')
    x = rng.standard_normal((1, 3, 4, 2))
    layer(x)

    def f(xv):
        return layer(xv)
    chainlet.gradient_check.check_backward(
        f, x, rng.standard_normal((1, 4, 2)), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_masked_steps_keep_the_state_and_stateful_carries_over():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 5, 1)).astype(np.float32)
    layer = keras.layers.ConvLSTM1D(2, 3, padding='same')
    full = layer(x[:, :2]).array
    masked = layer(x, mask=np.array([[1, 1, 0, 0]] * 2, bool)).array
    np.testing.assert_allclose(masked, full, rtol=1e-6)
    stateful = keras.layers.ConvLSTM1D(2, 3, padding='same', stateful=True)
    stateful(x[:, :2])
    stateful.set_weights(layer.get_weights())
    stateful.reset_states()
    stateful(x[:, :2])
    np.testing.assert_allclose(stateful(x[:, 2:]).array, layer(x).array, rtol=1e-5,
                               atol=1e-6)


def test_in_a_model_config_round_trip_and_fit():
    inp = keras.Input((None, 8, 8, 1))
    x = keras.layers.ConvLSTM2D(4, 3, padding='same', return_sequences=True)(inp)
    out = keras.layers.Conv3D(1, 3, padding='same', activation='sigmoid')(x)
    model = keras.Model(inp, out)
    assert model.output_shape == (None, None, 8, 8, 1)
    model.compile('adam', 'binary_crossentropy')
    data = (np.random.default_rng(0).random((4, 3, 8, 8, 1)) > 0.5).astype(np.float32)
    model.fit(data, data, epochs=1, verbose=0)
    layer = model.layers[1]
    clone = keras.layers.ConvLSTM2D.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()


def test_argument_errors():
    with pytest.raises(ValueError, match='filters'):
        keras.layers.ConvLSTM2D(0, 3)
    with pytest.raises(ValueError, match='dropout'):
        keras.layers.ConvLSTM2D(2, 3, dropout=1.0)
    with pytest.raises(ValueError, match='initial_state'):
        keras.layers.ConvLSTM1D(2, 3)(np.zeros((1, 2, 5, 1), np.float32), initial_state=[1])
