"""``keras.applications.xception``: Xception ("Xception: Deep Learning with Depthwise Separable
Convolutions", Chollet 2017), built as Keras builds it (layer names ``block1_conv1`` ...
``block14_sepconv2_act``, ``avg_pool``, ``predictions``), so Keras's weight files load by
name. Inputs are scaled to [-1, 1] (:func:`preprocess_input`, ``mode='tf'``).

Example:
    >>> from chainlet.keras import applications
    >>> model = applications.Xception(weights=None, include_top=False,
    ...                               input_shape=(71, 71, 3), pooling='avg')
    >>> model.output_shape
    (None, 2048)
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.keras.applications import imagenet_utils

WEIGHTS_PATH = ('https://storage.googleapis.com/tensorflow/keras-applications/xception/')


def _sepconv(x: Any, filters: int, name: str, relu_first: bool = True) -> Any:
    from chainlet.keras import layers
    if relu_first:
        x = layers.Activation('relu', name=name + '_act')(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding='same', use_bias=False, name=name)(x)
    x = layers.BatchNormalization(axis=-1, name=name + '_bn')(x)
    if not relu_first:
        x = layers.Activation('relu', name=name + '_act')(x)
    return x


def _downsampling_block(x: Any, filters: tuple, block: int, relu_first: bool = True) -> Any:
    """Two separable convolutions and a strided max pooling, plus a strided 1x1 shortcut."""
    from chainlet.keras import layers
    residual = layers.Conv2D(filters[1], (1, 1), strides=(2, 2), padding='same',
                             use_bias=False)(x)
    residual = layers.BatchNormalization(axis=-1)(residual)
    if relu_first:
        x = _sepconv(x, filters[0], f'block{block}_sepconv1')
    else:  # block 2 follows a ReLU already
        x = layers.SeparableConv2D(filters[0], (3, 3), padding='same', use_bias=False,
                                   name=f'block{block}_sepconv1')(x)
        x = layers.BatchNormalization(axis=-1, name=f'block{block}_sepconv1_bn')(x)
    x = _sepconv(x, filters[1], f'block{block}_sepconv2')
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding='same',
                            name=f'block{block}_pool')(x)
    return layers.add([x, residual])


def Xception(include_top: bool = True, weights: Any = 'imagenet', input_tensor: Any = None,
             input_shape: Any = None, pooling: Optional[str] = None, classes: int = 1000,
             classifier_activation: Any = 'softmax', name: str = 'xception') -> Any:
    """Xception (22.9M parameters with the top, 20.9M without).

    Args:
        include_top: Include the global average pooling and the ``classes``-way Dense.
        weights: ``None`` (random), ``'imagenet'`` (Keras's file in ``~/.keras/models``, never
            downloaded here) or the path of a weights file (chainlet's ``save_weights``
            output, or a Keras ``.h5`` weights file).
        input_tensor: A symbolic tensor to build on instead of a new ``keras.Input``.
        input_shape: ``(height, width, 3)``; ``(299, 299, 3)`` by default, at least 71x71.
        pooling: Without the top: ``None`` (4-D features), ``'avg'`` or ``'max'``.
        classes: Number of classes of the top.
        classifier_activation: Activation of the top (``None`` for logits).
        name: Name of the model.

    Returns:
        A functional ``keras.Model``.
    """
    from chainlet import keras
    from chainlet.keras import layers
    where = 'Xception'
    imagenet_utils.check_arguments(where, weights, include_top, classes,
                                   classifier_activation, pooling)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 299, 71, 'channels_last',
                                                    include_top, weights, where)
    x, inputs = imagenet_utils.model_input(input_tensor, input_shape)
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name='block1_conv1')(x)
    x = layers.BatchNormalization(axis=-1, name='block1_conv1_bn')(x)
    x = layers.Activation('relu', name='block1_conv1_act')(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name='block1_conv2')(x)
    x = layers.BatchNormalization(axis=-1, name='block1_conv2_bn')(x)
    x = layers.Activation('relu', name='block1_conv2_act')(x)
    x = _downsampling_block(x, (128, 128), 2, relu_first=False)
    x = _downsampling_block(x, (256, 256), 3)
    x = _downsampling_block(x, (728, 728), 4)
    for i in range(8):  # the middle flow
        residual = x
        prefix = f'block{i + 5}'
        for j in (1, 2, 3):
            x = _sepconv(x, 728, f'{prefix}_sepconv{j}')
        x = layers.add([x, residual])
    x = _downsampling_block(x, (728, 1024), 13)
    x = _sepconv(x, 1536, 'block14_sepconv1', relu_first=False)
    x = _sepconv(x, 2048, 'block14_sepconv2', relu_first=False)
    # Keras names the top's pooling 'avg_pool' but leaves the optional poolings unnamed
    x = imagenet_utils.top(x, include_top, pooling, classes, classifier_activation,
                           pool_names=include_top)
    model = keras.Model(inputs, x, name=name)
    file_name = 'xception_weights_tf_dim_ordering_tf_kernels' + \
        ('.h5' if include_top else '_notop.h5')
    imagenet_utils.load_weights(model, weights, file_name, WEIGHTS_PATH + file_name, where)
    return model


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Scale pixels from [0, 255] to [-1, 1] (``mode='tf'``), as the weights expect."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode='tf')


decode_predictions = imagenet_utils.decode_predictions

__all__ = ['Xception', 'preprocess_input', 'decode_predictions']
