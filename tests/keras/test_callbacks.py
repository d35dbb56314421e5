"""Each callback's documented behaviour."""
from __future__ import annotations

import csv
import io
import os

import numpy as np
import pytest

import chainlet.functions as F
from chainlet import keras


def _model(lr: float = 0.1) -> keras.Model:
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(lr), 'mse')
    return model


X = np.random.default_rng(0).normal(size=(16, 2)).astype(np.float32)
Y = X.sum(1, keepdims=True)


class _Calls(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def on_train_begin(self, logs=None):
        self.calls.append('train_begin')

    def on_epoch_begin(self, epoch, logs=None):
        self.calls.append(f'epoch_begin {epoch}')

    def on_train_batch_end(self, batch, logs=None):
        self.calls.append(f'batch_end {batch}')

    def on_test_begin(self, logs=None):
        self.calls.append('test_begin')

    def on_epoch_end(self, epoch, logs=None):
        self.calls.append(f'epoch_end {epoch} {sorted(logs)}')

    def on_train_end(self, logs=None):
        self.calls.append('train_end')


def test_hook_order_params_and_model():
    cb = _Calls()
    model = _model()
    model.fit(X, Y, batch_size=8, epochs=2, validation_data=(X, Y), callbacks=[cb], verbose=0)
    assert cb.model is model
    assert cb.params['epochs'] == 2 and cb.params['steps'] == 2
    assert cb.calls == ['train_begin', 'epoch_begin 0', 'batch_end 0', 'batch_end 1',
                        'test_begin', "epoch_end 0 ['loss', 'val_loss']", 'epoch_begin 1',
                        'batch_end 0', 'batch_end 1', 'test_begin',
                        "epoch_end 1 ['loss', 'val_loss']", 'train_end']


def test_stop_training_from_a_batch():
    stopper = keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: setattr(model, 'stop_training', batch == 0))
    model = _model()
    hist = model.fit(X, Y, batch_size=4, epochs=5, callbacks=[stopper], verbose=0)
    assert len(hist.history['loss']) == 1


