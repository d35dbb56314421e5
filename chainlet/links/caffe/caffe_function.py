"""``CaffeFunction``: a trained Caffe model (``.caffemodel``) as a callable chain.

The file is a binary ``NetParameter`` message (:mod:`.protobuf3.caffe_pb2`). Loading walks its
layers once: each layer type with a converter becomes either a child link holding the layer's
blobs (Convolution, Deconvolution, InnerProduct, BatchNorm, Scale) or a parameter-free
callable, and is recorded with its bottom and top blob names. Calling the chain interprets
that list: a layer runs once all its bottoms are known and binds its outputs to its tops, so
any sub-network between given input blobs and requested output blobs can be evaluated, and
backprop flows through the ordinary chainlet graph it builds.

Both file formats are read: the current one (``layer``, types as strings) and Caffe's first
one (``layers``, ``V1LayerParameter`` with types as enum values). Layer types without a
converter are skipped with a warning, as in Chainer; data layers (``Data``, ``Input``) are
skipped silently, since their blobs are what the caller passes in.

Weights keep Chainer's layouts, so an ``.npz`` saved from a ``CaffeFunction`` loads into a
model written for Chainer's: a grouped convolution becomes one ``Convolution2D`` over all
channels whose filter is block diagonal (zeros between the groups), as Chainer builds it.
"""
from __future__ import annotations

import os
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy

from chainlet import _config
from chainlet.functions.activation.leaky_relu import leaky_relu
from chainlet.functions.activation.relu import relu
from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.softmax import softmax
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.array.concat import concat
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.split_axis import split_axis
from chainlet.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from chainlet.functions.math.maximum import maximum
from chainlet.functions.math.sum import sum as _sum
from chainlet.functions.noise.dropout import dropout
from chainlet.functions.normalization.local_response_normalization import (
    local_response_normalization)
from chainlet.functions.pooling.average_pooling_2d import average_pooling_2d
from chainlet.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.caffe.protobuf3 import _schema
from chainlet.links.connection.convolution_2d import Convolution2D
from chainlet.links.connection.deconvolution_2d import Deconvolution2D
from chainlet.links.connection.linear import Linear
from chainlet.links.connection.scale import Scale
from chainlet.links.normalization.batch_normalization import BatchNormalization
from chainlet.utils import argument
from chainlet.variable import Variable

# Layer type (string of the current format) -> setup method name, and the same for the
# ``V1LayerParameter.LayerType`` numbers of the old format.
_SETUP: Dict[str, str] = {}
_SETUP_V1: Dict[int, str] = {}
_V1_TYPES = _schema.v1_layer_types()
_V1_NAMES = {number: name for name, number in _V1_TYPES.items()}


def _layer(type_name: str, v1_name: Optional[str]) -> Callable[[Any], Any]:
    def register(method: Any) -> Any:
        _SETUP[type_name] = method.__name__
        if v1_name is not None:
            _SETUP_V1[_V1_TYPES[v1_name]] = method.__name__
        return method
    return register


