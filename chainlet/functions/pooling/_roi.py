"""Region-of-interest pooling machinery shared by the ``roi_*`` functions (private).

Every RoI function maps ``x`` of shape ``(B, C, H, W)`` to ``(R, C, outh, outw)``: output
bin ``(p, q)`` of RoI ``r`` reads image ``b_r``. The geometry (which rows and columns a bin
reads, with which weights) depends only on the RoI boxes, never on ``x``, so it is computed
once on the host from the few RoI coordinates, per axis:

* a *row table* ``(R, outh, G, A)``: for every bin row ``p`` and sample ``g`` the ``A`` input
  rows it reads and their weights (``A = 1`` for whole pixels, ``A = 2`` for the two
  neighbours of a bilinear sample), plus whether the sample exists;
* a *column table* ``(R, outw, G2, A)`` likewise.

Sample ``(g, g2)`` of bin ``(p, q)`` is then the separable weighted sum
``sum_ab wy[p, g, a] * wx[q, g2, b] * x[b_r, :, row[p, g, a], col[q, g2, b]]``.

Average pooling and average align sum their samples, a linear map of ``x`` that factors into
two small dense matrices per RoI, ``y_r = My_r @ x[b_r] @ Mx_r.T`` (:class:`ROISeparable`, with
its adjoint :class:`ROISeparableT`). Max pooling and max align keep, per output element, the
sample with the largest value; that element is then a fixed weighted sum of at most four
input cells, recorded as the index of the winning sample (:class:`SampleMap`); the gradient
node :class:`ROIScatter` and its adjoint :class:`ROIGather` rebuild the cells from it. Each
pair's nodes are each other's gradients, so every RoI function can be differentiated any
number of times.
"""
from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.pooling._windows import AdjointNode, adjoint_pair


# -- arguments ---------------------------------------------------------------------------------

def _pair(value: Any) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if hasattr(value, '__iter__') and not isinstance(value, (str, bytes)):
        return tuple(value)
    return value, value


def parse_outsize(func: str, outsize: Any) -> tuple:
    """``outsize`` (an int or a pair of ints, NumPy integers included) as ``(outh, outw)``."""
    pair = _pair(outsize)
    if len(pair) != 2:
        raise TypeError(f'{func}: argument outsize: expected a positive int or a pair of '
                        f'them, got {outsize!r}')
    for i, v in enumerate(pair):
        if not isinstance(v, numbers.Integral) or isinstance(v, (bool, numpy.bool_)) or v <= 0:
            raise TypeError(f'{func}: argument outsize[{i}]: expected a positive int, '
                            f'got {v!r} ({type(v).__name__})')
    return int(pair[0]), int(pair[1])


def parse_scale(func: str, spatial_scale: Any) -> float:
    """``spatial_scale`` as a positive float (ints and NumPy scalars accepted)."""
    if isinstance(spatial_scale, (bool, numpy.bool_)) or \
            not isinstance(spatial_scale, numbers.Real) or not float(spatial_scale) > 0:
        raise TypeError(f'{func}: argument spatial_scale: expected a positive number, '
                        f'got {spatial_scale!r} ({type(spatial_scale).__name__})')
    return float(spatial_scale)


def parse_sampling_ratio(func: str, sampling_ratio: Any) -> tuple:
    """``sampling_ratio`` (``None``, an int >= 1, or a pair of those) as a pair."""
    pair = _pair(sampling_ratio)
    ok = len(pair) == 2 and all(
        s is None or (isinstance(s, numbers.Integral) and not isinstance(s, (bool, numpy.bool_))
                      and int(s) >= 1) for s in pair)
    if not ok:
        raise TypeError(f'{func}: argument sampling_ratio: expected None, an int >= 1 or a '
                        f'pair of them, got {sampling_ratio!r}')
    return tuple(None if s is None else int(s) for s in pair)


def check_inputs(func: str, in_data: tuple, box_columns: int, with_indices: bool) -> None:
    """Input checks of a RoI function (``x``, ``rois`` and, unless legacy, ``roi_indices``)."""
    type_check.count(func, in_data, 3 if with_indices else 2)
    x, rois = in_data[0], in_data[1]
    type_check.argument(func, 'x', x, ndim=4, kind='f')
    type_check.argument(func, 'rois', rois, ndim=2, dtype=x.dtype)
    if rois.shape[1] != box_columns:
        raise type_check.fail(func, 'rois', f'shape (R, {box_columns})',
                              f'shape {tuple(rois.shape)}')
    if with_indices:
        idx = in_data[2]
        type_check.argument(func, 'roi_indices', idx, ndim=1, kind='iu')
        if idx.shape[0] != rois.shape[0]:
            raise type_check.fail(func, 'roi_indices', f'shape ({rois.shape[0]},) (one per RoI)',
                                  f'shape {tuple(idx.shape)}')


