"""VGG16 and VGG19 ("Very Deep Convolutional Networks for Large-Scale Image Recognition"),
with Keras's layer names (``block1_conv1``, ..., ``fc1``, ``fc2``, ``predictions``).

Example:
    >>> from chainlet.keras import applications
    >>> model = applications.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3))
    >>> model.output_shape
    (None, 1, 1, 512)
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.keras.applications import imagenet_utils

WEIGHTS_PATH = 'https://storage.googleapis.com/tensorflow/keras-applications/'


def VGG(convs: tuple, model_name: str, include_top: bool = True, weights: Any = 'imagenet',
        input_tensor: Any = None, input_shape: Any = None, pooling: Optional[str] = None,
        classes: int = 1000, classifier_activation: Any = 'softmax',
        name: Optional[str] = None) -> Any:
    """A VGG network with ``convs[i]`` 3x3 convolutions in block ``i + 1``."""
    from chainlet import keras
    from chainlet.keras import layers
    where = model_name
    imagenet_utils.check_arguments(where, weights, include_top, classes,
                                   classifier_activation, pooling)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, 'channels_last',
                                                    include_top, weights, where)
    x, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    for block, (n, filters) in enumerate(zip(convs, (64, 128, 256, 512, 512)), start=1):
        for i in range(1, n + 1):
            x = layers.Conv2D(filters, (3, 3), activation='relu', padding='same',
                              name=f'block{block}_conv{i}')(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f'block{block}_pool')(x)
    if include_top:
        x = layers.Flatten(name='flatten')(x)
        x = layers.Dense(4096, activation='relu', name='fc1')(x)
        x = layers.Dense(4096, activation='relu', name='fc2')(x)
        x = layers.Dense(classes, activation=classifier_activation, name='predictions')(x)
    elif pooling == 'avg':
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == 'max':
        x = layers.GlobalMaxPooling2D()(x)
    model = keras.Model(inputs, x, name=name or model_name)
    file_name = (f'{model_name}_weights_tf_dim_ordering_tf_kernels' +
                 ('.h5' if include_top else '_notop.h5'))
    imagenet_utils.load_weights(model, weights, file_name,
                                f'{WEIGHTS_PATH}{model_name}/{file_name}', where)
    return model


def VGG16(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
          input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
          classifier_activation: Any = 'softmax', name: str = 'vgg16') -> Any:
    """VGG16 (138.4M parameters with the top, 14.7M without); arguments as
    :func:`chainlet.keras.applications.ResNet50` (with the top, ``Flatten`` and two
    4096-unit ``Dense`` layers, so the input size must be static)."""
    return VGG((2, 2, 3, 3, 3), 'vgg16', include_top, weights, input_tensor, input_shape,
               pooling, classes, classifier_activation, name)


def VGG19(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
          input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
          classifier_activation: Any = 'softmax', name: str = 'vgg19') -> Any:
    """VGG19 (143.7M parameters with the top); arguments as :func:`VGG16`."""
    return VGG((2, 2, 4, 4, 4), 'vgg19', include_top, weights, input_tensor, input_shape,
               pooling, classes, classifier_activation, name)


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Caffe-style preprocessing (BGR, minus the ImageNet mean)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode='caffe')


decode_predictions = imagenet_utils.decode_predictions
