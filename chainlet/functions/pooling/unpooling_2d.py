"""Inverse of 2-D pooling by repetition: every pixel fills its whole window."""
from __future__ import annotations

from typing import Any, Optional, Union

from chainlet.functions.pooling import _windows
from chainlet.functions.pooling.unpooling_nd import UnpoolingND
from chainlet.variable import Variable

IntOrTuple = Union[int, tuple]


class Unpooling2D(_windows.Pooling2DAttributes, UnpoolingND):
    """:class:`~chainlet.functions.pooling.unpooling_nd.UnpoolingND` over two spatial axes.

    Chainer's attributes, read by hooks and graph exporters (onnx_chainer): ``kh, kw, sy, sx,
    ph, pw``, the output size ``outh, outw`` and ``cover_all``.
    """

    def __init__(self, geom: _windows.Geometry, cover_all: bool = True) -> None:
        super().__init__(geom, 'unpooling_2d')
        self._label = 'Unpooling2D'
        self.cover_all = cover_all

    ksize = property(lambda self: self.geom.ksize)
    stride = property(lambda self: self.geom.stride)
    pad = property(lambda self: self.geom.pad)
    outh = property(lambda self: self.geom.dims[0])
    outw = property(lambda self: self.geom.dims[1])


def unpooling_2d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 pad: IntOrTuple = 0, outsize: Optional[IntOrTuple] = None,
                 cover_all: bool = True) -> Variable:
    """Upsample images by copying each pixel over its pooling window (inverse of pooling).

    Pixel ``(i, j)`` of ``x`` is written to the ``kh x kw`` window of the output starting at
    ``(i * sy - ph, j * sx - pw)``; where windows overlap (``stride < ksize``) the copies add
    up, and what lands in the padding is dropped.

    Args:
        x: Variable or float array of shape ``(N, C, H, W)``.
        ksize: Window size, an int or a pair.
        stride: Step between windows; ``None`` means ``ksize``.
        pad: Padding cropped from both sides of the output.
        outsize: Output ``(out_h, out_w)``; by default the largest size whose pooling with the
            same parameters gives ``(H, W)``: ``sy * (H - 1) + kh - 2 * ph``, minus
            ``sy - 1`` when ``cover_all``. A given size must pool back to ``(H, W)``.
        cover_all: Pooling convention used to relate the sizes (as in
            :func:`~chainlet.functions.max_pooling_2d`). With the default ``True``, a 2x2
            window of stride 2 maps ``H`` to ``2H - 1``; pass ``cover_all=False`` or
            ``outsize`` to get ``2H``.

    Returns:
        Variable of shape ``(N, C, out_h, out_w)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32)
        >>> F.unpooling_2d(x, 2, cover_all=False).array
        array([[[[1., 1., 2., 2.],
                 [1., 1., 2., 2.],
                 [3., 3., 4., 4.],
                 [3., 3., 4., 4.]]]], dtype=float32)
    """
    _windows.check_rank('unpooling_2d', x, 2)
    geom = _windows.unpooling_geometry('unpooling_2d', x, ksize, stride, pad, outsize,
                                       cover_all)
    return Unpooling2D(geom, cover_all).apply((x,))[0]


__all__ = ['Unpooling2D', 'unpooling_2d']