class CaffeFunction(Chain):
    """A Caffe model file run as a chainlet chain.

    Each converted layer with parameters is a child link named after the layer (``func.conv1``,
    ``func['conv1/7x7_s2']``), so the weights can be saved with ``save_npz``, moved with
    ``to_device`` and fine-tuned. Converted layer types: Convolution, Deconvolution,
    InnerProduct, Pooling (max and average, global pooling), LRN (across channels), ReLU (leaky
    with ``negative_slope``), Sigmoid, TanH, Softmax, SoftmaxWithLoss, Dropout, Concat, Slice,
    Split, Eltwise (PROD, SUM with coefficients, MAX), Reshape, Power, BatchNorm and Scale; Data
    and Input layers are skipped.

    Args:
        model_path: Path of the binary ``.caffemodel`` file.

    Attributes:
        forwards (dict): Layer name -> the callable that runs the layer.
        layers (list): ``(layer name, bottom blob names, top blob names)`` in file order.
        split_map (dict): Top blob of a ``Split`` layer -> the blob it copies.
        variables (dict): Blob name -> Variable, of the last call.

    Raises:
        ImportError: The ``protobuf`` package is missing (``pip install "chainlet-dl[caffe]"``).
        OSError: The file cannot be opened.
        ValueError: The file is not a binary Caffe model, holds no layers, or a layer's blobs
            do not match its parameters (the message names the file and the layer).
        RuntimeError: A layer uses a configuration chainlet cannot run (stochastic pooling,
            within-channel LRN, a convolution that is not 2-D, ...), as in Chainer.

    Example:
        >>> import pytest; _ = pytest.importorskip('google.protobuf')  # needs protobuf
        >>> import os, tempfile, numpy as np, chainlet, chainlet.links as L
        >>> import chainlet.functions as F
        >>> from chainlet.exporters import caffe
        >>> from chainlet.links.caffe import CaffeFunction
        >>> model = chainlet.Sequential(L.Convolution2D(3, 4, 3), F.relu, L.Linear(None, 2))
        >>> x = np.random.rand(1, 3, 8, 8).astype(np.float32)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     caffe.export(model, [x], d)
        ...     func = CaffeFunction(os.path.join(d, 'chainer_model.caffemodel'))
        >>> [name for name, _, _ in func.layers]
        ['Convolution2DFunction-0-1', 'ReLU-1-1', 'Reshape-2-1', 'LinearFunction-3-1']
        >>> y, = func(inputs={'data': x}, outputs=['LinearFunction-3-1'])
        >>> with chainlet.using_config('train', False):
        ...     expected = model(x).array
        >>> np.allclose(y.array, expected, atol=1e-6)
        True
    """

    def __init__(self, model_path: Any) -> None:
        super().__init__()
        from chainlet.links.caffe.protobuf3 import caffe_pb2

        net = caffe_pb2.NetParameter()  # first, for its ImportError naming the extra
        from google.protobuf.message import DecodeError

        self._path = os.fspath(model_path)
        with open(self._path, 'rb') as f:
            content = f.read()
        try:
            net.MergeFromString(content)
        except (DecodeError, ValueError) as exc:
            hint = (' (a .prototxt is the text definition of the network; CaffeFunction reads '
                    'the binary .caffemodel that holds the trained weights)'
                    if self._path.endswith('.prototxt') else '')
            raise ValueError(f'CaffeFunction: {self._path!r} is not a binary Caffe model '
                             f'(.caffemodel): {exc}{hint}') from None
        if not net.layer and not net.layers:
            raise ValueError(f'CaffeFunction: {self._path!r} holds no layers; is it a '
                             f'.caffemodel file?')

        self.forwards: Dict[str, Callable[..., Any]] = {}
        self.split_map: Dict[str, str] = {}
        self.layers: List[Tuple[str, List[str], List[str]]] = []
        self.variables: Dict[str, Any] = {}
        if net.layer:
            for layer in net.layer:
                method = _SETUP.get(layer.type)
                if method is None:
                    warnings.warn(f'Skip the layer "{layer.name}", since CaffeFunction does not '
                                  f'support {layer.type} layer')
                else:
                    getattr(self, method)(layer)
        else:
            for layer in net.layers:
                method = _SETUP_V1.get(layer.type)
                if method is None:
                    type_name = _V1_NAMES.get(layer.type, str(layer.type))
                    warnings.warn(f'Skip the layer "{layer.name}", since CaffeFunction does not '
                                  f'support {type_name} layer')
                else:
                    getattr(self, method)(layer)

    def forward(self, inputs: Dict[str, Any], outputs: Iterable[str],
                disable: Iterable[str] = (), **kwargs: Any) -> Tuple[Variable, ...]:
        """forward(self, inputs, outputs, disable=())

        Run the layers whose bottoms are available, in file order, and return some blobs.

        Args:
            inputs: Blob name -> Variable or array (``{'data': x}``).
            outputs: Names of the blobs to return.
            disable: Names of layers not to run.

        Returns:
            A tuple with the Variable of each blob of ``outputs``, in order.

        Raises:
            KeyError: A blob of ``outputs`` was neither given nor computed.
        """
        argument.check_unexpected_kwargs(
            kwargs, train='train argument is not supported anymore. Use '
                          'chainlet.using_config')
        argument.assert_kwargs_empty(kwargs)
        variables = dict(inputs)
        disable = set(disable)
        for name, bottom, top in self.layers:
            if (name in disable or name not in self.forwards
                    or any(blob not in variables for blob in bottom)):
                continue
            ys = self.forwards[name](*[variables[blob] for blob in bottom])
            if not isinstance(ys, (tuple, list)):
                ys = ys,
            for blob, y in zip(top, ys):
                variables[blob] = y
        self.variables = variables
        missing = [blob for blob in outputs if blob not in variables]
        if missing:
            raise KeyError(f'CaffeFunction: blobs {missing} were neither given nor computed '
                           f'(known blobs: {sorted(variables)})')
        return tuple(variables[blob] for blob in outputs)

    # -- helpers of the layer converters --

    def _fail(self, layer: Any, message: str, error: type = ValueError) -> Exception:
        return error(f'CaffeFunction: {self._path!r}, layer "{layer.name}": {message}')

    def _add_layer(self, layer: Any) -> None:
        bottom = [self.split_map.get(blob, blob) for blob in layer.bottom]
        self.layers.append((layer.name, bottom, list(layer.top)))

    def _add_link(self, layer: Any, link: Any, **call_kwargs: Any) -> None:
        if layer.name in self.__dict__ or hasattr(type(self), layer.name):
            raise self._fail(layer, 'the layer name is already an attribute of CaffeFunction; '
                                    'rename the layer')
        with self.init_scope():
            setattr(self, layer.name, link)
        self.forwards[layer.name] = _CallChild(self, layer.name, call_kwargs)
        self._add_layer(layer)

    def _add_function(self, layer: Any, func: Callable[..., Any]) -> None:
        self.forwards[layer.name] = func
        self._add_layer(layer)

    def _blob(self, layer: Any, index: int, shape: Optional[Sequence[int]] = None
              ) -> numpy.ndarray:
        """Blob ``index`` of ``layer`` as an array of the configured dtype, optionally
        reshaped to ``shape`` (its number of values must match)."""
        if index >= len(layer.blobs):
            raise self._fail(layer, f'expected at least {index + 1} blobs, the file holds '
                                    f'{len(layer.blobs)}')
        blob = layer.blobs[index]
        values = blob.data if len(blob.data) or not len(blob.double_data) else blob.double_data
        array = numpy.array(values, dtype=_util.resolve_dtype())
        target = tuple(_blob_shape(blob)) if shape is None else tuple(shape)
        if array.size != int(numpy.prod(target, dtype=numpy.int64)):
            raise self._fail(layer, f'blob {index} holds {array.size} values, its shape '
                                    f'{target} needs {int(numpy.prod(target))}')
        return array.reshape(target)

    def _blob_dims(self, layer: Any, index: int) -> Tuple[int, ...]:
        if index >= len(layer.blobs):
            raise self._fail(layer, f'expected at least {index + 1} blobs, the file holds '
                                    f'{len(layer.blobs)}')
        return _blob_shape(layer.blobs[index])

    # -- the layer converters (names and behaviour of Chainer's CaffeFunction) --

    @_layer('Concat', 'CONCAT')
    def _setup_concat(self, layer: Any) -> None:
        param = layer.concat_param
        axis = param.axis
        if axis == 1 and param.concat_dim != 1:  # the deprecated field, when it is the one set
            axis = param.concat_dim
        self._add_function(layer, _ListArgument(concat, axis=axis))

    def _conv_geometry(self, layer: Any, blob_shape: Tuple[int, ...]) -> Dict[str, Any]:
        param = layer.convolution_param
        if param.axis != 1:
            raise self._fail(layer, f'convolution over axis {param.axis} is not supported '
                                    f'(only axis 1, the channels)', RuntimeError)
        if len(blob_shape) != 4 or len(param.kernel_size) > 2:
            raise self._fail(layer, 'only 2-D convolutions are supported', RuntimeError)
        ksize = _pair(param, 'kernel', param.kernel_size, None)
        if ksize is None or tuple(_as_pair(ksize)) != tuple(blob_shape[2:]):
            raise self._fail(layer, f'the kernel size {ksize} does not match the filter blob '
                                    f'of shape {blob_shape}')
        return dict(ksize=ksize, stride=_pair(param, 'stride', param.stride, 1),
                    pad=_pair(param, 'pad', param.pad, 0),
                    dilate=_pair(param, 'dilation', param.dilation, 1, hw=False))

    @_layer('Convolution', 'CONVOLUTION')
    def _setup_convolution(self, layer: Any) -> None:
        param = layer.convolution_param
        shape = self._blob_dims(layer, 0)
        geometry = self._conv_geometry(layer, shape)
        n_out, channels = shape[:2]
        group = param.group
        if n_out % group:
            raise self._fail(layer, f'{n_out} outputs cannot be split into {group} groups')
        W = _block_diagonal(self._blob(layer, 0), group)
        b = self._blob(layer, 1, (n_out,)) if param.bias_term else None
        link = Convolution2D(channels * group, n_out, geometry['ksize'], geometry['stride'],
                             geometry['pad'], nobias=b is None, initialW=W, initial_bias=b,
                             dilate=geometry['dilate'])
        self._add_link(layer, link)

    @_layer('Deconvolution', 'DECONVOLUTION')
    def _setup_deconvolution(self, layer: Any) -> None:
        param = layer.convolution_param
        shape = self._blob_dims(layer, 0)
        geometry = self._conv_geometry(layer, shape)
        n_in, channels = shape[:2]
        group = param.group
        if n_in % group:
            raise self._fail(layer, f'{n_in} inputs cannot be split into {group} groups')
        W = _block_diagonal(self._blob(layer, 0), group)
        n_out = channels * group
        b = self._blob(layer, 1, (n_out,)) if param.bias_term else None
        link = Deconvolution2D(n_in, n_out, geometry['ksize'], geometry['stride'],
                               geometry['pad'], nobias=b is None, initialW=W, initial_bias=b,
                               dilate=geometry['dilate'])
        self._add_link(layer, link)

    @_layer('Data', 'DATA')
    def _setup_data(self, layer: Any) -> None:
        """Data layers read a database in Caffe; here their blobs are the caller's inputs."""

    @_layer('Input', None)
    def _setup_input(self, layer: Any) -> None:
        """The input layer only declares blob shapes; the caller passes the blobs."""

    @_layer('Dropout', 'DROPOUT')
    def _setup_dropout(self, layer: Any) -> None:
        self._add_function(layer, _Call(dropout, ratio=layer.dropout_param.dropout_ratio))

    @_layer('InnerProduct', 'INNER_PRODUCT')
    def _setup_inner_product(self, layer: Any) -> None:
        param = layer.inner_product_param
        shape = self._blob_dims(layer, 0)
        if len(shape) == 2:
            rows, cols = shape
        elif len(shape) == 4:  # the old 4-D blob (1, 1, out, in)
            rows, cols = shape[2:]
        else:
            raise self._fail(layer, f'a {len(shape)}-dimensional weight blob is not supported '
                                    f'(2-D or 4-D)', RuntimeError)
        W = self._blob(layer, 0, (rows, cols))
        if param.transpose:  # the blob is (in, out)
            W = numpy.ascontiguousarray(W.T)
        n_out, n_in = W.shape
        b = self._blob(layer, 1, (n_out,)) if param.bias_term else None
        link = Linear(n_in, n_out, nobias=b is None, initialW=W, initial_bias=b)
        if param.axis == 1:
            self._add_link(layer, link)
        elif param.axis > 1:
            self._add_link(layer, link, n_batch_axes=param.axis)
        else:
            raise self._fail(layer, f'axis {param.axis} is not supported (positive axes only)',
                             RuntimeError)

    @_layer('LRN', 'LRN')
    def _setup_lrn(self, layer: Any) -> None:
        param = layer.lrn_param
        if param.norm_region != 0:  # ACROSS_CHANNELS
            raise self._fail(layer, 'Within-channel LRN is not supported', RuntimeError)
        # Caffe divides alpha by the window size; chainlet's (and Chainer's) LRN does not.
        self._add_function(layer, _Call(local_response_normalization, n=param.local_size,
                                        k=param.k, alpha=param.alpha / param.local_size,
                                        beta=param.beta))

    @_layer('Pooling', 'POOLING')
    def _setup_pooling(self, layer: Any) -> None:
        param = layer.pooling_param
        stride = _pair(param, 'stride', param.stride, 1, repeated=False)
        pad = _pair(param, 'pad', param.pad, 0, repeated=False)
        ksize = _pair(param, 'kernel', param.kernel_size, 0, repeated=False)
        if param.pool == 0:  # MAX; Caffe rounds the output size up unless told to floor
            func: Callable[..., Any] = max_pooling_2d
            kwargs: Dict[str, Any] = dict(stride=stride, pad=pad,
                                          cover_all=param.round_mode == 0)
        elif param.pool == 1:  # AVE
            func, kwargs = average_pooling_2d, dict(stride=stride, pad=pad)
        else:
            raise self._fail(layer, 'Stochastic pooling is not supported', RuntimeError)
        if param.global_pooling and not any(_as_pair(ksize)):
            self._add_function(layer, _GlobalPooling(func, **kwargs))
        else:
            self._add_function(layer, _Call(func, ksize, **kwargs))

    @_layer('Power', 'POWER')
    def _setup_power(self, layer: Any) -> None:
        param = layer.power_param
        self._add_function(layer, _Power(param.power, param.scale, param.shift))

    @_layer('ReLU', 'RELU')
    def _setup_relu(self, layer: Any) -> None:
        slope = layer.relu_param.negative_slope
        self._add_function(layer, _Call(leaky_relu, slope=slope) if slope != 0 else relu)

    @_layer('Reshape', None)
    def _setup_reshape(self, layer: Any) -> None:
        param = layer.reshape_param
        self._add_function(layer, _Reshape(list(param.shape.dim), param.axis, param.num_axes))

    @_layer('BatchNorm', None)
    def _setup_batchnorm(self, layer: Any) -> None:
        param = layer.batch_norm_param
        size = int(numpy.prod(self._blob_dims(layer, 0)))
        mean = self._blob(layer, 0, (size,))
        var = self._blob(layer, 1, (size,))
        if len(layer.blobs) >= 3:
            # Caffe keeps running sums and their weight in a third blob (BVLC/caffe#4885);
            # a zero weight means no statistics yet.
            factor = float(self._blob(layer, 2).ravel()[0])
            scale = 0.0 if factor == 0 else 1.0 / factor
            mean, var = mean * scale, var * scale
        link = BatchNormalization(size, decay=param.moving_average_fraction, eps=param.eps,
                                  use_gamma=False, use_beta=False, initial_avg_mean=mean,
                                  initial_avg_var=var)
        self._add_link(layer, link, finetune=False)
        if param.use_global_stats:
            self.forwards[layer.name] = _TestMode(self.forwards[layer.name])

    @_layer('Eltwise', 'ELTWISE')
    def _setup_eltwise(self, layer: Any) -> None:
        param = layer.eltwise_param
        coeffs = list(param.coeff) or None
        if coeffs is not None and len(coeffs) != len(layer.bottom):
            raise self._fail(layer, f'{len(coeffs)} coefficients for {len(layer.bottom)} '
                                    f'bottom blobs')
        if param.operation not in (0, 1, 2):
            raise self._fail(layer, f'invalid Eltwise operation {param.operation}')
        self._add_function(layer, _Eltwise(param.operation, coeffs))

    @_layer('Scale', None)
    def _setup_scale(self, layer: Any) -> None:
        param = layer.scale_param
        bias_term = param.bias_term
        if len(layer.bottom) == 1:  # the scale is a learned blob
            W = self._blob(layer, 0)
            link = Scale(param.axis, W.shape, bias_term, initialW=W,
                         initial_bias=self._blob(layer, 1) if bias_term else None)
        else:  # the scale is the second bottom
            b = self._blob(layer, 0) if bias_term else None
            link = Scale(param.axis, bias_term=bias_term,
                         bias_shape=None if b is None else b.shape, initial_bias=b)
        self._add_link(layer, link)

    @_layer('Slice', 'SLICE')
    def _setup_slice(self, layer: Any) -> None:
        param = layer.slice_param
        if param.HasField('axis'):
            axis = param.axis
        elif param.HasField('slice_dim'):
            axis = param.slice_dim
        else:
            axis = 1
        sections: Any = list(param.slice_point) or len(layer.top)
        self._add_function(layer, _Call(split_axis, indices_or_sections=sections, axis=axis))

    @_layer('Softmax', 'SOFTMAX')
    def _setup_softmax(self, layer: Any) -> None:
        self._add_function(layer, _Call(softmax, axis=layer.softmax_param.axis))

    @_layer('Sigmoid', 'SIGMOID')
    def _setup_sigmoid(self, layer: Any) -> None:
        self._add_function(layer, sigmoid)

    @_layer('TanH', 'TANH')
    def _setup_tanh(self, layer: Any) -> None:
        self._add_function(layer, tanh)

    @_layer('SoftmaxWithLoss', 'SOFTMAX_LOSS')
    def _setup_softmax_with_loss(self, layer: Any) -> None:
        if layer.softmax_param.axis != 1:
            raise self._fail(layer, 'Softmax along non-channel axis is not supported',
                             RuntimeError)
        loss = layer.loss_param
        mode = loss.normalization
        if not loss.HasField('normalization') and loss.HasField('normalize'):
            mode = 1 if loss.normalize else 2  # VALID or BATCH_SIZE
        ignore = loss.ignore_label if loss.HasField('ignore_label') else None
        self._add_function(layer, _SoftmaxWithLoss(mode, ignore))

    @_layer('Split', 'SPLIT')
    def _setup_split(self, layer: Any) -> None:
        for top in layer.top:
            self.split_map[top] = layer.bottom[0]


