"""Attention layers against NumPy references written from Keras 3's formulas (einsum
equations of MultiHeadAttention, Luong/Bahdanau scores), masks, gradients, configs, saving, and
a small transformer block trained with fit."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
from chainlet import gradient_check, keras
from chainlet.keras import layers


def _softmax(x, mask=None):
    if mask is not None:
        x = x + (1.0 - mask) * -1e9
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _mha_reference(layer, query, value, key=None, mask=None):
    """Keras's computation: projections by einsum, scores 'bsnh,btnh->bnts'."""
    key = value if key is None else key
    wq, bq, wk, bk, wv, bv, wo, bo = [w.astype(np.float64) for w in layer.get_weights()]
    q = np.einsum('btd,dnh->btnh', query, wq) + bq
    k = np.einsum('bsd,dnh->bsnh', key, wk) + bk
    v = np.einsum('bsd,dnh->bsnh', value, wv) + bv
    scores = np.einsum('bsnh,btnh->bnts', k, q / np.sqrt(layer.key_dim))
    probs = _softmax(scores, None if mask is None else mask[:, None].astype(np.float64))
    out = np.einsum('bnts,bsnh->btnh', probs, v)
    return np.einsum('btnh,nho->bto', out, wo) + bo, probs


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_mha_weights_and_forward_match_reference(rng):
    layer = layers.MultiHeadAttention(num_heads=3, key_dim=4, value_dim=5, dtype='float64',
                                      bias_initializer='random_normal')
    query = rng.normal(size=(2, 4, 6))
    value = rng.normal(size=(2, 7, 5))
    key = rng.normal(size=(2, 7, 3))
    out, scores = layer(query, value, key, return_attention_scores=True)
    assert [w.shape for w in layer.weights] == [(6, 3, 4), (3, 4), (3, 3, 4), (3, 4),
                                                (5, 3, 5), (3, 5), (3, 5, 6), (6,)]
    ref, ref_probs = _mha_reference(layer, query, value, key)
    np.testing.assert_allclose(out.array, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(scores.array, ref_probs, rtol=1e-10, atol=1e-12)
    # output_shape and no biases
    layer = layers.MultiHeadAttention(2, 4, output_shape=(3, 2), use_bias=False)
    out = layer(query.astype(np.float32), value.astype(np.float32))
    assert out.shape == (2, 4, 3, 2) and out.dtype == np.float32
    assert len(layer.weights) == 4


def test_mha_attention_mask_and_causal_mask(rng):
    layer = layers.MultiHeadAttention(2, 3, dtype='float64')
    x = rng.normal(size=(2, 4, 5))
    mask = rng.random((2, 4, 4)) > 0.4
    mask[:, :, 0] = True
    out, scores = layer(x, x, attention_mask=mask, return_attention_scores=True)
    ref, ref_probs = _mha_reference(layer, x, x, mask=mask)
    np.testing.assert_allclose(out.array, ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(scores.array, ref_probs, rtol=1e-9, atol=1e-12)
    assert np.all(scores.array[np.broadcast_to(~mask[:, None], scores.shape)] < 1e-12)
    # causal: lower triangular, combined with the attention mask by AND
    _, scores = layer(x, x, use_causal_mask=True, return_attention_scores=True)
    tri = np.tril(np.ones((4, 4), bool))
    ref, ref_probs = _mha_reference(layer, x, x, mask=np.broadcast_to(tri, (2, 4, 4)))
    np.testing.assert_allclose(scores.array, ref_probs, rtol=1e-9, atol=1e-12)
    _, both = layer(x, x, attention_mask=mask, use_causal_mask=True,
                    return_attention_scores=True)
    _, ref_probs = _mha_reference(layer, x, x, mask=mask & tri)
    np.testing.assert_allclose(both.array, ref_probs, rtol=1e-9, atol=1e-12)
    # padding masks of value: (B, S)
    value_mask = np.array([[1, 1, 0, 0], [1, 1, 1, 0]], bool)
    _, s = layer(x, x, value_mask=value_mask, return_attention_scores=True)
    _, ref_probs = _mha_reference(layer, x, x, mask=np.broadcast_to(
        value_mask[:, None, :], (2, 4, 4)))
    np.testing.assert_allclose(s.array, ref_probs, rtol=1e-9, atol=1e-12)
    # a row with every key masked becomes uniform (the additive mask of Keras), not NaN
    # (in float32, where -1e9 absorbs the scores)
    _, s = layers.MultiHeadAttention(2, 3)(x.astype(np.float32), x.astype(np.float32),
                                           attention_mask=np.zeros((2, 4, 4), bool),
                                           return_attention_scores=True)
    np.testing.assert_allclose(s.array, 0.25)
    with pytest.raises(ValueError, match='does not broadcast'):
        layer(x, x, attention_mask=np.ones((2, 3, 4), bool))


def test_mha_attention_axes_on_rank4_inputs(rng):
    layer = layers.MultiHeadAttention(2, 3, attention_axes=(2,), dtype='float64')
    x = rng.normal(size=(2, 3, 4, 5))
    out, scores = layer(x, x, return_attention_scores=True)
    wq, bq, wk, bk, wv, bv, wo, bo = layer.get_weights()
    q = np.einsum('bxtd,dnh->bxtnh', x, wq) + bq
    k = np.einsum('bxsd,dnh->bxsnh', x, wk) + bk
    v = np.einsum('bxsd,dnh->bxsnh', x, wv) + bv
    probs = _softmax(np.einsum('bxsnh,bxtnh->bxnts', k, q / np.sqrt(3)))
    ref = np.einsum('bxtnh,nho->bxto', np.einsum('bxnts,bxsnh->bxtnh', probs, v), wo) + bo
    assert scores.shape == (2, 3, 2, 4, 4)
    np.testing.assert_allclose(scores.array, probs, rtol=1e-10)
    np.testing.assert_allclose(out.array, ref, rtol=1e-10, atol=1e-12)
    # attention over both position axes: softmax over the 12 key positions jointly
    layer = layers.MultiHeadAttention(2, 3, attention_axes=(1, 2), dtype='float64')
    out, scores = layer(x, x, return_attention_scores=True)
    assert scores.shape == (2, 2, 3, 4, 3, 4)
    np.testing.assert_allclose(scores.array.reshape(2, 2, 12, 12).sum(-1), 1.0)
    assert out.shape == x.shape


def test_mha_gradients(rng):
    layer = layers.MultiHeadAttention(2, 2, dtype='float64', bias_initializer='random_normal')
    q = rng.normal(size=(2, 3, 4))
    v = rng.normal(size=(2, 2, 4))
    mask = np.array([[[1, 0], [1, 1], [0, 1]]] * 2, bool)
    layer(q, v)
    gy = rng.normal(size=(2, 3, 4))
    gradient_check.check_backward(lambda a, b: layer(a, b, attention_mask=mask), (q, v), gy,
                                  params=layer.weights, atol=1e-6, rtol=1e-5)
    ggx = [rng.normal(size=q.shape), rng.normal(size=v.shape)]
    gradient_check.check_double_backward(lambda a, b: layer(a, b), (q, v), gy, ggx,
                                         atol=1e-5, rtol=1e-4)


def test_mha_dropout_only_in_training(rng):
    layer = layers.MultiHeadAttention(2, 4, dropout=0.5, seed=1)
    x = rng.normal(size=(2, 5, 4)).astype(np.float32)
    inference = layer(x, x).array
    np.testing.assert_array_equal(layer(x, x, training=False).array, inference)
    assert not np.allclose(layer(x, x, training=True).array, inference)


def test_mha_symbolic_functional_config_and_save(tmp_path, rng):
    query = keras.Input((4, 6))
    value = keras.Input((5, 3))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3, name='mha')
    out, scores = mha(query, value, return_attention_scores=True)
    assert out.shape == (None, 4, 6) and scores.shape == (None, 2, 4, 5)
    model = keras.Model([query, value], [out, scores])
    q = rng.normal(size=(3, 4, 6)).astype(np.float32)
    v = rng.normal(size=(3, 5, 3)).astype(np.float32)
    expected = model.predict([q, v], verbose=0)
    path = str(tmp_path / 'mha.keras')
    model.save(path)
    loaded = keras.saving.load_model(path)
    for a, b in zip(loaded.predict([q, v], verbose=0), expected):
        np.testing.assert_array_equal(a, b)
    config = mha.get_config()
    assert config['num_heads'] == 2 and config['key_dim'] == 3 and config['value_dim'] == 3
    clone = layers.MultiHeadAttention.from_config(config)
    clone.build_from_config(mha.get_build_config())
    assert [w.shape for w in clone.weights] == [w.shape for w in mha.weights]
    # a standalone layer round-trips through layers.serialize with its build config
    again = layers.deserialize(layers.serialize(mha))
    assert again.built and len(again.weights) == 8


def test_mha_argument_errors():
    with pytest.raises(ValueError, match='argument num_heads'):
        layers.MultiHeadAttention(0, 4)
    with pytest.raises(ValueError, match='argument key_dim'):
        layers.MultiHeadAttention(2, 2.5)
    with pytest.raises(ValueError, match='argument dropout'):
        layers.MultiHeadAttention(2, 4, dropout=1.0)
    with pytest.raises(ValueError, match='argument attention_axes'):
        layers.MultiHeadAttention(2, 4, attention_axes='x')
    with pytest.raises(ValueError, match='value and key'):
        layers.MultiHeadAttention(2, 4)(np.ones((1, 3, 4), np.float32),
                                        np.ones((1, 5, 4), np.float32),
                                        np.ones((1, 6, 4), np.float32))
    with pytest.raises(ValueError, match='rank >= 3'):
        layers.MultiHeadAttention(2, 4)(np.ones((1, 4), np.float32), np.ones((1, 4), np.float32))
    with pytest.raises(ValueError, match=r'attention_axes: expected distinct axes in \[1, 1\]'):
        layers.MultiHeadAttention(2, 4, attention_axes=(2,))(np.ones((1, 3, 4), np.float32),
                                                             np.ones((1, 3, 4), np.float32))


def test_grouped_query_attention_matches_reference(rng):
    layer = layers.GroupedQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=2,
                                         dtype='float64', bias_initializer='random_normal')
    assert layers.GroupQueryAttention is layers.GroupedQueryAttention
    x = rng.normal(size=(2, 3, 5))
    y = rng.normal(size=(2, 4, 5))
    mask = rng.random((2, 3, 4)) > 0.3
    mask[..., 0] = True
    out, scores = layer(x, y, attention_mask=mask, return_attention_scores=True)
    wq, bq, wk, bk, wv, bv, wo, bo = layer.get_weights()
    assert wq.shape == (5, 4, 2) and wk.shape == (5, 2, 2) and wo.shape == (4, 2, 5)
    q = np.einsum('bqm,muh->bquh', x, wq) + bq
    k = np.repeat(np.einsum('bkm,mvh->bkvh', y, wk) + bk, 2, axis=2)
    v = np.repeat(np.einsum('bkm,mvh->bkvh', y, wv) + bv, 2, axis=2)
    probs = _softmax(np.einsum('bquh,bkuh->buqk', q / np.sqrt(2), k), mask[:, None])
    ref = np.einsum('bquh,uhm->bqm', np.einsum('buqk,bkuh->bquh', probs, v), wo) + bo
    np.testing.assert_allclose(scores.array, probs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out.array, ref, rtol=1e-10, atol=1e-12)
    config = layer.get_config()
    assert (config['head_dim'], config['num_query_heads'], config['num_key_value_heads']) == \
        (2, 4, 2)
    assert 'num_heads' not in config
    assert layers.GroupedQueryAttention.from_config(config).num_key_value_heads == 2
    with pytest.raises(ValueError, match='num_key_value_heads'):
        layers.GroupedQueryAttention(2, 4, 3)


