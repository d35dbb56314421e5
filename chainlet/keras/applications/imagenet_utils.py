"""What the ImageNet applications share: input shapes, preprocessing, decoding predictions,
and loading weight files (chainlet's own, or Keras's legacy HDF5 layout by layer name).

Pretrained weights are never downloaded here: ``weights='imagenet'`` loads Keras's file from
``$KERAS_HOME/models/`` (``~/.keras/models/``) when it is there and otherwise raises an error
that names the file, the folder and the URL to fetch it from.

Example:
    >>> import numpy as np
    >>> from chainlet.keras.applications import imagenet_utils
    >>> imagenet_utils.preprocess_input(np.array([[[255.0, 0.0, 127.5]]]), mode='tf')
    array([[[ 1., -1.,  0.]]])
"""
from __future__ import annotations

import json
import os
from typing import Any, Optional

import numpy

from chainlet.keras.datasets import _files
from chainlet.serializers import open_hdf5

CLASS_INDEX_URL = ('https://storage.googleapis.com/download.tensorflow.org/data/'
                   'imagenet_class_index.json')
CLASS_INDEX_MD5 = 'c2c37ea517e94d9795004a39431a14cb'
_CAFFE_MEAN = (103.939, 116.779, 123.68)  # BGR
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)


def preprocess_input(x: Any, data_format: Optional[str] = None, mode: str = 'caffe') -> Any:
    """Scale a batch of RGB images (``0..255``) the way a pretrained network expects.

    Args:
        x: Array of images, channels last (or first with ``data_format='channels_first'``).
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.
        mode: ``'caffe'`` (RGB to BGR, minus the ImageNet mean), ``'tf'`` (to ``[-1, 1]``)
            or ``'torch'`` (to ``[0, 1]``, minus mean, over std per channel).

    Returns:
        A new float array (integer input becomes float32; the input is not modified).
    """
    if mode not in ('caffe', 'tf', 'torch'):
        raise ValueError(f"preprocess_input: argument mode: expected 'caffe', 'tf' or "
                         f"'torch', got {mode!r}")
    data_format = data_format or 'channels_last'
    if data_format not in ('channels_last', 'channels_first'):
        raise ValueError(f"preprocess_input: argument data_format: expected 'channels_last' "
                         f"or 'channels_first', got {data_format!r}")
    x = numpy.array(x, copy=True)
    if x.dtype.kind != 'f':
        x = x.astype(numpy.float32)
    if mode == 'tf':
        return x / 127.5 - 1.0
    axis = -1 if data_format == 'channels_last' else (1 if x.ndim == 4 else 0)
    if x.shape[axis] != 3:
        raise ValueError(f'preprocess_input: expected 3 color channels on axis {axis}, got '
                         f'input shape {x.shape}')
    shape = [1] * x.ndim
    shape[axis] = 3
    if mode == 'torch':
        mean = numpy.asarray(_TORCH_MEAN, x.dtype).reshape(shape)
        std = numpy.asarray(_TORCH_STD, x.dtype).reshape(shape)
        return (x / numpy.asarray(255.0, x.dtype) - mean) / std
    x = numpy.flip(x, axis=axis)  # RGB -> BGR
    return x - numpy.asarray(_CAFFE_MEAN, x.dtype).reshape(shape)


