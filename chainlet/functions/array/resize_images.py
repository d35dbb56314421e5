"""``resize_images``: bilinear or nearest-neighbour resizing of NCHW images."""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, check_int
from chainlet.variable import Variable


def _weights(out_size: int, in_size: int, mode: str, align_corners: bool) -> numpy.ndarray:
    """The ``(out_size, in_size)`` matrix that interpolates one axis (float64, NumPy).

    Coordinates follow Chainer: ``'bilinear'`` with ``align_corners`` maps the corner pixels
    onto each other; without it, pixel centres are matched as in OpenCV (clamped at 0);
    ``'nearest'`` takes ``floor(i * in_size / out_size)``.
    """
    dst = numpy.arange(out_size, dtype=numpy.float64)
    if mode == 'nearest':
        src = numpy.minimum(numpy.floor(dst * (in_size / out_size)), in_size - 1)
    elif align_corners:
        src = numpy.linspace(0, in_size - 1, num=out_size)
    else:
        src = numpy.maximum((dst + 0.5) * (in_size / out_size) - 0.5, 0)
    frac, lo = numpy.modf(src)
    lo = lo.astype(numpy.intp)
    hi = numpy.minimum(lo + 1, in_size - 1)
    w = numpy.zeros((out_size, in_size))
    rows = numpy.arange(out_size)
    numpy.add.at(w, (rows, lo), 1 - frac)
    numpy.add.at(w, (rows, hi), frac)
    return w


class _Resize(FunctionNode):
    """Shared state: the two interpolation matrices of a resize from ``in_hw`` to ``out_hw``."""

    def __init__(self, in_hw: tuple, out_hw: tuple, mode: str, align_corners: bool) -> None:
        self.in_hw = in_hw
        self.out_hw = out_hw
        self.mode = mode
        self.align_corners = align_corners

    def _matrices(self, xp: Any, dtype: Any) -> tuple:
        wh = _weights(self.out_hw[0], self.in_hw[0], self.mode, self.align_corners)
        ww = _weights(self.out_hw[1], self.in_hw[1], self.mode, self.align_corners)
        return xp.asarray(wh, dtype), xp.asarray(ww, dtype)


def _compute_dtype(dtype: Any) -> Any:
    # float16 products are accumulated in float32 and rounded once at the end.
    return numpy.float32 if dtype == numpy.float16 else dtype


class ResizeImages(_Resize):
    """``y = Wh @ x @ Ww^T`` per image and channel; linear in ``x``, so the gradient is the
    transposed map (:class:`ResizeImagesGrad`)."""

    # Chainer's names of the output size (graph exporters such as onnx_chainer read them).
    out_H = property(lambda self: self.out_hw[0])
    out_W = property(lambda self: self.out_hw[1])

    def _check_arrays(self, in_data):
        x, = in_data
        type_check.argument('resize_images', 'x', x, kind='f', ndim=4)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        ct = _compute_dtype(x.dtype)
        wh, ww = self._matrices(xp, ct)
        y = xp.matmul(xp.matmul(wh, x.astype(ct, copy=False)), ww.T)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        return ResizeImagesGrad(self.in_hw, self.out_hw, self.mode,
                                self.align_corners).apply(grad_outputs)


class ResizeImagesGrad(_Resize):
    """``gx = Wh^T @ gy @ Ww``, the adjoint of :class:`ResizeImages`; its gradient is the resize
    itself."""

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        ct = _compute_dtype(gy.dtype)
        wh, ww = self._matrices(xp, ct)
        gx = xp.matmul(xp.matmul(wh.T, gy.astype(ct, copy=False)), ww)
        return gx.astype(gy.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        return ResizeImages(self.in_hw, self.out_hw, self.mode,
                            self.align_corners).apply(grad_outputs)


def resize_images(x: Any, output_shape: Sequence[int], *, mode: str = 'bilinear',
                  align_corners: bool = True) -> Variable:
    """Resize images of shape ``(n, c, h, w)`` to ``(n, c, h_O, w_O)``.

    Each output pixel is a fixed weighted sum of input pixels (vectorised as two matrix
    products), so the function is linear in ``x`` and its gradient is exact.

    Args:
        x: Float Variable or array of shape ``(n, c, h, w)`` with ``h, w >= 1``.
        output_shape: ``(h_O, w_O)``, positive ints (height first, unlike OpenCV).
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: For ``'bilinear'``: if true the corner pixels of input and output
            coincide; if false pixel centres are matched as in OpenCV. Ignored by
            ``'nearest'``.

    Returns:
        Variable of shape ``(n, c, h_O, w_O)`` and the dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[[0.0, 3.0]]]], np.float32)
        >>> F.resize_images(x, (1, 4)).array
        array([[[[0., 1., 2., 3.]]]], dtype=float32)
        >>> F.resize_images(x, (1, 4), mode='nearest').array
        array([[[[0., 0., 3., 3.]]]], dtype=float32)
    """
    data = check_array('resize_images', 'x', x)
    type_check.argument('resize_images', 'x', data, kind='f', ndim=4)
    if data.shape[2] == 0 or data.shape[3] == 0:
        raise ValueError(f'resize_images: argument x: expected a non-empty image (h, w >= 1), '
                         f'got shape {data.shape}')
    if not isinstance(output_shape, (tuple, list)) or len(output_shape) != 2:
        raise TypeError(f'resize_images: argument output_shape: expected a pair (h_O, w_O), '
                        f'got {output_shape!r}')
    out_hw = tuple(check_int('resize_images', 'output_shape', s) for s in output_shape)
    if min(out_hw) <= 0:
        raise ValueError(f'resize_images: argument output_shape: expected positive sizes, '
                         f'got {tuple(output_shape)}')
    if mode not in ('bilinear', 'nearest'):
        raise ValueError(f"resize_images: argument mode: expected 'bilinear' or 'nearest', "
                         f"got {mode!r}")
    node = ResizeImages(tuple(data.shape[2:]), out_hw, mode, bool(align_corners))
    return node.apply((x,))[0]