def test_dot_attention_matches_reference(rng):
    q = rng.normal(size=(2, 3, 4))
    v = rng.normal(size=(2, 5, 4))
    k = rng.normal(size=(2, 5, 4))
    layer = layers.Attention(dtype='float64')
    out, w = layer([q, v, k], return_attention_scores=True)
    probs = _softmax(q @ k.transpose(0, 2, 1))
    np.testing.assert_allclose(w.array, probs, rtol=1e-12)
    np.testing.assert_allclose(out.array, probs @ v, rtol=1e-12)
    # masks: masked values get no weight, masked queries give zeros
    q_mask = np.array([[1, 0, 1], [1, 1, 1]], bool)
    v_mask = np.array([[1, 1, 0, 0, 1], [1, 1, 1, 1, 0]], bool)
    out, w = layer([q, v], mask=[q_mask, v_mask], return_attention_scores=True)
    probs = _softmax(q @ v.transpose(0, 2, 1), v_mask[:, None].astype(np.float64))
    np.testing.assert_allclose(w.array, probs, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out.array, (probs @ v) * q_mask[..., None], rtol=1e-9,
                               atol=1e-12)
    _, w = layer([q, v], use_causal_mask=True, return_attention_scores=True)
    assert np.all(np.triu(w.array[0], 1) == 0)
    # learned scale and concat scores
    layer = layers.Attention(use_scale=True, score_mode='concat', dtype='float64')
    layer.build([q.shape, v.shape])
    layer.set_weights([np.array(0.5), np.array(2.0)])
    _, w = layer([q, v], return_attention_scores=True)
    scores = 2.0 * np.tanh(0.5 * (q[:, :, None] + v[:, None])).sum(-1)
    np.testing.assert_allclose(w.array, _softmax(scores), rtol=1e-10)
    gradient_check.check_backward(lambda a, b: layer([a, b]), (q, v),
                                  rng.normal(size=(2, 3, 4)), params=layer.weights)


