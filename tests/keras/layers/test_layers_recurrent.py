"""Recurrent layers and wrappers against NumPy loops with the same (Keras-layout) weights."""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import layers


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def simple_rnn_ref(x, k, rk, b, h=None):
    h = np.zeros((x.shape[0], k.shape[1])) if h is None else h
    outs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ k + b + h @ rk)
        outs.append(h)
    return np.stack(outs, 1), [h]


def lstm_ref(x, k, rk, b, h=None, c=None):
    u = rk.shape[0]
    h = np.zeros((x.shape[0], u)) if h is None else h
    c = np.zeros((x.shape[0], u)) if c is None else c
    outs = []
    for t in range(x.shape[1]):
        z = x[:, t] @ k + h @ rk + b
        i, f, g, o = z[:, :u], z[:, u:2 * u], z[:, 2 * u:3 * u], z[:, 3 * u:]
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), [h, c]


def gru_ref(x, k, rk, b, reset_after=True):
    u = rk.shape[0]
    h = np.zeros((x.shape[0], u))
    outs = []
    for t in range(x.shape[1]):
        if reset_after:
            mx = x[:, t] @ k + b[0]
            mi = h @ rk + b[1]
            z = sigmoid(mx[:, :u] + mi[:, :u])
            r = sigmoid(mx[:, u:2 * u] + mi[:, u:2 * u])
            hh = np.tanh(mx[:, 2 * u:] + r * mi[:, 2 * u:])
        else:
            mx = x[:, t] @ k + b
            z = sigmoid(mx[:, :u] + h @ rk[:, :u])
            r = sigmoid(mx[:, u:2 * u] + h @ rk[:, u:2 * u])
            hh = np.tanh(mx[:, 2 * u:] + (r * h) @ rk[:, 2 * u:])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return np.stack(outs, 1), [h]


def _randomize(layer, rng):
    layer.set_weights([rng.standard_normal(w.shape) * 0.5 for w in layer.get_weights()])
    return layer.get_weights()


X = np.random.default_rng(0).standard_normal((3, 5, 4))


@pytest.mark.parametrize('cls,ref,kwargs', [
    (layers.SimpleRNN, simple_rnn_ref, {}),
    (layers.LSTM, lstm_ref, {}),
    (layers.GRU, gru_ref, {}),
    (layers.GRU, lambda *a: gru_ref(*a, reset_after=False), {'reset_after': False}),
])
def test_rnn_matches_numpy_loop(cls, ref, kwargs):
    rng = np.random.default_rng(1)
    layer = cls(6, return_sequences=True, return_state=True, dtype='float64', **kwargs)
    layer(X)
    weights = _randomize(layer, rng)
    seq_ref, states_ref = ref(X, *weights)
    seq, *states = layer(X)
    np.testing.assert_allclose(seq.array, seq_ref, atol=1e-12)
    for s, r in zip(states, states_ref):
        np.testing.assert_allclose(s.array, r, atol=1e-12)
    last = cls(6, dtype='float64', **kwargs)
    last(X)
    last.set_weights(weights)
    np.testing.assert_allclose(last(X).array, seq_ref[:, -1], atol=1e-12)
    backwards = cls(6, go_backwards=True, return_sequences=True, dtype='float64', **kwargs)
    backwards(X)
    backwards.set_weights(weights)
    np.testing.assert_allclose(backwards(X).array, ref(X[:, ::-1], *weights)[0], atol=1e-12)


def test_weight_layouts_and_forget_bias():
    lstm = layers.LSTM(3)
    lstm(np.zeros((1, 2, 5), np.float32))
    k, rk, b = lstm.get_weights()
    assert (k.shape, rk.shape, b.shape) == ((5, 12), (3, 12), (12,))
    np.testing.assert_array_equal(b, [0] * 3 + [1] * 3 + [0] * 6)
    gru = layers.GRU(3)
    gru(np.zeros((1, 2, 5), np.float32))
    assert [w.shape for w in gru.get_weights()] == [(5, 9), (3, 9), (2, 9)]
    rnn = layers.SimpleRNN(3)
    rnn(np.zeros((1, 2, 5), np.float32))
    assert [w.name for w in rnn.weights] == ['kernel', 'recurrent_kernel', 'bias']


def test_initial_state_and_errors():
    rng = np.random.default_rng(2)
    lstm = layers.LSTM(4, dtype='float64')
    lstm(X)
    weights = _randomize(lstm, rng)
    h0, c0 = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    out = lstm(X, initial_state=[h0, c0]).array
    np.testing.assert_allclose(out, lstm_ref(X, *weights, h=h0, c=c0)[0][:, -1], atol=1e-12)
    with pytest.raises(ValueError, match='2 state'):
        lstm(X, initial_state=[h0])
    with pytest.raises(ValueError, match=r'expected ndim=3'):
        layers.GRU(2)(np.zeros((2, 3), np.float32))


