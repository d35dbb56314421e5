"""Keras 3's guide "The Sequential model" (keras-io ``guides/sequential_model.py``, by fchollet,
Apache-2.0), adapted: the guide's cells in order, with ``import keras`` replaced by
``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs and
says why.
"""
from __future__ import annotations

import numpy as np
from chainlet import keras
from chainlet.keras import layers, ops


def test_when_to_use_and_creating():
    model = keras.Sequential(
        [
            layers.Dense(2, activation="relu", name="layer1"),
            layers.Dense(3, activation="relu", name="layer2"),
            layers.Dense(4, name="layer3"),
        ]
    )
    x = ops.ones((3, 3))
    y = model(x)
    assert y.shape == (3, 4)

    layer1 = layers.Dense(2, activation="relu", name="layer1")
    layer2 = layers.Dense(3, activation="relu", name="layer2")
    layer3 = layers.Dense(4, name="layer3")
    x = ops.ones((3, 3))
    y = layer3(layer2(layer1(x)))
    assert y.shape == (3, 4)

    model = keras.Sequential(
        [
            layers.Dense(2, activation="relu"),
            layers.Dense(3, activation="relu"),
            layers.Dense(4),
        ]
    )
    assert len(model.layers) == 3

    model = keras.Sequential()
    model.add(layers.Dense(2, activation="relu"))
    model.add(layers.Dense(3, activation="relu"))
    model.add(layers.Dense(4))
    model.pop()
    print(len(model.layers))  # 2
    assert len(model.layers) == 2

    model = keras.Sequential(name="my_sequential")
    model.add(layers.Dense(2, activation="relu", name="layer1"))
    model.add(layers.Dense(3, activation="relu", name="layer2"))
    model.add(layers.Dense(4, name="layer3"))
    assert model.name == "my_sequential"


def test_specifying_the_input_shape_in_advance():
    layer = layers.Dense(3)
    assert layer.weights == []  # Empty
    x = ops.ones((1, 4))
    y = layer(x)
    assert [tuple(w.shape) for w in layer.weights] == [(4, 3), (3,)]

    model = keras.Sequential(
        [
            layers.Dense(2, activation="relu"),
            layers.Dense(3, activation="relu"),
            layers.Dense(4),
        ]
    )  # No weights at this stage!
    # At this point, you can't do this:
    # model.weights
    # You also can't do this:
    # model.summary()
    x = ops.ones((1, 4))
    y = model(x)
    print("Number of weights after calling the model:", len(model.weights))  # 6
    assert len(model.weights) == 6 and y.shape == (1, 4)
    model.summary()

    model = keras.Sequential()
    model.add(keras.Input(shape=(4,)))
    model.add(layers.Dense(2, activation="relu"))
    model.summary()
    assert len(model.layers) == 1  # the Input object is not a layer of the model


def test_debugging_workflow_add_and_summary():
    model = keras.Sequential()
    model.add(keras.Input(shape=(250, 250, 3)))  # 250x250 RGB images
    model.add(layers.Conv2D(32, 5, strides=2, activation="relu"))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.MaxPooling2D(3))
    model.summary()
    assert model.output_shape == (None, 40, 40, 32)

    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.MaxPooling2D(3))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.MaxPooling2D(2))
    model.summary()
    assert model.output_shape == (None, 4, 4, 32)
    model.add(layers.GlobalMaxPooling2D())
    model.add(layers.Dense(10))
    assert model.output_shape == (None, 10)


def test_feature_extraction():
    initial_model = keras.Sequential(
        [
            keras.Input(shape=(250, 250, 3)),
            layers.Conv2D(32, 5, strides=2, activation="relu"),
            layers.Conv2D(32, 3, activation="relu"),
            layers.Conv2D(32, 3, activation="relu"),
        ]
    )
    feature_extractor = keras.Model(
        inputs=initial_model.inputs,
        outputs=[layer.output for layer in initial_model.layers],
    )
    x = ops.ones((1, 250, 250, 3))
    features = feature_extractor(x)
    assert [f.shape for f in features] == [(1, 123, 123, 32), (1, 121, 121, 32),
                                           (1, 119, 119, 32)]

    initial_model = keras.Sequential(
        [
            keras.Input(shape=(250, 250, 3)),
            layers.Conv2D(32, 5, strides=2, activation="relu"),
            layers.Conv2D(32, 3, activation="relu", name="my_intermediate_layer"),
            layers.Conv2D(32, 3, activation="relu"),
        ]
    )
    feature_extractor = keras.Model(
        inputs=initial_model.inputs,
        outputs=initial_model.get_layer(name="my_intermediate_layer").output,
    )
    x = ops.ones((1, 250, 250, 3))
    features = feature_extractor(x)
    assert features.shape == (1, 121, 121, 32)


def test_transfer_learning():
    model = keras.Sequential(
        [
            keras.Input(shape=(784,)),
            layers.Dense(32, activation="relu"),
            layers.Dense(32, activation="relu"),
            layers.Dense(32, activation="relu"),
            layers.Dense(10),
        ]
    )
    # Presumably you would want to first load pre-trained weights.
    model.load_weights(_saved_weights(model))  # changed: weights saved here, not downloaded
    for layer in model.layers[:-1]:
        layer.trainable = False
    model.compile(optimizer="adam", loss=keras.losses.MeanSquaredError())  # changed: added
    before = [ops.convert_to_numpy(w) for w in model.weights]
    model.fit(np.random.random((16, 784)), np.random.random((16, 10)), epochs=1,
              verbose=0)  # changed: synthetic data
    after = [ops.convert_to_numpy(w) for w in model.weights]
    for b, a in zip(before[:-2], after[:-2]):
        np.testing.assert_array_equal(b, a)
    assert not np.array_equal(before[-1], after[-1])

    # changed: MobileNetV2 instead of Xception (not in chainlet.keras.applications), no
    # download of ImageNet weights, and a 32x32 input
    base_model = keras.applications.MobileNetV2(
        weights=None, include_top=False, pooling="avg", input_shape=(32, 32, 3))
    base_model.trainable = False
    model = keras.Sequential([base_model, layers.Dense(1000)])
    model.compile(optimizer="adam", loss=keras.losses.MeanSquaredError())  # changed: added
    model.fit(np.random.random((4, 32, 32, 3)), np.random.random((4, 1000)), epochs=1,
              verbose=0)  # changed: synthetic data
    assert len(model.trainable_weights) == 2


def _saved_weights(model):
    model.save_weights("pretrained.weights.h5")
    return "pretrained.weights.h5"
