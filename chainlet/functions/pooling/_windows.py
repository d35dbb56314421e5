"""Window geometry and the four window nodes shared by the pooling functions (private).

A pooling geometry lays ``outs`` windows of size ``ksize`` with ``stride`` over an image of
spatial size ``dims`` padded by ``pad`` on both sides (and, with ``cover_all``, by up to
``stride - 1`` more cells at the end so that every pixel falls into some window). All work is
done on strided views of a padded *canvas*: one view per window offset, each as large as the
output, so the loops below run over the ``prod(ksize)`` offsets, never over pixels or batch
items.

The nodes come in two adjoint pairs (:class:`AdjointNode`), each the other's gradient, so
double backprop works:

* :class:`WindowScatter` (put each value at one chosen cell of its window; max pooling's
  gradient and ``upsampling_2d``) and :class:`WindowGather` (read the chosen cell of each
  window);
* :class:`WindowSpread` (copy each value to every cell of its window and add overlaps;
  ``unpooling_2d`` and average pooling's gradient) and :class:`WindowSum` (sum each window).
"""
from __future__ import annotations

import itertools
from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.connection._conv_utils import get_conv_outsize, get_deconv_outsize


def as_tuple(func: str, name: str, value: Any, ndim: int, minimum: int) -> tuple:
    """``value`` (an int or a sequence of ``ndim`` ints) as a tuple of ``ndim`` ints >= minimum.

    Raises ``TypeError`` for non-integers and ``ValueError`` for a wrong length or range.
    """
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, (bool, numpy.bool_)):
        values = (int(value),) * ndim
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise TypeError(f'{func}: argument {name}: expected an int or a tuple of {ndim} '
                            f'ints, got {type(value).__name__}') from None
        for v in values:
            if not isinstance(v, (int, numpy.integer)) or isinstance(v, (bool, numpy.bool_)):
                raise TypeError(f'{func}: argument {name}: expected an int or a tuple of '
                                f'{ndim} ints, got {value!r}')
        if len(values) != ndim:
            raise ValueError(f'{func}: argument {name}: expected an int or a tuple of {ndim} '
                             f'ints, got {value!r}')
        values = tuple(int(v) for v in values)
    if any(v < minimum for v in values):
        raise ValueError(f'{func}: argument {name}: expected values >= {minimum}, '
                         f'got {value!r}')
    return values


def pooling_params(func: str, ndim: int, ksize: Any, stride: Any, pad: Any) -> tuple:
    """Validate ``ksize``, ``stride`` (``None``: ``ksize``) and ``pad`` (each ``< ksize``)."""
    ksize = as_tuple(func, 'ksize', ksize, ndim, 1)
    stride = ksize if stride is None else as_tuple(func, 'stride', stride, ndim, 1)
    pad = as_tuple(func, 'pad', pad, ndim, 0)
    if any(p >= k for p, k in zip(pad, ksize)):
        raise ValueError(f'{func}: argument pad: expected values smaller than ksize {ksize}, '
                         f'got {pad}')
    return ksize, stride, pad


def check_fits(func: str, dims: tuple, ksize: tuple, pad: tuple) -> None:
    """Raise ``ValueError`` when a window is larger than the padded input."""
    padded = tuple(d + 2 * p for d, p in zip(dims, pad))
    if any(k > s for k, s in zip(ksize, padded)):
        raise ValueError(f'{func}: argument ksize: expected a window no larger than the padded '
                         f'input {padded} (spatial shape {dims}, pad {pad}), got {ksize}')


