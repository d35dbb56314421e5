"""Export a model's computational graph to Caffe (``.prototxt`` and ``.caffemodel``).

:func:`export` runs the model once on the given inputs in test mode, with backprop forced on
so that the graph is recorded, and with a function hook that keeps each function's input
arrays (parameters included, and constants that no Variable holds any more). It then walks
the graph from the outputs, orders the functions by rank (a function comes after the ones
that produce its inputs) and converts each to a Caffe layer named ``<label>-<rank>-<k>``
(Chainer's names: ``Convolution2DFunction-0-1``); a layer's top blob has the layer's name and
the model input is the blob ``data``. The whole network is converted before any file is
written, and files are replaced atomically, so an unsupported function leaves the folder as it
was.

Supported functions (Chainer's list, plus TanH, differences, products, maxima and scalar
affine maps): ``linear``, ``convolution_2d``, ``deconvolution_2d`` (with groups and
dilation), ``max_pooling_2d``, ``average_pooling_2d``, ``local_response_normalization``,
``fixed_batch_normalization`` (what ``BatchNormalization`` runs in test mode; written as a
BatchNorm layer followed by a Scale layer), ``relu``, ``leaky_relu``, ``sigmoid``, ``tanh``,
``softmax``, ``concat``, ``reshape``, ``x + y``, ``x - y``, ``x * y``, ``maximum`` (Eltwise)
and ``x + c``, ``x - c``, ``c - x``, ``x * c``, ``x / c``, ``x ** c`` with scalar ``c``
(Power). ``dropout`` builds no node in test mode and so needs no layer.
"""
from __future__ import annotations

import collections
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy

from chainlet import _atomic, _config, backend
from chainlet.function_hooks.function_hook import FunctionHook
from chainlet.functions.activation.leaky_relu import LeakyReLU
from chainlet.functions.activation.relu import ReLU
from chainlet.functions.activation.sigmoid import Sigmoid
from chainlet.functions.activation.softmax import Softmax
from chainlet.functions.activation.tanh import Tanh
from chainlet.functions.array.concat import Concat
from chainlet.functions.array.reshape import Reshape
from chainlet.functions.connection.convolution_nd import ConvolutionND
from chainlet.functions.connection.deconvolution_nd import DeconvolutionND
from chainlet.functions.connection.linear import LinearFunction
from chainlet.functions.math import basic_math
from chainlet.functions.math.maximum import Maximum
from chainlet.functions.normalization.batch_normalization import FixedBatchNormalization
from chainlet.functions.normalization.local_response_normalization import (
    LocalResponseNormalization)
from chainlet.functions.pooling.average_pooling_nd import AveragePoolingND
from chainlet.functions.pooling.max_pooling_nd import MaxPoolingND
from chainlet.variable import Variable

PROTOTXT = 'chainer_model.prototxt'
CAFFEMODEL = 'chainer_model.caffemodel'


class _InputRecorder(FunctionHook):
    """Keeps the input arrays of every function applied while it is active."""

    name = 'caffe_export_inputs'

    def __init__(self) -> None:
        self.inputs: Dict[Any, Tuple[Any, ...]] = {}

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self.inputs[function] = tuple(in_data)