def test_additive_attention_matches_reference(rng):
    q = rng.normal(size=(2, 3, 4))
    v = rng.normal(size=(2, 5, 4))
    layer = layers.AdditiveAttention(dtype='float64')
    out, w = layer([q, v], return_attention_scores=True)
    (scale,) = layer.get_weights()
    assert scale.shape == (4,)
    probs = _softmax((scale * np.tanh(q[:, :, None] + v[:, None])).sum(-1))
    np.testing.assert_allclose(w.array, probs, rtol=1e-10)
    np.testing.assert_allclose(out.array, probs @ v, rtol=1e-10)
    unscaled = layers.AdditiveAttention(use_scale=False, dtype='float64')
    np.testing.assert_allclose(unscaled([q, v]).array,
                               _softmax(np.tanh(q[:, :, None] + v[:, None]).sum(-1)) @ v,
                               rtol=1e-10)
    assert unscaled.weights == []
    gradient_check.check_backward(lambda a, b: layer([a, b]), (q, v),
                                  rng.normal(size=(2, 3, 4)), params=layer.weights)
    config = layer.get_config()
    assert config['use_scale'] is True and 'score_mode' not in config
    assert layers.AdditiveAttention.from_config(config).use_scale


def test_luong_attention_errors_and_symbolic_use():
    with pytest.raises(ValueError, match='score_mode'):
        layers.Attention(score_mode='add')
    with pytest.raises(ValueError, match=r'expected inputs \[query, value\]'):
        layers.Attention()(np.ones((1, 2, 3), np.float32))
    with pytest.raises(ValueError, match='argument mask'):
        x = np.ones((1, 2, 3), np.float32)
        layers.Attention()([x, x], mask=x)
    q, v = keras.Input((3, 4)), keras.Input((5, 2))
    out, w = layers.Attention()([q, v], return_attention_scores=True)
    assert out.shape == (None, 3, 2) and w.shape == (None, 3, 5)


