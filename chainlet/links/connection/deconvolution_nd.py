"""``DeconvolutionND`` and its fixed-rank forms ``Deconvolution1D`` and ``Deconvolution3D``."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from chainlet.functions.connection.deconvolution_nd import deconvolution_nd
from chainlet.links import _util
from chainlet.links.connection._conv import ConvolutionBase, split_params
from chainlet.variable import Variable


class DeconvolutionND(ConvolutionBase):
    """N-dimensional deconvolution (transposed convolution) layer, channels first.

    ``W`` has shape ``(in_channels, out_channels / groups, *ksize)``.

    Args:
        ndim: Number of spatial axes.
        in_channels: Number of input channels, or ``None`` to infer it (the form
            ``DeconvolutionND(ndim, out_channels, ksize)`` also works).
        out_channels: Number of output channels.
        ksize: Int or tuple of ``ndim`` filter sizes.
        stride: Int or tuple of strides.
        pad: Int or tuple of paddings (cropped from the output).
        nobias: Do not use a bias.
        outsize: Output spatial shape, or ``None`` to compute it.
        initialW: Initializer of ``W``; default ``LeCunNormal``.
        initial_bias: Initializer of ``b``; default 0.
        dilate: Int or tuple of dilation factors.
        groups: Number of channel groups.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> L.DeconvolutionND(1, 2, 3, 3)(np.zeros((1, 2, 4), np.float32)).shape
        (1, 3, 6)
    """

    _transposed = True

    def __init__(self, ndim: int, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 outsize: Optional[Sequence[int]] = None, initialW: Any = None,
                 initial_bias: Any = None, dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        name = type(self).__name__
        ndim = _util.check_size(name, 'ndim', ndim)
        self.outsize = None if outsize is None else tuple(outsize)
        self._setup(name, ndim, in_channels, out_channels, ksize, stride, pad, nobias,
                    initialW, initial_bias, dilate, groups)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, outsize: Optional[Sequence[int]] = None, *,
                    dilate: Any = 1, groups: int = 1) -> 'DeconvolutionND':
        """A ``DeconvolutionND`` whose parameters start as copies of ``W`` (and ``b``).

        Args:
            W: Filter array or Variable of shape ``(in, out / groups, *ksize)``.
            b: Bias of shape ``(out,)``, or ``None`` (bias 0).
            stride, pad, nobias, outsize, dilate, groups: As in the constructor.

        Returns:
            A new link; the channels and the kernel size are read from ``W``.

        Example:
            >>> import numpy as np, chainlet.links as L
            >>> L.DeconvolutionND.from_params(np.ones((3, 4, 2), np.float32)).ndim
            1
        """
        in_channels, out_channels, ksize, W, b = split_params(
            cls.__name__, W, b, None, groups, transposed=True)
        return cls(len(ksize), in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                   initialW=W, initial_bias=b, dilate=dilate, groups=groups)

    def forward(self, x: Any) -> Variable:
        """Deconvolve ``x`` of shape ``(n, in_channels, l_1, ..., l_ndim)``."""
        self._ensure_params(x)
        return deconvolution_nd(x, self.W, self.b, self.stride, self.pad, self.outsize,
                                self.dilate, self.groups)

    def _repr_args(self) -> dict:
        return {'ndim': self.ndim, **super()._repr_args()}


class Deconvolution1D(DeconvolutionND):
    """:class:`DeconvolutionND` with one spatial axis."""

    def __init__(self, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 outsize: Optional[Sequence[int]] = None, initialW: Any = None,
                 initial_bias: Any = None, dilate: Any = 1, groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                         initialW, initial_bias, dilate, groups)

    def _repr_args(self) -> dict:
        return ConvolutionBase._repr_args(self)


class Deconvolution3D(DeconvolutionND):
    """:class:`DeconvolutionND` with three spatial axes."""

    def __init__(self, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 outsize: Optional[Sequence[int]] = None, initialW: Any = None,
                 initial_bias: Any = None, dilate: Any = 1, groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                         initialW, initial_bias, dilate, groups)

    def _repr_args(self) -> dict:
        return ConvolutionBase._repr_args(self)
