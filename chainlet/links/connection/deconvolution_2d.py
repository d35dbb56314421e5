"""``Deconvolution2D``: the two-dimensional transposed convolution layer."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from chainlet.functions.connection.deconvolution_2d import deconvolution_2d
from chainlet.links.connection._conv import ConvolutionBase, split_params
from chainlet.variable import Variable


class Deconvolution2D(ConvolutionBase):
    """Two-dimensional deconvolution (transposed convolution) layer on NCHW images.

    ``W`` has the input channels first: shape ``(in_channels, out_channels / groups, k_H,
    k_W)``. ``Deconvolution2D(out_channels, ksize, ...)`` (or ``in_channels=None``) infers
    ``in_channels`` from the first input.

    Args:
        in_channels: Number of input channels, or ``None``.
        out_channels: Number of output channels.
        ksize: Int or pair of filter sizes.
        stride: Int or pair of strides.
        pad: Int or pair of paddings (cropped from the output).
        nobias: Do not use a bias.
        outsize: Output spatial size ``(h_O, w_O)``, or ``None`` to compute it.
        initialW: Initializer of ``W``; default ``LeCunNormal``.
        initial_bias: Initializer of ``b``; default 0.
        dilate: Int or pair of dilation factors.
        groups: Number of channel groups.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> deconv = L.Deconvolution2D(3, 2, 4, stride=2, pad=1)
        >>> deconv(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 2, 10, 10)
        >>> deconv.W.shape
        (3, 2, 4, 4)
    """

    _transposed = True

    def __init__(self, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 outsize: Optional[Sequence[int]] = None, initialW: Any = None,
                 initial_bias: Any = None, *, dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        self.outsize = None if outsize is None else tuple(outsize)
        self._setup('Deconvolution2D', 2, in_channels, out_channels, ksize, stride, pad, nobias,
                    initialW, initial_bias, dilate, groups)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, outsize: Optional[Sequence[int]] = None, *,
                    dilate: Any = 1, groups: int = 1) -> 'Deconvolution2D':
        """A ``Deconvolution2D`` whose parameters start as copies of ``W`` (and ``b``).

        Args:
            W: Filter array or Variable of shape ``(in, out / groups, *ksize)``.
            b: Bias of shape ``(out,)``, or ``None`` (bias 0).
            stride, pad, nobias, outsize, dilate, groups: As in the constructor.

        Returns:
            A new link; the channels and the kernel size are read from ``W``.

        Example:
            >>> import numpy as np, chainlet.links as L
            >>> L.Deconvolution2D.from_params(np.ones((3, 4, 2, 2), np.float32)).out_channels
            4
        """
        in_channels, out_channels, ksize, W, b = split_params(
            cls.__name__, W, b, 2, groups, transposed=True)
        return cls(in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                   initialW=W, initial_bias=b, dilate=dilate, groups=groups)

    def forward(self, x: Any) -> Variable:
        """Deconvolve ``x`` of shape ``(n, in_channels, h, w)``."""
        self._ensure_params(x)
        return deconvolution_2d(x, self.W, self.b, self.stride, self.pad, self.outsize,
                                dilate=self.dilate, groups=self.groups)
