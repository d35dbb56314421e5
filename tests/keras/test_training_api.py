"""Keras 3's training API: train_step/test_step/predict_step overrides, compute_loss,
compute_metrics, Model.metrics and the loss tracker, optimizer.apply, and keras.Variable."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import keras


def _data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32) + 0.3).astype(np.float32)
    return x, y


def _mse(model, x, y):
    return float(np.mean((model.predict(x, verbose=0) - y) ** 2))


# ---------------------------------------------------------------- the PyTorch guide


class GuideModel(keras.Model):
    """The first model of "Customizing what happens in fit() with PyTorch", torch idioms
    mapped: zero_grad, compute_loss, loss.backward(), v.value.grad, optimizer.apply."""

    def train_step(self, data):
        x, y = data
        self.zero_grad()
        y_pred = self(x, training=True)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        loss.backward()
        trainable_weights = [v for v in self.trainable_weights]
        gradients = [v.value.grad for v in trainable_weights]
        self.optimizer.apply(gradients, trainable_weights)
        for metric in self.metrics:
            if metric.name == 'loss':
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def test_guide_train_step_with_compiled_loss_and_metrics():
    keras.utils.set_random_seed(0)
    x, y = _data()
    inputs = keras.Input(shape=(4,))
    model = GuideModel(inputs, keras.layers.Dense(1)(inputs))
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss='mse', metrics=['mae'])
    before = _mse(model, x, y)
    hist = model.fit(x, y, epochs=5, batch_size=16, verbose=0)
    # the nested compile_metrics result is flattened into the logs, as Keras does
    assert sorted(hist.history) == ['loss', 'mae']
    assert hist.history['loss'][-1] < hist.history['loss'][0]
    assert _mse(model, x, y) < before / 2
    # the loss tracker is a plain Mean of batch losses here (the guide updates it unweighted)
    assert model.optimizer.iterations == 5 * 4


class TrackerModel(keras.Model):
    """The guide's lower-level variant: own trackers, listed in `metrics` so that fit and
    evaluate reset them, compile() without a loss."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name='loss')
        self.mae_metric = keras.metrics.MeanAbsoluteError(name='mae')
        self.loss_fn = keras.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data
        self.zero_grad()
        y_pred = self(x, training=True)
        loss = self.loss_fn(y, y_pred)
        loss.backward()
        weights = self.trainable_weights
        self.optimizer.apply_gradients(zip([v.value.grad for v in weights], weights))
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {'loss': self.loss_tracker.result(), 'mae': self.mae_metric.result()}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, y_pred))
        self.mae_metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


def test_guide_own_trackers_are_reset_every_epoch_and_in_evaluate():
    keras.utils.set_random_seed(1)
    x, y = _data()
    inputs = keras.Input(shape=(4,))
    model = TrackerModel(inputs, keras.layers.Dense(1)(inputs))
    model.compile(optimizer='adam')
    hist = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    assert sorted(hist.history) == ['loss', 'mae']
    assert model.loss_tracker.count == 4        # reset at each epoch: 4 batches of the last
    logs = model.evaluate(x, y, batch_size=64, verbose=0, return_dict=True)
    pred = model.predict(x, verbose=0)
    assert logs['mae'] == pytest.approx(np.mean(np.abs(pred - y)), rel=1e-5)
    assert logs['loss'] == pytest.approx(np.mean((pred - y) ** 2), rel=1e-5)
    assert model.evaluate(x, y, batch_size=64, verbose=0) == [logs['loss'], logs['mae']]


class WeightedModel(keras.Model):
    def train_step(self, data):
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data
        self.zero_grad()
        y_pred = self(x, training=True)
        loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        loss.backward()
        self.optimizer.apply([v.value.grad for v in self.trainable_weights],
                             self.trainable_weights)
        for metric in self.metrics:
            if metric.name == 'loss':
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}