def test_early_stopping_patience_and_restore_best_weights():
    model = _model()
    losses = iter([1.0, 0.5, 0.7, 0.8, 0.9, 0.95])
    weights = {}

    class FakeLoss(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs['val_loss'] = next(losses)
            weights[epoch] = model.get_weights()
    stop = keras.callbacks.EarlyStopping(patience=2, restore_best_weights=True)
    hist = model.fit(X, Y, epochs=6, callbacks=[FakeLoss(), stop], verbose=0)
    assert len(hist.history['loss']) == 4    # best at epoch 1, two epochs without improvement
    assert stop.stopped_epoch == 3 and stop.best_epoch == 1
    for a, b in zip(model.get_weights(), weights[1]):
        np.testing.assert_array_equal(a, b)


def test_early_stopping_restores_best_weights_without_stopping():
    model = _model()
    values = iter([0.3, 0.1, 0.2])
    snapshot = {}

    class Fake(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs['val_loss'] = next(values)
            snapshot[epoch] = model.get_weights()
    stop = keras.callbacks.EarlyStopping(patience=5, restore_best_weights=True)
    model.fit(X, Y, epochs=3, callbacks=[Fake(), stop], verbose=0)
    assert stop.stopped_epoch == 0
    for a, b in zip(model.get_weights(), snapshot[1]):
        np.testing.assert_array_equal(a, b)


def test_early_stopping_modes_baseline_and_missing_monitor():
    assert keras.callbacks.EarlyStopping(monitor='val_accuracy').mode == 'max'
    assert keras.callbacks.EarlyStopping(monitor='val_loss').mode == 'min'
    with pytest.raises(ValueError, match='mode'):
        keras.callbacks.EarlyStopping(mode='up')

    class Flat(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs['val_loss'] = 0.5
    for baseline, epochs_run in ((None, 3), (0.1, 2)):   # an unbeaten baseline stops sooner
        stop = keras.callbacks.EarlyStopping(baseline=baseline, patience=2)
        hist = _model().fit(X, Y, epochs=6, callbacks=[Flat(), stop], verbose=0)
        assert len(hist.history['loss']) == epochs_run
    with pytest.warns(RuntimeWarning, match='val_loss'):
        _model().fit(X, Y, epochs=1, callbacks=[keras.callbacks.EarlyStopping()], verbose=0)
    delayed = keras.callbacks.EarlyStopping(monitor='loss', patience=0, start_from_epoch=3,
                                            min_delta=1e9)
    hist = _model().fit(X, Y, epochs=10, callbacks=[delayed], verbose=0)
    assert len(hist.history['loss']) == 5


def test_model_checkpoint_templates_best_only_and_missing_monitor(tmp_path):
    model = _model()
    path = str(tmp_path / 'ckpt-{epoch:02d}-{val_loss:.2f}.weights.npz')
    ckpt = keras.callbacks.ModelCheckpoint(path, save_weights_only=True)
    model.fit(X, Y, epochs=2, validation_data=(X, Y), callbacks=[ckpt], verbose=0)
    names = sorted(os.listdir(tmp_path))
    assert len(names) == 2 and names[0].startswith('ckpt-01-') and names[1].startswith('ckpt-02')
    best = tmp_path / 'best.keras'
    values = iter([0.5, 0.7, 0.2])
    saves = []

    class Fake(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs['val_loss'] = next(values)
    ckpt = keras.callbacks.ModelCheckpoint(str(best), save_best_only=True)
    original = model.save
    model.__dict__['save'] = lambda p, **k: (saves.append(p), original(p))
    model.fit(X, Y, epochs=3, callbacks=[Fake(), ckpt], verbose=0)
    assert len(saves) == 2 and ckpt.best == 0.2
    assert keras.models.load_model(str(best)).count_params() == model.count_params()
    missing = keras.callbacks.ModelCheckpoint(str(tmp_path / 'm.keras'), save_best_only=True)
    with pytest.warns(RuntimeWarning, match='val_loss'):
        hist = model.fit(X, Y, epochs=2, callbacks=[missing], verbose=0)
    assert len(hist.history['loss']) == 2 and not (tmp_path / 'm.keras').exists()


def test_model_checkpoint_save_freq_batches(tmp_path):
    model = _model()
    ckpt = keras.callbacks.ModelCheckpoint(str(tmp_path / 'b{batch}.weights.npz'), save_freq=3)
    model.fit(X, Y, batch_size=2, epochs=1, callbacks=[ckpt], verbose=0)
    assert sorted(os.listdir(tmp_path)) == ['b2.weights.npz', 'b5.weights.npz']


def test_csv_logger_and_append(tmp_path):
    path = tmp_path / 'log.csv'
    model = _model()
    model.fit(X, Y, epochs=2, validation_data=(X, Y), verbose=0,
              callbacks=[keras.callbacks.CSVLogger(str(path))])
    rows = list(csv.reader(path.read_text().splitlines()))
    assert rows[0] == ['epoch', 'loss', 'val_loss'] and len(rows) == 3
    model.fit(X, Y, epochs=1, validation_data=(X, Y), verbose=0,
              callbacks=[keras.callbacks.CSVLogger(str(path), separator=',', append=True)])
    rows = list(csv.reader(path.read_text().splitlines()))
    assert len(rows) == 4 and rows[3][0] == '0'


def test_learning_rate_scheduler_and_reduce_on_plateau():
    model = _model()
    sched = keras.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))
    hist = model.fit(X, Y, epochs=3, callbacks=[sched], verbose=0)
    assert hist.history['learning_rate'] == pytest.approx([0.1, 0.05, 0.1 / 3])
    assert model.optimizer.learning_rate == pytest.approx(0.1 / 3)
    model = _model(lr=0.0)
    plateau = keras.callbacks.ReduceLROnPlateau(monitor='loss', factor=0.5, patience=1,
                                                min_lr=0.0)
    model.optimizer.learning_rate = 0.4
    model.get_layer(index=0).trainable = False   # a frozen model: the loss never improves
    hist = model.fit(X, Y, epochs=4, callbacks=[plateau], verbose=0)
    assert hist.history['learning_rate'] == pytest.approx([0.4, 0.2, 0.1, 0.05])
    with pytest.raises(ValueError, match='factor'):
        keras.callbacks.ReduceLROnPlateau(factor=1.5)


def test_terminate_on_nan():
    calls = []

    def nan_after_three(y_true, y_pred):
        calls.append(1)
        bad = np.nan if len(calls) > 3 else 0.0
        return F.mean(F.square(y_pred - y_true), axis=-1) + bad
    model = _model()
    model.compile('sgd', nan_after_three)
    with np.errstate(all='ignore'):
        hist = model.fit(X, Y, batch_size=2, epochs=3, verbose=0,
                         callbacks=[keras.callbacks.TerminateOnNaN()])
    assert len(calls) == 4 and len(hist.history['loss']) == 1


def test_progbar_plain_lines_when_not_a_terminal():
    buf = io.StringIO()
    model = _model()
    model.fit(X, Y, batch_size=8, epochs=2, verbose=1,
              callbacks=[keras.callbacks.ProgbarLogger(file=buf)])
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith('Epoch 1/2 - 2/2') and 'loss:' in lines[0]
    buf = io.StringIO()
    _model().fit(X, Y, epochs=1, verbose=0, callbacks=[keras.callbacks.ProgbarLogger(file=buf)])
    assert buf.getvalue() == ''


def test_progbar_uses_tqdm_on_a_terminal():
    pytest.importorskip('tqdm')

    class Tty(io.StringIO):
        def isatty(self):
            return True
    buf = Tty()
    _model().fit(X, Y, batch_size=8, epochs=1, verbose=1,
                 callbacks=[keras.callbacks.ProgbarLogger(file=buf)])
    out = buf.getvalue()
    assert 'Epoch 1/1' in out and '2/2' in out and '\r' in out


def test_lambda_callback_rejects_unknown_hooks():
    with pytest.raises(TypeError, match='unknown hook'):
        keras.callbacks.LambdaCallback(on_something=print)