def check_batch_indices(func: str, indices: Any, batch: int) -> None:
    if indices.size and (indices.min() < 0 or indices.max() >= batch):
        raise ValueError(f'{func}: argument roi_indices: expected values in [0, {batch}) '
                         f'(the batch of x), got values in [{indices.min()}, {indices.max()}]')


# -- per-axis geometry (host, float64) ---------------------------------------------------------

class AxisTable:
    """Samples of one axis: ``index``/``weight`` ``(R, out, G, A)``, ``valid`` ``(R, out, G)``.

    ``divisor`` ``(R, out)`` is what the average functions divide a bin's sum by (the number
    of samples of the bin); samples beyond a bin's own count are padding and not valid.
    """

    def __init__(self, index: numpy.ndarray, weight: numpy.ndarray, valid: numpy.ndarray,
                 divisor: numpy.ndarray) -> None:
        self.index, self.weight, self.valid, self.divisor = index, weight, valid, divisor

    def dense(self, limit: int, dtype: Any) -> numpy.ndarray:
        """``(R, out, limit)`` matrix: the sum over the samples of a bin over its divisor."""
        r, out = self.index.shape[:2]
        mat = numpy.zeros((r, out, limit))
        w = numpy.where(self.valid[..., None], self.weight, 0) / self.divisor[..., None, None]
        ri, oi = numpy.indices((r, out))
        for g in range(self.index.shape[2]):
            for a in range(self.index.shape[3]):
                numpy.add.at(mat, (ri, oi, self.index[:, :, g, a]), w[:, :, g, a])
        return mat.astype(dtype)


def pooling_bins(lo: numpy.ndarray, hi: numpy.ndarray, out: int, limit: int,
                 inclusive: bool) -> tuple:
    """Integer bins of Fast R-CNN RoI pooling along one axis.

    ``lo``/``hi`` are the rounded RoI bounds (``(R,)`` ints); the RoI spans ``hi - lo`` cells
    (``+ 1`` with ``inclusive``, the legacy ``roi_pooling_2d``), at least one. Bin ``p`` covers
    ``[floor(p * L / out), ceil((p + 1) * L / out))`` shifted by ``lo`` and clipped to the
    image. Returns ``(start, end)`` of shape ``(R, out)``.
    """
    span = numpy.maximum(hi - lo + (1 if inclusive else 0), 1).astype(numpy.float64)
    size = span / out
    p = numpy.arange(out, dtype=numpy.float64)
    start = numpy.floor(p[None] * size[:, None]).astype(numpy.int64) + lo[:, None]
    end = numpy.ceil((p[None] + 1) * size[:, None]).astype(numpy.int64) + lo[:, None]
    return numpy.clip(start, 0, limit), numpy.clip(end, 0, limit)


def pixel_table(start: numpy.ndarray, end: numpy.ndarray, limit: int) -> AxisTable:
    """:class:`AxisTable` of whole-pixel bins; the divisor of a bin is its length."""
    length = numpy.maximum(end - start, 0)
    g = max(int(length.max()) if length.size else 1, 1)
    steps = numpy.arange(g)
    valid = steps < length[..., None]
    last = numpy.maximum(length, 1)[..., None] - 1
    index = numpy.clip(start[..., None] + numpy.minimum(steps, last), 0, max(limit - 1, 0))
    weight = numpy.ones(index.shape + (1,))
    return AxisTable(index[..., None], weight, valid, numpy.maximum(length, 1).astype(float))