def test_guide_sample_weight_reaches_the_step_and_the_loss():
    x, y = _data(32)
    sw = np.linspace(0.0, 2.0, 32).astype(np.float32)
    inputs = keras.Input(shape=(4,))
    model = WeightedModel(inputs, keras.layers.Dense(1)(inputs))
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss='mse', weighted_metrics=['mae'])
    seen = []
    original = model.train_step
    model.__dict__['train_step'] = lambda data: (seen.append(len(data)), original(data))[1]
    hist = model.fit(x, y, sample_weight=sw, batch_size=32, epochs=1, shuffle=False,
                     verbose=0)
    assert seen == [3]
    pred = model.predict(x, verbose=0)
    err = np.abs(pred - y)[:, 0]
    # Keras's sum_over_batch_size: sum(w * loss) / batch size
    assert hist.history['loss'][0] == pytest.approx(np.sum(sw * err ** 2) / 32, rel=1e-5)
    assert hist.history['mae'][0] == pytest.approx(np.sum(sw * err) / np.sum(sw), rel=1e-5)


def test_test_step_and_predict_step_overrides():
    x, y = _data(20)

    class M(keras.Model):
        def test_step(self, data):
            x, y = data
            y_pred = self(x, training=False)
            loss = self.compute_loss(y=y, y_pred=y_pred)
            for metric in self.metrics:
                if metric.name == 'loss':
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

        def predict_step(self, data):
            x, _, _ = keras.utils.unpack_x_y_sample_weight(data)
            return self(x, training=False) * 2.0

    inputs = keras.Input(shape=(4,))
    model = M(inputs, keras.layers.Dense(1)(inputs))
    model.compile(loss='mse', metrics=['mae'])
    loss, mae = model.evaluate(x, y, batch_size=20, verbose=0)
    half = model.predict(x, verbose=0) / 2.0
    np.testing.assert_allclose(half, model(x).array, rtol=1e-6)
    assert loss == pytest.approx(np.mean((half - y) ** 2), rel=1e-5)
    assert mae == pytest.approx(np.mean(np.abs(half - y)), rel=1e-5)


def test_gan_style_two_optimizers_update_their_own_weights():
    keras.utils.set_random_seed(2)
    gen = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4)], name='gen')
    disc = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)], name='disc')

    class GAN(keras.Model):
        def __init__(self, discriminator, generator):
            super().__init__()
            self.discriminator = discriminator
            self.generator = generator
            self.d_loss_tracker = keras.metrics.Mean(name='d_loss')
            self.g_loss_tracker = keras.metrics.Mean(name='g_loss')
            self.built = True

        @property
        def metrics(self):
            return [self.d_loss_tracker, self.g_loss_tracker]

        def compile(self, d_optimizer, g_optimizer, loss_fn):
            super().compile()
            self.d_optimizer = d_optimizer
            self.g_optimizer = g_optimizer
            self.loss_fn = loss_fn

        def train_step(self, real):
            if isinstance(real, tuple):
                real = real[0]
            n = real.shape[0]
            z = np.random.normal(size=(n, 3)).astype(np.float32)
            fake = self.generator(z)
            combined = F.concat([fake, real], axis=0)
            labels = np.concatenate([np.ones((n, 1)), np.zeros((n, 1))]).astype(np.float32)
            self.zero_grad()
            d_loss = self.loss_fn(labels, self.discriminator(combined))
            d_loss.backward()
            w = self.discriminator.trainable_weights
            self.d_optimizer.apply([v.value.grad for v in w], w)
            self.zero_grad()
            g_loss = self.loss_fn(np.zeros((n, 1), np.float32),
                                  self.discriminator(self.generator(z)))
            g_loss.backward()
            w = self.generator.trainable_weights
            self.g_optimizer.apply([v.value.grad for v in w], w)
            self.d_loss_tracker.update_state(d_loss)
            self.g_loss_tracker.update_state(g_loss)
            return {'d_loss': self.d_loss_tracker.result(),
                    'g_loss': self.g_loss_tracker.result()}

    gan = GAN(disc, gen)
    gan.compile(keras.optimizers.Adam(0.01), keras.optimizers.Adam(0.01),
                keras.losses.BinaryCrossentropy(from_logits=True))
    real = np.random.default_rng(0).normal(size=(32, 4)).astype(np.float32)
    d0, g0 = disc.get_weights(), gen.get_weights()
    hist = gan.fit(real, batch_size=8, epochs=2, verbose=0)
    assert sorted(hist.history) == ['d_loss', 'g_loss']
    assert all(np.isfinite(v) for v in hist.history['d_loss'])
    assert not any(np.allclose(a, b) for a, b in zip(d0, disc.get_weights()))
    assert not any(np.allclose(a, b) for a, b in zip(g0, gen.get_weights()))
    # each optimizer counts its own steps; Adam state lives in the optimizer that owns it
    assert gan.d_optimizer.iterations == gan.g_optimizer.iterations == 8


