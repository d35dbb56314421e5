"""MobileNetV2 ("Inverted Residuals and Linear Bottlenecks"), with Keras's layer names
(``Conv1``, ``expanded_conv_depthwise``, ``block_1_expand``, ..., ``out_relu``).

Example:
    >>> from chainlet.keras import applications
    >>> model = applications.MobileNetV2(weights=None, include_top=False,
    ...                                  input_shape=(32, 32, 3), pooling='avg')
    >>> model.output_shape
    (None, 1280)
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.keras.applications import imagenet_utils

BASE_WEIGHT_PATH = ('https://storage.googleapis.com/tensorflow/keras-applications/'
                    'mobilenet_v2/')


def _make_divisible(v: float, divisor: int, min_value: Optional[int] = None) -> int:
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:  # do not round down by more than 10%
        new_v += divisor
    return new_v


def _inverted_res_block(inputs: Any, expansion: int, stride: int, alpha: float, filters: int,
                        block_id: int) -> Any:
    from chainlet.keras import layers
    in_channels = inputs.shape[-1]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f'block_{block_id}_'
    bn: dict[str, Any] = dict(axis=-1, epsilon=1e-3, momentum=0.999)
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding='same',
                          use_bias=False, activation=None, name=prefix + 'expand')(x)
        x = layers.BatchNormalization(name=prefix + 'expand_BN', **bn)(x)
        x = layers.ReLU(6.0, name=prefix + 'expand_relu')(x)
    else:
        prefix = 'expanded_conv_'
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3),
                                 name=prefix + 'pad')(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding='same' if stride == 1 else 'valid',
                               name=prefix + 'depthwise')(x)
    x = layers.BatchNormalization(name=prefix + 'depthwise_BN', **bn)(x)
    x = layers.ReLU(6.0, name=prefix + 'depthwise_relu')(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding='same', use_bias=False,
                      activation=None, name=prefix + 'project')(x)
    x = layers.BatchNormalization(name=prefix + 'project_BN', **bn)(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + 'add')([inputs, x])
    return x


_BLOCKS = [  # (filters, stride, expansion) of blocks 0..16
    (16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6),
    (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6),
    (160, 1, 6), (160, 1, 6), (320, 1, 6)]


def MobileNetV2(input_shape: Any = None, alpha: float = 1.0, include_top: bool = True,
                weights: Any = 'imagenet', input_tensor: Any = None,
                pooling: Optional[str] = None, classes: int = 1000,
                classifier_activation: Any = 'softmax', name: Optional[str] = None) -> Any:
    """MobileNetV2 (3.5M parameters with the top at ``alpha=1``, 2.3M without).

    Args:
        input_shape: ``(height, width, 3)``; 224x224 by default (96, 128, 160, 192 or 224
            for the pretrained weights), at least 32x32.
        alpha: Width multiplier of the layers (the pretrained weights exist for 0.35, 0.5,
            0.75, 1.0, 1.3 and 1.4).
        include_top, weights, input_tensor, pooling, classes, classifier_activation: As in
            :func:`chainlet.keras.applications.ResNet50`.
        name: Model name (``mobilenetv2_<alpha>_<rows>`` by default).

    Returns:
        A functional ``keras.Model``.
    """
    from chainlet import keras
    from chainlet.keras import layers
    where = 'MobileNetV2'
    imagenet_utils.check_arguments(where, weights, include_top, classes,
                                   classifier_activation, pooling)
    if input_shape is None and input_tensor is not None:
        input_shape = tuple(input_tensor.shape[1:])
    rows = None if input_shape is None else input_shape[0]
    default_size = rows if input_shape is not None and rows == input_shape[1] and \
        rows in (96, 128, 160, 192, 224) else 224
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32,
                                                    'channels_last', include_top, weights,
                                                    where)
    rows = input_shape[0]
    if weights == 'imagenet':
        if alpha not in (0.35, 0.50, 0.75, 1.0, 1.3, 1.4):
            raise ValueError(f'{where}: with weights="imagenet", alpha must be one of 0.35, '
                             f'0.5, 0.75, 1.0, 1.3 or 1.4, got {alpha}')
        if rows != input_shape[1] or rows not in (96, 128, 160, 192, 224):
            rows = 224
    x, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    x = layers.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding='same', use_bias=False, name='Conv1')(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name='bn_Conv1')(x)
    x = layers.ReLU(6.0, name='Conv1_relu')(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride,
                                expansion=expansion, block_id=block_id)
    last = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last, kernel_size=1, use_bias=False, name='Conv_1')(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name='Conv_1_bn')(x)
    x = layers.ReLU(6.0, name='out_relu')(x)
    x = imagenet_utils.top(x, include_top, pooling, classes, classifier_activation,
                           pool_names=False)
    model = keras.Model(inputs, x, name=name or f'mobilenetv2_{alpha:0.2f}_{rows}')
    file_name = (f'mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}' +
                 ('.h5' if include_top else '_no_top.h5'))
    imagenet_utils.load_weights(model, weights, file_name, BASE_WEIGHT_PATH + file_name, where)
    return model


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Scale pixels to ``[-1, 1]`` (``'tf'`` mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode='tf')


decode_predictions = imagenet_utils.decode_predictions