class Geometry:
    """Where the windows lie: ``outs`` windows of ``ksize`` cells every ``stride`` cells.

    The image (spatial shape ``dims``) sits at offset ``pad`` inside a canvas large enough to
    hold every window.
    """

    def __init__(self, ksize: tuple, stride: tuple, pad: tuple, dims: tuple,
                 outs: tuple) -> None:
        self.ksize, self.stride, self.pad = ksize, stride, pad
        self.dims, self.outs = tuple(dims), tuple(outs)
        self.canvas = tuple(max(d + 2 * p, (o - 1) * s + k)
                            for d, p, o, s, k in zip(dims, pad, outs, stride, ksize))
        self.padded = self.canvas != self.dims
        self.crop = (slice(None), slice(None)) + tuple(
            slice(p, p + d) for p, d in zip(pad, dims))
        self.overlap = any(k > s for k, s in zip(ksize, stride))
        # Every canvas cell lies in exactly one window: writes need no zero-filled canvas.
        self.tiles = all(k == s and o * k == c
                         for k, s, o, c in zip(ksize, stride, outs, self.canvas))
        self.size = 1
        for k in ksize:
            self.size *= k

    @classmethod
    def for_pooling(cls, ksize: tuple, stride: tuple, pad: tuple, dims: tuple,
                    cover_all: bool) -> 'Geometry':
        outs = tuple(get_conv_outsize(d, k, s, p, cover_all)
                     for d, k, s, p in zip(dims, ksize, stride, pad))
        return cls(ksize, stride, pad, dims, outs)

    def offsets(self) -> Any:
        """Window offsets in C order: the k-th one is the flat in-window index ``k``."""
        return itertools.product(*[range(k) for k in self.ksize])

    def window(self, offset: tuple) -> tuple:
        """Index of the view holding, for every window, its cell at ``offset``."""
        return (slice(None), slice(None)) + tuple(
            slice(j, j + s * (o - 1) + 1, s) for j, s, o in zip(offset, self.stride, self.outs))

    def pad_image(self, x: Any, value: float) -> Any:
        """The canvas holding ``x`` (``x`` itself when no padding is needed)."""
        if not self.padded:
            return x
        xp = backend.get_array_module(x)
        canvas = xp.full(x.shape[:2] + self.canvas, value, x.dtype)
        canvas[self.crop] = x
        return canvas

    def crop_canvas(self, canvas: Any) -> Any:
        if not self.padded:
            return canvas
        return backend.get_array_module(canvas).ascontiguousarray(canvas[self.crop])

    def out_shape(self, x_shape: tuple) -> tuple:
        return tuple(x_shape[:2]) + self.outs

    def image_shape(self, y_shape: tuple) -> tuple:
        return tuple(y_shape[:2]) + self.dims


def index_dtype(size: int) -> Any:
    """Smallest signed integer dtype that holds in-window indices ``0 .. size - 1``."""
    if size <= 127:
        return numpy.dtype(numpy.int8)
    if size <= 32767:
        return numpy.dtype(numpy.int16)
    return numpy.dtype(numpy.int32)


def max_windows(x: Any, geom: Geometry) -> tuple:
    """Maximum of every window and the flat in-window index of its first maximum.

    The maximum is reduced one spatial axis at a time, the last axis (whose views step over
    single elements, the slowest to read) last, when the array is smallest. The index is then
    found by comparing every window offset with the maximum, from the last offset to the
    first, so that the first maximum in C order wins, as with ``argmax`` over the flattened
    window.
    """
    xp = backend.get_array_module(x)
    arr = geom.pad_image(x, -numpy.inf)
    y = arr
    fresh = False
    for ax in range(len(geom.ksize)):
        k, s, o = geom.ksize[ax], geom.stride[ax], geom.outs[ax]
        lead = (slice(None),) * (ax + 2)
        best = y[lead + (slice(0, s * (o - 1) + 1, s),)]
        for j in range(1, k):
            v = y[lead + (slice(j, j + s * (o - 1) + 1, s),)]
            if j == 1:
                best = xp.maximum(best, v)
                fresh = True
            else:
                xp.maximum(best, v, out=best)
        y = best
    if not fresh:  # a 1x1 window: the output must not alias the input
        y = y.copy()
    idt = index_dtype(geom.size)
    idx = xp.zeros(y.shape, idt)
    if geom.size > 1:
        for k, offset in reversed(list(enumerate(geom.offsets()))):
            if k == 0:
                idx *= arr[geom.window(offset)] != y
            else:
                # idx = where(hit, k, idx), in integer arithmetic (several times faster).
                hit = arr[geom.window(offset)] == y
                idx += hit * (idt.type(k) - idx)
    return y, idx