def align_table(start: numpy.ndarray, size: numpy.ndarray, out: int, ratio: Optional[int],
                limit: int) -> AxisTable:
    """Bilinear samples of RoIAlign along one axis.

    The RoI starts at ``start`` (float, ``(R,)``) and spans ``size`` (at least 1); bin ``p``
    holds ``G`` evenly spaced samples at ``start + (p + (g + 0.5) / G) * size / out``, ``G``
    being ``ratio`` or, when ``None``, ``ceil(size / out)`` for each RoI. A sample outside
    ``[-1, limit]`` does not exist; one inside is clamped to ``[0, limit - 1]`` and reads its
    two neighbouring cells with linear weights (a zero-weight neighbour is not read).
    """
    grid = numpy.ceil(size / out).astype(numpy.int64) if ratio is None else \
        numpy.full(size.shape, ratio, numpy.int64)
    g_max = max(int(grid.max()) if grid.size else 1, 1)
    p = numpy.arange(out, dtype=numpy.float64)[None, :, None]
    g = numpy.arange(g_max, dtype=numpy.float64)[None, None, :]
    gr = grid.astype(numpy.float64)[:, None, None]
    bin_size = (size / out)[:, None, None]
    pos = start[:, None, None] + p * bin_size + (g + 0.5) * bin_size / gr
    valid = (pos >= -1) & (pos <= limit) & (g < gr)
    low = numpy.floor(pos)
    low = numpy.where(low >= limit, limit - 1, low)
    high = low + 1
    pos = numpy.where(low <= -1, 0.0, numpy.where(high >= limit, limit - 1.0, pos))
    w_low = high - pos
    w_high = pos - low
    w_low = numpy.where((low >= 0) & (w_low > 0), w_low, 0.0)
    w_high = numpy.where((high <= limit - 1) & (w_high > 0), w_high, 0.0)
    index = numpy.stack([low, high], -1)
    index = numpy.clip(numpy.where(valid[..., None], index, 0), 0, max(limit - 1, 0))
    weight = numpy.where(valid[..., None], numpy.stack([w_low, w_high], -1), 0.0)
    divisor = numpy.broadcast_to(grid.astype(numpy.float64)[:, None], pos.shape[:2])
    return AxisTable(index.astype(numpy.int64), weight, valid, divisor)


# -- max over samples --------------------------------------------------------------------------

def max_samples(x: Any, roi_index: numpy.ndarray, rows: AxisTable, cols: AxisTable) -> tuple:
    """Largest sample of every bin, and the linear map that reads it back from ``x``.

    Returns ``(y, map)``: ``y`` ``(R, C, outh, outw)`` (``-inf`` where a bin has no sample
    larger than ``-inf``) and a :class:`SampleMap` of the winning samples. Samples are visited
    in ``(g, g2)`` order and only a strictly larger one replaces the best so far, so the first
    maximum wins; a NaN sample wins over any number and keeps its bin (the first NaN gets the
    gradient), so NaN propagates as in :func:`~chainlet.functions.max_pooling_2d` (Chainer's
    RoI kernels drop it: ``NaN > best`` is false). One sample position (and
    bilinear neighbour) is gathered for all RoIs, bins and channels at a time, from a
    channels-last copy of ``x`` so that every read is a contiguous run of channels.
    """
    xp = backend.get_array_module(x)
    c = x.shape[1]
    table = SampleMap(x.shape, roi_index, rows, cols, x.dtype, xp)
    r, outh, gh, a = rows.index.shape
    outw, gw, b = cols.index.shape[1:]
    xt = xp.ascontiguousarray(x.transpose(0, 2, 3, 1))
    y = xp.full((r, outh, outw, c), -numpy.inf, x.dtype)
    best = xp.full((r, outh, outw, c), -1, numpy.int32)
    batch = table.batch.reshape(r, 1, 1)
    zero = xp.zeros((), x.dtype)
    # A zero-weight neighbour must not be read at all (0 * inf is NaN): only when x holds
    # non-finite values does that cost a masked product.
    finite = a * b == 1 or bool(xp.isfinite(x).all())
    has_nan = not (a * b > 1 and finite) and bool(xp.isnan(x).any())
    for g in range(gh):
        for g2 in range(gw):
            val = None
            for ia in range(a):
                ri = table.row_i[:, :, g, ia].reshape(r, outh, 1)
                for ib in range(b):
                    term = xt[batch, ri, table.col_i[:, :, g2, ib].reshape(r, 1, outw)]
                    if a * b > 1:  # (r, outh, outw, C) times its bilinear weight
                        wt = (table.row_w[:, :, g, ia].reshape(r, outh, 1) *
                              table.col_w[:, :, g2, ib].reshape(r, 1, outw))[..., None]
                        term = wt * term if finite else xp.where(wt != 0, wt * term, zero)
                    val = term if val is None else val + term
            ok = (table.row_ok[:, :, g, None] & table.col_ok[:, None, :, g2])[..., None]
            better = val > y
            if has_nan:  # the first NaN wins and nothing replaces it (val > NaN is false)
                better |= xp.isnan(val) & ~xp.isnan(y)
            better &= ok
            y = xp.where(better, val, y)
            best = xp.where(better, numpy.int32(g * gw + g2), best)
    table.best = xp.ascontiguousarray(best.transpose(0, 3, 1, 2))  # (R, C, outh, outw)
    return xp.ascontiguousarray(y.transpose(0, 3, 1, 2)), table


