"""``Convolution2D``: the two-dimensional convolution layer."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import _config
from chainlet.functions.connection.convolution_2d import convolution_2d
from chainlet.links.connection._conv import ConvolutionBase, split_params
from chainlet.variable import Variable


class Convolution2D(ConvolutionBase):
    """Two-dimensional convolution layer on NCHW images, holding ``W`` and ``b``.

    Besides ``Convolution2D(in_channels, out_channels, ksize, ...)``, the two-argument form
    ``Convolution2D(out_channels, ksize, ...)`` (or ``in_channels=None``) takes the number of
    input channels from the first input.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it.
        out_channels: Number of output channels.
        ksize: Filter size: an int or a pair ``(k_H, k_W)``.
        stride: Int or pair of strides.
        pad: Int or pair of zero paddings.
        nobias: Do not use a bias.
        initialW: Initializer of ``W`` (shape ``(out_channels, in_channels / groups, k_H,
            k_W)``); default ``LeCunNormal``.
        initial_bias: Initializer of ``b``; default 0.
        cover_all: Extend the output so that every input pixel is covered by a window.
        dilate: Int or pair of dilation factors.
        groups: Number of channel groups.

    Attributes:
        cudnn_fast: Whether ``chainlet.config.compute_mode`` was ``'cudnn_fast'`` when the link
            was built (Chainer 7.8's cuDNN channels-last mode). Such a link passes
            ``cudnn_fast=True`` to :func:`~chainlet.functions.convolution_2d`: the same values on
            a GPU (chainlet keeps the standard layout), a ``RuntimeError`` on the CPU, as in
            Chainer.
        x_layout: The memory layout the link expects its input in: always ``None``, the
            standard one (:mod:`chainlet.memory_layouts`).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> conv = L.Convolution2D(8, 3, pad=1)          # in_channels inferred
        >>> conv(np.zeros((2, 5, 6, 6), np.float32)).shape
        (2, 8, 6, 6)
        >>> conv.W.shape
        (8, 5, 3, 3)
        >>> conv
        Convolution2D(in_channels=5, out_channels=8, ksize=(3, 3), stride=(1, 1), pad=(1, 1),
                      nobias=False)
    """

    cudnn_fast = False  # (also for links unpickled from before the attribute existed)
    x_layout = None

    def __init__(self, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None, *, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        self.cover_all = bool(cover_all)
        # Chainer 7.8 reads the compute mode when the link is built (see cudnn_fast).
        self.cudnn_fast = _config.config.compute_mode == 'cudnn_fast'
        self._setup('Convolution2D', 2, in_channels, out_channels, ksize, stride, pad, nobias,
                    initialW, initial_bias, dilate, groups)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, *, cover_all: bool = False, dilate: Any = 1,
                    groups: int = 1) -> 'Convolution2D':
        """A ``Convolution2D`` whose parameters start as copies of ``W`` (and ``b``).

        Args:
            W: Filter array or Variable of shape ``(out, in / groups, kh, kw)``.
            b: Bias of shape ``(out,)``, or ``None`` (bias 0).
            stride, pad, nobias, cover_all, dilate, groups: As in the constructor.

        Returns:
            A new link; the channels and the kernel size are read from ``W``.

        Example:
            >>> import numpy as np, chainlet.links as L
            >>> L.Convolution2D.from_params(np.ones((4, 3, 2, 2), np.float32)).W.shape
            (4, 3, 2, 2)
        """
        in_channels, out_channels, ksize, W, b = split_params(
            'Convolution2D', W, b, 2, groups)
        return cls(in_channels, out_channels, ksize, stride, pad, nobias, initialW=W,
                   initial_bias=b, cover_all=cover_all, dilate=dilate, groups=groups)

    def forward(self, x: Any) -> Variable:
        """Convolve ``x`` of shape ``(n, in_channels, h, w)``."""
        self._ensure_params(x)
        return convolution_2d(x, self.W, self.b, self.stride, self.pad, self.cover_all,
                              dilate=self.dilate, groups=self.groups, cudnn_fast=self.cudnn_fast)
