"""ONNX converters of chainlet's functions, keyed by FunctionNode class name.

A converter is ``convert(g, f, ins, outs)``: ``g`` is the :class:`GraphBuilder`, ``f`` the
traced :class:`~chainlet.FunctionNode` (its hyper-parameters and ``f.inputs[i].shape``/``dtype``
describe the call), ``ins`` the ONNX names of its inputs and ``outs`` the names its outputs must
be written to. Composite chainlet functions (``average`` with weights, ``layer_normalization``'s
affine part, ``Linear`` links with ``n_batch_axes``) arrive as their primitives, so only
primitives are here (``mean`` is one: a float16 sum would overflow before its division).
Where ONNX has no single operator (ELU with a rate, ``softplus`` with ``beta``, the LSTM cell)
the converter writes the same formula with elementary operators.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy

from chainlet.onnx._graph import INT64_MAX, INT64_MIN, GraphBuilder, UnsupportedFunctionError

Converter = Callable[[GraphBuilder, Any, list, list], None]
CONVERTERS: dict[str, Converter] = {}


def converter(*names: str) -> Callable[[Converter], Converter]:
    def register(fn: Converter) -> Converter:
        for name in names:
            CONVERTERS[name] = fn
        return fn
    return register


def _unsupported(f: Any, why: str) -> UnsupportedFunctionError:
    return UnsupportedFunctionError(f'{f.label} ({type(f).__name__}): {why}')


def _out_shape(f: Any, i: int = 0) -> tuple:
    node = f.outputs[i]()
    if node is None:
        raise _unsupported(f, f'output {i} was freed before the export read its shape')
    return tuple(node.shape)


def _dtype(f: Any, i: int = 0) -> numpy.dtype:
    return numpy.dtype(f.inputs[i].dtype)


# -- element-wise --

_UNARY = {'ReLU': 'Relu', 'Sigmoid': 'Sigmoid', 'Tanh': 'Tanh', 'Exp': 'Exp', 'Log': 'Log',
          'Sqrt': 'Sqrt', 'Neg': 'Neg', 'Absolute': 'Abs', 'Sin': 'Sin', 'Cos': 'Cos',
          'Tan': 'Tan', 'Arcsin': 'Asin', 'Arccos': 'Acos', 'Arctan': 'Atan', 'Sinh': 'Sinh',
          'Cosh': 'Cosh', 'Erf': 'Erf', 'Floor': 'Floor', 'Ceil': 'Ceil', 'Sign': 'Sign',
          'Identity': 'Identity', 'Copy': 'Identity'}
_BINARY = {'Sub': 'Sub', 'Mul': 'Mul', 'Div': 'Div', 'PowVarVar': 'Pow', 'MatMul': 'MatMul',
           'Maximum': 'Max', 'Minimum': 'Min'}


def _unary(op_type: str) -> Converter:
    def convert(g, f, ins, outs):
        for x, y in zip(ins, outs):  # Identity takes several inputs
            g.op(op_type, [x], y)
    return convert


def _binary(op_type: str) -> Converter:
    def convert(g, f, ins, outs):
        g.op(op_type, ins, outs[0])
    return convert


for _name, _op in _UNARY.items():
    CONVERTERS[_name] = _unary(_op)
for _name, _op in _BINARY.items():
    CONVERTERS[_name] = _binary(_op)


@converter('Add')
def _add(g, f, ins, outs):
    g.op('Add' if len(ins) == 2 else 'Sum', ins, outs[0])


def _with_constant(op_type: str, constant_first: bool) -> Converter:
    def convert(g, f, ins, outs):
        value = numpy.asarray(f.value, dtype=_dtype(f))
        twin = g.twin(f)
        if twin is not None and not numpy.array_equal(numpy.asarray(twin.value), f.value):
            warnings.warn(f'chainlet.onnx.export: {f.label} uses the constant {f.value!r}, '
                          f'which changes with the batch size (a mean over the batch axis?); '
                          f'the exported graph keeps the traced value', stacklevel=2)
        c = g.scalar(value, value.dtype) if value.ndim == 0 else g.const(value)
        g.op(op_type, [c, ins[0]] if constant_first else [ins[0], c], outs[0])
    return convert


CONVERTERS.update({
    'AddConstant': _with_constant('Add', False), 'SubFromConstant': _with_constant('Sub', True),
    'MulConstant': _with_constant('Mul', False), 'DivByConstant': _with_constant('Div', False),
    'DivFromConstant': _with_constant('Div', True), 'PowVarConst': _with_constant('Pow', False),
    'PowConstVar': _with_constant('Pow', True)})


@converter('Square')
def _square(g, f, ins, outs):
    g.op('Mul', [ins[0], ins[0]], outs[0])


@converter('Rsqrt')
def _rsqrt(g, f, ins, outs):
    g.op('Reciprocal', [g.op('Sqrt', ins)], outs[0])


@converter('Log1p')
def _log1p(g, f, ins, outs):
    g.op('Log', [g.op('Add', [ins[0], g.scalar(1, _dtype(f))])], outs[0])


@converter('Expm1')
def _expm1(g, f, ins, outs):
    g.op('Sub', [g.op('Exp', ins), g.scalar(1, _dtype(f))], outs[0])


@converter('LinearInterpolate')
def _linear_interpolate(g, f, ins, outs):
    p, x, y = ins  # y + p * (x - y), in chainlet's order of operations
    g.op('Add', [g.op('Mul', [g.op('Sub', [x, y]), p]), y], outs[0])


@converter('Clip')
def _clip(g, f, ins, outs):
    dt = _dtype(f)
    lo = '' if f.x_min is None else g.scalar(f.x_min, dt)
    hi = '' if f.x_max is None else g.scalar(f.x_max, dt)
    g.op('Clip', [ins[0], lo, hi], outs[0])


@converter('Cast')
def _cast(g, f, ins, outs):
    g.op('Cast', ins, outs[0], to=g.onnx.helper.np_dtype_to_tensor_dtype(f.type))


# -- activations --

@converter('LeakyReLU')
def _leaky_relu(g, f, ins, outs):
    g.op('LeakyRelu', ins, outs[0], alpha=float(f.slope))


@converter('ClippedReLU')
def _clipped_relu(g, f, ins, outs):
    dt = _dtype(f)
    g.op('Clip', [ins[0], g.scalar(0, dt), g.scalar(f.z, dt)], outs[0])


@converter('HardSigmoid')
def _hard_sigmoid(g, f, ins, outs):
    g.op('HardSigmoid', ins, outs[0], alpha=0.2, beta=0.5)


@converter('ELU', 'Selu')
def _elu(g, f, ins, outs):
    if f.scale == 1.0 and f.rate == 1.0:
        g.op('Elu', ins, outs[0], alpha=float(f.alpha))
        return
    if f.rate == 1.0:
        g.op('Selu', ins, outs[0], alpha=float(f.alpha), gamma=float(f.scale))
        return
    # scale * (x if x > 0 else alpha * (exp(rate * x) - 1)); exp only sees min(x, 0)
    dt, x = _dtype(f), ins[0]
    neg = g.op('Exp', [g.op('Mul', [g.op('Min', [x, g.scalar(0, dt)]), g.scalar(f.rate, dt)])])
    neg = g.op('Mul', [g.op('Sub', [neg, g.scalar(1, dt)]), g.scalar(f.alpha * f.scale, dt)])
    pos = g.op('Mul', [x, g.scalar(f.scale, dt)])
    g.op('Where', [g.op('Greater', [x, g.scalar(0, dt)]), pos, neg], outs[0])


@converter('Softplus')
def _softplus(g, f, ins, outs):
    if f.beta == 1.0:
        g.op('Softplus', ins, outs[0])
        return
    dt = _dtype(f)
    y = g.op('Softplus', [g.op('Mul', [ins[0], g.scalar(f.beta, dt)])])
    g.op('Div', [y, g.scalar(f.beta, dt)], outs[0])


@converter('GELU')
def _gelu(g, f, ins, outs):
    dt, x = _dtype(f), ins[0]
    cdf = g.op('Erf', [g.op('Mul', [x, g.scalar(1 / math.sqrt(2), dt)])])
    cdf = g.op('Mul', [g.op('Add', [cdf, g.scalar(1, dt)]), g.scalar(0.5, dt)])
    g.op('Mul', [x, cdf], outs[0])


def _extended(g, w: str, w_shape: tuple, x_ndim: int) -> str:
    """``w`` (the shape of ``x.shape[1:1 + w.ndim]``) reshaped to broadcast against ``x``."""
    return g.op('Reshape', [w, g.ints(tuple(w_shape) + (1,) * (x_ndim - 1 - len(w_shape)))])


@converter('PReLUFunction')
def _prelu(g, f, ins, outs):
    slope = _extended(g, ins[1], f.inputs[1].shape, len(f.inputs[0].shape))
    g.op('PRelu', [ins[0], slope], outs[0])


@converter('Swish')
def _swish(g, f, ins, outs):
    beta = _extended(g, ins[1], f.inputs[1].shape, len(f.inputs[0].shape))
    g.op('Mul', [ins[0], g.op('Sigmoid', [g.op('Mul', [beta, ins[0]])])], outs[0])


@converter('SiLU')
def _silu(g, f, ins, outs):
    g.op('Mul', [ins[0], g.op('Sigmoid', ins)], outs[0])


@converter('Softmax')
def _softmax(g, f, ins, outs):
    g.op('Softmax', ins, outs[0], axis=int(f.axis))


@converter('LogSoftmax')
def _log_softmax(g, f, ins, outs):
    g.op('LogSoftmax', ins, outs[0], axis=int(f.axis))


# -- reductions --

@converter('Sum')
def _sum(g, f, ins, outs):
    g.reduce('ReduceSum', ins[0], f.axis, f.keepdims, outs[0])


@converter('Mean')
def _mean(g, f, ins, outs):
    g.reduce('ReduceMean', ins[0], f.axis, f.keepdims, outs[0])


@converter('Max', 'Min')
def _max_min(g, f, ins, outs):
    g.reduce('ReduceMax' if type(f).__name__ == 'Max' else 'ReduceMin', ins[0], f.axis,
             f.keepdims, outs[0])


# -- arrays --

@converter('Reshape')
def _reshape(g, f, ins, outs):
    shape = list(_out_shape(f))
    twin = g.twin_shape(f, 0)
    if twin is not None and len(twin) == len(shape):
        grown = [k for k, (a, b) in enumerate(zip(shape, twin)) if a != b]
        if len(grown) == 1:  # the axis that carries the batch: -1 lets it follow the input
            shape[grown[0]] = -1
    elif ins[0] in g.dynamic and shape and 0 not in shape[1:]:
        shape[0] = -1  # no second trace: assume the batch is folded into axis 0
    g.op('Reshape', [ins[0], g.ints(shape)], outs[0])


@converter('BroadcastTo')
def _broadcast_to(g, f, ins, outs):
    shape = list(_out_shape(f))
    in_shape = tuple(f.inputs[0].shape)
    offset = len(shape) - len(in_shape)
    for k, n in enumerate(in_shape):  # Expand broadcasts both ways: 1 keeps the input's size
        if shape[offset + k] == n:
            shape[offset + k] = 1
    g.op('Expand', [ins[0], g.ints(shape)], outs[0])


@converter('Transpose')
def _transpose(g, f, ins, outs):
    ndim = len(f.inputs[0].shape)
    axes = tuple(range(ndim))[::-1] if f.axes is None else tuple(a % ndim for a in f.axes)
    g.op('Transpose', ins, outs[0], perm=list(axes))


@converter('Concat')
def _concat(g, f, ins, outs):
    g.op('Concat', ins, outs[0], axis=int(f.axis))


@converter('Stack')
def _stack(g, f, ins, outs):
    ndim = len(f.inputs[0].shape) + 1
    axis = f.axis % ndim
    g.op('Concat', [g.unsqueeze(x, [axis]) for x in ins], outs[0], axis=axis)


@converter('SplitAxis')
def _split_axis(g, f, ins, outs):
    shape = tuple(f.inputs[0].shape)
    axis = f.axis % len(shape)
    bounds = [0, *[min(max(int(i), 0), shape[axis]) for i in f.indices], shape[axis]]
    sizes = [b - a for a, b in zip(bounds[:-1], bounds[1:])]
    g.op_multi('Split', [ins[0], g.ints(sizes)], outs, axis=axis)


@converter('GetItem')
def _get_item(g, f, ins, outs):
    slices = f.slices if isinstance(f.slices, tuple) else (f.slices,)
    for s in slices:
        if not (s is None or s is Ellipsis or isinstance(s, (slice, int, numpy.integer))):
            raise _unsupported(f, f'only basic indexing (integers, slices, None, Ellipsis) '
                               f'is exported, got an index of type {type(s).__name__}')
    shape = tuple(f.inputs[0].shape)
    n_used = sum(1 for s in slices if s is not None and s is not Ellipsis)
    items: list = []
    for s in slices:
        if s is Ellipsis:
            items.extend([slice(None)] * (len(shape) - n_used))
        else:
            items.append(s)
    if not any(s is Ellipsis for s in slices):
        items.extend([slice(None)] * (len(shape) - n_used))
    starts, ends, axes, steps, picks, new_axes = [], [], [], [], [], []
    axis = out_axis = 0
    for s in items:
        if s is None:
            new_axes.append(out_axis)
            out_axis += 1
        elif isinstance(s, slice):
            if s != slice(None):
                step = 1 if s.step is None else int(s.step)
                lo, hi = (0, INT64_MAX) if step > 0 else (INT64_MAX, INT64_MIN)
                starts.append(lo if s.start is None else int(s.start))
                ends.append(hi if s.stop is None else int(s.stop))
                axes.append(axis)
                steps.append(step)
            axis += 1
            out_axis += 1
        else:
            picks.append((axis, int(s)))
            axis += 1
    x = ins[0]
    if axes:
        x = g.op('Slice', [x, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)])
    for a, index in reversed(picks):  # from the last axis so earlier axes keep their numbers
        x = g.op('Gather', [x, g.const(numpy.asarray(index, numpy.int64), 'Index')], axis=a)
    if new_axes:
        x = g.unsqueeze(x, new_axes)
    g.op('Identity', [x], outs[0])


# -- connections --

@converter('LinearFunction')
def _linear(g, f, ins, outs):
    x, w = ins[0], ins[1]
    if len(f.inputs[0].shape) == 2:
        g.op('Gemm', ins, outs[0], transB=1)
        return
    y = g.op('MatMul', [x, g.op('Transpose', [w], perm=[1, 0])])
    if len(ins) == 3:
        g.op('Add', [y, ins[2]], outs[0])
    else:
        g.op('Identity', [y], outs[0])


def _pads_end(f: Any, in_sizes: tuple, out_sizes: tuple, k_eff: tuple) -> list:
    """End paddings that give the traced output size (``cover_all`` adds to the end)."""
    return [max(p, (o - 1) * s + k - n - p)
            for n, o, s, k, p in zip(in_sizes, out_sizes, f.stride, k_eff, f.pad)]


@converter('Convolution2DFunction', 'ConvolutionND')
def _convolution(g, f, ins, outs):
    x_shape, w_shape = tuple(f.inputs[0].shape), tuple(f.inputs[1].shape)
    k_eff = tuple((k - 1) * d + 1 for k, d in zip(w_shape[2:], f.dilate))
    pads = list(f.pad) + _pads_end(f, x_shape[2:], _out_shape(f)[2:], k_eff)
    g.op('Conv', ins, outs[0], kernel_shape=list(w_shape[2:]), strides=list(f.stride),
         dilations=list(f.dilate), pads=pads, group=int(getattr(f, 'groups', 1)))


@converter('Deconvolution2DFunction', 'DeconvolutionND')
def _deconvolution(g, f, ins, outs):
    x_shape, w_shape = tuple(f.inputs[0].shape), tuple(f.inputs[1].shape)
    out = _out_shape(f)[2:]
    k_eff = [(k - 1) * d + 1 for k, d in zip(w_shape[2:], f.dilate)]
    natural = [s * (n - 1) + k - 2 * p for n, s, k, p in zip(x_shape[2:], f.stride, k_eff, f.pad)]
    groups = int(getattr(f, 'groups', 1))
    g.op('ConvTranspose', ins, outs[0], kernel_shape=list(w_shape[2:]), strides=list(f.stride),
         dilations=list(f.dilate), pads=list(f.pad) * 2, group=groups,
         output_padding=[o - n for o, n in zip(out, natural)])


@converter('EmbedIDFunction')
def _embed_id(g, f, ins, outs):
    x, w = ins
    if f.ignore_label is None:
        g.op('Gather', [w, x], outs[0], axis=0)
        return
    ignored = g.op('Equal', [x, g.scalar(f.ignore_label, _dtype(f))])
    safe = g.op('Where', [ignored, g.scalar(0, _dtype(f)), x])
    rows = g.op('Gather', [w, safe], axis=0)
    keep = g.op('Cast', [g.op('Not', [ignored])],
                to=g.onnx.helper.np_dtype_to_tensor_dtype(_dtype(f, 1)))
    g.op('Mul', [rows, g.unsqueeze(keep, [-1])], outs[0])


# -- pooling --

@converter('MaxPoolingND', 'MaxPooling2D')
def _max_pooling(g, f, ins, outs):
    x_shape = tuple(f.inputs[0].shape)
    pads = list(f.pad) + _pads_end(f, x_shape[2:], _out_shape(f)[2:], f.ksize)
    g.op('MaxPool', ins, outs[0], kernel_shape=list(f.ksize), strides=list(f.stride),
         pads=pads)


@converter('AveragePoolingND', 'AveragePooling2D')
def _average_pooling(g, f, ins, outs):
    if getattr(f, 'cover_all', False):
        raise _unsupported(f, 'cover_all=True has no ONNX AveragePool equivalent')
    pad_value = getattr(f, 'pad_value', 0)
    if pad_value not in (0, None):
        raise _unsupported(f, f'pad_value={pad_value!r} (ONNX pads with zeros or excludes pads)')
    g.op('AveragePool', ins, outs[0], kernel_shape=list(f.ksize), strides=list(f.stride),
         pads=list(f.pad) * 2, count_include_pad=int(pad_value is not None))


# -- normalization --

@converter('FixedBatchNormalization')
def _fixed_batch_normalization(g, f, ins, outs):
    x, gamma, beta, mean, var = ins
    ndim = len(f.inputs[0].shape)
    if tuple(f.axes) == (0, *range(2, ndim)) and len(f.inputs[1].shape) == 1:
        g.op('BatchNormalization', ins, outs[0], epsilon=float(f.eps))
        return
    # any other layout (channels last, several parameter axes): the same affine map
    dt = _dtype(f)
    scale = g.op('Div', [gamma, g.op('Sqrt', [g.op('Add', [var, g.scalar(f.eps, dt)])])])
    shift = g.op('Sub', [beta, g.op('Mul', [mean, scale])])
    bshape = g.ints(f.bshape)
    y = g.op('Mul', [x, g.op('Reshape', [scale, bshape])])
    g.op('Add', [y, g.op('Reshape', [shift, bshape])], outs[0])


@converter('Standardize')
def _standardize(g, f, ins, outs):
    # (x - mean) / sqrt(var + eps) over ``axes``; the second output (the inverse standard
    # deviation, kept for backward) is written too so every output has a producer.
    dt, x = _dtype(f), ins[0]
    centered = g.op('Sub', [x, g.reduce('ReduceMean', x, f.axes, True)])
    var = g.reduce('ReduceMean', g.op('Mul', [centered, centered]), f.axes, True)
    inv = g.op('Reciprocal', [g.op('Sqrt', [g.op('Add', [var, g.scalar(f.eps, dt)])])])
    g.op('Mul', [centered, inv], outs[0])
    for extra in outs[1:]:
        g.op('Identity', [inv], extra)


# -- recurrent --

@converter('LSTM')
def _lstm(g, f, ins, outs):
    c_prev, x = ins
    c_shape, x_shape = tuple(f.inputs[0].shape), tuple(f.inputs[1].shape)
    if len(x_shape) != 2 or c_shape[0] != x_shape[0]:
        raise _unsupported(f, 'only 2-d inputs with the batch of c_prev are exported')
    units = x_shape[1] // 4
    # pre-activations are interleaved (B, 4N) = (B, N, 4): gates a, i, f, o on the last axis
    r = g.op('Transpose', [g.op('Reshape', [x, g.ints([0, units, 4])])], perm=[2, 0, 1])
    a, i, fg, o = [g.op('Gather', [r, g.const(numpy.asarray(k, numpy.int64), 'Index')], axis=0)
                   for k in range(4)]
    c = g.op('Add', [g.op('Mul', [g.op('Tanh', [a]), g.op('Sigmoid', [i])]),
                     g.op('Mul', [g.op('Sigmoid', [fg]), c_prev])], outs[0])
    g.op('Mul', [g.op('Sigmoid', [o]), g.op('Tanh', [c])], outs[1])