def test_optimizer_apply_checks_its_arguments():
    opt = keras.optimizers.SGD(0.1)
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    with pytest.raises(ValueError, match='trainable_variables'):
        opt.apply([np.zeros((3, 2))])
    with pytest.raises(ValueError, match='1 gradients for 2 variables'):
        opt.apply([np.zeros((3, 2))], layer.trainable_weights)
    with pytest.raises(TypeError, match='Parameters'):
        opt.apply([np.zeros(2)], [np.zeros(2)])
    k0 = layer.kernel.numpy()
    opt.apply([np.ones((3, 2), np.float32), None], layer.trainable_weights)
    np.testing.assert_allclose(layer.kernel.numpy(), k0 - 0.1, rtol=1e-6)


# ------------------------------------------------------ compute_loss / compute_metrics


def test_compute_loss_callable_and_matches_the_compiled_loss():
    x, y = _data(10)
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
    model.compile('sgd', loss='mse')
    pred = model(x)
    loss = model.compute_loss(x=x, y=y, y_pred=pred)
    assert isinstance(loss, chainlet.Variable) and loss.shape == ()
    assert float(loss.array) == pytest.approx(np.mean((pred.array - y) ** 2), rel=1e-6)
    with pytest.raises(ValueError, match='no targets'):
        model.compute_loss(x=x, y=None, y_pred=pred)


@pytest.mark.parametrize('with_training', [True, False])
def test_fit_and_evaluate_call_an_overridden_compute_loss(with_training):
    calls = []

    class M(keras.Model):
        if with_training:
            def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                             training=True):
                calls.append(training)
                return F.mean(F.absolute(y_pred - y)) * 3.0
        else:
            def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
                calls.append(None)
                return F.mean(F.absolute(y_pred - y)) * 3.0

    x, y = _data(16)
    inputs = keras.Input(shape=(4,))
    model = M(inputs, keras.layers.Dense(1)(inputs))
    model.compile(keras.optimizers.SGD(0.0))          # no loss= needed
    hist = model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    pred = model.predict(x, verbose=0)
    assert hist.history['loss'][0] == pytest.approx(3 * np.mean(np.abs(pred - y)), rel=1e-5)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(hist.history['loss'][0],
                                                            rel=1e-5)
    assert calls == ([True, False] if with_training else [None, None])


def test_compile_without_loss_trains_on_add_loss():
    class Penalized(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer='ones')

        def call(self, x):
            self.add_loss(F.sum(self.w * self.w))
            return x * self.w

    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, Penalized()(inputs))
    model.compile(keras.optimizers.SGD(0.1))
    x = np.ones((8, 3), np.float32)
    hist = model.fit(x, batch_size=8, epochs=3, verbose=0)   # no y at all
    w = model.layers[1].w.numpy()
    np.testing.assert_allclose(w, 0.8 ** 3, rtol=1e-5)      # w -= 0.1 * 2w each step
    assert hist.history['loss'][0] == pytest.approx(3.0, rel=1e-6)