class SampleMap:
    """The linear map ``x -> y`` of the winning samples: one int32 per output element.

    ``best`` (``(R, C, outh, outw)``, ``-1``: no sample) says which sample of its bin each
    output took; with the small row and column tables that fixes the (at most ``A * B``)
    cells it reads and their weights, which :meth:`corners` produces one neighbour at a time,
    so no array larger than the output is ever kept.
    """

    def __init__(self, x_shape: tuple, roi_index: numpy.ndarray, rows: AxisTable,
                 cols: AxisTable, dtype: Any, xp: Any) -> None:
        self.x_shape = tuple(x_shape)
        self.batch = xp.asarray(roi_index)
        self.row_i, self.col_i = xp.asarray(rows.index), xp.asarray(cols.index)
        self.row_w = xp.asarray(rows.weight.astype(dtype))
        self.col_w = xp.asarray(cols.weight.astype(dtype))
        self.row_ok, self.col_ok = xp.asarray(rows.valid), xp.asarray(cols.valid)
        self.best: Any = None

    def corners(self, xp: Any) -> Any:
        """``(pos, weight)`` per neighbour: flat positions in ``x`` and weights (0: none)."""
        _, c, h, w = self.x_shape
        r, outh, gh, a = self.row_i.shape
        outw, gw, b = self.col_i.shape[1:]
        found = self.best >= 0
        best = xp.maximum(self.best, 0)
        g_row, g_col = best // gw, best % gw
        ridx = xp.arange(r).reshape(r, 1, 1, 1)
        prow = xp.arange(outh).reshape(1, 1, outh, 1)
        pcol = xp.arange(outw).reshape(1, 1, 1, outw)
        base = (self.batch.reshape(r, 1, 1, 1) * c + xp.arange(c).reshape(1, c, 1, 1)) * h
        for ia in range(a):
            row = self.row_i[ridx, prow, g_row, ia]  # (R, C, outh, outw)
            row_w = self.row_w[ridx, prow, g_row, ia]
            for ib in range(b):
                weight = row_w * self.col_w[ridx, pcol, g_col, ib]
                weight = xp.where(found & (weight != 0), weight, 0)
                yield (base + row) * w + self.col_i[ridx, pcol, g_col, ib], weight


class ROIGather(AdjointNode):
    """``y[e] = sum_k weight_k[e] * x.flat[pos_k[e]]`` over the corners of a :class:`SampleMap`.
    """

    fields = ('table',)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        flat = x.reshape(-1)
        y = xp.zeros(self.table.best.shape, x.dtype)
        if flat.size == 0:
            return y,
        for pos, weight in self.table.corners(xp):
            y += xp.where(weight != 0, flat[pos] * weight.astype(x.dtype, copy=False), 0)
        return y,


class ROIScatter(AdjointNode):
    """Adjoint of :class:`ROIGather`: ``gx.flat[pos_k[e]] += weight_k[e] * gy[e]``."""

    fields = ('table',)

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        size = int(numpy.prod(self.table.x_shape))
        gx = None
        zero = xp.zeros((), gy.dtype)
        for pos, weight in self.table.corners(xp):
            # Every position is inside x (unused ones carry weight 0), so no compaction is
            # needed; bincount sums in float64, exact enough for float16 too.
            contrib = xp.where(weight != 0, gy * weight.astype(gy.dtype, copy=False), zero)
            part = xp.bincount(pos.ravel(), weights=contrib.ravel(), minlength=size)
            gx = part if gx is None else gx + part
        return gx[:size].astype(gy.dtype).reshape(self.table.x_shape),


adjoint_pair(ROIGather, ROIScatter)


# -- separable sums ----------------------------------------------------------------------------

def _groups(roi_index: numpy.ndarray, xp: Any) -> list:
    """``(b, rows)`` for every image ``b`` that RoIs read, ``rows`` the RoIs reading it."""
    return [(int(b), xp.asarray(numpy.nonzero(roi_index == b)[0]))
            for b in numpy.unique(roi_index)]


