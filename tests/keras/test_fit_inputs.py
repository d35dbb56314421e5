"""Iterables of batches as fit/evaluate/predict input (generators, DataLoader-like loaders,
keras.utils.PyDataset), steps_per_epoch, validation_data iterables, and pad_sequences."""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras


def _arrays(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [2.0], [-1.0]], np.float32)).astype(np.float32)
    return x, y


def _model(lr=0.0):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(lr), 'mse', metrics=['mae'])
    return model


class TensorLike:
    """A CPU tensor of another library: only ``__array__`` and ``shape``."""

    def __init__(self, a):
        self._a = np.asarray(a)
        self.shape = self._a.shape

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)


class Loader:
    """A PyTorch-DataLoader-like iterable: ``__iter__`` and ``__len__``, a new pass each
    ``iter()``, batches as lists ``[x, y]`` of tensor-like objects (as default_collate)."""

    def __init__(self, x, y, batch_size, sw=None):
        self.x, self.y, self.sw, self.batch_size = x, y, sw, batch_size
        self.passes = 0

    def __len__(self):
        return -(-len(self.x) // self.batch_size)

    def __iter__(self):
        self.passes += 1
        for i in range(0, len(self.x), self.batch_size):
            s = slice(i, i + self.batch_size)
            batch = [TensorLike(self.x[s]), TensorLike(self.y[s])]
            if self.sw is not None:
                batch.append(TensorLike(self.sw[s]))
            yield batch


class Batches(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size
        self.ends = 0
        self.begins = 0

    def __len__(self):
        return -(-len(self.x) // self.batch_size)

    def __getitem__(self, i):
        s = slice(i * self.batch_size, (i + 1) * self.batch_size)
        return self.x[s], self.y[s]

    def on_epoch_begin(self):
        self.begins += 1

    def on_epoch_end(self):
        self.ends += 1


def test_loader_is_reread_each_epoch_and_matches_arrays():
    x, y = _arrays()
    ref = _model(0.05)
    ref_hist = ref.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    model = _model(0.05)
    loader = Loader(x, y, 8)
    hist = model.fit(loader, epochs=3, verbose=0)
    assert loader.passes == 3
    np.testing.assert_allclose(hist.history['loss'], ref_hist.history['loss'], rtol=1e-5)
    np.testing.assert_allclose(model.get_weights()[0], ref.get_weights()[0], rtol=1e-5)
    assert model.evaluate(Loader(x, y, 16), verbose=0) == pytest.approx(
        ref.evaluate(x, y, verbose=0), rel=1e-5)
    np.testing.assert_allclose(model.predict(Loader(x, y, 16), verbose=0),
                               ref.predict(x, verbose=0), rtol=1e-5)


def test_loader_with_sample_weights_and_uint8_inputs():
    x, y = _arrays(16)
    sw = np.linspace(0, 1, 16).astype(np.float32)
    model = _model()
    loss = model.evaluate(Loader(x, y, 16, sw=sw), verbose=0)[0]
    pred = model.predict(x, verbose=0)
    assert loss == pytest.approx(np.sum(sw * (pred - y)[:, 0] ** 2) / 16, rel=1e-5)
    xi = np.arange(48, dtype=np.uint8).reshape(16, 3)
    out = model.predict(Loader(xi, y, 5), verbose=0)   # integers cast to the Input's float32
    np.testing.assert_allclose(out, model.predict(xi.astype(np.float32), verbose=0), rtol=1e-6)


def test_generator_and_generator_function_input():
    x, y = _arrays(24)

    def gen():
        for i in range(0, 24, 6):
            yield x[i:i + 6], y[i:i + 6]

    model = _model()
    hist = model.fit(gen(), epochs=1, verbose=0)
    pred = model.predict(x, verbose=0)
    assert hist.history['loss'][0] == pytest.approx(np.mean((pred - y) ** 2), rel=1e-5)
    # an endless generator needs steps_per_epoch

    def endless():
        while True:
            yield x[:4], y[:4]
    seen = []
    cb = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(b))
    model.fit(endless(), steps_per_epoch=3, epochs=2, verbose=0, callbacks=[cb])
    assert seen == [0, 1, 2, 0, 1, 2]
    # batches of x alone work for predict
    out = model.predict((x[i:i + 8] for i in range(0, 24, 8)), verbose=0)
    np.testing.assert_allclose(out, pred, rtol=1e-6)


def test_pydataset_epochs_hooks_and_workers_arguments():
    x, y = _arrays(20)
    ds = Batches(x, y, 8, workers=4, use_multiprocessing=True, max_queue_size=3)
    assert (ds.workers, ds.use_multiprocessing, ds.max_queue_size) == (4, True, 3)
    assert len(ds) == ds.num_batches == 3
    model = _model(0.05)
    ref = _model(0.05)
    steps = []
    cb = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: steps.append(b))
    hist = model.fit(ds, epochs=2, verbose=0, callbacks=[cb])
    ref_hist = ref.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(hist.history['loss'], ref_hist.history['loss'], rtol=1e-5)
    assert steps == [0, 1, 2, 0, 1, 2]
    assert ds.begins == ds.ends == 2
    np.testing.assert_allclose(model.predict(ds, verbose=0), ref.predict(x, verbose=0),
                               rtol=1e-5)


def test_steps_per_epoch_continues_a_loader_across_epochs():
    x, y = _arrays(20)
    loader = Loader(x, y, 4)        # 5 batches per pass
    seen = []
    model = _model()
    original = model.train_step

    def spy(data):
        seen.append(float(np.asarray(data[0])[0, 0]))
        return original(data)
    model.__dict__['train_step'] = spy
    model.fit(loader, steps_per_epoch=2, epochs=4, verbose=0)
    starts = [float(x[i, 0]) for i in range(0, 20, 4)]
    # epochs 1-2 read batches 0-3; epoch 3 reads batch 4 and runs out (ends early);
    # epoch 4 starts a new pass
    assert seen == starts[:4] + starts[4:5] + starts[:2]
    assert loader.passes == 2


def test_validation_data_as_loader_and_as_pydataset():
    x, y = _arrays(24)
    xv, yv = _arrays(12, seed=1)
    model = _model()
    hist = model.fit(x, y, batch_size=8, epochs=2, verbose=0,
                     validation_data=Loader(xv, yv, 5))
    val_loss = np.mean((model.predict(xv, verbose=0) - yv) ** 2)
    assert hist.history['val_loss'][-1] == pytest.approx(val_loss, rel=1e-5)
    hist = model.fit(Loader(x, y, 8), epochs=1, verbose=0,
                     validation_data=Batches(xv, yv, 5))
    assert sorted(hist.history) == ['loss', 'mae', 'val_loss', 'val_mae']
    assert hist.history['val_loss'][0] == pytest.approx(val_loss, rel=1e-5)


def test_iterable_input_errors():
    x, y = _arrays(8)
    model = _model()
    with pytest.raises(ValueError, match='y must not be given'):
        model.fit(Loader(x, y, 4), y, verbose=0)
    with pytest.raises(ValueError, match='sample_weight must not be given'):
        model.fit(Loader(x, y, 4), sample_weight=np.ones(8), verbose=0)
    with pytest.raises(ValueError, match='validation_split'):
        model.fit(Loader(x, y, 4), validation_split=0.5, verbose=0)

    def bad():
        yield x, y, None, None
    with pytest.raises(ValueError, match='tuple of 4'):
        model.fit(bad(), verbose=0)
    with pytest.raises(TypeError, match='__len__'):
        len(keras.utils.PyDataset())


def test_pack_and_unpack():
    u = keras.utils
    assert u.unpack_x_y_sample_weight((1, 2)) == (1, 2, None)
    assert u.unpack_x_y_sample_weight([1, 2, 3]) == (1, 2, 3)
    assert u.unpack_x_y_sample_weight(5) == (5, None, None)
    assert u.pack_x_y_sample_weight([1, 2]) == ([1, 2],)
    assert u.pack_x_y_sample_weight(1, 2) == (1, 2)
    assert u.pack_x_y_sample_weight(1, 2, 3) == (1, 2, 3)


# ------------------------------------------------------------------- pad_sequences


def test_pad_sequences_defaults_and_options():
    seqs = [[1, 2, 3], [4], [], [5, 6]]
    out = keras.utils.pad_sequences(seqs)
    np.testing.assert_array_equal(out, [[1, 2, 3], [0, 0, 4], [0, 0, 0], [0, 5, 6]])
    assert out.dtype == np.int32
    post = keras.utils.pad_sequences(seqs, maxlen=2, padding='post', truncating='post',
                                     value=-1)
    np.testing.assert_array_equal(post, [[1, 2], [4, -1], [-1, -1], [5, 6]])
    pre = keras.utils.pad_sequences(seqs, maxlen=2)           # truncating='pre' drops starts
    np.testing.assert_array_equal(pre, [[2, 3], [0, 4], [0, 0], [5, 6]])
    fl = keras.utils.pad_sequences([[0.5], [1.5, 2.5]], dtype='float32', value=0.25)
    np.testing.assert_array_equal(fl, np.array([[0.25, 0.5], [1.5, 2.5]], np.float32))
    assert keras.utils.pad_sequences([]).shape == (0, 0)
    vec = keras.utils.pad_sequences([np.ones((2, 3)), np.ones((1, 3))], dtype='float32')
    assert vec.shape == (2, 2, 3) and vec[1, 0].sum() == 0 and vec[1, 1].sum() == 3
    text = keras.utils.pad_sequences([['a', 'b'], ['c']], dtype=object, value='<pad>')
    assert text.tolist() == [['a', 'b'], ['<pad>', 'c']]


def test_pad_sequences_errors():
    with pytest.raises(ValueError, match='padding'):
        keras.utils.pad_sequences([[1]], padding='middle')
    with pytest.raises(ValueError, match='truncating'):
        keras.utils.pad_sequences([[1]], truncating='both')
    with pytest.raises(ValueError, match='maxlen'):
        keras.utils.pad_sequences([[1]], maxlen=-1)
    with pytest.raises(ValueError, match=r'sequences\[1\]'):
        keras.utils.pad_sequences([[1], 2])
    with pytest.raises(ValueError, match='string'):
        keras.utils.pad_sequences([[1]], value='x')


def test_exhausted_generator_stops_training_with_a_warning():
    x, y = _arrays(8)
    model = _model()
    batches = ((x[i:i + 4], y[i:i + 4]) for i in range(0, 8, 4))
    with pytest.warns(UserWarning, match='ran out of data at epoch 2'):
        hist = model.fit(batches, epochs=3, verbose=0)
    assert len(hist.history['loss']) == 1


def test_custom_loop_over_a_loader_of_tensor_like_batches():
    # "Writing a training loop from scratch in PyTorch", with chainlet's names
    x, y = _arrays(16)
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    optimizer = keras.optimizers.Adam(learning_rate=0.05)
    loss_fn = keras.losses.MeanSquaredError()
    metric = keras.metrics.MeanAbsoluteError()
    first = None
    for epoch in range(5):
        for inputs, targets in Loader(x, y, 4):
            logits = model(inputs)                   # a tensor-like batch is converted
            loss = loss_fn(targets, logits)
            model.zero_grad()
            loss.backward()
            weights = [v for v in model.trainable_weights]
            optimizer.apply([v.value.grad for v in weights], weights)
            metric.update_state(targets, logits)
        first = metric.result() if first is None else first
        metric.reset_state()
    metric.update_state(y, model(x))
    assert metric.result() < first


def test_validation_steps_restart_the_validation_loader_every_time():
    x, y = _arrays(16)
    xv, yv = _arrays(12, seed=2)
    model = _model()
    seen = []
    original = model.test_step

    def spy(data):
        seen.append(float(np.asarray(data[0])[0, 0]))
        return original(data)
    model.__dict__['test_step'] = spy
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, validation_data=Loader(xv, yv, 4),
              validation_steps=2)
    # Keras: the same first validation_steps batches at every epoch
    assert seen == [float(xv[0, 0]), float(xv[4, 0])] * 2