def test_mask_from_embedding_keeps_state():
    rng = np.random.default_rng(3)
    emb = layers.Embedding(6, 4, mask_zero=True, dtype='float64')
    rnn = layers.SimpleRNN(3, dtype='float64')
    ids = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]])
    e = emb(ids)
    rnn(e)
    weights = _randomize(rnn, rng)
    out = rnn(e).array
    e_np = e.array
    np.testing.assert_allclose(out[0], simple_rnn_ref(e_np[:1, :3], *weights)[1][0][0])
    np.testing.assert_allclose(out[1], simple_rnn_ref(e_np[1:, :2], *weights)[1][0][0])
    # An explicit mask gives the same result.
    np.testing.assert_allclose(rnn(e_np, mask=ids != 0).array, out)


def test_dropout_only_in_training():
    rnn = layers.GRU(3, dropout=0.5, recurrent_dropout=0.5, seed=0, dtype='float64')
    a, b = rnn(X).array, rnn(X).array
    np.testing.assert_array_equal(a, b)
    c = rnn(X, training=True).array
    assert not np.allclose(a, c)


def test_bidirectional():
    rng = np.random.default_rng(4)
    bi = layers.Bidirectional(layers.LSTM(3, return_sequences=True, dtype='float64'))
    y = bi(X)
    assert y.shape == (3, 5, 6)
    weights = bi.get_weights()
    assert len(weights) == 6
    bi.set_weights([rng.standard_normal(w.shape) * 0.5 for w in weights])
    weights = bi.get_weights()
    fw = lstm_ref(X, *weights[:3])[0]
    bw = lstm_ref(X[:, ::-1], *weights[3:])[0][:, ::-1]
    np.testing.assert_allclose(bi(X).array, np.concatenate([fw, bw], -1), atol=1e-12)
    bi_sum = layers.Bidirectional(layers.GRU(2, dtype='float64'), merge_mode='sum')
    assert bi_sum(X).shape == (3, 2)
    out = layers.Bidirectional(layers.GRU(2, return_state=True), merge_mode=None)(
        X.astype(np.float32))
    assert len(out) == 4 and out[0].shape == (3, 2)
    with pytest.raises(ValueError, match='merge_mode'):
        layers.Bidirectional(layers.GRU(2), merge_mode='max')
    inputs = keras.Input(shape=(5, 4))
    assert layers.Bidirectional(layers.LSTM(3))(inputs).shape == (None, 6)


def test_time_distributed():
    rng = np.random.default_rng(5)
    dense = layers.Dense(2, dtype='float64')
    td = layers.TimeDistributed(dense)
    y = td(X)
    assert y.shape == (3, 5, 2)
    k, b = dense.get_weights()
    np.testing.assert_allclose(y.array, X @ k + b)
    assert len(td.trainable_weights) == 2
    inputs = keras.Input(shape=(5, 8, 8, 1))
    conv = layers.TimeDistributed(layers.Conv2D(4, 3))(inputs)
    assert conv.shape == (None, 5, 6, 6, 4)
    img = rng.standard_normal((2, 5, 8, 8, 1)).astype(np.float32)
    assert keras.Model(inputs, conv)(img).shape == (2, 5, 6, 6, 4)


def test_rnn_in_functional_model_with_states():
    inputs = keras.Input(shape=(5, 4))
    seq, h, c = layers.LSTM(3, return_sequences=True, return_state=True)(inputs)
    assert (seq.shape, h.shape, c.shape) == ((None, 5, 3), (None, 3), (None, 3))
    out = layers.GRU(2)(seq, initial_state=None)
    model = keras.Model(inputs, [out, h])
    a, b = model(X.astype(np.float32))
    assert a.shape == (3, 2) and b.shape == (3, 3)


@pytest.mark.parametrize('cls', [layers.LSTM, layers.GRU, layers.SimpleRNN])
def test_stateful_carries_states_across_calls_until_reset(cls):
    # Keras's cross-batch statefulness: two halves of a sequence give the whole sequence's
    # result; reset_states() starts again from zeros.
    rng = np.random.default_rng(5)
    seq = rng.standard_normal((3, 6, 2))
    whole = cls(4, dtype='float64')
    whole(seq)
    stateful = cls(4, dtype='float64', stateful=True)
    stateful(seq[:, :3])
    stateful.set_weights(whole.get_weights())
    stateful.reset_states()
    stateful(seq[:, :3])
    second = stateful(seq[:, 3:]).array
    np.testing.assert_allclose(second, whole(seq).array, atol=1e-12)
    assert len(stateful.states) == (2 if cls is layers.LSTM else 1)
    stateful.reset_states()
    np.testing.assert_allclose(stateful(seq[:, :3]).array, whole(seq[:, :3]).array,
                               atol=1e-12)
    fresh = cls(4, dtype='float64')
    fresh(seq)
    fresh.set_weights(whole.get_weights())
    np.testing.assert_allclose(fresh(seq[:, 3:], initial_state=stateful.states).array,
                               stateful(seq[:, 3:]).array, atol=1e-12)
    assert cls.from_config(stateful.get_config()).stateful