def test_no_loss_at_all_is_a_clear_error():
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    model.compile('sgd')
    with pytest.raises(ValueError, match='No loss to compute|no loss to compute'):
        model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)


def test_metrics_list_loss_tracker_and_reset():
    x, y = _data(20)
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
    assert model.metrics == []
    model.compile('sgd', 'mse', metrics=['mae', keras.metrics.RootMeanSquaredError()])
    assert [m.name for m in model.metrics] == ['loss', 'compile_metrics']
    model.fit(x, y, batch_size=5, epochs=1, verbose=0)
    tracker, compiled = model.metrics
    assert isinstance(tracker, keras.metrics.Mean) and tracker.count == 20
    assert [m.name for m in compiled.metrics] == ['mae', 'root_mean_squared_error']
    result = model.get_metrics_result()
    assert sorted(result) == ['loss', 'mae', 'root_mean_squared_error']
    model.reset_metrics()
    assert tracker.count == 0 and model.get_metrics_result()['mae'] == 0.0
    values = model.evaluate(x, y, verbose=0)
    pred = model.predict(x, verbose=0)
    np.testing.assert_allclose(values, [np.mean((pred - y) ** 2), np.mean(np.abs(pred - y)),
                                        np.sqrt(np.mean((pred - y) ** 2))], rtol=1e-5)


