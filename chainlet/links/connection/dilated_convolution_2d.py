"""``DilatedConvolution2D``: a 2-d convolution whose filter taps are spread ``dilate`` apart.

Chainer's older spelling of ``Convolution2D(..., dilate=d)``, kept with its own argument order
(``dilate`` comes before ``nobias``) and computed by
:func:`chainlet.functions.dilated_convolution_2d`.
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from chainlet.links.connection._conv import ConvolutionBase
from chainlet.variable import Variable


class DilatedConvolution2D(ConvolutionBase):
    """Two-dimensional dilated convolution layer.

    Args:
        in_channels: Input channels, or ``None`` to infer them on the first call. With only
            two positional arguments they are ``out_channels, ksize``.
        out_channels: Output channels.
        ksize: Filter size (an int or a pair).
        stride: Stride (an int or a pair).
        pad: Spatial padding (an int or a pair).
        dilate: Dilation factor (an int or a pair).
        nobias: Do not use a bias.
        initialW: Initializer of ``W`` (shape ``(out, in, kh, kw)``); default ``LeCunNormal``.
        initial_bias: Initializer of ``b``; default 0.

    Shape:
        ``(N, C, H, W)`` to ``(N, out_channels, H_out, W_out)`` with
        ``H_out = (H + 2 p - d (kh - 1) - 1) // s + 1``.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> conv = L.DilatedConvolution2D(3, 2, 3, pad=2, dilate=2)
        >>> conv(np.ones((1, 3, 5, 5), np.float32)).shape
        (1, 2, 5, 5)
    """

    def __init__(self, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, dilate: Any = 1,
                 nobias: bool = False, initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        self._setup('DilatedConvolution2D', 2, in_channels, out_channels, ksize, stride, pad,
                    nobias, initialW, initial_bias, dilate, 1)

    def forward(self, x: Any) -> Variable:
        """Apply the convolution to ``x`` of shape ``(N, C, H, W)``."""
        self._ensure_params(x)
        return dilated_convolution_2d(x, self.W, self.b, self.stride, self.pad, self.dilate)
