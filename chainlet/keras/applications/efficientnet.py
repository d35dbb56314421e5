"""EfficientNetB0-B7 ("Rethinking Model Scaling for Convolutional Neural Networks"), with
Keras's layer names (``stem_conv``, ``block1a_dwconv``, ``block6d_se_excite``,
``top_conv``, ...), parameter counts and built-in preprocessing: the models take pixels in
``[0, 255]`` (a ``Rescaling(1/255)`` and a normalization layer come first), so
:func:`preprocess_input` returns its input unchanged.

The normalization is a small layer of this module with Keras's ``Normalization`` weights
(``mean``, ``variance``, ``count``; zero mean and unit variance until weights are loaded), so
Keras's weight files load by layer name.

Example:
    >>> from chainlet.keras import applications
    >>> model = applications.EfficientNetB0(weights=None, include_top=False,
    ...                                     input_shape=(32, 32, 3), pooling='avg')
    >>> model.output_shape
    (None, 1280)
"""
from __future__ import annotations

import copy
import math
from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet.keras.applications import imagenet_utils
from chainlet.keras.engine.base_layer import Layer

BASE_WEIGHTS_PATH = 'https://storage.googleapis.com/keras-applications/'
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]

DEFAULT_BLOCKS_ARGS = [  # kernel, repeats, filters in/out, expansion, stride (SE ratio 0.25)
    dict(kernel_size=3, repeats=1, filters_in=32, filters_out=16, expand_ratio=1, strides=1),
    dict(kernel_size=3, repeats=2, filters_in=16, filters_out=24, expand_ratio=6, strides=2),
    dict(kernel_size=5, repeats=2, filters_in=24, filters_out=40, expand_ratio=6, strides=2),
    dict(kernel_size=3, repeats=3, filters_in=40, filters_out=80, expand_ratio=6, strides=2),
    dict(kernel_size=5, repeats=3, filters_in=80, filters_out=112, expand_ratio=6, strides=1),
    dict(kernel_size=5, repeats=4, filters_in=112, filters_out=192, expand_ratio=6,
         strides=2),
    dict(kernel_size=3, repeats=1, filters_in=192, filters_out=320, expand_ratio=6,
         strides=1),
]

CONV_KERNEL_INITIALIZER = {'class_name': 'VarianceScaling',
                           'config': {'scale': 2.0, 'mode': 'fan_out',
                                      'distribution': 'truncated_normal'}}
DENSE_KERNEL_INITIALIZER = {'class_name': 'VarianceScaling',
                            'config': {'scale': 1.0 / 3.0, 'mode': 'fan_out',
                                       'distribution': 'uniform'}}


class ImageNormalization(Layer):
    """``(x - mean) / max(sqrt(variance), 1e-7)`` per channel (last axis), with the weights
    of Keras's ``Normalization(axis=-1)``: ``mean``, ``variance`` (shape ``(channels,)``) and
    ``count``, none trainable."""

    def build(self, input_shape: Any) -> None:
        channels = input_shape[-1]
        self.mean = self.add_weight('mean', (channels,), initializer='zeros', trainable=False)
        self.variance = self.add_weight('variance', (channels,), initializer='ones',
                                        trainable=False)
        self.count = self.add_weight('count', (), dtype='int64', initializer='zeros',
                                     trainable=False)
        self.built = True

    def call(self, inputs: Any) -> Any:
        floor = numpy.full(self.variance.shape, 1e-7, self.variance.dtype)
        std = F.maximum(F.sqrt(self.variance), floor)
        return (inputs - F.broadcast_to(self.mean, inputs.shape)) / F.broadcast_to(
            std, inputs.shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class ChannelScale(Layer):
    """Multiplies the last axis by constant per-channel ``scale`` factors (Keras's
    ``Rescaling`` with a list)."""

    def __init__(self, scale: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = [float(s) for s in scale]

    def call(self, inputs: Any) -> Any:
        return inputs * numpy.asarray(self.scale, inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), 'scale': self.scale}


def _block(inputs: Any, activation: str, drop_rate: float, name: str, filters_in: int,
           filters_out: int, kernel_size: int, strides: int, expand_ratio: int,
           se_ratio: float = 0.25, id_skip: bool = True) -> Any:
    from chainlet.keras import layers
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding='same', use_bias=False,
                          kernel_initializer=CONV_KERNEL_INITIALIZER,
                          name=name + 'expand_conv')(x)
        x = layers.BatchNormalization(axis=3, name=name + 'expand_bn')(x)
        x = layers.Activation(activation, name=name + 'expand_activation')(x)
    if strides == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=name + 'dwconv_pad')(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=strides,
                               padding='valid' if strides == 2 else 'same', use_bias=False,
                               depthwise_initializer=CONV_KERNEL_INITIALIZER,
                               name=name + 'dwconv')(x)
    x = layers.BatchNormalization(axis=3, name=name + 'bn')(x)
    x = layers.Activation(activation, name=name + 'activation')(x)
    if 0 < se_ratio <= 1:  # squeeze and excitation
        filters_se = max(1, int(filters_in * se_ratio))
        se = layers.GlobalAveragePooling2D(name=name + 'se_squeeze')(x)
        se = layers.Reshape((1, 1, filters), name=name + 'se_reshape')(se)
        se = layers.Conv2D(filters_se, 1, padding='same', activation=activation,
                           kernel_initializer=CONV_KERNEL_INITIALIZER,
                           name=name + 'se_reduce')(se)
        se = layers.Conv2D(filters, 1, padding='same', activation='sigmoid',
                           kernel_initializer=CONV_KERNEL_INITIALIZER,
                           name=name + 'se_expand')(se)
        x = layers.multiply([x, se], name=name + 'se_excite')
    x = layers.Conv2D(filters_out, 1, padding='same', use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name=name + 'project_conv')(x)
    x = layers.BatchNormalization(axis=3, name=name + 'project_bn')(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:  # stochastic depth: drop the whole residual branch per sample
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + 'drop')(x)
        x = layers.add([x, inputs], name=name + 'add')
    return x