def test_compute_metrics_override_adds_a_metric():
    class M(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.max_error = keras.metrics.Mean(name='max_error')

        def compute_metrics(self, x, y, y_pred, sample_weight=None):
            results = super().compute_metrics(x, y, y_pred, sample_weight)
            self.max_error.update_state(np.max(np.abs(y_pred.array - y)))
            results['max_error'] = self.max_error.result()
            return results

    x, y = _data(12)
    inputs = keras.Input(shape=(4,))
    model = M(inputs, keras.layers.Dense(1)(inputs))
    model.compile(keras.optimizers.SGD(0.0), 'mse', metrics=['mae'])
    # attribute metrics are tracked in model.metrics (so reset at each epoch)
    assert [m.name for m in model.metrics] == ['loss', 'compile_metrics', 'max_error']
    hist = model.fit(x, y, batch_size=12, epochs=2, verbose=0)
    assert sorted(hist.history) == ['loss', 'mae', 'max_error']
    pred = model.predict(x, verbose=0)
    assert hist.history['max_error'][1] == pytest.approx(np.max(np.abs(pred - y)), rel=1e-5)
    assert model.max_error.count == 1


def test_multi_output_loss_trackers_and_order():
    inp = keras.Input(shape=(3,))
    a = keras.layers.Dense(1, name='a')(inp)
    b = keras.layers.Dense(1, name='b')(inp)
    model = keras.Model(inp, [a, b])
    model.compile(keras.optimizers.SGD(0.0), ['mse', 'mae'], loss_weights=[1.0, 2.0],
                  metrics=[['mae'], []])
    x = np.random.default_rng(0).normal(size=(10, 3)).astype(np.float32)
    ya, yb = np.zeros((10, 1), np.float32), np.ones((10, 1), np.float32)
    logs = model.evaluate(x, [ya, yb], verbose=0, return_dict=True)
    pa, pb = model.predict(x, verbose=0)
    assert logs['a_loss'] == pytest.approx(np.mean(pa ** 2), rel=1e-5)
    assert logs['b_loss'] == pytest.approx(np.mean(np.abs(pb - 1)), rel=1e-5)
    assert logs['loss'] == pytest.approx(logs['a_loss'] + 2 * logs['b_loss'], rel=1e-5)
    assert logs['a_mae'] == pytest.approx(np.mean(np.abs(pa)), rel=1e-5)
    assert model.metrics_names == ['loss', 'compile_metrics', 'a_loss', 'b_loss']
    values = model.evaluate(x, [ya, yb], verbose=0)
    assert values == [logs['loss'], logs['a_mae'], logs['a_loss'], logs['b_loss']]


def test_batch_logs_are_python_numbers():
    seen = []

    class Rec(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(logs)

    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
    model.compile('sgd', 'mse', metrics=['mae'])
    x, y = _data(8)
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[Rec()])
    assert len(seen) == 2 and sorted(seen[0]) == ['loss', 'mae']
    assert all(isinstance(v, float) for logs in seen for v in logs.values())


# ----------------------------------------------------------------------- variables


def test_variable_api():
    v = keras.Variable(np.arange(3, dtype=np.float32), name='v')
    assert v.shape == (3,) and v.dtype == 'float32' and v.trainable and v.path == 'v'
    assert v.value is v and isinstance(v, chainlet.Parameter)
    v.assign([5.0, 6.0, 7.0])
    v.assign_add(1.0)
    v.assign_sub(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(v.numpy(), [5.0, 5.0, 5.0])
    out = v.numpy()
    out[0] = 0
    assert v.numpy()[0] == 5.0                  # numpy() is a copy
    with pytest.raises(ValueError, match=r'shape \(2,\).*shape \(3,\)'):
        v.assign(np.zeros(2))
    w = keras.Variable('ones', shape=(2, 2), dtype='float64', trainable=False)
    assert w.dtype == np.float64 and not w.trainable
    np.testing.assert_array_equal(w.numpy(), np.ones((2, 2)))
    with pytest.raises(ValueError, match='shape'):
        keras.Variable('zeros')
    assert keras.Variable(3).dtype == np.int32 and keras.Variable(1.5).dtype == np.float32


def test_add_weight_returns_variables_with_paths_and_trainable_switch():
    class L(keras.layers.Layer):
        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], 2),
                                          initializer='random_normal', name='kernel')
            self.count = self.add_weight(shape=(), initializer='zeros', trainable=False,
                                         name='count')

        def call(self, x):
            self.count.assign_add(1.0)
            return F.matmul(x, self.kernel)

    layer = L(name='my_layer')
    layer(np.ones((2, 3), np.float32))
    assert isinstance(layer.kernel, keras.Variable)
    assert layer.kernel.path == 'my_layer/kernel' and layer.count.path == 'my_layer/count'
    assert layer.trainable_weights == [layer.kernel]
    assert layer.non_trainable_weights == [layer.count]
    assert layer.count.numpy() == 1.0
    layer.kernel.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2
    layer.kernel.trainable = True
    assert layer.trainable_weights == [layer.kernel]
    # Keras 2's positional order (name first) still works
    w = layer.add_weight('extra', (4,), initializer='ones')
    assert w.shape == (4,) and w.name == 'extra'
    with pytest.raises(TypeError, match='unexpected'):
        layer.add_weight(shape=(1,), bogus=1)


def test_free_variable_assigned_to_a_layer_is_a_weight():
    class Scale(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.s = keras.Variable(np.float32(2.0), name='s')

        def call(self, x):
            return x * self.s

    layer = Scale()
    assert layer.trainable_weights == [layer.s] and layer.s.path.endswith('/s')


class CategoricalTruePositives(keras.metrics.Metric):
    """The stateful metric of "Training & evaluation with the built-in methods"."""

    def __init__(self, name='categorical_true_positives', **kwargs):
        super().__init__(name=name, **kwargs)
        self.true_positives = self.add_variable(shape=(), name='ctp', initializer='zeros')

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = keras.ops.reshape(keras.ops.argmax(y_pred, axis=1), (-1, 1))
        values = keras.ops.cast(y_true, 'int32') == keras.ops.cast(y_pred, 'int32')
        values = keras.ops.cast(values, 'float32')
        if sample_weight is not None:
            sample_weight = keras.ops.cast(sample_weight, 'float32')
            values = keras.ops.multiply(values, sample_weight)
        self.true_positives.assign_add(keras.ops.sum(values))

    def result(self):
        return self.true_positives.value


def test_user_metric_with_add_variable_in_fit():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 4)).astype(np.float32)
    y = rng.integers(0, 3, (30, 1))
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3)])
    metric = CategoricalTruePositives()
    model.compile(keras.optimizers.SGD(0.0),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[metric])
    hist = model.fit(x, y, batch_size=10, epochs=2, verbose=0)
    pred = model.predict(x, verbose=0)
    expected = float(np.sum(pred.argmax(1) == y[:, 0]))
    assert hist.history['categorical_true_positives'] == [expected, expected]   # reset
    assert metric.variables == [metric.true_positives]
    metric.reset_state()
    assert metric.true_positives.numpy() == 0.0


