"""Keras 3's guide "Writing your own callbacks" (keras-io ``guides/writing_your_own_callbacks.py``,
by Rick Chao and fchollet, Apache-2.0), adapted: the guide's cells in order, with
``import keras`` replaced by ``from chainlet import keras``. A ``# changed:`` comment marks every
other line that differs and says why. The guide's ``CustomCallback`` overrides every hook with
the same print; the test records the calls instead of printing them, to check their order.
"""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras


def get_model():
    model = keras.Sequential()
    model.add(keras.layers.Dense(1))
    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate=0.1),
        loss="mean_squared_error",
        metrics=["mean_absolute_error"],
    )
    return model


@pytest.fixture
def mnist():
    # changed: synthetic MNIST-shaped data (no download); the guide keeps 1000 samples
    x_train = np.random.randint(0, 256, (1000, 28, 28)).astype('uint8')
    y_train = np.random.randint(0, 10, (1000,)).astype('uint8')
    x_test = np.random.randint(0, 256, (1000, 28, 28)).astype('uint8')
    y_test = np.random.randint(0, 10, (1000,)).astype('uint8')
    x_train = x_train.reshape(-1, 784).astype("float32") / 255.0
    x_test = x_test.reshape(-1, 784).astype("float32") / 255.0
    x_train = x_train[:1000]
    y_train = y_train[:1000]
    x_test = x_test[:1000]
    y_test = y_test[:1000]
    return x_train, y_train, x_test, y_test