def decode_predictions(preds: Any, top: int = 5) -> list:
    """``[[(class_id, class_name, score), ...], ...]``: the ``top`` classes of each row of
    ImageNet predictions ``(N, 1000)``.

    The class index (``imagenet_class_index.json``) is read from ``$KERAS_HOME/models/``,
    downloaded there first when the network allows.
    """
    preds = numpy.asarray(preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError(f'decode_predictions: expects a batch of ImageNet predictions of '
                         f'shape (samples, 1000), got shape {preds.shape}')
    path = _files.get_file('imagenet_class_index.json', CLASS_INDEX_URL, CLASS_INDEX_MD5,
                           cache_subdir='models', where='decode_predictions')
    with open(path) as f:
        index = json.load(f)
    out = []
    for row in preds:
        best = numpy.argsort(row)[-top:][::-1]
        out.append([(*index[str(i)], row[i]) for i in best])
    return out


def obtain_input_shape(input_shape: Any, default_size: int, min_size: int,
                       data_format: str, require_flatten: bool, weights: Any,
                       where: str) -> tuple:
    """The model's input shape (without batch), checked as Keras checks it."""
    default = (default_size, default_size, 3)
    if weights == 'imagenet' and require_flatten:
        if input_shape is not None and tuple(input_shape) != default:
            raise ValueError(f'{where}: with include_top=True and weights="imagenet", '
                             f'input_shape must be {default}, got {tuple(input_shape)}')
        return default
    if input_shape is not None:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError(f'{where}: argument input_shape: expected (height, width, '
                             f'channels), got {input_shape}')
        if weights == 'imagenet' and input_shape[-1] != 3:
            raise ValueError(f'{where}: the pretrained weights need 3 input channels, got '
                             f'input_shape {input_shape}')
        for size in input_shape[:2]:
            if size is not None and size < min_size:
                raise ValueError(f'{where}: input height and width must be at least '
                                 f'{min_size}, got input_shape {input_shape}')
    else:
        input_shape = default if require_flatten else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(f'{where}: with include_top=True the input_shape must be static, '
                         f'got {input_shape}')
    return input_shape


def check_arguments(where: str, weights: Any, include_top: bool, classes: int,
                    classifier_activation: Any, pooling: Any) -> None:
    """Keras's checks of ``weights``, ``classes``, ``classifier_activation``, ``pooling``."""
    if not (weights in ('imagenet', None) or
            (isinstance(weights, (str, os.PathLike)) and os.path.exists(weights))):
        raise ValueError(f'{where}: argument weights: expected None (random initialization), '
                         f'"imagenet" (pre-training on ImageNet) or the path of an existing '
                         f'weights file, got {weights!r}')
    if weights == 'imagenet' and include_top and classes != 1000:
        raise ValueError(f'{where}: with weights="imagenet" and include_top=True, classes '
                         f'must be 1000, got {classes}')
    if include_top and weights is not None and classifier_activation not in ('softmax', None):
        raise ValueError(f'{where}: only None and "softmax" are allowed for '
                         f'classifier_activation with pretrained weights, got '
                         f'{classifier_activation!r}')
    if pooling not in (None, 'avg', 'max'):
        raise ValueError(f"{where}: argument pooling: expected None, 'avg' or 'max', got "
                         f"{pooling!r}")


def correct_pad(inputs: Any, kernel_size: Any) -> tuple:
    """The ``ZeroPadding2D`` padding before a strided 'valid' convolution (channels last)."""
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    size = inputs.shape[1:3]
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def model_input(input_tensor: Any, input_shape: tuple) -> tuple:
    """``(tensor the layers start from, the model's inputs)``."""
    from chainlet import keras
    if input_tensor is None:
        x = keras.Input(shape=input_shape)
        return x, x
    if not isinstance(input_tensor, keras.KerasTensor):
        raise ValueError(f'input_tensor must be a symbolic tensor (from keras.Input or a '
                         f'layer), got {type(input_tensor).__name__}')
    return input_tensor, source_inputs(input_tensor)


def source_inputs(tensor: Any) -> Any:
    """The ``keras.Input`` tensors that ``tensor`` was computed from."""
    from chainlet.keras.engine.input_layer import InputLayer
    found, seen, stack = [], set(), [tensor]
    while stack:
        t = stack.pop()
        layer, node_index, _ = t._keras_history
        if isinstance(layer, InputLayer):
            if id(t) not in seen:
                seen.add(id(t))
                found.append(t)
            continue
        stack.extend(reversed(layer._inbound_nodes[node_index].input_tensors))
    return found[0] if len(found) == 1 else found


def load_weights(model: Any, weights: Any, file_name: str, url: str, where: str) -> None:
    """Load ``weights`` (``'imagenet'`` or a path) into ``model``; ``None`` does nothing."""
    if weights is None:
        return
    if weights == 'imagenet':
        path = os.path.join(_files.cache_dir('models'), file_name)
        if not os.path.exists(path):
            raise FileNotFoundError(
                f'{where}: weights="imagenet" needs Keras\'s file {file_name}, which is not in '
                f'{os.path.dirname(path)}; chainlet does not download pretrained weights: '
                f'fetch it from {url} and put it there, or pass weights=<path of a weights '
                f'file> (or weights=None for random initialization)')
    else:
        path = os.fspath(weights)
    if path.endswith(('.h5', '.hdf5')) and _is_keras_legacy_h5(path):
        load_keras_h5_weights(model, path)
    else:
        model.load_weights(path)


def _import_h5py() -> Any:
    try:
        import h5py
    except ImportError as e:
        raise ImportError('Keras .h5 weight files need h5py; install it with pip install '
                          '"chainlet-dl[hdf5]"') from e
    return h5py


def _is_keras_legacy_h5(path: str) -> bool:
    _import_h5py()
    with open_hdf5(path, 'load_weights') as f:
        group = f['model_weights'] if 'model_weights' in f else f
        return 'layer_names' in group.attrs


def _names(values: Any) -> list:
    return [v.decode('utf8') if isinstance(v, bytes) else str(v) for v in values]


def load_keras_h5_weights(model: Any, path: str) -> None:
    """Load a Keras (legacy HDF5) weights file into ``model``, matching layers by name.

    Keras's ``.h5`` weight files (those of ``keras.applications`` among them) list their
    layers in the ``layer_names`` attribute and each layer's arrays in ``weight_names``, in
    the layer's weight order (kernel, bias; gamma, beta, moving mean, moving variance), which
    is the order of :attr:`Layer.weights` here.

    Raises:
        ValueError: A layer of the model that has weights is missing from the file, or has
            another number or shape of weights.
    """
    _import_h5py()
    # open_hdf5 refuses files whose datasets read other files (external storage or links)
    with open_hdf5(path, 'load_keras_h5_weights') as f:
        group = f['model_weights'] if 'model_weights' in f else f
        stored = {}
        for name in _names(group.attrs['layer_names']):
            g = group[name]
            stored[name] = [numpy.asarray(g[w]) for w in _names(g.attrs.get('weight_names',
                                                                            []))]
    assignments = []
    for layer in model.layers:
        params = layer.weights
        if not params:
            continue
        arrays = stored.get(layer.name)
        if arrays is None:
            raise ValueError(f'load_keras_h5_weights: {path} has no weights for layer '
                             f'"{layer.name}" of model "{model.name}"')
        if len(arrays) != len(params):
            raise ValueError(f'load_keras_h5_weights: layer "{layer.name}" has {len(params)} '
                             f'weights, {path} has {len(arrays)} for it')
        for p, a in zip(params, arrays):
            if tuple(a.shape) != tuple(p.shape):
                raise ValueError(f'load_keras_h5_weights: layer "{layer.name}": weight '
                                 f'{p.name} has shape {tuple(p.shape)}, {path} has '
                                 f'{tuple(a.shape)}')
        assignments.append((layer, arrays))
    for layer, arrays in assignments:
        layer.set_weights(arrays)


def top(x: Any, include_top: bool, pooling: Any, classes: int, classifier_activation: Any,
        pool_names: bool = True) -> Any:
    """The classification head (or the optional pooling) of an application."""
    from chainlet.keras import layers
    avg: dict[str, Any] = {'name': 'avg_pool'} if pool_names else {}
    if include_top:
        x = layers.GlobalAveragePooling2D(**avg)(x)
        return layers.Dense(classes, activation=classifier_activation, name='predictions')(x)
    if pooling == 'avg':
        return layers.GlobalAveragePooling2D(**avg)(x)
    if pooling == 'max':
        mx: dict[str, Any] = {'name': 'max_pool'} if pool_names else {}
        return layers.GlobalMaxPooling2D(**mx)(x)
    return x