def export(model: Callable[..., Any], args: Sequence[Any], directory: Optional[str] = None,
           export_params: bool = True, graph_name: str = 'Graph') -> None:
    """(Experimental) Export the computational graph of ``model(*args)`` in Caffe's format.

    The model runs once with ``chainlet.config.train`` off (so ``BatchNormalization`` uses its
    running statistics and ``dropout`` is the identity). The network definition goes to
    ``<directory>/chainer_model.prototxt`` (text, with an ``Input`` layer giving the input
    shape) and, with ``export_params``, the network with its weights to
    ``<directory>/chainer_model.caffemodel`` (binary). Layers are named after the functions
    (``LinearFunction-3-1``); each layer's top blob has the layer's name and the input blob is
    ``data`` (``data0``, ``data1``, ... for several inputs). Needs the ``protobuf`` package
    (``pip install "chainlet-dl[caffe]"``).

    Args:
        model: A callable (usually a :class:`~chainlet.Chain`) returning a Variable or a
            list/tuple of Variables.
        args: List or tuple of the inputs given to ``model`` (Variables or arrays).
        directory: Folder to write to (created if missing); ``None`` converts the graph
            without writing anything (a check that it can be exported).
        export_params: Also write the ``.caffemodel`` with the weights.
        graph_name: The ``name`` of the network in the files.

    Raises:
        TypeError: ``args`` is not a list or tuple, or the model returns something other than
            Variables.
        ValueError: The graph uses a function with no Caffe layer (the message names it and
            the layer it would have become), or a setting Caffe cannot express.
        ImportError: The ``protobuf`` package is missing.

    Example:
        >>> import pytest; _ = pytest.importorskip('google.protobuf')  # needs protobuf
        >>> import os, tempfile, numpy as np, chainlet, chainlet.links as L
        >>> import chainlet.functions as F
        >>> from chainlet.exporters import caffe
        >>> class Model(chainlet.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l1 = L.Convolution2D(None, 1, 1, 1, 0)
        ...             self.b2 = L.BatchNormalization(1)
        ...             self.l3 = L.Linear(None, 1)
        ...     def forward(self, x):
        ...         return self.l3(self.b2(F.relu(self.l1(x))))
        >>> x = chainlet.Variable(np.zeros((1, 10, 10, 10), np.float32))
        >>> with tempfile.TemporaryDirectory() as d:
        ...     caffe.export(Model(), [x], d, True, 'test')
        ...     sorted(os.listdir(d))
        ['chainer_model.caffemodel', 'chainer_model.prototxt']
    """
    from chainlet.links.caffe.protobuf3 import caffe_pb2

    NetParameter = caffe_pb2.NetParameter  # first, for its ImportError naming the extra
    if not isinstance(args, (tuple, list)):
        raise TypeError(f'caffe.export: args must be a list or tuple of the model inputs, got '
                        f'{type(args).__name__}')
    if not args:
        raise ValueError('caffe.export: args is empty; give the inputs of the model')
    inputs = [a if isinstance(a, Variable) else Variable(a) for a in args]
    recorder = _InputRecorder()
    with _config.force_backprop_mode(), _config.using_config('train', False), recorder:
        outputs = model(*inputs)
    if isinstance(outputs, Variable):
        outputs = [outputs]
    if not isinstance(outputs, (tuple, list)) or not all(
            isinstance(y, Variable) for y in outputs):
        raise TypeError(f'caffe.export: the model must return a Variable or a list/tuple of '
                        f'Variables, got {type(outputs).__name__}')

    net = _Converter(caffe_pb2, inputs, recorder.inputs).convert(outputs)
    net.name = graph_name
    if directory is None:
        return
    from google.protobuf import text_format

    definition = NetParameter()
    definition.CopyFrom(net)
    for layer in definition.layer:
        del layer.blobs[:]
    os.makedirs(directory, exist_ok=True)
    _atomic.write_text(os.path.join(directory, PROTOTXT),
                       text_format.MessageToString(definition))
    if export_params:
        _atomic.write_bytes(os.path.join(directory, CAFFEMODEL), net.SerializeToString())


def _output_size(size: int, k: int, s: int, p: int, d: int = 1, ceil: bool = False) -> int:
    extent = d * (k - 1) + 1
    span = size + 2 * p - extent
    return (span + s - 1) // s + 1 if ceil else span // s + 1


