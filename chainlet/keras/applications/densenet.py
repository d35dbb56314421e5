"""DenseNet121/169/201 ("Densely Connected Convolutional Networks"), with Keras's layer
names (``conv1_conv``, ``conv2_block1_0_bn``, ``pool2_conv``, ..., ``bn``, ``predictions``).

Example:
    >>> from chainlet.keras import applications
    >>> model = applications.DenseNet121(weights=None, include_top=False,
    ...                                  input_shape=(32, 32, 3), pooling='max')
    >>> model.output_shape
    (None, 1024)
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.keras.applications import imagenet_utils

BASE_WEIGHTS_PATH = 'https://storage.googleapis.com/tensorflow/keras-applications/densenet/'


def _conv_block(x: Any, growth_rate: int, name: str) -> Any:
    from chainlet.keras import layers
    x1 = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_0_bn')(x)
    x1 = layers.Activation('relu', name=name + '_0_relu')(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=name + '_1_conv')(x1)
    x1 = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_1_bn')(x1)
    x1 = layers.Activation('relu', name=name + '_1_relu')(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding='same', use_bias=False,
                       name=name + '_2_conv')(x1)
    return layers.Concatenate(axis=3, name=name + '_concat')([x, x1])


def _transition_block(x: Any, reduction: float, name: str) -> Any:
    from chainlet.keras import layers
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_bn')(x)
    x = layers.Activation('relu', name=name + '_relu')(x)
    x = layers.Conv2D(int(x.shape[3] * reduction), 1, use_bias=False, name=name + '_conv')(x)
    return layers.AveragePooling2D(2, strides=2, name=name + '_pool')(x)


def DenseNet(blocks: list, include_top: bool = True, weights: Any = 'imagenet',
             input_tensor: Any = None, input_shape: Any = None, pooling: Optional[str] = None,
             classes: int = 1000, classifier_activation: Any = 'softmax',
             name: Optional[str] = None) -> Any:
    """A DenseNet with ``blocks[i]`` convolution blocks in dense block ``i + 1`` (growth rate
    32, compression 0.5); arguments as :func:`chainlet.keras.applications.ResNet50`."""
    from chainlet import keras
    from chainlet.keras import layers
    known = {(6, 12, 24, 16): 'densenet121', (6, 12, 32, 32): 'densenet169',
             (6, 12, 48, 32): 'densenet201'}
    model_name = known.get(tuple(blocks), 'densenet')
    where = model_name
    imagenet_utils.check_arguments(where, weights, include_top, classes,
                                   classifier_activation, pooling)
    if weights == 'imagenet' and model_name == 'densenet':
        raise ValueError(f'{where}: no pretrained weights for blocks={blocks}')
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, 'channels_last',
                                                    include_top, weights, where)
    x, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(x)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name='conv1_conv')(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name='conv1_bn')(x)
    x = layers.Activation('relu', name='conv1_relu')(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name='pool1')(x)
    for i, n in enumerate(blocks):
        for j in range(n):
            x = _conv_block(x, 32, name=f'conv{i + 2}_block{j + 1}')
        if i < len(blocks) - 1:
            x = _transition_block(x, 0.5, name=f'pool{i + 2}')
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name='bn')(x)
    x = layers.Activation('relu', name='relu')(x)
    x = imagenet_utils.top(x, include_top, pooling, classes, classifier_activation)
    model = keras.Model(inputs, x, name=name or model_name)
    file_name = (f'{model_name}_weights_tf_dim_ordering_tf_kernels' +
                 ('.h5' if include_top else '_notop.h5'))
    imagenet_utils.load_weights(model, weights, file_name, BASE_WEIGHTS_PATH + file_name,
                                where)
    return model


def DenseNet121(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
                input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = 'softmax', name: Optional[str] = None) -> Any:
    """DenseNet121 (8.1M parameters with the top, 7.0M without)."""
    return DenseNet([6, 12, 24, 16], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name)


def DenseNet169(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
                input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = 'softmax', name: Optional[str] = None) -> Any:
    """DenseNet169."""
    return DenseNet([6, 12, 32, 32], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name)


def DenseNet201(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
                input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = 'softmax', name: Optional[str] = None) -> Any:
    """DenseNet201."""
    return DenseNet([6, 12, 48, 32], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name)


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """``'torch'`` preprocessing: to ``[0, 1]``, minus the ImageNet mean, over its std."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode='torch')


decode_predictions = imagenet_utils.decode_predictions
