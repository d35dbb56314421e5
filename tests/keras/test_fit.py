"""fit/evaluate/predict semantics, the training step, optimizers, losses and metrics."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import keras


def _linear_model(units: int = 1, n_in: int = 2, activation=None) -> keras.Model:
    return keras.Sequential([keras.Input(shape=(n_in,)),
                             keras.layers.Dense(units, activation=activation)])


class _Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = []
        self.batch_logs = []

    def on_train_batch_begin(self, batch, logs=None):
        self.batches.append(batch)

    def on_train_batch_end(self, batch, logs=None):
        self.batch_logs.append(dict(logs))


def test_epoch_loss_is_mean_over_samples_and_last_partial_batch_used():
    keras.utils.set_random_seed(0)
    model = _linear_model()
    model.compile(keras.optimizers.SGD(0.0), 'mse')   # lr 0: the weights stay fixed
    x = np.random.default_rng(0).normal(size=(10, 2)).astype(np.float32)
    y = np.random.default_rng(1).normal(size=(10, 1)).astype(np.float32)
    seen = []
    original = model.train_step

    def spy(data):
        seen.append(len(data[0]))
        return original(data)
    model.__dict__['train_step'] = spy
    hist = model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert seen == [4, 4, 2]
    pred = model.predict(x, verbose=0)
    # each batch weighted by its size (4, 4, 2), as Keras: the mean over the 10 samples
    assert hist.history['loss'][0] == pytest.approx(np.mean((pred - y) ** 2), rel=1e-5)


def test_validation_split_takes_last_rows_before_shuffling():
    model = _linear_model()
    model.compile('sgd', 'mse')
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.zeros((10, 1), np.float32)
    seen_val = []
    original = model.test_step

    def spy(data):
        seen_val.append(np.array(data[0]))
        return original(data)
    model.__dict__['test_step'] = spy
    model.fit(x, y, batch_size=100, epochs=1, validation_split=0.25, verbose=0)
    # N - floor(N * 0.75) = 10 - 7 = 3 rows, the last ones
    np.testing.assert_array_equal(np.concatenate(seen_val), x[7:])
    for bad in (-0.1, 1.0, 1.5):
        with pytest.raises(ValueError, match='validation_split'):
            model.fit(x, y, validation_split=bad, verbose=0)


def test_sample_count_mismatch_names_both_counts():
    model = _linear_model()
    model.compile('sgd', 'mse')
    with pytest.raises(ValueError, match=r'x sizes: 10.*y sizes: 9'):
        model.fit(np.zeros((10, 2)), np.zeros((9, 1)), verbose=0)


def test_shuffle_batch_keeps_chunks_together():
    model = _linear_model()
    model.compile(keras.optimizers.SGD(0.0), 'mse')
    x = np.arange(22, dtype=np.float32).reshape(11, 2)
    y = np.zeros((11, 1), np.float32)
    batches = []
    original = model.train_step

    def spy(data):
        batches.append(np.array(data[0])[:, 0] // 2)
        return original(data)
    model.__dict__['train_step'] = spy
    np.random.seed(3)
    model.fit(x, y, batch_size=4, epochs=3, shuffle='batch', verbose=0)
    chunks = {(0, 1, 2, 3), (4, 5, 6, 7)}
    orders = set()
    for epoch in range(3):
        epoch_batches = batches[epoch * 3:(epoch + 1) * 3]
        assert {tuple(b.astype(int)) for b in epoch_batches[:2]} == chunks
        assert tuple(epoch_batches[2].astype(int)) == (8, 9, 10)   # the partial chunk last
        orders.add(tuple(epoch_batches[0].astype(int)))
    assert len(orders) == 2     # the chunk order does change between epochs


def test_history_keys_and_metrics():
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    labels = (x[:, 0] > 0).astype(np.int64)
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2,
                                                                          activation='softmax')])
    model.compile('adam', 'sparse_categorical_crossentropy', metrics=['accuracy'])
    hist = model.fit(x, labels, epochs=2, validation_split=0.25, verbose=0)
    assert sorted(hist.history) == ['accuracy', 'loss', 'val_accuracy', 'val_loss']
    # Keras 3: the loss tracker, then the compiled metrics as one metric
    assert [m.name for m in model.metrics] == ['loss', 'compile_metrics']
    assert isinstance(model.metrics[1].metrics[0], keras.metrics.SparseCategoricalAccuracy)
    loss, acc = model.evaluate(x, labels, verbose=0)
    pred = model.predict(x, verbose=0)
    assert acc == pytest.approx(np.mean(pred.argmax(1) == labels))
    logs = model.evaluate(x, labels, verbose=0, return_dict=True)
    assert sorted(logs) == ['accuracy', 'loss']


def test_accuracy_resolution_rule():
    m = keras.metrics
    assert m.resolve_accuracy(keras.losses.get('binary_crossentropy'), (4, 1), (4, 1)) is \
        m.binary_accuracy
    assert m.resolve_accuracy(keras.losses.get('mse'), (4, 1), (4, 1)) is m.binary_accuracy
    assert m.resolve_accuracy(keras.losses.get('sparse_categorical_crossentropy'), (4,),
                              (4, 3)) is m.sparse_categorical_accuracy
    assert m.resolve_accuracy(None, (4, 1), (4, 3)) is m.sparse_categorical_accuracy
    assert m.resolve_accuracy(keras.losses.get('categorical_crossentropy'), (4, 3),
                              (4, 3)) is m.categorical_accuracy


def test_predict_is_inference_without_graph():
    model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dropout(0.5)])
    x = np.ones((4, 8), np.float32)
    np.testing.assert_array_equal(model.predict(x, verbose=0), x)
    np.testing.assert_array_equal(model.predict_on_batch(x), x)
    y = model(x, training=True)
    assert (y.array == 0).any()


def test_frozen_after_compile_is_not_updated():
    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape=(3,))
    first = keras.layers.Dense(4, name='first')
    out = keras.layers.Dense(1, name='second')(first(inputs))
    model = keras.Model(inputs, out)
    model.compile('sgd', 'mse')
    x = np.ones((8, 3), np.float32)
    y = np.ones((8, 1), np.float32)
    model.fit(x, y, epochs=1, verbose=0)
    first.trainable = False        # after compile and after a fit
    before = first.get_weights()
    second_before = model.get_layer('second').get_weights()
    model.fit(x, y, epochs=2, verbose=0)
    for a, b in zip(before, first.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(second_before[0], model.get_layer('second').get_weights()[0])
    first.trainable = True
    model.train_on_batch(x, y)
    assert not np.array_equal(before[0], first.get_weights()[0])


def test_batchnorm_moving_stats_only_in_training():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.BatchNormalization()])
    model.compile('sgd', 'mse')
    bn = model.layers[0]
    x = np.random.default_rng(0).normal(3.0, 1.0, size=(32, 3)).astype(np.float32)
    stats = [w.copy() for w in bn.get_weights()[2:]]
    model.predict(x, verbose=0)
    model.evaluate(x, x, verbose=0)
    for a, b in zip(stats, bn.get_weights()[2:]):
        np.testing.assert_array_equal(a, b)
    model.fit(x, x, epochs=1, verbose=0)
    assert not np.array_equal(stats[0], bn.get_weights()[2])
    assert len(bn.non_trainable_weights) == 2


def test_regularization_losses_are_added():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([
        keras.Input(shape=(2,)),
        keras.layers.Dense(1, kernel_initializer='ones',
                           kernel_regularizer=keras.regularizers.L2(0.5),
                           activity_regularizer=keras.regularizers.L1(0.25))])
    model.compile(keras.optimizers.SGD(0.0), 'mse')
    x = np.ones((4, 2), np.float32)
    y = np.full((4, 1), 2.0, np.float32)
    loss = model.evaluate(x, y, verbose=0)
    # mse 0 (output 2 = target), kernel L2: 0.5 * 2, activity L1: 0.25 * sum(|2| * 4)
    assert loss == pytest.approx(0.5 * 2 + 0.25 * 8)
    assert len(model.losses) == 2

    class AddsLoss(keras.layers.Layer):
        def call(self, inputs):
            self.add_loss(F.sum(inputs) * 0 + 3.0)
            return inputs
    model2 = keras.Sequential([keras.Input(shape=(1,)), AddsLoss()])
    model2.compile('sgd', 'mse')
    assert model2.evaluate(np.zeros((2, 1)), np.zeros((2, 1)), verbose=0) == pytest.approx(3.0)


def test_multi_output_losses_and_weights():
    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape=(2,), name='in')
    a = keras.layers.Dense(1, name='a', kernel_initializer='zeros')(inputs)
    b = keras.layers.Dense(1, name='b', kernel_initializer='zeros')(inputs)
    model = keras.Model(inputs, [a, b])
    model.compile(keras.optimizers.SGD(0.0), loss=['mse', 'mae'], loss_weights=[1.0, 0.5])
    x = np.ones((4, 2), np.float32)
    ya, yb = np.full((4, 1), 2.0, np.float32), np.full((4, 1), 4.0, np.float32)
    logs = model.evaluate(x, [ya, yb], verbose=0, return_dict=True)
    assert logs['a_loss'] == pytest.approx(4.0)
    assert logs['b_loss'] == pytest.approx(4.0)
    assert logs['loss'] == pytest.approx(4.0 + 0.5 * 4.0)
    logs2 = model.evaluate(x, {'a': ya, 'b': yb}, verbose=0, return_dict=True)
    assert logs2 == logs
    with pytest.raises(ValueError, match='2 outputs'):
        model.fit(x, ya, verbose=0)


def test_dict_inputs_by_name_and_dataset_and_iterator():
    keras.utils.set_random_seed(0)
    a = keras.Input(shape=(2,), name='a')
    b = keras.Input(shape=(3,), name='b')
    out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b]))
    model = keras.Model([a, b], out)
    model.compile('sgd', 'mse')
    xa, xb = np.ones((6, 2), np.float32), np.ones((6, 3), np.float32)
    y = np.zeros((6, 1), np.float32)
    p1 = model.predict({'b': xb, 'a': xa}, verbose=0)
    p2 = model.predict([xa, xb], verbose=0)
    np.testing.assert_array_equal(p1, p2)
    from chainlet.datasets import TupleDataset
    from chainlet.iterators import SerialIterator
    single = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    single.compile('sgd', 'mse')
    ds = TupleDataset(xa, y)
    h1 = single.fit(ds, epochs=2, batch_size=4, verbose=0)
    assert len(h1.history['loss']) == 2
    it = SerialIterator(ds, 4, shuffle=False)
    h2 = single.fit(it, epochs=2, verbose=0, validation_data=(xa, y))
    assert len(h2.history['val_loss']) == 2


def test_float64_inputs_are_cast():
    model = _linear_model()
    model.compile('sgd', 'mse')
    out = model.predict(np.ones((3, 2), np.float64), verbose=0)
    assert out.dtype == np.float32
    model.fit(np.ones((3, 2)), np.ones((3, 1)), verbose=0)


def test_train_test_on_batch_and_not_compiled():
    model = _linear_model()
    with pytest.raises(RuntimeError, match='compile'):
        model.fit(np.ones((2, 2)), np.ones((2, 1)))
    model.compile('sgd', 'mse', metrics=['mae'])
    loss, mae = model.train_on_batch(np.ones((2, 2)), np.ones((2, 1)))
    assert np.isfinite(loss) and np.isfinite(mae)
    assert sorted(model.test_on_batch(np.ones((2, 2)), np.ones((2, 1)),
                                      return_dict=True)) == ['loss', 'mae']
    assert model.metrics_names == ['loss', 'compile_metrics']   # as Keras 3


def test_keras_model_in_define_by_run_loop_with_chainlet_optimizer():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(8, activation='tanh'),
                              keras.layers.Dense(1)])
    opt = chainlet.optimizers.Adam(alpha=0.05).setup(model)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 2)).astype(np.float32)
    y = (x[:, :1] * 2 - x[:, 1:]).astype(np.float32)
    first = None
    for _ in range(60):
        loss = F.mean_squared_error(model(chainlet.Variable(x), training=True), y)
        model.cleargrads()
        loss.backward()
        opt.update()
        first = first if first is not None else float(loss.array)
    assert float(loss.array) < 0.2 * first


def test_link_layer_wraps_a_chainlet_link_and_trains():
    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape=(3,))
    wrapped = keras.layers.LinkLayer(chainlet.links.Linear(3, 1), name='lin')
    model = keras.Model(inputs, wrapped(inputs))
    assert len(model.trainable_weights) == 2
    model.compile(keras.optimizers.SGD(0.1), 'mse')
    x = np.random.default_rng(0).normal(size=(32, 3)).astype(np.float32)
    y = x.sum(1, keepdims=True)
    hist = model.fit(x, y, epochs=20, verbose=0)
    assert hist.history['loss'][-1] < 0.1 * hist.history['loss'][0]
    wrapped.trainable = False
    assert model.trainable_weights == []


@pytest.mark.parametrize('name, cls, lr', [('sgd', 'SGD', 0.01), ('rmsprop', 'RMSprop', 0.001),
                                           ('adam', 'Adam', 0.001), ('adamw', 'AdamW', 0.001),
                                           ('adagrad', 'Adagrad', 0.001)])
def test_optimizer_names_and_defaults(name, cls, lr):
    opt = keras.optimizers.get(name)
    assert type(opt).__name__ == cls
    assert opt.learning_rate == pytest.approx(lr)
    opt.learning_rate = 0.5
    assert opt.learning_rate == 0.5


def _one_step(opt, grad, w0=1.0, steps=1):
    link = chainlet.Link()
    with link.init_scope():
        link.w = chainlet.Parameter(np.array([w0], np.float32))
    opt.build(link)
    for _ in range(steps):
        link.w.grad = np.array([grad], np.float32)
        opt.update()
    return float(link.w.array[0])


def test_optimizer_formulas_match_keras():
    # RMSprop: v = 0.1 g^2; w -= lr g / sqrt(v + eps)
    assert _one_step(keras.optimizers.RMSprop(0.1), 2.0) == pytest.approx(
        1 - 0.1 * 2 / np.sqrt(0.4 + 1e-7), rel=1e-6)
    # Adagrad: h = 0.1 + g^2
    assert _one_step(keras.optimizers.Adagrad(0.1), 2.0) == pytest.approx(
        1 - 0.1 * 2 / np.sqrt(4.1 + 1e-7), rel=1e-6)
    # SGD with Nesterov momentum, two steps of g = 1
    v1 = -0.1
    w1 = 1 + 0.9 * v1 - 0.1
    v2 = 0.9 * v1 - 0.1
    w2 = w1 + 0.9 * v2 - 0.1
    assert _one_step(keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True), 1.0,
                     steps=2) == pytest.approx(w2, rel=1e-6)
    # AdamW: decoupled decay lr * wd * w, then the Adam step (about lr * sign(g))
    assert _one_step(keras.optimizers.AdamW(0.1, weight_decay=0.5), 1.0) == pytest.approx(
        1 * (1 - 0.05) - 0.1, rel=1e-4)


def test_losses_functions_and_classes():
    L = keras.losses
    y = np.array([[0.1, 0.9], [0.8, 0.2]], np.float32)
    t = np.array([[0., 1.], [1., 0.]], np.float32)
    labels = np.array([1, 0])
    ce = -np.log([0.9, 0.8])
    np.testing.assert_allclose(L.categorical_crossentropy(t, y).array, ce, rtol=1e-5)
    np.testing.assert_allclose(L.sparse_categorical_crossentropy(labels, y).array, ce,
                               rtol=1e-5)
    logits = np.log(y)
    np.testing.assert_allclose(L.categorical_crossentropy(t, logits, from_logits=True).array,
                               ce, rtol=1e-5)
    assert float(L.SparseCategoricalCrossentropy(from_logits=True)(labels, logits).array) == \
        pytest.approx(ce.mean(), rel=1e-5)
    p = np.array([[0.9], [0.3]], np.float32)
    tb = np.array([[1.], [0.]], np.float32)
    bce = -np.array([np.log(0.9), np.log(0.7)])
    np.testing.assert_allclose(L.binary_crossentropy(tb, p).array, bce, rtol=1e-5)
    np.testing.assert_allclose(
        L.binary_crossentropy(tb, np.log(p / (1 - p)), from_logits=True).array, bce, rtol=1e-4)
    err = np.array([[0.5, 2.0]], np.float32)
    assert float(L.huber(np.zeros_like(err), err).array[0]) == pytest.approx(
        (0.5 * 0.25 + (2.0 - 0.5)) / 2)
    assert float(L.MeanSquaredError(reduction='sum')(t, y).array) == pytest.approx(
        ((t - y) ** 2).mean(-1).sum())
    assert L.MeanAbsoluteError(reduction='none')(t, y).shape == (2,)
    assert float(L.MeanSquaredError()(t, y, sample_weight=np.array([1., 0.])).array) == \
        pytest.approx(((t - y) ** 2).mean(-1)[0] / 2)
    with pytest.raises(ValueError, match='Unknown loss'):
        L.get('nope')


def test_metric_objects():
    M = keras.metrics
    m = M.TopKCategoricalAccuracy(k=2)
    y = np.array([[0.5, 0.3, 0.2], [0.1, 0.2, 0.7]])
    m.update_state(np.array([[0, 1, 0], [1, 0, 0]]), y)
    assert m.result() == pytest.approx(0.5)
    b = M.BinaryAccuracy()
    b.update_state(np.array([[1], [0]]), np.array([[0.7], [0.6]]))
    assert b.result() == pytest.approx(0.5)
    mean = M.Mean()
    mean.update_state([1.0, 3.0], sample_weight=[1.0, 3.0])
    assert mean.result() == pytest.approx(2.5)
    mean.reset_state()
    assert mean.result() == 0.0
