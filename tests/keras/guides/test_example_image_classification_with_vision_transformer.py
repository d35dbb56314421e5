"""keras-io's example "Image classification with Vision Transformer"
(``examples/vision/image_classification_with_vision_transformer.py``, by Khalid Salama,
Apache-2.0), adapted: the example's cells in order, with ``import keras`` replaced by
``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs:
synthetic CIFAR-100-shaped data instead of the download, smaller images, fewer transformer
layers and samples, one epoch, and the matplotlib cells left out (plots only).
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers, ops


def test_image_classification_with_vision_transformer(tmp_path):
    num_classes = 100
    input_shape = (32, 32, 3)
    # changed: synthetic CIFAR-100-shaped data (no download), 160 training and 32 test images
    x_train = np.random.randint(0, 256, (160, 32, 32, 3)).astype('uint8')
    y_train = np.random.randint(0, num_classes, (160, 1)).astype('int64')
    x_test = np.random.randint(0, 256, (32, 32, 32, 3)).astype('uint8')
    y_test = np.random.randint(0, num_classes, (32, 1)).astype('int64')
    print(f"x_train shape: {x_train.shape} - y_train shape: {y_train.shape}")
    print(f"x_test shape: {x_test.shape} - y_test shape: {y_test.shape}")

    learning_rate = 0.001
    weight_decay = 0.0001
    batch_size = 64  # changed: 64 instead of 256 (the smaller data set)
    num_epochs = 1  # changed: 1 epoch instead of 10
    image_size = 24  # changed: 24 instead of 72 (time on a CPU)
    patch_size = 6
    num_patches = (image_size // patch_size) ** 2
    projection_dim = 64
    num_heads = 4
    hidden_dim = projection_dim * num_heads
    transformer_units = [hidden_dim * 2, hidden_dim]
    transformer_layers = 2  # changed: 2 instead of 8
    mlp_head_units = [256, 128]  # changed: instead of [2048, 1024]

    data_augmentation = keras.Sequential(
        [
            layers.Normalization(),
            layers.Resizing(image_size, image_size),
            layers.RandomFlip("horizontal"),
            layers.RandomRotation(factor=0.02),
            layers.RandomZoom(height_factor=0.2, width_factor=0.2),
        ],
        name="data_augmentation",
    )
    data_augmentation.layers[0].adapt(x_train)
    np.testing.assert_allclose(data_augmentation.layers[0].mean.numpy(),
                               x_train.reshape(-1, 3).mean(axis=0), rtol=1e-5)

    def mlp(x, hidden_units, dropout_rate):
        for units in hidden_units:
            x = layers.Dense(units, activation=keras.activations.gelu)(x)
            x = layers.Dropout(dropout_rate)(x)
        return x

    class Patches(layers.Layer):
        def __init__(self, patch_size):
            super().__init__()
            self.patch_size = patch_size

        def call(self, images):
            input_shape = ops.shape(images)
            batch_size = input_shape[0]
            height = input_shape[1]
            width = input_shape[2]
            channels = input_shape[3]
            num_patches_h = height // self.patch_size
            num_patches_w = width // self.patch_size
            patches = keras.ops.image.extract_patches(images, size=self.patch_size)
            patches = ops.reshape(
                patches,
                (
                    batch_size,
                    num_patches_h * num_patches_w,
                    self.patch_size * self.patch_size * channels,
                ),
            )
            return patches

        def get_config(self):
            config = super().get_config()
            config.update({"patch_size": self.patch_size})
            return config

    image = x_train[np.random.choice(range(x_train.shape[0]))]
    resized_image = ops.image.resize(
        ops.convert_to_tensor([image], dtype="float32"), size=(image_size, image_size)
    )
    patches = Patches(patch_size)(resized_image)
    print(f"Image size: {image_size} X {image_size}")
    print(f"Patch size: {patch_size} X {patch_size}")
    print(f"Patches per image: {patches.shape[1]}")
    print(f"Elements per patch: {patches.shape[-1]}")
    assert patches.shape == (1, num_patches, patch_size * patch_size * 3)
    patch_img = ops.reshape(patches[0][0], (patch_size, patch_size, 3))
    np.testing.assert_allclose(ops.convert_to_numpy(patch_img),
                               ops.convert_to_numpy(resized_image)[0, :6, :6], rtol=1e-6)

    class PatchEncoder(layers.Layer):
        def __init__(self, num_patches, projection_dim):
            super().__init__()
            self.num_patches = num_patches
            self.projection = layers.Dense(units=projection_dim)
            self.position_embedding = layers.Embedding(
                input_dim=num_patches, output_dim=projection_dim
            )

        def call(self, patch):
            positions = ops.expand_dims(
                ops.arange(start=0, stop=self.num_patches, step=1), axis=0
            )
            projected_patches = self.projection(patch)
            encoded = projected_patches + self.position_embedding(positions)
            return encoded

        def get_config(self):
            config = super().get_config()
            config.update({"num_patches": self.num_patches})
            return config

    def create_vit_classifier():
        inputs = keras.Input(shape=input_shape)
        augmented = data_augmentation(inputs)
        patches = Patches(patch_size)(augmented)
        encoded_patches = PatchEncoder(num_patches, hidden_dim)(patches)
        for _ in range(transformer_layers):
            x1 = layers.LayerNormalization(epsilon=1e-6)(encoded_patches)
            attention_output = layers.MultiHeadAttention(
                num_heads=num_heads, key_dim=projection_dim, dropout=0.1
            )(x1, x1)
            x2 = layers.Add()([attention_output, encoded_patches])
            x3 = layers.LayerNormalization(epsilon=1e-6)(x2)
            x3 = mlp(x3, hidden_units=transformer_units, dropout_rate=0.1)
            encoded_patches = layers.Add()([x3, x2])
        representation = layers.LayerNormalization(epsilon=1e-6)(encoded_patches)
        representation = layers.Flatten()(representation)
        representation = layers.Dropout(0.5)(representation)
        features = mlp(representation, hidden_units=mlp_head_units, dropout_rate=0.5)
        logits = layers.Dense(num_classes)(features)
        model = keras.Model(inputs=inputs, outputs=logits)
        return model

    def run_experiment(model):
        optimizer = keras.optimizers.AdamW(
            learning_rate=learning_rate, weight_decay=weight_decay
        )
        model.compile(
            optimizer=optimizer,
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=[
                keras.metrics.SparseCategoricalAccuracy(name="accuracy"),
                keras.metrics.SparseTopKCategoricalAccuracy(5, name="top-5-accuracy"),
            ],
        )
        # changed: the test's temporary directory instead of /tmp
        checkpoint_filepath = str(tmp_path / "checkpoint.weights.h5")
        checkpoint_callback = keras.callbacks.ModelCheckpoint(
            checkpoint_filepath,
            monitor="val_accuracy",
            save_best_only=True,
            save_weights_only=True,
        )
        history = model.fit(
            x=x_train,
            y=y_train,
            batch_size=batch_size,
            epochs=num_epochs,
            validation_split=0.1,
            callbacks=[checkpoint_callback],
        )
        model.load_weights(checkpoint_filepath)
        _, accuracy, top_5_accuracy = model.evaluate(x_test, y_test)
        print(f"Test accuracy: {round(accuracy * 100, 2)}%")
        print(f"Test top 5 accuracy: {round(top_5_accuracy * 100, 2)}%")
        return history

    vit_classifier = create_vit_classifier()
    history = run_experiment(vit_classifier)
    assert sorted(history.history) == ['accuracy', 'loss', 'top-5-accuracy', 'val_accuracy',
                                       'val_loss', 'val_top-5-accuracy']