class _Converter:
    """Turns the function nodes reachable from some outputs into a ``NetParameter``."""

    def __init__(self, pb: Any, inputs: List[Variable], recorded: Dict[Any, tuple]) -> None:
        self.pb = pb
        self.recorded = recorded
        self.input_blobs = {id(x.node): ('data' if len(inputs) == 1 else f'data{i}')
                            for i, x in enumerate(inputs)}
        self.input_shapes = [x.shape for x in inputs]
        self.blob_of: Dict[int, str] = {}  # id(VariableNode) -> blob name
        self.counts: Dict[str, Dict[Any, int]] = collections.defaultdict(dict)
        self.net = pb.NetParameter()

    # -- graph --

    def _functions(self, outputs: Sequence[Variable]) -> List[Any]:
        """The function nodes the outputs depend on, each after the producers of its inputs
        (ascending rank; discovery order among equal ranks)."""
        seen: Dict[Any, int] = {}
        stack = [y.node.creator_node for y in outputs if y.node.creator_node is not None]
        while stack:
            func = stack.pop()
            if func in seen:
                continue
            seen[func] = len(seen)
            stack.extend(x.creator_node for x in func.inputs if x.creator_node is not None)
        return sorted(seen, key=lambda f: (f.rank, -seen[f]))

    def _layer_name(self, func: Any) -> str:
        label = f'{func.label}-{func.rank}'
        known = self.counts[label]
        known.setdefault(func, len(known) + 1)
        return f'{label}-{known[func]}'

    def _bottom(self, func: Any, index: int, name: str) -> str:
        node = func.inputs[index]
        blob = self.blob_of.get(id(node)) or self.input_blobs.get(id(node))
        if blob is None:
            raise ValueError(f'caffe.export: input {index} of {func.label} (layer {name}) is '
                             f'neither a model input nor computed from one; Caffe layers can '
                             f'only take blobs of the network (pass it in args)')
        return blob

    def convert(self, outputs: Sequence[Variable]) -> Any:
        input_layer = self.net.layer.add(name='data', type='Input',
                                         top=list(dict.fromkeys(self.input_blobs.values())))
        for shape in self.input_shapes:
            input_layer.input_param.shape.add(dim=list(shape))
        for func in self._functions(outputs):
            name = self._layer_name(func)
            converter = None
            for cls in type(func).__mro__:
                converter = _CONVERTERS.get(cls)
                if converter is not None:
                    break
            if converter is None or func not in self.recorded:
                raise ValueError(f'caffe.export: cannot convert {func.label} '
                                 f'({type(func).__name__}, layer {name}) to a Caffe layer; '
                                 f'supported: {_SUPPORTED}')
            converter(self, func, name, self.recorded[func])
            self.blob_of[id(func.outputs[0]())] = name
        return self.net

    def _add(self, func: Any, name: str, type_name: str, bottoms: Sequence[int] = (0,),
             top: Optional[str] = None) -> Any:
        layer = self.net.layer.add(name=name, type=type_name, phase=self.pb.TEST)
        layer.bottom.extend(self._bottom(func, i, name) for i in bottoms)
        layer.top.append(top or name)
        return layer

    def _fail(self, func: Any, name: str, message: str) -> ValueError:
        return ValueError(f'caffe.export: {func.label} (layer {name}): {message}')

    # -- converters: (self, func, layer name, the function's input arrays) --

    def _linear(self, func: Any, name: str, data: tuple) -> None:
        W = data[1]
        layer = self._add(func, name, 'InnerProduct')
        layer.inner_product_param.num_output = W.shape[0]
        layer.inner_product_param.bias_term = len(data) == 3
        _add_blob(layer, W)
        if len(data) == 3:
            _add_blob(layer, data[2])

    def _convolution(self, func: Any, name: str, data: tuple) -> None:
        x, W = data[:2]
        if func.ndim != 2:
            raise self._fail(func, name, f'{func.ndim}-D convolutions have no Caffe layer')
        out_shape = func.outputs[0]().shape
        expected = tuple(_output_size(*args) for args in zip(
            x.shape[2:], W.shape[2:], func.stride, func.pad, func.dilate))
        if expected != out_shape[2:]:
            raise self._fail(func, name, f'output size {out_shape[2:]} differs from the '
                                         f'{expected} Caffe computes (cover_all=True)')
        layer = self._add(func, name, 'Convolution')
        self._conv_param(layer.convolution_param, func, W, W.shape[0], len(data) == 3)
        _add_blob(layer, W)
        if len(data) == 3:
            _add_blob(layer, data[2])

    def _deconvolution(self, func: Any, name: str, data: tuple) -> None:
        x, W = data[:2]
        if func.ndim != 2:
            raise self._fail(func, name, f'{func.ndim}-D deconvolutions have no Caffe layer')
        out_shape = func.outputs[0]().shape
        expected = tuple(s * (n - 1) + d * (k - 1) + 1 - 2 * p for n, k, s, p, d in zip(
            x.shape[2:], W.shape[2:], func.stride, func.pad, func.dilate))
        if expected != out_shape[2:]:
            raise self._fail(func, name, f'output size {out_shape[2:]} (outsize) differs from '
                                         f'the {expected} Caffe computes')
        layer = self._add(func, name, 'Deconvolution')
        self._conv_param(layer.convolution_param, func, W, W.shape[1] * func.groups,
                         len(data) == 3)
        _add_blob(layer, W)
        if len(data) == 3:
            _add_blob(layer, data[2])

    @staticmethod
    def _conv_param(param: Any, func: Any, W: Any, num_output: int, bias: bool) -> None:
        param.num_output = num_output
        param.bias_term = bias
        param.kernel_h, param.kernel_w = W.shape[2:]
        param.stride_h, param.stride_w = func.stride
        param.pad_h, param.pad_w = func.pad
        param.group = func.groups
        if tuple(func.dilate) != (1, 1):
            param.dilation.extend(func.dilate)

    def _pooling(self, func: Any, name: str, data: tuple) -> None:
        x, = data
        if func.ndim != 2:
            raise self._fail(func, name, f'{func.ndim}-D pooling has no Caffe layer')
        is_max = isinstance(func, MaxPoolingND)
        if not is_max and func.pad_value is None and any(func.pad):
            raise self._fail(func, name, 'average pooling with pad_value=None (padding left '
                                         'out of the average) has no Caffe equivalent')
        sizes = [(_output_size(n, k, s, p), _output_size(n, k, s, p, ceil=True))
                 for n, k, s, p in zip(x.shape[2:], func.ksize, func.stride, func.pad)]
        out = func.outputs[0]().shape[2:]
        floor, ceil = tuple(f for f, _ in sizes), tuple(c for _, c in sizes)
        layer = self._add(func, name, 'Pooling')
        param = layer.pooling_param
        param.pool = param.MAX if is_max else param.AVE
        param.kernel_h, param.kernel_w = func.ksize
        param.stride_h, param.stride_w = func.stride
        param.pad_h, param.pad_w = func.pad
        if out != ceil:  # Caffe rounds up by default; say so only where it matters
            if out != floor:
                raise self._fail(func, name, f'output size {out} is neither of Caffe\'s '
                                             f'{ceil} and {floor}')
            param.round_mode = param.FLOOR

    def _lrn(self, func: Any, name: str, data: tuple) -> None:
        if func.n % 2 == 0:
            raise self._fail(func, name, f'Caffe\'s LRN needs an odd window size, got n='
                                         f'{func.n}')
        param = self._add(func, name, 'LRN').lrn_param
        param.norm_region = param.ACROSS_CHANNELS
        param.local_size = func.n
        param.k = func.k
        param.alpha = func.alpha * func.n  # Caffe divides alpha by the window size
        param.beta = func.beta

    def _batch_normalization(self, func: Any, name: str, data: tuple) -> None:
        x, gamma, beta, mean, var = data
        channels = x.shape[1] if x.ndim >= 2 else None
        if gamma.ndim != 1 or gamma.shape[0] != channels or func.axes != tuple(
                i for i in range(x.ndim) if i != 1):
            raise self._fail(func, name, 'Caffe\'s BatchNorm normalizes each channel (axis 1) '
                                         'over all other axes; this one does not')
        bn = self._add(func, name, 'BatchNorm', top=f'{name}_bn')
        bn.name = f'{name}_bn'
        bn.batch_norm_param.use_global_stats = True
        bn.batch_norm_param.eps = func.eps
        _add_blob(bn, mean)
        _add_blob(bn, var)
        _add_blob(bn, numpy.ones((1,), numpy.float32))
        scale = self.net.layer.add(name=name, type='Scale', bottom=[bn.top[0]], top=[name],
                                   phase=self.pb.TEST)
        scale.scale_param.axis = 1
        scale.scale_param.bias_term = True
        _add_blob(scale, gamma)
        _add_blob(scale, beta)

    def _relu(self, func: Any, name: str, data: tuple) -> None:
        self._add(func, name, 'ReLU')

    def _leaky_relu(self, func: Any, name: str, data: tuple) -> None:
        self._add(func, name, 'ReLU').relu_param.negative_slope = func.slope

    def _sigmoid(self, func: Any, name: str, data: tuple) -> None:
        self._add(func, name, 'Sigmoid')

    def _tanh(self, func: Any, name: str, data: tuple) -> None:
        self._add(func, name, 'TanH')

    def _softmax(self, func: Any, name: str, data: tuple) -> None:
        layer = self._add(func, name, 'Softmax')
        if func.axis != 1:
            layer.softmax_param.axis = func.axis

    def _concat(self, func: Any, name: str, data: tuple) -> None:
        layer = self._add(func, name, 'Concat', bottoms=range(len(data)))
        layer.concat_param.axis = func.axis

    def _reshape(self, func: Any, name: str, data: tuple) -> None:
        x, = data
        shape = list(func.outputs[0]().shape)
        if shape and x.ndim and shape[0] == x.shape[0]:
            shape[0] = 0  # "copy the bottom's size": the net then runs at any batch size
        self._add(func, name, 'Reshape').reshape_param.shape.dim.extend(shape)

    def _eltwise(self, func: Any, name: str, data: tuple) -> None:
        if len({x.shape for x in data}) != 1:
            raise self._fail(func, name, f'Caffe\'s Eltwise needs inputs of one shape, got '
                                         f'{[x.shape for x in data]} (no broadcasting)')
        layer = self._add(func, name, 'Eltwise', bottoms=range(len(data)))
        param = layer.eltwise_param
        if isinstance(func, basic_math.Sub):
            param.coeff.extend([1.0, -1.0])
        elif isinstance(func, basic_math.Mul):
            param.operation = param.PROD
        elif isinstance(func, Maximum):
            param.operation = param.MAX

    def _power(self, func: Any, name: str, data: tuple) -> None:
        value = func.value
        value = numpy.asarray(backend.to_cpu(value) if backend.is_array(value) else value)
        if value.size != 1:
            raise self._fail(func, name, 'only a scalar constant has a Caffe layer (Power)')
        c = float(value.ravel()[0])
        param = self._add(func, name, 'Power').power_param
        if isinstance(func, basic_math.AddConstant):
            param.shift = c
        elif isinstance(func, basic_math.SubFromConstant):
            param.scale, param.shift = -1.0, c
        elif isinstance(func, basic_math.MulConstant):
            param.scale = c
        elif isinstance(func, basic_math.DivByConstant):
            param.scale = 1.0 / c
        else:  # PowVarConst
            param.power = c


