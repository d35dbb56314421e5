"""Properties shared by every layer: config round trip, symbolic shapes equal eager shapes,
gradients reach every trainable weight."""
from __future__ import annotations

import json

import numpy as np
import pytest

from chainlet import gradient_check, keras
from chainlet.keras import layers

# (factory, input shape without batch, integer input?)
CASES = [
    (lambda: layers.Activation('tanh'), (3,), False),
    (lambda: layers.Dropout(0.3, noise_shape=(None, 1), seed=2), (4,), False),
    (lambda: layers.Flatten(), (2, 3), False),
    (lambda: layers.Reshape((3, 2)), (6,), False),
    (lambda: layers.Permute((2, 1)), (2, 3), False),
    (lambda: layers.RepeatVector(2), (3,), False),
    (lambda: layers.Embedding(7, 3, mask_zero=True), (4,), True),
    (lambda: layers.Conv1D(2, 3, padding='causal', dilation_rate=2), (6, 2), False),
    (lambda: layers.Conv2D(3, (2, 3), strides=2, padding='same', activation='relu',
                           kernel_regularizer='l2'), (5, 5, 2), False),
    (lambda: layers.Conv2DTranspose(2, 3, strides=2, padding='same'), (3, 3, 2), False),
    (lambda: layers.DepthwiseConv2D(3, depth_multiplier=2, padding='same'), (4, 4, 2), False),
    (lambda: layers.SeparableConv2D(3, 3, depth_multiplier=2), (5, 5, 2), False),
    (lambda: layers.MaxPooling1D(2, padding='same'), (5, 2), False),
    (lambda: layers.MaxPooling2D((3, 3), strides=2, padding='same'), (5, 5, 2), False),
    (lambda: layers.AveragePooling1D(3, strides=1), (5, 2), False),
    (lambda: layers.AveragePooling2D(padding='same'), (5, 5, 2), False),
    (lambda: layers.GlobalAveragePooling1D(), (5, 2), False),
    (lambda: layers.GlobalAveragePooling2D(keepdims=True), (3, 3, 2), False),
    (lambda: layers.GlobalMaxPooling1D(), (5, 2), False),
    (lambda: layers.GlobalMaxPooling2D(), (3, 3, 2), False),
    (lambda: layers.UpSampling2D((2, 1), interpolation='bilinear'), (2, 3, 2), False),
    (lambda: layers.ZeroPadding2D(((1, 0), (0, 2))), (2, 3, 2), False),
    (lambda: layers.Cropping2D(((1, 0), (0, 1))), (3, 3, 2), False),
    (lambda: layers.BatchNormalization(momentum=0.9, epsilon=1e-2), (4,), False),
    (lambda: layers.LayerNormalization(axis=[1, 2]), (2, 3), False),
    (lambda: layers.GroupNormalization(groups=2), (3, 4), False),
    (lambda: layers.SimpleRNN(3, return_sequences=True), (4, 2), False),
    (lambda: layers.LSTM(3, go_backwards=True), (4, 2), False),
    (lambda: layers.GRU(3, reset_after=False, return_state=True), (4, 2), False),
    (lambda: layers.Bidirectional(layers.GRU(2, return_sequences=True), merge_mode='ave'),
     (4, 2), False),
    (lambda: layers.TimeDistributed(layers.Dense(2)), (4, 3), False),
]
IDS = [f'{i}-{type(case[0]()).__name__}' for i, case in enumerate(CASES)]


def _data(shape, integer, batch=2, seed=0):
    rng = np.random.default_rng(seed)
    if integer:
        return rng.integers(0, 7, (batch,) + shape)
    return rng.standard_normal((batch,) + shape).astype(np.float32)


@pytest.mark.parametrize('case', CASES, ids=IDS)
def test_config_round_trip(case):
    factory, shape, integer = case
    layer = factory()
    x = _data(shape, integer)
    layer(x)
    config = layer.get_config()
    json.dumps(config)  # configs are plain JSON
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    clone(x)
    clone.set_weights(layer.get_weights())
    for a, b in zip(_flat(layer(x)), _flat(clone(x))):
        np.testing.assert_allclose(a.array, b.array, rtol=1e-6)


def _flat(y):
    return y if isinstance(y, list) else [y]