def EfficientNet(width_coefficient: float, depth_coefficient: float, default_size: int,
                 dropout_rate: float = 0.2, drop_connect_rate: float = 0.2,
                 depth_divisor: int = 8, activation: str = 'swish',
                 blocks_args: Any = 'default', model_name: str = 'efficientnet',
                 include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
                 input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
                 classifier_activation: Any = 'softmax', name: Optional[str] = None) -> Any:
    """An EfficientNet scaled by ``width_coefficient`` and ``depth_coefficient``."""
    from chainlet import keras
    from chainlet.keras import layers
    where = model_name
    imagenet_utils.check_arguments(where, weights, include_top, classes,
                                   classifier_activation, pooling)
    blocks_args = copy.deepcopy(DEFAULT_BLOCKS_ARGS if blocks_args == 'default'
                                else blocks_args)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32,
                                                    'channels_last', include_top, weights,
                                                    where)

    def round_filters(filters: float) -> int:
        filters *= width_coefficient
        new = max(depth_divisor, int(filters + depth_divisor / 2) // depth_divisor *
                  depth_divisor)
        return int(new + depth_divisor if new < 0.9 * filters else new)

    def round_repeats(repeats: int) -> int:
        return int(math.ceil(depth_coefficient * repeats))

    x, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    x = layers.Rescaling(1.0 / 255.0)(x)
    x = ImageNormalization(name='normalization')(x)
    if weights == 'imagenet':  # Keras's correction for the variance stored as the std
        x = ChannelScale([1.0 / math.sqrt(s) for s in IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name='stem_conv_pad')(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding='valid', use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name='stem_conv')(x)
    x = layers.BatchNormalization(axis=3, name='stem_bn')(x)
    x = layers.Activation(activation, name='stem_activation')(x)
    b = 0
    total = float(sum(round_repeats(args['repeats']) for args in blocks_args))
    for i, args in enumerate(blocks_args):
        args['filters_in'] = round_filters(args['filters_in'])
        args['filters_out'] = round_filters(args['filters_out'])
        for j in range(round_repeats(args.pop('repeats'))):
            if j > 0:
                args['strides'] = 1
                args['filters_in'] = args['filters_out']
            x = _block(x, activation, drop_connect_rate * b / total,
                       name=f'block{i + 1}{chr(j + 97)}_', **args)
            b += 1
    x = layers.Conv2D(round_filters(1280), 1, padding='same', use_bias=False,
                      kernel_initializer=CONV_KERNEL_INITIALIZER, name='top_conv')(x)
    x = layers.BatchNormalization(axis=3, name='top_bn')(x)
    x = layers.Activation(activation, name='top_activation')(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name='avg_pool')(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name='top_dropout')(x)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=DENSE_KERNEL_INITIALIZER, name='predictions')(x)
    else:
        x = imagenet_utils.top(x, False, pooling, classes, classifier_activation)
    model = keras.Model(inputs, x, name=name or model_name)
    file_name = model_name + ('.h5' if include_top else '_notop.h5')
    imagenet_utils.load_weights(model, weights, file_name, BASE_WEIGHTS_PATH + file_name, where)
    return model


def _variant(width: float, depth: float, size: int, dropout: float, model_name: str) -> Any:
    def build(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
              input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
              classifier_activation: Any = 'softmax', name: Optional[str] = None) -> Any:
        return EfficientNet(width, depth, size, dropout, model_name=model_name,
                            include_top=include_top, weights=weights,
                            input_tensor=input_tensor, input_shape=input_shape,
                            pooling=pooling, classes=classes,
                            classifier_activation=classifier_activation, name=name)
    build.__name__ = build.__qualname__ = 'EfficientNet' + model_name[-2:].upper()
    build.__doc__ = (f'{build.__name__}: input {size}x{size} by default; arguments as '
                     f':func:`chainlet.keras.applications.ResNet50` (inputs are pixels in '
                     f'[0, 255]).')
    return build


EfficientNetB0 = _variant(1.0, 1.0, 224, 0.2, 'efficientnetb0')
EfficientNetB1 = _variant(1.0, 1.1, 240, 0.2, 'efficientnetb1')
EfficientNetB2 = _variant(1.1, 1.2, 260, 0.3, 'efficientnetb2')
EfficientNetB3 = _variant(1.2, 1.4, 300, 0.3, 'efficientnetb3')
EfficientNetB4 = _variant(1.4, 1.8, 380, 0.4, 'efficientnetb4')
EfficientNetB5 = _variant(1.6, 2.2, 456, 0.4, 'efficientnetb5')
EfficientNetB6 = _variant(1.8, 2.6, 528, 0.5, 'efficientnetb6')
EfficientNetB7 = _variant(2.0, 3.1, 600, 0.5, 'efficientnetb7')


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """The identity: EfficientNet models rescale and normalize their input themselves."""
    return x


decode_predictions = imagenet_utils.decode_predictions
