"""Keras 3's guide "The Functional API" (keras-io ``guides/functional_api.py``, by fchollet,
Apache-2.0), adapted: the guide's cells in order, with ``import keras`` replaced by
``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs and
says why (synthetic data instead of downloads, smaller sizes so that each test takes seconds).
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers, ops


def test_introduction_training_and_saving():
    inputs = keras.Input(shape=(784,))
    img_inputs = keras.Input(shape=(32, 32, 3))
    assert inputs.shape == (None, 784) and img_inputs.shape == (None, 32, 32, 3)
    assert inputs.dtype == 'float32'

    dense = layers.Dense(64, activation="relu")
    x = dense(inputs)
    x = layers.Dense(64, activation="relu")(x)
    outputs = layers.Dense(10)(x)
    model = keras.Model(inputs=inputs, outputs=outputs, name="mnist_model")
    model.summary()
    # changed: .dot files instead of .png in every plot_model call (PNG needs the Graphviz
    # programs, which are not installed; Keras raises ImportError without them too)
    keras.utils.plot_model(model, "my_first_model.dot")
    keras.utils.plot_model(model, "my_first_model_with_shape_info.dot", show_shapes=True)

    # changed: synthetic MNIST-shaped data (no download), 600/100 samples instead of 60000/10000
    x_train = np.random.randint(0, 256, (600, 28, 28)).astype('uint8')
    y_train = np.random.randint(0, 10, (600,)).astype('uint8')
    x_test = np.random.randint(0, 256, (100, 28, 28)).astype('uint8')
    y_test = np.random.randint(0, 10, (100,)).astype('uint8')
    x_train = x_train.reshape(600, 784).astype("float32") / 255  # changed: 600 samples
    x_test = x_test.reshape(100, 784).astype("float32") / 255  # changed: 100 samples

    model.compile(
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer=keras.optimizers.RMSprop(),
        metrics=["accuracy"],
    )
    history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.2)
    test_scores = model.evaluate(x_test, y_test, verbose=2)
    print("Test loss:", test_scores[0])
    print("Test accuracy:", test_scores[1])
    assert set(history.history) == {'loss', 'accuracy', 'val_loss', 'val_accuracy'}

    expected = model.predict(x_test)
    model.save("my_model.keras")
    del model
    model = keras.models.load_model("my_model.keras")
    np.testing.assert_allclose(model.predict(x_test), expected, rtol=1e-5, atol=1e-6)


def _encoder(name):
    encoder_input = keras.Input(shape=(28, 28, 1), name=name)
    x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    encoder_output = layers.GlobalMaxPooling2D()(x)
    return encoder_input, encoder_output


def test_same_graph_of_layers_for_multiple_models():
    encoder_input, encoder_output = _encoder("img")
    encoder = keras.Model(encoder_input, encoder_output, name="encoder")
    encoder.summary()

    x = layers.Reshape((4, 4, 1))(encoder_output)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
    x = layers.UpSampling2D(3)(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    decoder_output = layers.Conv2DTranspose(1, 3, activation="relu")(x)
    autoencoder = keras.Model(encoder_input, decoder_output, name="autoencoder")
    autoencoder.summary()
    assert autoencoder.output_shape == (None, 28, 28, 1)


def test_models_are_callable_and_ensembling():
    encoder_input, encoder_output = _encoder("original_img")
    encoder = keras.Model(encoder_input, encoder_output, name="encoder")
    encoder.summary()

    decoder_input = keras.Input(shape=(16,), name="encoded_img")
    x = layers.Reshape((4, 4, 1))(decoder_input)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
    x = layers.UpSampling2D(3)(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    decoder_output = layers.Conv2DTranspose(1, 3, activation="relu")(x)
    decoder = keras.Model(decoder_input, decoder_output, name="decoder")
    decoder.summary()

    autoencoder_input = keras.Input(shape=(28, 28, 1), name="img")
    encoded_img = encoder(autoencoder_input)
    decoded_img = decoder(encoded_img)
    autoencoder = keras.Model(autoencoder_input, decoded_img, name="autoencoder")
    autoencoder.summary()
    assert autoencoder(np.zeros((2, 28, 28, 1), 'float32')).shape == (2, 28, 28, 1)

    def get_model():
        inputs = keras.Input(shape=(128,))
        outputs = layers.Dense(1)(inputs)
        return keras.Model(inputs, outputs)

    model1 = get_model()
    model2 = get_model()
    model3 = get_model()
    inputs = keras.Input(shape=(128,))
    y1 = model1(inputs)
    y2 = model2(inputs)
    y3 = model3(inputs)
    outputs = layers.average([y1, y2, y3])
    ensemble_model = keras.Model(inputs=inputs, outputs=outputs)
    data = np.random.random((3, 128)).astype('float32')
    mean = sum(ops.convert_to_numpy(m(data)) for m in (model1, model2, model3)) / 3
    np.testing.assert_allclose(ops.convert_to_numpy(ensemble_model(data)), mean, rtol=1e-5)


def test_multiple_inputs_and_outputs():
    num_tags = 12
    num_words = 10000
    num_departments = 4

    title_input = keras.Input(shape=(None,), name="title")
    body_input = keras.Input(shape=(None,), name="body")
    tags_input = keras.Input(shape=(num_tags,), name="tags")
    title_features = layers.Embedding(num_words, 64)(title_input)
    body_features = layers.Embedding(num_words, 64)(body_input)
    title_features = layers.LSTM(128)(title_features)
    body_features = layers.LSTM(32)(body_features)
    x = layers.concatenate([title_features, body_features, tags_input])
    priority_pred = layers.Dense(1, name="priority")(x)
    department_pred = layers.Dense(num_departments, name="department")(x)
    model = keras.Model(
        inputs=[title_input, body_input, tags_input],
        outputs={"priority": priority_pred, "department": department_pred},
    )
    keras.utils.plot_model(model, "multi_input_and_output_model.dot",  # changed: .dot
                           show_shapes=True)

    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=[
            keras.losses.BinaryCrossentropy(from_logits=True),
            keras.losses.CategoricalCrossentropy(from_logits=True),
        ],
        loss_weights=[1.0, 0.2],
    )
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss={
            "priority": keras.losses.BinaryCrossentropy(from_logits=True),
            "department": keras.losses.CategoricalCrossentropy(from_logits=True),
        },
        loss_weights={"priority": 1.0, "department": 0.2},
    )

    # changed: 128 samples and body length 20 instead of 1280 and 100 (time)
    title_data = np.random.randint(num_words, size=(128, 10))
    body_data = np.random.randint(num_words, size=(128, 20))
    tags_data = np.random.randint(2, size=(128, num_tags)).astype("float32")
    priority_targets = np.random.random(size=(128, 1))
    dept_targets = np.random.randint(2, size=(128, num_departments))

    history = model.fit(
        {"title": title_data, "body": body_data, "tags": tags_data},
        {"priority": priority_targets, "department": dept_targets},
        epochs=2,
        batch_size=32,
    )
    assert len(history.history['loss']) == 2


def test_toy_resnet():
    inputs = keras.Input(shape=(32, 32, 3), name="img")
    x = layers.Conv2D(32, 3, activation="relu")(inputs)
    x = layers.Conv2D(64, 3, activation="relu")(x)
    block_1_output = layers.MaxPooling2D(3)(x)

    x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_1_output)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    block_2_output = layers.add([x, block_1_output])

    x = layers.Conv2D(64, 3, activation="relu", padding="same")(block_2_output)
    x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
    block_3_output = layers.add([x, block_2_output])

    x = layers.Conv2D(64, 3, activation="relu")(block_3_output)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(256, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(10)(x)
    model = keras.Model(inputs, outputs, name="toy_resnet")
    model.summary()
    keras.utils.plot_model(model, "mini_resnet.dot", show_shapes=True)  # changed: .dot

    # changed: synthetic CIFAR-10-shaped data (no download), 64 samples instead of 1000
    x_train = np.random.randint(0, 256, (64, 32, 32, 3)).astype('uint8')
    y_train = np.random.randint(0, 10, (64, 1)).astype('uint8')
    x_train = x_train.astype("float32") / 255.0
    y_train = keras.utils.to_categorical(y_train, 10)
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3),
        loss=keras.losses.CategoricalCrossentropy(from_logits=True),
        metrics=["acc"],
    )
    history = model.fit(x_train[:64], y_train[:64], batch_size=64, epochs=1,
                        validation_split=0.2)  # changed: 64 samples instead of 1000
    assert set(history.history) == {'loss', 'acc', 'val_loss', 'val_acc'}


def test_shared_layers_and_feature_extraction():
    shared_embedding = layers.Embedding(1000, 128)
    text_input_a = keras.Input(shape=(None,), dtype="int32")
    text_input_b = keras.Input(shape=(None,), dtype="int32")
    encoded_input_a = shared_embedding(text_input_a)
    encoded_input_b = shared_embedding(text_input_b)
    assert encoded_input_a.shape == encoded_input_b.shape == (None, None, 128)

    # changed: weights=None (no download) and a 32x32 input without the classifier top, so that
    # the forward pass takes a second on a CPU
    vgg19 = keras.applications.VGG19(weights=None, include_top=False, input_shape=(32, 32, 3))
    features_list = [layer.output for layer in vgg19.layers]
    feat_extraction_model = keras.Model(inputs=vgg19.input, outputs=features_list)
    img = np.random.random((1, 32, 32, 3)).astype("float32")  # changed: 32x32 (see above)
    extracted_features = feat_extraction_model(img)
    assert len(extracted_features) == len(vgg19.layers)


class CustomDense(layers.Layer):
    def __init__(self, units=32):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer="random_normal",
            trainable=True,
        )
        self.b = self.add_weight(
            shape=(self.units,), initializer="random_normal", trainable=True
        )

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b

    def get_config(self):
        return {"units": self.units}


def test_custom_layers():
    inputs = keras.Input((4,))
    outputs = CustomDense(10)(inputs)
    model = keras.Model(inputs, outputs)
    config = model.get_config()
    new_model = keras.Model.from_config(config, custom_objects={"CustomDense": CustomDense})
    assert new_model.output_shape == (None, 10)


def test_mix_and_match():
    units = 32
    timesteps = 10
    input_dim = 5

    inputs = keras.Input((None, units))
    x = layers.GlobalAveragePooling1D()(inputs)
    outputs = layers.Dense(1)(x)
    model = keras.Model(inputs, outputs)

    class CustomRNN(layers.Layer):
        def __init__(self):
            super().__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            self.classifier = model

        def call(self, inputs):
            outputs = []
            state = ops.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = ops.stack(outputs, axis=1)
            print(features.shape)
            return self.classifier(features)

    rnn_model = CustomRNN()
    out = rnn_model(ops.zeros((1, timesteps, input_dim)))
    assert out.shape == (1, 1)

    batch_size = 16

    class CustomRNN2(layers.Layer):  # changed: a second name for the guide's second CustomRNN
        def __init__(self):
            super().__init__()
            self.units = units
            self.projection_1 = layers.Dense(units=units, activation="tanh")
            self.projection_2 = layers.Dense(units=units, activation="tanh")
            self.classifier = layers.Dense(1)

        def call(self, inputs):
            outputs = []
            state = ops.zeros(shape=(inputs.shape[0], self.units))
            for t in range(inputs.shape[1]):
                x = inputs[:, t, :]
                h = self.projection_1(x)
                y = h + self.projection_2(state)
                state = y
                outputs.append(y)
            features = ops.stack(outputs, axis=1)
            return self.classifier(features)

    inputs = keras.Input(batch_shape=(batch_size, timesteps, input_dim))
    x = layers.Conv1D(32, 3)(inputs)
    outputs = CustomRNN2()(x)
    model = keras.Model(inputs, outputs)
    assert model.output_shape == (batch_size, timesteps - 2, 1)

    rnn_model = CustomRNN2()
    _ = rnn_model(ops.zeros((1, 10, 5)))