class ROISeparable(AdjointNode):
    """``y[r] = my[r] @ x[roi_index[r]] @ mx[r].T`` for every RoI ``r`` and channel.

    ``my`` ``(R, outh, H)`` and ``mx`` ``(R, outw, W)`` are host matrices, ``roi_index``
    ``(R,)`` the image of every RoI and ``x_shape`` the shape of ``x`` (a tuple).
    """

    fields = ('my', 'mx', 'roi_index', 'x_shape')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        r, outh = self.my.shape[:2]
        outw = self.mx.shape[1]
        y = xp.zeros((r, x.shape[1], outh, outw), x.dtype)
        my, mx = xp.asarray(self.my), xp.asarray(self.mx)
        for b, rs in _groups(self.roi_index, xp):
            img = x[b].astype(my.dtype)
            bad = ~xp.isfinite(img)
            if bad.any():  # 0 * inf in the products would spread NaN over the whole image
                img = xp.where(bad, 0, img)
            t = xp.matmul(my[rs][:, None], img[None])  # (r, C, outh, W)
            y[rs] = xp.matmul(t, mx[rs][:, None].swapaxes(-1, -2))
            if bad.any():
                # Non-finite cells reach only the bins that read them (with a weight > 0).
                for c, h, w in zip(*[backend.to_cpu(i).tolist() for i in xp.nonzero(bad)]):
                    wt = my[rs][:, :, h, None] * mx[rs][:, None, :, w]  # (r, outh, outw)
                    v = x[b, c, h, w].astype(my.dtype)
                    with numpy.errstate(invalid='ignore'):
                        y[rs, c] += xp.where(wt > 0, wt * v, 0).astype(y.dtype)
        return y,


class ROISeparableT(AdjointNode):
    """Adjoint of :class:`ROISeparable`: ``gx[b] = sum_{r: b_r = b} my[r].T @ gy[r] @ mx[r]``."""

    fields = ROISeparable.fields
    default_label = 'ROISeparableGrad'

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.x_shape, gy.dtype)
        my, mx = xp.asarray(self.my), xp.asarray(self.mx)
        for b, rs in _groups(self.roi_index, xp):
            u = xp.matmul(gy[rs].astype(mx.dtype), mx[rs][:, None])  # (r, C, outh, W)
            # Contract RoIs and bin rows at once: (r, outh, H) with (r, C, outh, W).
            gx[b] = xp.tensordot(my[rs], u, axes=([0, 1], [0, 2])).transpose(1, 0, 2)
        return gx,


adjoint_pair(ROISeparable, ROISeparableT)


def host(a: Any) -> numpy.ndarray:
    """A NumPy copy of a (small) array that may live on a GPU."""
    return numpy.asarray(backend.to_cpu(a))


# -- node bases --------------------------------------------------------------------------------

class ROIMaxBase(FunctionNode):
    """Max over the samples of every bin; subclasses say where the samples are (``_tables``).

    The gradient flows to the cells read by each bin's largest sample (:class:`ROIScatter`);
    a bin without samples passes none. ``rois`` and ``roi_indices`` get no gradient.
    """

    _func = 'roi_max_pooling_2d'
    _box_columns = 4
    _with_indices = True
    _empty_value = -numpy.inf

    def _check_arrays(self, in_data):
        check_inputs(self._func, in_data, self._box_columns, self._with_indices)

    def _tables(self, x_shape: tuple, rois: numpy.ndarray) -> tuple:
        raise TypeError(f'{type(self).__name__} does not define _tables')

    def forward(self, inputs):
        x = inputs[0]
        xp = backend.get_array_module(x)
        rois, roi_index = split_boxes(self._func, inputs, self._with_indices, x.shape[0])
        rows, cols = self._tables(x.shape, rois)
        y, self._map = max_samples(x, roi_index, rows, cols)
        if self._empty_value != -numpy.inf:
            empty = ~(rows.valid.any(-1)[:, None, :, None] & cols.valid.any(-1)[:, None, None])
            y = xp.where(xp.asarray(empty), xp.asarray(self._empty_value, x.dtype), y)
        return y,

    def backward(self, indexes, grad_outputs):
        gx, = ROIScatter(self._map, f'{type(self).__name__}Grad').apply(grad_outputs)
        return (gx,) + (None,) * (len(self.inputs) - 1)