class CustomCallback(keras.callbacks.Callback):
    # changed: each hook appends (hook, log keys) to self.calls besides printing
    def __init__(self):
        super().__init__()
        self.calls = []

    def _log(self, hook, logs, *args):
        keys = list(logs.keys())
        self.calls.append((hook,) + args + (tuple(keys),))
        print("{} {}; got log keys: {}".format(hook, args, keys))

    def on_train_begin(self, logs=None):
        self._log('train_begin', logs)

    def on_train_end(self, logs=None):
        self._log('train_end', logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._log('epoch_begin', logs, epoch)

    def on_epoch_end(self, epoch, logs=None):
        self._log('epoch_end', logs, epoch)

    def on_test_begin(self, logs=None):
        self._log('test_begin', logs)

    def on_test_end(self, logs=None):
        self._log('test_end', logs)

    def on_predict_begin(self, logs=None):
        self._log('predict_begin', logs)

    def on_predict_end(self, logs=None):
        self._log('predict_end', logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._log('train_batch_begin', logs, batch)

    def on_train_batch_end(self, batch, logs=None):
        self._log('train_batch_end', logs, batch)

    def on_test_batch_begin(self, batch, logs=None):
        self._log('test_batch_begin', logs, batch)

    def on_test_batch_end(self, batch, logs=None):
        self._log('test_batch_end', logs, batch)

    def on_predict_batch_begin(self, batch, logs=None):
        self._log('predict_batch_begin', logs, batch)

    def on_predict_batch_end(self, batch, logs=None):
        self._log('predict_batch_end', logs, batch)


class LossAndErrorPrintingCallback(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print("Up to batch {}, the average loss is {:7.2f}.".format(batch, logs["loss"]))

    def on_test_batch_end(self, batch, logs=None):
        print("Up to batch {}, the average loss is {:7.2f}.".format(batch, logs["loss"]))

    def on_epoch_end(self, epoch, logs=None):
        print(
            "The average loss for epoch {} is {:7.2f} "
            "and mean absolute error is {:7.2f}.".format(
                epoch, logs["loss"], logs["mean_absolute_error"]
            )
        )


def test_basic_example(mnist):
    x_train, y_train, x_test, y_test = mnist
    model = get_model()
    callback = CustomCallback()  # changed: kept in a name to inspect its calls
    model.fit(x_train, y_train, batch_size=128, epochs=1, verbose=0, validation_split=0.5,
              callbacks=[callback])
    hooks = [c[0] for c in callback.calls]
    assert hooks[:3] == ['train_begin', 'epoch_begin', 'train_batch_begin']
    assert hooks.count('train_batch_end') == 4 and hooks.count('test_batch_end') == 4
    assert hooks[-3:] == ['test_end', 'epoch_end', 'train_end']
    assert set(callback.calls[-2][-1]) == {'loss', 'mean_absolute_error', 'val_loss',
                                           'val_mean_absolute_error'}

    callback = CustomCallback()
    res = model.evaluate(x_test, y_test, batch_size=128, verbose=0, callbacks=[callback])
    hooks = [c[0] for c in callback.calls]
    assert hooks[0] == 'test_begin' and hooks[-1] == 'test_end'
    assert hooks.count('test_batch_end') == 8 and len(res) == 2
    callback = CustomCallback()
    res = model.predict(x_test, batch_size=128, callbacks=[callback])
    assert res.shape == (1000, 1)
    assert [c[0] for c in callback.calls].count('predict_batch_end') == 8


def test_logs_dict(mnist, capsys):
    x_train, y_train, x_test, y_test = mnist
    model = get_model()
    model.fit(x_train, y_train, batch_size=128, epochs=2, verbose=0,
              callbacks=[LossAndErrorPrintingCallback()])
    res = model.evaluate(x_test, y_test, batch_size=128, verbose=0,
                         callbacks=[LossAndErrorPrintingCallback()])
    out = capsys.readouterr().out
    assert out.count('The average loss for epoch') == 2 and len(res) == 2


class EarlyStoppingAtMinLoss(keras.callbacks.Callback):
    """Stop training when the loss is at its min, i.e. the loss stops decreasing.

    Arguments:
        patience: Number of epochs to wait after min has been hit. After this
        number of no improvement, training stops.
    """

    def __init__(self, patience=0):
        super().__init__()
        self.patience = patience
        self.best_weights = None

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf

    def on_epoch_end(self, epoch, logs=None):
        current = logs.get("loss")
        if np.less(current, self.best):
            self.best = current
            self.wait = 0
            self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


def test_early_stopping_at_min_loss(mnist):
    x_train, y_train = mnist[:2]
    model = get_model()
    stopper = EarlyStoppingAtMinLoss()  # changed: kept in a name to inspect it
    history = model.fit(x_train, y_train, batch_size=64, steps_per_epoch=5, epochs=30,
                        verbose=0, callbacks=[LossAndErrorPrintingCallback(), stopper])
    assert stopper.stopped_epoch > 0 and len(history.history['loss']) < 30
    for w, best in zip(model.get_weights(), stopper.best_weights):
        np.testing.assert_array_equal(w, best)


class CustomLearningRateScheduler(keras.callbacks.Callback):
    """Learning rate scheduler which sets the learning rate according to schedule.

    Arguments:
        schedule: a function that takes an epoch index
            (integer, indexed from 0) and current learning rate
            as inputs and returns a new learning rate as output (float).
    """

    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule
        self.seen = []  # changed: added, to check the rates the optimizer had

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        lr = self.model.optimizer.learning_rate
        scheduled_lr = self.schedule(epoch, lr)
        self.model.optimizer.learning_rate = scheduled_lr
        print(f"\nEpoch {epoch}: Learning rate is {float(np.array(scheduled_lr))}.")
        self.seen.append(float(np.array(self.model.optimizer.learning_rate)))


LR_SCHEDULE = [
    (3, 0.05),
    (6, 0.01),
    (9, 0.005),
    (12, 0.001),
]


def lr_schedule(epoch, lr):
    """Helper function to retrieve the scheduled learning rate based on epoch."""
    if epoch < LR_SCHEDULE[0][0] or epoch > LR_SCHEDULE[-1][0]:
        return lr
    for i in range(len(LR_SCHEDULE)):
        if epoch == LR_SCHEDULE[i][0]:
            return LR_SCHEDULE[i][1]
    return lr


def test_learning_rate_scheduling(mnist):
    x_train, y_train = mnist[:2]
    model = get_model()
    scheduler = CustomLearningRateScheduler(lr_schedule)  # changed: kept in a name
    model.fit(x_train, y_train, batch_size=64, steps_per_epoch=5, epochs=15, verbose=0,
              callbacks=[LossAndErrorPrintingCallback(), scheduler])
    np.testing.assert_allclose(scheduler.seen, [0.1] * 3 + [0.05] * 3 + [0.01] * 3
                               + [0.005] * 3 + [0.001] * 3, rtol=1e-6)