def test_metric_without_state_must_implement_reset_state():
    class Bad(keras.metrics.Metric):
        def update_state(self, *args):
            pass

        def result(self):
            return 0.0

    with pytest.raises(TypeError, match='reset_state'):
        Bad().reset_state()


def test_keras2_style_train_step_with_compiled_loss_and_compiled_metrics():
    class Old(keras.Model):
        def train_step(self, data):
            x, y = data
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            self.zero_grad()
            loss.backward()
            self.optimizer.apply_gradients(
                zip([v.value.grad for v in self.trainable_weights], self.trainable_weights))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    x, y = _data(16)
    inputs = keras.Input(shape=(4,))
    hidden = keras.layers.Dense(3, kernel_regularizer=keras.regularizers.L2(0.1))(inputs)
    model = Old(inputs, keras.layers.Dense(1)(hidden))
    model.compile(keras.optimizers.SGD(0.0), 'mse', metrics=['mae'])
    hist = model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    pred = model.predict(x, verbose=0)
    kernel = model.layers[1].kernel.numpy()
    # the loss tracker is not updated by this old-style step: its logs are the step's own
    assert hist.history['mae'][0] == pytest.approx(np.mean(np.abs(pred - y)), rel=1e-5)
    loss = model.compiled_loss(y, model(x), regularization_losses=model.losses)
    assert float(loss.array) == pytest.approx(np.mean((pred - y) ** 2) +
                                              0.1 * np.sum(kernel ** 2), rel=1e-5)


@pytest.mark.gpu
def test_training_api_on_the_gpu():
    x, y = _data(32)
    inputs = keras.Input(shape=(4,))
    model = GuideModel(inputs, keras.layers.Dense(1)(inputs))
    model.to_device('@cupy:0')
    model.compile(keras.optimizers.Adam(0.05), 'mse',
                  metrics=['mae', keras.metrics.AUC(), keras.metrics.R2Score(),
                           CategoricalTruePositives()])
    hist = model.fit(x, (y > 0).astype(np.float32), epochs=2, batch_size=8, verbose=0)
    assert all(np.isfinite(v[-1]) for v in hist.history.values())
    kernel = model.layers[1].kernel
    assert kernel.xp is not np and isinstance(kernel.numpy(), np.ndarray)
    kernel.assign_add(np.ones(kernel.shape, np.float32))   # host values into a device array
    logs = model.evaluate(x, (y > 0).astype(np.float32), verbose=0, return_dict=True)
    assert sorted(logs) == ['auc', 'categorical_true_positives', 'loss', 'mae', 'r2_score']


def test_optimizer_build_on_a_variable_list():
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    opt = keras.optimizers.Adam(0.1)
    opt.build(layer.trainable_variables)
    grads = [np.ones((3, 2), np.float32), np.ones(2, np.float32)]
    k0 = layer.kernel.numpy()
    opt.apply(grads, layer.trainable_variables)
    # Adam's first step moves every weight by about the learning rate
    np.testing.assert_allclose(layer.kernel.numpy(), k0 - 0.1, rtol=1e-4)
    with pytest.raises(TypeError, match='list of chainlet Parameters'):
        opt.build([np.zeros(2)])
