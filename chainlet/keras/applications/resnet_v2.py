"""``keras.applications.resnet_v2``: ResNet50V2/101V2/152V2 ("Identity Mappings in Deep
Residual Networks", pre-activation blocks), with Keras's layer names (``conv1_conv``,
``conv2_block1_preact_bn``, ..., ``post_bn``, ``predictions``), so Keras's weight files load
by name. Inputs are scaled to [-1, 1] (:func:`preprocess_input`, ``mode='tf'``).

Example:
    >>> from chainlet.keras import applications
    >>> model = applications.ResNet50V2(weights=None, include_top=False,
    ...                                 input_shape=(32, 32, 3), pooling='avg')
    >>> model.output_shape
    (None, 2048)
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.keras.applications import imagenet_utils
from chainlet.keras.applications.resnet import ResNet


def _block(x: Any, filters: int, kernel_size: int = 3, stride: int = 1,
           conv_shortcut: bool = False, name: str = '') -> Any:
    """Keras's ``residual_block_v2``: BN-ReLU first; the stride sits on the last block of a
    stack (an identity shortcut then goes through a 1x1 max pooling)."""
    from chainlet.keras import layers
    preact = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_preact_bn')(x)
    preact = layers.Activation('relu', name=name + '_preact_relu')(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + '_0_conv')(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + '_1_conv')(preact)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_1_bn')(x)
    x = layers.Activation('relu', name=name + '_1_relu')(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + '_2_pad')(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False,
                      name=name + '_2_conv')(x)
    x = layers.BatchNormalization(axis=3, epsilon=1.001e-5, name=name + '_2_bn')(x)
    x = layers.Activation('relu', name=name + '_2_relu')(x)
    x = layers.Conv2D(4 * filters, 1, name=name + '_3_conv')(x)
    return layers.Add(name=name + '_out')([shortcut, x])


def _stack(x: Any, filters: int, blocks: int, stride1: int = 2, name: str = '') -> Any:
    x = _block(x, filters, conv_shortcut=True, name=name + '_block1')
    for i in range(2, blocks):
        x = _block(x, filters, name=f'{name}_block{i}')
    return _block(x, filters, stride=stride1, name=f'{name}_block{blocks}')


def _resnet_v2(depths: tuple, name: str, include_top: bool, weights: Any, input_tensor: Any,
               input_shape: Any, pooling: Optional[str], classes: int,
               classifier_activation: Any) -> Any:
    def stack_fn(x: Any) -> Any:
        x = _stack(x, 64, depths[0], name='conv2')
        x = _stack(x, 128, depths[1], name='conv3')
        x = _stack(x, 256, depths[2], name='conv4')
        return _stack(x, 512, depths[3], stride1=1, name='conv5')
    file_name = name.replace('v2', '') + 'v2_weights_tf_dim_ordering_tf_kernels'
    return ResNet(stack_fn, name, include_top, weights, input_tensor, input_shape, pooling,
                  classes, classifier_activation, file_name, preact=True)


def ResNet50V2(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
               input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
               classifier_activation: Any = 'softmax', name: str = 'resnet50v2') -> Any:
    """ResNet50V2 (25.6M parameters with the top).

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
    return _resnet_v2((3, 4, 6, 3), name, include_top, weights, input_tensor, input_shape,
                      pooling, classes, classifier_activation)


def ResNet101V2(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
                input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = 'softmax', name: str = 'resnet101v2') -> Any:
    """ResNet101V2; arguments as :func:`ResNet50V2`."""
    return _resnet_v2((3, 4, 23, 3), name, include_top, weights, input_tensor, input_shape,
                      pooling, classes, classifier_activation)


def ResNet152V2(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
                input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = 'softmax', name: str = 'resnet152v2') -> Any:
    """ResNet152V2; arguments as :func:`ResNet50V2`."""
    return _resnet_v2((3, 8, 36, 3), name, include_top, weights, input_tensor, input_shape,
                      pooling, classes, classifier_activation)


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Scale pixels from [0, 255] to [-1, 1] (``mode='tf'``), as the V2 weights expect."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode='tf')


decode_predictions = imagenet_utils.decode_predictions

__all__ = ['ResNet50V2', 'ResNet101V2', 'ResNet152V2', 'preprocess_input',
           'decode_predictions']