def _add_blob(layer: Any, array: Any) -> None:
    array = numpy.asarray(backend.to_cpu(array), dtype=numpy.float32)
    blob = layer.blobs.add()
    blob.shape.dim.extend(array.shape)
    blob.data.extend(array.ravel().tolist())


_CONVERTERS: Dict[type, Callable[..., None]] = {
    LinearFunction: _Converter._linear,
    ConvolutionND: _Converter._convolution,
    DeconvolutionND: _Converter._deconvolution,
    MaxPoolingND: _Converter._pooling,
    AveragePoolingND: _Converter._pooling,
    LocalResponseNormalization: _Converter._lrn,
    FixedBatchNormalization: _Converter._batch_normalization,
    ReLU: _Converter._relu,
    LeakyReLU: _Converter._leaky_relu,
    Sigmoid: _Converter._sigmoid,
    Tanh: _Converter._tanh,
    Softmax: _Converter._softmax,
    Concat: _Converter._concat,
    Reshape: _Converter._reshape,
    basic_math.Add: _Converter._eltwise,
    basic_math.Sub: _Converter._eltwise,
    basic_math.Mul: _Converter._eltwise,
    Maximum: _Converter._eltwise,
    basic_math.AddConstant: _Converter._power,
    basic_math.SubFromConstant: _Converter._power,
    basic_math.MulConstant: _Converter._power,
    basic_math.DivByConstant: _Converter._power,
    basic_math.PowVarConst: _Converter._power,
}
_SUPPORTED = ('linear, convolution_2d, deconvolution_2d, max_pooling_2d, average_pooling_2d, '
              'local_response_normalization, fixed_batch_normalization, relu, leaky_relu, '
              'sigmoid, tanh, softmax, concat, reshape, maximum, x + y, x - y, x * y, and x + c, '
              'x - c, c - x, x * c, x / c, x ** c for a scalar c')