def scatter_array(g: Any, indexes: Any, geom: Geometry) -> Any:
    """Put each element of ``g`` at cell ``indexes`` of its window; overlaps add up."""
    xp = backend.get_array_module(g)
    shape = geom.image_shape(g.shape)
    canvas_shape = shape[:2] + geom.canvas
    canvas = xp.empty(canvas_shape, g.dtype) if geom.tiles else xp.zeros(canvas_shape, g.dtype)
    zero = xp.zeros((), g.dtype)
    # A product with the mask is much faster than ``where`` but would turn 0 * inf into NaN.
    by_product = not geom.overlap and xp is numpy and bool(numpy.isfinite(g).all())
    for k, offset in enumerate(geom.offsets()):
        view = canvas[geom.window(offset)]
        mask = indexes == k
        if geom.overlap:
            view += xp.where(mask, g, zero)
        elif by_product:
            xp.multiply(mask, g, out=view)
        else:
            view[...] = xp.where(mask, g, zero)
    return geom.crop_canvas(canvas)


def gather_array(g: Any, indexes: Any, geom: Geometry) -> Any:
    """Read cell ``indexes`` of every window of ``g`` (zero where it falls in the padding)."""
    xp = backend.get_array_module(g)
    canvas = geom.pad_image(g, 0)
    out = None
    for k, offset in enumerate(geom.offsets()):
        view = canvas[geom.window(offset)]
        if out is None:
            out = view.copy()
        else:
            xp.copyto(out, view, where=indexes == k)
    return out


def sum_windows(x: Any, geom: Geometry) -> Any:
    """Sum of every window of ``x`` (zero padding); float16 is accumulated in float32."""
    canvas = geom.pad_image(x, 0)
    acc_dtype = numpy.float32 if x.dtype == numpy.float16 else x.dtype
    y = None
    for offset in geom.offsets():
        view = canvas[geom.window(offset)]
        if y is None:
            y = view.astype(acc_dtype)
        else:
            y += view
    return y


def spread_array(g: Any, geom: Geometry) -> Any:
    """Add each element of ``g`` to every cell of its window (the adjoint of ``sum_windows``)."""
    xp = backend.get_array_module(g)
    canvas_shape = tuple(g.shape[:2]) + geom.canvas
    if geom.tiles:
        canvas = xp.empty(canvas_shape, g.dtype)
        for offset in geom.offsets():
            canvas[geom.window(offset)] = g
    else:
        canvas = xp.zeros(canvas_shape, g.dtype)
        for offset in geom.offsets():
            canvas[geom.window(offset)] += g
    return geom.crop_canvas(canvas)


class AdjointNode(FunctionNode):
    """A linear map of one input, fixed by its constructor state; its gradient is its adjoint.

    A subclass lists its state in ``fields``: the constructor takes those values in that
    order, then optionally the node's label (``default_label``, else the class name). Its
    gradient applies the ``adjoint`` class (set on both classes of a pair by
    :func:`adjoint_pair`) built from the same state; as the adjoint of the adjoint is the map
    again, either node of a pair can be differentiated any number of times.
    """

    fields: tuple = ()
    adjoint: type  # set by adjoint_pair
    default_label = ''

    def __init__(self, *state: Any) -> None:
        n = len(self.fields)
        if len(state) not in (n, n + 1):
            raise TypeError(f'{type(self).__name__}: expected {", ".join(self.fields)} and '
                            f'an optional label, got {len(state)} arguments')
        for name, value in zip(self.fields, state):
            setattr(self, name, value)
        self._label = state[n] if len(state) > n else \
            self.default_label or type(self).__name__

    @property
    def label(self) -> str:
        return self._label

    def backward(self, indexes, grad_outputs):
        return self.adjoint(*[getattr(self, f) for f in self.fields]).apply(grad_outputs)


def adjoint_pair(a: type, b: type) -> None:
    """Make the :class:`AdjointNode` classes ``a`` and ``b`` each other's gradient."""
    setattr(a, 'adjoint', b)
    setattr(b, 'adjoint', a)


class WindowScatter(AdjointNode):
    """Image whose window cells ``indexes`` receive the input values (the rest is zero)."""

    fields = ('indexes', 'geom')

    def forward(self, inputs):
        return scatter_array(inputs[0], self.indexes, self.geom),