# -- parameters of convolution and pooling --

def _as_pair(value: Any) -> Tuple[int, int]:
    return tuple(value) if isinstance(value, tuple) else (value, value)  # type: ignore


def _pair(param: Any, stem: str, values: Any, default: Any, repeated: bool = True,
          hw: bool = True) -> Any:
    """Caffe's ways of giving a 2-D size: ``<stem>_h``/``<stem>_w``, or one value (or, for
    repeated fields, one per axis) of ``<stem>[_size]``; ``default`` when none is set."""
    if hw and (param.HasField(f'{stem}_h') or param.HasField(f'{stem}_w')):
        return getattr(param, f'{stem}_h'), getattr(param, f'{stem}_w')
    if not repeated:
        field = 'kernel_size' if stem == 'kernel' else stem
        return getattr(param, field) if param.HasField(field) else default
    if len(values) == 0:
        return default
    if len(values) == 1:
        return int(values[0])
    return tuple(int(v) for v in values)


def _blob_shape(blob: Any) -> Tuple[int, ...]:
    if blob.HasField('shape'):
        return tuple(int(d) for d in blob.shape.dim)
    return blob.num, blob.channels, blob.height, blob.width  # the 4-D blobs of old files


def _block_diagonal(w: numpy.ndarray, group: int) -> numpy.ndarray:
    """``(A, B, ...)`` filters of ``group`` groups as one ``(A, B * group, ...)`` filter that
    is zero between groups: group ``i`` maps input channels ``[iB, (i+1)B)`` to outputs
    ``[iA/g, (i+1)A/g)``."""
    if group == 1:
        return w
    rows, cols = w.shape[0] // group, w.shape[1]
    full = numpy.zeros((w.shape[0], cols * group) + w.shape[2:], w.dtype)
    for i in range(group):
        full[i * rows:(i + 1) * rows, i * cols:(i + 1) * cols] = w[i * rows:(i + 1) * rows]
    return full