@pytest.mark.parametrize('case', CASES, ids=IDS)
def test_symbolic_shapes_match_eager(case):
    factory, shape, integer = case
    layer = factory()
    inputs = keras.Input(shape=shape, dtype='int32' if integer else 'float32')
    outputs = layer(inputs)
    model = keras.Model(inputs, outputs)
    x = _data(shape, integer, batch=3)
    for sym, real in zip(_flat(outputs), _flat(model(x))):
        assert sym.shape[0] is None
        assert sym.shape[1:] == real.shape[1:]


GRAD_CASES = [
    (lambda: layers.Conv2D(2, 3, strides=2, padding='same', dtype='float64'), (5, 4, 2), {}),
    (lambda: layers.Conv2DTranspose(2, 3, strides=2, padding='same', dtype='float64'),
     (2, 3, 2), {}),
    (lambda: layers.SeparableConv2D(2, 2, depth_multiplier=2, dtype='float64'), (3, 3, 2), {}),
    (lambda: layers.BatchNormalization(dtype='float64'), (3, 2), {'training': True}),
    (lambda: layers.GroupNormalization(groups=2, dtype='float64'), (4,), {}),
    (lambda: layers.LayerNormalization(dtype='float64'), (3,), {}),
    (lambda: layers.LSTM(2, return_sequences=True, dtype='float64'), (3, 2), {}),
    (lambda: layers.GRU(2, dtype='float64'), (3, 2), {}),
    (lambda: layers.SimpleRNN(2, dtype='float64'), (3, 2), {}),
    (lambda: layers.Bidirectional(layers.LSTM(2, dtype='float64')), (3, 2), {}),
    (lambda: layers.AveragePooling2D(padding='same', dtype='float64'), (3, 3, 2), {}),
    (lambda: layers.UpSampling2D(interpolation='bilinear', dtype='float64'), (2, 2, 1), {}),
]


@pytest.mark.parametrize('case', GRAD_CASES,
                         ids=[type(c[0]()).__name__ for c in GRAD_CASES])
def test_gradients_reach_every_trainable_weight(case):
    factory, shape, kwargs = case
    layer = factory()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3,) + shape)
    y = layer(x, **kwargs)
    gy = rng.standard_normal(y.shape)
    params = layer.trainable_weights
    gradient_check.check_backward(lambda v: layer(v, **kwargs), x, gy, params=params,
                                  atol=1e-6, rtol=1e-5)
    import chainlet.functions as F
    for p in params:
        p.cleargrad()
    F.sum(layer(x, **kwargs) * gy).backward()
    for p in params:
        assert p.grad is not None and np.abs(p.grad).sum() > 0, p.name


def test_layers_compose_in_a_trainable_cnn():
    import chainlet.functions as F
    from chainlet import optimizers
    model = keras.Sequential([
        keras.Input(shape=(8, 8, 1)),
        layers.Conv2D(4, 3, padding='same', activation='relu'),
        layers.BatchNormalization(),
        layers.MaxPooling2D(),
        layers.Dropout(0.2, seed=0),
        layers.Flatten(),
        layers.Dense(3),
    ])
    assert model.output_shape == (None, 3)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 8, 8, 1)).astype(np.float32)
    t = rng.integers(0, 3, 16)
    opt = optimizers.Adam(1e-2)
    opt.setup(model)
    losses = []
    for _ in range(15):
        loss = F.softmax_cross_entropy(model(x, training=True), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
    assert losses[-1] < losses[0]


def test_weights_order_is_depth_first_and_independent_of_freezing():
    # Keras 3: a layer's own weights in creation order, then its sublayers' depth first;
    # freezing changes trainable_weights but never the order of weights/get_weights.
    inner = keras.Sequential([layers.Dense(2, name='b'), layers.Dense(3, name='c')], name='inner')
    model = keras.Sequential([keras.Input(shape=(3,)), layers.Dense(3, name='a'), inner,
                              layers.Dense(4, name='d')])
    expected = [(3, 3), (3,), (3, 2), (2,), (2, 3), (3,), (3, 4), (4,)]
    assert [tuple(w.shape) for w in model.weights] == expected
    saved = model.get_weights()
    model.layers[0].trainable = False
    assert [tuple(w.shape) for w in model.weights] == expected
    assert [tuple(w.shape) for w in model.trainable_weights] == expected[2:]
    model.set_weights(saved)
    for w, a in zip(model.weights, saved):
        np.testing.assert_array_equal(w.numpy() if hasattr(w, 'numpy') else w.array, a)