class WindowGather(AdjointNode):
    """Value at cell ``indexes`` of every window (the adjoint of :class:`WindowScatter`)."""

    fields = ('indexes', 'geom')

    def forward(self, inputs):
        return gather_array(inputs[0], self.indexes, self.geom),


class WindowSpread(AdjointNode):
    """Image where every input value is added to all cells of its window."""

    fields = ('geom',)

    def forward(self, inputs):
        return spread_array(inputs[0], self.geom),


class WindowSum(AdjointNode):
    """Sum of every window (zero padding); the adjoint of :class:`WindowSpread`."""

    fields = ('geom',)

    def forward(self, inputs):
        x, = inputs
        return sum_windows(x, self.geom).astype(x.dtype, copy=False),


adjoint_pair(WindowScatter, WindowGather)
adjoint_pair(WindowSpread, WindowSum)


def unpooling_geometry(func: str, x: Any, ksize: Any, stride: Any, pad: Any, outsize: Any,
                       cover_all: bool, ndim: int = 2) -> Geometry:
    """Geometry of the inverse of pooling: ``x``'s pixels are the windows of the output.

    ``outsize`` defaults to the largest image whose pooling has ``x``'s spatial shape; a given
    one must pool back to that shape (else :class:`~chainlet.type_check.InvalidType`, the
    error Chainer's type check raises for it).
    """
    ksize = as_tuple(func, 'ksize', ksize, ndim, 1)
    stride = ksize if stride is None else as_tuple(func, 'stride', stride, ndim, 1)
    pad = as_tuple(func, 'pad', pad, ndim, 0)
    if not hasattr(x, 'shape'):
        raise type_check.fail(func, 'x', 'a Variable or an ndarray', type(x).__name__)
    shape = tuple(x.shape)
    if len(shape) != ndim + 2:
        raise type_check.fail(func, 'x', f'ndim {ndim + 2}', f'shape {shape}')
    ins = shape[2:]
    if outsize is None:
        outsize = tuple(get_deconv_outsize(d, k, s, p, cover_all)
                        for d, k, s, p in zip(ins, ksize, stride, pad))
        if any(o < 0 for o in outsize):
            raise ValueError(f'{func}: argument pad: padding {pad} leaves a negative output '
                             f'size {outsize} for input spatial shape {ins}')
    else:
        outsize = as_tuple(func, 'outsize', outsize, ndim, 1)
        pooled = tuple(get_conv_outsize(o, k, s, p, cover_all)
                       for o, k, s, p in zip(outsize, ksize, stride, pad))
        if pooled != ins:
            raise type_check.fail(
                func, 'x', f'spatial shape {pooled} (what outsize {outsize} pools to with '
                f'ksize {ksize}, stride {stride}, pad {pad}, cover_all={cover_all})',
                f'shape {shape}')
    return Geometry(ksize, stride, pad, outsize, ins)


class Pooling2DAttributes:
    """Chainer's ``Pooling2D`` names of a 2-D window geometry, read by hooks and exporters."""

    kh = property(lambda self: self.ksize[0], doc='Window height.')
    kw = property(lambda self: self.ksize[1], doc='Window width.')
    sy = property(lambda self: self.stride[0], doc='Vertical stride.')
    sx = property(lambda self: self.stride[1], doc='Horizontal stride.')
    ph = property(lambda self: self.pad[0], doc='Vertical padding.')
    pw = property(lambda self: self.pad[1], doc='Horizontal padding.')


def check_rank(func: str, x: Any, ndim: int) -> None:
    """Raise :class:`~chainlet.type_check.InvalidValue` unless ``x`` has ``ndim`` spatial axes
    after batch and channel (Chainer's 1-D and 3-D wrappers raise ``ValueError`` for it)."""
    if not hasattr(x, 'shape'):
        raise type_check.fail(func, 'x', 'a Variable or an ndarray', type(x).__name__)
    shape = tuple(x.shape)
    if len(shape) != ndim + 2:
        expected = f'ndim {ndim + 2}'
        actual = f'shape {shape}'
        raise type_check.InvalidValue(expected, actual,
                                      f'{func}: argument x: expected {expected}, got {actual}')
