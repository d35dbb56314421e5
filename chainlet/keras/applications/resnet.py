"""ResNet50/101/152 (v1, "Deep Residual Learning for Image Recognition"), with Keras's layer
names (``conv1_conv``, ``conv2_block1_1_conv``, ..., ``predictions``), so Keras's weight
files load by name.

Example:
    >>> from chainlet.keras import applications
    >>> model = applications.ResNet50(weights=None, include_top=False,
    ...                               input_shape=(32, 32, 3), pooling='avg')
    >>> model.output_shape
    (None, 2048)
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from chainlet.keras.applications import imagenet_utils

BASE_WEIGHTS_PATH = 'https://storage.googleapis.com/tensorflow/keras-applications/resnet/'


def _block(x: Any, filters: int, stride: int = 1, conv_shortcut: bool = True,
           name: str = '') -> Any:
    from chainlet.keras import layers
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + '_0_conv')(x)
        shortcut = layers.BatchNormalization(axis=3, epsilon=1.001e-5,
                                             name=name + '_0_bn')(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + '_1_conv')(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_1_bn')(x)
    x = layers.Activation('relu', name=name + '_1_relu')(x)
    x = layers.Conv2D(filters, 3, padding='same', name=name + '_2_conv')(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_2_bn')(x)
    x = layers.Activation('relu', name=name + '_2_relu')(x)
    x = layers.Conv2D(4 * filters, 1, name=name + '_3_conv')(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_3_bn')(x)
    x = layers.Add(name=name + '_add')([shortcut, x])
    return layers.Activation('relu', name=name + '_out')(x)


def _stack(x: Any, filters: int, blocks: int, stride1: int = 2, name: str = '') -> Any:
    x = _block(x, filters, stride=stride1, name=name + '_block1')
    for i in range(2, blocks + 1):
        x = _block(x, filters, conv_shortcut=False, name=f'{name}_block{i}')
    return x


def ResNet(stack_fn: Callable[[Any], Any], model_name: str, include_top: bool = True,
           weights: Any = 'imagenet', input_tensor: Any = None, input_shape: Any = None,
           pooling: Optional[str] = None, classes: int = 1000,
           classifier_activation: Any = 'softmax', weights_file: Optional[str] = None,
           preact: bool = False) -> Any:
    """A ResNet whose residual stages are built by ``stack_fn(x)``: v1, or v2 with
    ``preact`` (no batch normalization after the stem; ``post_bn``/``post_relu`` at the end,
    as Keras builds them)."""
    from chainlet import keras
    from chainlet.keras import layers
    where = model_name
    imagenet_utils.check_arguments(where, weights, include_top, classes,
                                   classifier_activation, pooling)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, 'channels_last',
                                                    include_top, weights, where)
    x, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name='conv1_pad')(x)
    x = layers.Conv2D(64, 7, strides=2, name='conv1_conv')(x)
    if not preact:
        x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name='conv1_bn')(x)
        x = layers.Activation('relu', name='conv1_relu')(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name='pool1_pad')(x)
    x = layers.MaxPooling2D(3, strides=2, name='pool1_pool')(x)
    x = stack_fn(x)
    if preact:
        x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name='post_bn')(x)
        x = layers.Activation('relu', name='post_relu')(x)
    x = imagenet_utils.top(x, include_top, pooling, classes, classifier_activation)
    model = keras.Model(inputs, x, name=model_name)
    if weights_file is not None:
        file_name = weights_file + ('.h5' if include_top else '_notop.h5')
        imagenet_utils.load_weights(model, weights, file_name, BASE_WEIGHTS_PATH + file_name,
                                    where)
    return model


def ResNet50(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
             input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
             classifier_activation: Any = 'softmax', name: str = 'resnet50') -> Any:
    """ResNet50 (25.6M parameters with the top, 23.6M without).

    Args:
        include_top: Include the global average pooling and the ``classes``-way Dense.
        weights: ``None`` (random), ``'imagenet'`` (Keras's file in ``~/.keras/models``, never
            downloaded here) or the path of a weights file (chainlet's ``save_weights``
            output, or a Keras ``.h5`` weights file).
        input_tensor: A symbolic tensor to build on instead of a new ``keras.Input``.
        input_shape: ``(height, width, 3)``; ``(224, 224, 3)`` by default, at least 32x32.
        pooling: Without the top: ``None`` (4-D features), ``'avg'`` or ``'max'``.
        classes: Number of classes of the top.
        classifier_activation: Activation of the top (``None`` for logits).
        name: Name of the model.

    Returns:
        A functional ``keras.Model``.
    """
    def stack_fn(x: Any) -> Any:
        x = _stack(x, 64, 3, stride1=1, name='conv2')
        x = _stack(x, 128, 4, name='conv3')
        x = _stack(x, 256, 6, name='conv4')
        return _stack(x, 512, 3, name='conv5')
    return ResNet(stack_fn, name, include_top, weights, input_tensor, input_shape, pooling,
                  classes, classifier_activation, 'resnet50_weights_tf_dim_ordering_tf_kernels')


def ResNet101(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = 'softmax', name: str = 'resnet101') -> Any:
    """ResNet101; arguments as :func:`ResNet50`."""
    def stack_fn(x: Any) -> Any:
        x = _stack(x, 64, 3, stride1=1, name='conv2')
        x = _stack(x, 128, 4, name='conv3')
        x = _stack(x, 256, 23, name='conv4')
        return _stack(x, 512, 3, name='conv5')
    return ResNet(stack_fn, name, include_top, weights, input_tensor, input_shape, pooling,
                  classes, classifier_activation, 'resnet101_weights_tf_dim_ordering_tf_kernels')


def ResNet152(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = 'softmax', name: str = 'resnet152') -> Any:
    """ResNet152; arguments as :func:`ResNet50`."""
    def stack_fn(x: Any) -> Any:
        x = _stack(x, 64, 3, stride1=1, name='conv2')
        x = _stack(x, 128, 8, name='conv3')
        x = _stack(x, 256, 36, name='conv4')
        return _stack(x, 512, 3, name='conv5')
    return ResNet(stack_fn, name, include_top, weights, input_tensor, input_shape, pooling,
                  classes, classifier_activation, 'resnet152_weights_tf_dim_ordering_tf_kernels')


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Caffe-style preprocessing (BGR, minus the ImageNet mean), as the weights expect."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode='caffe')


decode_predictions = imagenet_utils.decode_predictions