# -- the callables stored in ``forwards`` (objects, so that copies of the chain copy them) --

class _Call:
    """``func(x, *args, **kwargs)`` for a one-input layer."""

    def __init__(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.func, self.args, self.kwargs = func, args, kwargs

    def __call__(self, x: Any) -> Any:
        return self.func(x, *self.args, **self.kwargs)


class _ListArgument:
    """``func((x0, x1, ...), **kwargs)`` for a layer of several bottoms (Concat)."""

    def __init__(self, func: Callable[..., Any], **kwargs: Any) -> None:
        self.func, self.kwargs = func, kwargs

    def __call__(self, *xs: Any) -> Any:
        return self.func(xs, **self.kwargs)


class _CallChild:
    """Calls the child link by name at call time, so a copied chain calls its own child."""

    def __init__(self, owner: Chain, name: str, kwargs: Dict[str, Any]) -> None:
        self.owner, self.name, self.kwargs = owner, name, kwargs

    def __call__(self, *xs: Any) -> Any:
        return self.owner[self.name](*xs, **self.kwargs)


class _TestMode:
    """Runs a layer with ``chainlet.config.train`` off (BatchNorm with global statistics)."""

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func

    def __call__(self, *xs: Any) -> Any:
        with _config.using_config('train', False):
            return self.func(*xs)


class _GlobalPooling:
    """Pooling whose window is the whole feature map."""

    def __init__(self, func: Callable[..., Any], **kwargs: Any) -> None:
        self.func, self.kwargs = func, kwargs

    def __call__(self, x: Any) -> Any:
        return self.func(x, x.shape[2:], **self.kwargs)


class _Reshape:
    """Caffe's Reshape: ``dims`` replace the axes ``[axis, axis + num_axes)`` of the input
    (all from ``axis`` when ``num_axes`` is -1); a 0 copies the input's size there and one -1
    is inferred."""

    def __init__(self, dims: List[int], axis: int, num_axes: int) -> None:
        self.dims, self.axis, self.num_axes = dims, axis, num_axes

    def __call__(self, x: Any) -> Any:
        shape = x.shape
        start = self.axis if self.axis >= 0 else len(shape) + self.axis + 1
        end = len(shape) if self.num_axes == -1 else start + self.num_axes
        if not 0 <= start <= end <= len(shape):
            raise ValueError(f'Reshape: axis {self.axis} and num_axes {self.num_axes} do not '
                             f'fit an input of shape {shape}')
        dims = [shape[start + i] if d == 0 else d for i, d in enumerate(self.dims)]
        return reshape(x, tuple(shape[:start]) + tuple(dims) + tuple(shape[end:]))


class _Power:
    """``(shift + scale * x) ** power``."""

    def __init__(self, power: float, scale: float, shift: float) -> None:
        self.power, self.scale, self.shift = power, scale, shift

    def __call__(self, x: Any) -> Any:
        h = x if isinstance(x, Variable) else Variable(x)
        if self.scale != 1:
            h = h * self.scale
        if self.shift != 0:
            h = h + self.shift
        return h ** self.power if self.power != 1 else h


class _Eltwise:
    """Caffe's Eltwise: product (0), weighted sum (1) or maximum (2) of the bottoms."""

    def __init__(self, operation: int, coeffs: Optional[List[float]] = None) -> None:
        self.operation, self.coeffs = operation, coeffs

    def __call__(self, *xs: Any) -> Any:
        xs = tuple(x if isinstance(x, Variable) else Variable(x) for x in xs)
        if self.operation == 0:
            y = xs[0]
            for x in xs[1:]:
                y = y * x
        elif self.operation == 1:
            if self.coeffs is not None:
                xs = tuple(x * c if c != 1 else x for x, c in zip(xs, self.coeffs))
            y = xs[0]
            for x in xs[1:]:
                y = y + x
        else:
            y = xs[0]
            for x in xs[1:]:
                y = maximum(y, x)
        return y


class _SoftmaxWithLoss:
    """Softmax cross entropy normalized as Caffe's ``LossParameter`` says: by the targets
    not ignored (VALID, 1), all targets (FULL, 0), the batch size (BATCH_SIZE, 2) or not at
    all (NONE, 3)."""

    def __init__(self, mode: int, ignore_label: Optional[int]) -> None:
        self.mode, self.ignore_label = mode, ignore_label

    def __call__(self, x: Any, t: Any) -> Any:
        ignore = -1 if self.ignore_label is None else self.ignore_label
        if self.mode in (1, 2):
            return softmax_cross_entropy(x, t, normalize=self.mode == 1, ignore_label=ignore)
        losses = softmax_cross_entropy(x, t, ignore_label=ignore, reduce='no')
        total = _sum(losses)
        if self.mode == 0:
            total = total / max(int(losses.size), 1)
        return total