class ROIAverageBase(ROIMaxBase):
    """Mean over the samples of every bin (a separable linear map, :class:`ROISeparable`)."""

    _func = 'roi_average_pooling_2d'

    def forward(self, inputs):
        x = inputs[0]
        rois, roi_index = split_boxes(self._func, inputs, self._with_indices, x.shape[0])
        rows, cols = self._tables(x.shape, rois)
        # float16 weights such as 1/3 would be too coarse: they are float32 then.
        dtype = numpy.float32 if x.dtype == numpy.float16 else x.dtype
        self._sep = ROISeparable(rows.dense(x.shape[2], dtype), cols.dense(x.shape[3], dtype),
                                 roi_index, x.shape, f'{type(self).__name__}Grad')
        return self._sep.forward((x,))

    def backward(self, indexes, grad_outputs):
        s = self._sep
        gx, = ROISeparableT(s.my, s.mx, s.roi_index, s.x_shape, s.label).apply(grad_outputs)
        return (gx,) + (None,) * (len(self.inputs) - 1)


def split_boxes(func: str, inputs: tuple, with_indices: bool, batch: int) -> tuple:
    """Host copies of the boxes and of the image index of every RoI (checked against batch).

    The legacy layout (``with_indices=False``) keeps the image index in column 0.
    """
    rois = host(inputs[1]).astype(numpy.float64)
    if with_indices:
        roi_index = host(inputs[2]).astype(numpy.int64)
    else:
        roi_index = rois[:, 0].astype(numpy.int64)
        rois = rois[:, 1:]
    check_batch_indices(func, roi_index, batch)
    return rois, roi_index


# -- where the bins lie: the geometry half of a public node ------------------------------------

class PixelBins:
    """Fast R-CNN bins of whole pixels (mixed in before :class:`ROIMaxBase`/``ROIAverageBase``).

    The boxes are scaled by ``spatial_scale`` and rounded half to even; ``_corners`` gives the
    columns of ``y1, x1, y2, x2`` in a box and ``_inclusive`` whether ``x2`` is a pixel of
    the box (the legacy ``roi_pooling_2d``) or just past it.
    """

    _func = ''
    _corners = (0, 1, 2, 3)
    _inclusive = False

    def __init__(self, outsize: Any, spatial_scale: Any) -> None:
        self.outh, self.outw = parse_outsize(self._func, outsize)
        self.spatial_scale = parse_scale(self._func, spatial_scale)

    def _tables(self, x_shape: tuple, rois: numpy.ndarray) -> tuple:
        b = numpy.round(rois * self.spatial_scale).astype(numpy.int64)
        y1, x1, y2, x2 = (b[:, i] for i in self._corners)
        h, w = x_shape[2:]
        row_start, row_end = pooling_bins(y1, y2, self.outh, h, self._inclusive)
        col_start, col_end = pooling_bins(x1, x2, self.outw, w, self._inclusive)
        rows = pixel_table(row_start, row_end, h)
        cols = pixel_table(col_start, col_end, w)
        return rows, cols


class AlignBins(PixelBins):
    """RoIAlign bins: boxes ``(y1, x1, y2, x2)`` scaled without rounding, bilinear samples.

    A box is at least one pixel high and wide; ``sampling_ratio`` fixes the samples per bin
    along each axis (``None``: adaptive, see :func:`align_table`).
    """

    def __init__(self, outsize: Any, spatial_scale: Any,
                 sampling_ratio: Optional[Any] = None) -> None:
        super().__init__(outsize, spatial_scale)
        self.sampling_ratio = parse_sampling_ratio(self._func, sampling_ratio)

    def _tables(self, x_shape: tuple, rois: numpy.ndarray) -> tuple:
        b = rois * self.spatial_scale
        height = numpy.maximum(b[:, 2] - b[:, 0], 1.0)
        width = numpy.maximum(b[:, 3] - b[:, 1], 1.0)
        rows = align_table(b[:, 0], height, self.outh, self.sampling_ratio[0], x_shape[2])
        cols = align_table(b[:, 1], width, self.outw, self.sampling_ratio[1], x_shape[3])
        return rows, cols


__all__ = ['AlignBins', 'AxisTable', 'PixelBins', 'ROIAverageBase', 'ROIGather', 'ROIMaxBase',
           'ROIScatter', 'ROISeparable', 'ROISeparableT', 'SampleMap',
           'align_table', 'check_batch_indices', 'check_inputs', 'host', 'max_samples',
           'parse_outsize', 'parse_sampling_ratio', 'parse_scale', 'pixel_table',
           'pooling_bins', 'split_boxes']
