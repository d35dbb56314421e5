"""Keras 3's guide "Training & evaluation with the built-in methods" (keras-io
``guides/training_with_built_in_methods.py``, by fchollet, Apache-2.0), adapted: the guide's
cells in order, with ``import keras`` replaced by ``from chainlet import keras``. A
``# changed:`` comment marks every other line that differs and says why: synthetic MNIST-shaped
arrays instead of the download, fewer samples and epochs, and a ``keras.utils.PyDataset`` where
the guide builds a ``tf.data.Dataset`` (TensorFlow is not a dependency). The PyTorch
``DataLoader`` section is left out (PyTorch is not a dependency); the guide only constructs the
``TensorBoard`` callback, which needs TensorFlow's event writer (see docs/keras.md).
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import layers, ops


@pytest.fixture
def mnist():
    # changed: synthetic MNIST-shaped data (no download): 1200 training images (200 of them
    # reserved for validation, the guide's 10000) and 200 test images
    x_train = np.random.randint(0, 256, (1200, 28, 28)).astype('uint8')
    y_train = np.random.randint(0, 10, (1200,)).astype('uint8')
    x_test = np.random.randint(0, 256, (200, 28, 28)).astype('uint8')
    y_test = np.random.randint(0, 10, (200,)).astype('uint8')
    x_train = x_train.reshape(1200, 784).astype("float32") / 255  # changed: 1200 samples
    x_test = x_test.reshape(200, 784).astype("float32") / 255  # changed: 200 samples
    y_train = y_train.astype("float32")
    y_test = y_test.astype("float32")
    x_val = x_train[-200:]  # changed: 200 validation samples
    y_val = y_train[-200:]
    x_train = x_train[:-200]
    y_train = y_train[:-200]
    return x_train, y_train, x_val, y_val, x_test, y_test


def get_uncompiled_model():
    inputs = keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)
    return model


def get_compiled_model():
    model = get_uncompiled_model()
    model.compile(
        optimizer="rmsprop",
        loss="sparse_categorical_crossentropy",
        metrics=["sparse_categorical_accuracy"],
    )
    return model


class ExamplePyDataset(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x = x
        self.y = y
        self.batch_size = batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / float(self.batch_size)))

    def __getitem__(self, idx):
        batch_x = self.x[idx * self.batch_size: (idx + 1) * self.batch_size]
        batch_y = self.y[idx * self.batch_size: (idx + 1) * self.batch_size]
        return batch_x, batch_y


class TupleDataset(keras.utils.PyDataset):
    """changed: stands in for ``tf.data.Dataset.from_tensor_slices(arrays).batch(n)``."""

    def __init__(self, arrays, batch_size):
        super().__init__()
        self.arrays = arrays
        self.batch_size = batch_size

    def __len__(self):
        return int(np.ceil(len(keras.tree.flatten(self.arrays)[0]) / self.batch_size))

    def __getitem__(self, idx):
        sl = slice(idx * self.batch_size, (idx + 1) * self.batch_size)
        return keras.tree.map_structure(lambda a: a[sl], self.arrays)


def test_first_end_to_end_example(mnist):
    x_train, y_train, x_val, y_val, x_test, y_test = mnist
    inputs = keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)
    model.compile(
        optimizer=keras.optimizers.RMSprop(),
        loss=keras.losses.SparseCategoricalCrossentropy(),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
    )
    print("Fit model on training data")
    history = model.fit(
        x_train,
        y_train,
        batch_size=64,
        epochs=2,
        validation_data=(x_val, y_val),
    )
    assert sorted(history.history) == ['loss', 'sparse_categorical_accuracy', 'val_loss',
                                       'val_sparse_categorical_accuracy']
    print("Evaluate on test data")
    results = model.evaluate(x_test, y_test, batch_size=128)
    print("test loss, test acc:", results)
    assert len(results) == 2
    print("Generate predictions for 3 samples")
    predictions = model.predict(x_test[:3])
    print("predictions shape:", predictions.shape)
    assert predictions.shape == (3, 10)

    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
    )
    model.compile(
        optimizer="rmsprop",
        loss="sparse_categorical_crossentropy",
        metrics=["sparse_categorical_accuracy"],
    )


def test_custom_losses(mnist):
    x_train, y_train = mnist[:2]

    def custom_mean_squared_error(y_true, y_pred):
        return ops.mean(ops.square(y_true - y_pred), axis=-1)

    model = get_uncompiled_model()
    model.compile(optimizer=keras.optimizers.Adam(), loss=custom_mean_squared_error)
    y_train_one_hot = ops.one_hot(y_train, num_classes=10)
    model.fit(x_train, y_train_one_hot, batch_size=64, epochs=1)

    class CustomMSE(keras.losses.Loss):
        def __init__(self, regularization_factor=0.1, name="custom_mse"):
            super().__init__(name=name)
            self.regularization_factor = regularization_factor

        def call(self, y_true, y_pred):
            mse = ops.mean(ops.square(y_true - y_pred), axis=-1)
            reg = ops.mean(ops.square(0.5 - y_pred), axis=-1)
            return mse + reg * self.regularization_factor

    model = get_uncompiled_model()
    model.compile(optimizer=keras.optimizers.Adam(), loss=CustomMSE())
    y_train_one_hot = ops.one_hot(y_train, num_classes=10)
    history = model.fit(x_train, y_train_one_hot, batch_size=64, epochs=1)
    assert np.isfinite(history.history['loss'][0])


def test_custom_metrics(mnist):
    x_train, y_train = mnist[:2]

    class CategoricalTruePositives(keras.metrics.Metric):
        def __init__(self, name="categorical_true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.true_positives = self.add_variable(
                shape=(), name="ctp", initializer="zeros"
            )

        def update_state(self, y_true, y_pred, sample_weight=None):
            y_pred = ops.reshape(ops.argmax(y_pred, axis=1), (-1, 1))
            values = ops.cast(y_true, "int32") == ops.cast(y_pred, "int32")
            values = ops.cast(values, "float32")
            if sample_weight is not None:
                sample_weight = ops.cast(sample_weight, "float32")
                values = ops.multiply(values, sample_weight)
            self.true_positives.assign_add(ops.sum(values))

        def result(self):
            return self.true_positives

        def reset_state(self):
            self.true_positives.assign(0.0)

    model = get_uncompiled_model()
    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(),
        metrics=[CategoricalTruePositives()],
    )
    history = model.fit(x_train, y_train, batch_size=64, epochs=3)
    assert len(history.history['categorical_true_positives']) == 3


def test_losses_outside_the_standard_signature(mnist):
    x_train, y_train = mnist[:2]

    class ActivityRegularizationLayer(layers.Layer):
        def call(self, inputs):
            self.add_loss(ops.sum(inputs) * 0.1)
            return inputs

    inputs = keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = ActivityRegularizationLayer()(x)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)
    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    model.fit(x_train, y_train, batch_size=64, epochs=1)

    class LogisticEndpoint(keras.layers.Layer):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)

        def call(self, targets, logits, sample_weights=None):
            loss = self.loss_fn(targets, logits, sample_weights)
            self.add_loss(loss)
            return ops.softmax(logits)

    inputs = keras.Input(shape=(3,), name="inputs")
    targets = keras.Input(shape=(10,), name="targets")
    logits = keras.layers.Dense(10)(inputs)
    predictions = LogisticEndpoint(name="predictions")(targets, logits)
    model = keras.Model(inputs=[inputs, targets], outputs=predictions)
    model.compile(optimizer="adam")  # No loss argument!
    data = {
        "inputs": np.random.random((3, 3)),
        "targets": np.random.random((3, 10)),
    }
    history = model.fit(data)
    assert np.isfinite(history.history['loss'][0])

    model = get_compiled_model()
    model.fit(x_train, y_train, batch_size=64, validation_split=0.2, epochs=1)


def test_datasets(mnist):
    x_train, y_train, x_val, y_val, x_test, y_test = mnist
    model = get_compiled_model()
    train_dataset = TupleDataset((x_train, y_train), 64)  # changed: instead of tf.data
    test_dataset = TupleDataset((x_test, y_test), 64)  # changed: instead of tf.data
    model.fit(train_dataset, epochs=3)
    print("Evaluate")
    result = model.evaluate(test_dataset)
    assert len(dict(zip(model.metrics_names, result))) == 2

    model = get_compiled_model()
    train_dataset = TupleDataset((x_train, y_train), 64)  # changed: instead of tf.data
    # changed: 10 batches per epoch instead of 100 (the smaller data set)
    history = model.fit(train_dataset, epochs=3, steps_per_epoch=10)
    assert len(history.history['loss']) == 3

    model = get_compiled_model()
    val_dataset = TupleDataset((x_val, y_val), 64)  # changed: instead of tf.data
    model.fit(train_dataset, epochs=1, validation_data=val_dataset)
    model = get_compiled_model()
    history = model.fit(train_dataset, epochs=1, validation_data=val_dataset,
                        validation_steps=2)  # changed: 2 validation steps, not 10
    assert 'val_loss' in history.history


def test_py_dataset(mnist):
    x_train, y_train, x_val, y_val = mnist[:4]
    train_py_dataset = ExamplePyDataset(x_train, y_train, batch_size=32)
    val_py_dataset = ExamplePyDataset(x_val, y_val, batch_size=32)
    model = get_compiled_model()
    model.fit(train_py_dataset, batch_size=64, validation_data=val_py_dataset, epochs=1)
    model.evaluate(val_py_dataset)

    train_py_dataset = ExamplePyDataset(x_train, y_train, batch_size=32, workers=4)
    val_py_dataset = ExamplePyDataset(x_val, y_val, batch_size=32, workers=4)
    model = get_compiled_model()
    history = model.fit(train_py_dataset, batch_size=64, validation_data=val_py_dataset,
                        epochs=1)
    assert 'val_sparse_categorical_accuracy' in history.history


def test_class_and_sample_weights(mnist):
    x_train, y_train = mnist[:2]
    class_weight = {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0,
                    5: 2.0, 6: 1.0, 7: 1.0, 8: 1.0, 9: 1.0}
    print("Fit with class weight")
    model = get_compiled_model()
    model.fit(x_train, y_train, class_weight=class_weight, batch_size=64, epochs=1)

    sample_weight = np.ones(shape=(len(y_train),))
    sample_weight[y_train == 5] = 2.0
    print("Fit with sample weight")
    model = get_compiled_model()
    model.fit(x_train, y_train, sample_weight=sample_weight, batch_size=64, epochs=1)

    # changed: instead of tf.data, a PyDataset yielding (x, y, sample_weight) batches
    train_dataset = TupleDataset((x_train, y_train, sample_weight), 64)
    model = get_compiled_model()
    history = model.fit(train_dataset, epochs=1)
    assert np.isfinite(history.history['loss'][0])


def test_multi_input_multi_output():
    image_input = keras.Input(shape=(32, 32, 3), name="img_input")
    timeseries_input = keras.Input(shape=(None, 10), name="ts_input")
    x1 = layers.Conv2D(3, 3)(image_input)
    x1 = layers.GlobalMaxPooling2D()(x1)
    x2 = layers.Conv1D(3, 3)(timeseries_input)
    x2 = layers.GlobalMaxPooling1D()(x2)
    x = layers.concatenate([x1, x2])
    score_output = layers.Dense(1, name="score_output")(x)
    class_output = layers.Dense(5, name="class_output")(x)
    model = keras.Model(
        inputs=[image_input, timeseries_input], outputs=[score_output, class_output]
    )
    keras.utils.plot_model(model, "multi_input_and_output_model.dot",  # changed: .dot
                           show_shapes=True)  # (PNG needs the Graphviz programs)

    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=[keras.losses.MeanSquaredError(), keras.losses.CategoricalCrossentropy()],
    )
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=[keras.losses.MeanSquaredError(), keras.losses.CategoricalCrossentropy()],
        metrics=[
            [keras.metrics.MeanAbsolutePercentageError(), keras.metrics.MeanAbsoluteError()],
            [keras.metrics.CategoricalAccuracy()],
        ],
    )
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={
            "score_output": keras.losses.MeanSquaredError(),
            "class_output": keras.losses.CategoricalCrossentropy(),
        },
        metrics={
            "score_output": [
                keras.metrics.MeanAbsolutePercentageError(),
                keras.metrics.MeanAbsoluteError(),
            ],
            "class_output": [keras.metrics.CategoricalAccuracy()],
        },
        loss_weights={"score_output": 2.0, "class_output": 1.0},
    )
    img_data = np.random.random_sample(size=(100, 32, 32, 3))
    ts_data = np.random.random_sample(size=(100, 20, 10))
    score_targets = np.random.random_sample(size=(100, 1))
    class_targets = np.random.random_sample(size=(100, 5))
    history = model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32,
                        epochs=1)  # changed: fit also with the metrics of the cell above
    assert 'class_output_categorical_accuracy' in history.history

    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=[None, keras.losses.CategoricalCrossentropy()],
    )
    model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32,
              epochs=1)  # changed: added, the list with a None loss trains
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={"class_output": keras.losses.CategoricalCrossentropy()},
    )
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=[keras.losses.MeanSquaredError(), keras.losses.CategoricalCrossentropy()],
    )
    model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=32, epochs=1)
    model.fit(
        {"img_input": img_data, "ts_input": ts_data},
        {"score_output": score_targets, "class_output": class_targets},
        batch_size=32,
        epochs=1,
    )
    # changed: a PyDataset of (dict, dict) batches instead of tf.data
    train_dataset = TupleDataset(({"img_input": img_data, "ts_input": ts_data},
                                  {"score_output": score_targets,
                                   "class_output": class_targets}), 64)
    history = model.fit(train_dataset, epochs=1)
    assert np.isfinite(history.history['loss'][0])


def test_callbacks_and_checkpointing(mnist):
    x_train, y_train = mnist[:2]
    model = get_compiled_model()
    callbacks = [
        keras.callbacks.EarlyStopping(
            monitor="val_loss",
            min_delta=1e-2,
            patience=2,
            verbose=1,
        )
    ]
    history = model.fit(x_train, y_train, epochs=20, batch_size=64, callbacks=callbacks,
                        validation_split=0.2)
    assert len(history.history['loss']) < 20  # random labels: val_loss stops improving

    class LossHistory(keras.callbacks.Callback):
        def on_train_begin(self, logs):
            self.per_batch_losses = []

        def on_batch_end(self, batch, logs):
            self.per_batch_losses.append(logs.get("loss"))

    loss_history = LossHistory()  # changed: the guide only defines the callback
    model.fit(x_train, y_train, epochs=1, batch_size=100, callbacks=[loss_history])
    assert len(loss_history.per_batch_losses) == 10

    model = get_compiled_model()
    callbacks = [
        keras.callbacks.ModelCheckpoint(
            filepath="mymodel_{epoch}.keras",
            save_best_only=True,
            monitor="val_loss",
            verbose=1,
        )
    ]
    model.fit(x_train, y_train, epochs=2, batch_size=64, callbacks=callbacks,
              validation_split=0.2)
    assert os.path.exists("mymodel_1.keras")

    checkpoint_dir = "./ckpt"
    if not os.path.exists(checkpoint_dir):
        os.makedirs(checkpoint_dir)

    def make_or_restore_model():
        checkpoints = [checkpoint_dir + "/" + name for name in os.listdir(checkpoint_dir)]
        if checkpoints:
            latest_checkpoint = max(checkpoints, key=os.path.getctime)
            print("Restoring from", latest_checkpoint)
            return keras.models.load_model(latest_checkpoint)
        print("Creating a new model")
        return get_compiled_model()

    model = make_or_restore_model()
    callbacks = [
        keras.callbacks.ModelCheckpoint(
            filepath=checkpoint_dir + "/model-loss={loss:.2f}.keras",
            save_freq=10,  # changed: every 10 batches, not 100 (the smaller data set)
        )
    ]
    model.fit(x_train, y_train, epochs=1, callbacks=callbacks)
    assert os.listdir(checkpoint_dir)
    restored = make_or_restore_model()  # changed: added, the restore branch runs too
    restored.fit(x_train[:64], y_train[:64], epochs=1)


def test_learning_rate_schedules():
    initial_learning_rate = 0.1
    lr_schedule = keras.optimizers.schedules.ExponentialDecay(
        initial_learning_rate, decay_steps=100000, decay_rate=0.96, staircase=True
    )
    optimizer = keras.optimizers.RMSprop(learning_rate=lr_schedule)
    model = get_compiled_model()  # changed: added, the optimizer trains a model
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy")
    model.fit(np.random.random((64, 784)), np.random.randint(0, 10, (64,)), epochs=1)
    assert float(ops.convert_to_numpy(lr_schedule(0))) == pytest.approx(0.1)