def test_transformer_block_trains_with_fit():
    chainlet.functions  # the facade and chainlet share one graph
    rng = np.random.default_rng(0)
    n, t, vocab = 256, 6, 8
    tokens = rng.integers(1, vocab, size=(n, t))
    labels = (tokens == 3).any(axis=1).astype(np.int32)  # does token 3 occur?
    inputs = keras.Input((t,), dtype='int32')
    x = layers.Embedding(vocab, 16)(inputs)
    attn = layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
    x = layers.LayerNormalization()(layers.Add()([x, attn]))
    ff = layers.Dense(16, activation='relu')(x)
    x = layers.LayerNormalization()(layers.Add()([x, ff]))
    x = layers.GlobalAveragePooling1D()(x)
    outputs = layers.Dense(2, activation='softmax')(x)
    model = keras.Model(inputs, outputs)
    model.compile(keras.optimizers.Adam(0.01), 'sparse_categorical_crossentropy',
                  metrics=['accuracy'])
    history = model.fit(tokens, labels, epochs=8, batch_size=32, verbose=0)
    assert history.history['loss'][-1] < 0.5 * history.history['loss'][0]
    assert history.history['accuracy'][-1] > 0.9


@pytest.mark.gpu
def test_attention_layers_on_the_gpu(rng):
    import cupy
    x = rng.normal(size=(2, 4, 6)).astype(np.float32)
    mask = rng.random((2, 4, 4)) > 0.3
    mask[..., 0] = True
    for layer, call in [
            (layers.MultiHeadAttention(2, 3), lambda m, a: m(a, a, attention_mask=mask,
                                                             use_causal_mask=True)),
            (layers.GroupedQueryAttention(3, 2, 1), lambda m, a: m(a, a, attention_mask=mask)),
            (layers.Attention(use_scale=True), lambda m, a: m([a, a], mask=[None, mask[:, 0]])),
            (layers.AdditiveAttention(), lambda m, a: m([a, a], use_causal_mask=True))]:
        expected = call(layer, x).array
        layer.to_device('@cupy:0')
        y = call(layer, cupy.asarray(x))
        assert isinstance(y.array, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(y.array), expected, rtol=1e-5, atol=1e-6)
        y.grad = cupy.ones_like(y.array)
        layer.cleargrads()
        y.backward()
        assert all(isinstance(w.grad, cupy.ndarray) for w in layer.weights)
