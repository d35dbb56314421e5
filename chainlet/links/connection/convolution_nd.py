"""``ConvolutionND`` and its fixed-rank forms ``Convolution1D`` and ``Convolution3D``."""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.connection.convolution_nd import convolution_nd
from chainlet.links import _util
from chainlet.links.connection._conv import ConvolutionBase, split_params
from chainlet.variable import Variable


class ConvolutionND(ConvolutionBase):
    """N-dimensional convolution layer (channels first), holding ``W`` and ``b``.

    Args:
        ndim: Number of spatial axes.
        in_channels: Number of input channels, or ``None`` to infer it. As in
            :class:`Convolution2D`, ``ConvolutionND(ndim, out_channels, ksize)`` also works.
        out_channels: Number of output channels.
        ksize: Int or tuple of ``ndim`` filter sizes.
        stride: Int or tuple of strides.
        pad: Int or tuple of zero paddings.
        nobias: Do not use a bias.
        initialW: Initializer of ``W`` (shape ``(out_channels, in_channels / groups,
            *ksize)``); default ``LeCunNormal``.
        initial_bias: Initializer of ``b``; default 0.
        cover_all: Extend the output so that all input elements take part.
        dilate: Int or tuple of dilation factors.
        groups: Number of channel groups.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> conv = L.ConvolutionND(3, 2, 4, 3)
        >>> conv(np.zeros((1, 2, 5, 5, 5), np.float32)).shape
        (1, 4, 3, 3, 3)
    """

    def __init__(self, ndim: int, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        name = type(self).__name__
        ndim = _util.check_size(name, 'ndim', ndim)
        self.cover_all = bool(cover_all)
        self._setup(name, ndim, in_channels, out_channels, ksize, stride, pad, nobias,
                    initialW, initial_bias, dilate, groups)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, *, cover_all: bool = False, dilate: Any = 1,
                    groups: int = 1) -> 'ConvolutionND':
        """A ``ConvolutionND`` whose parameters start as copies of ``W`` (and ``b``).

        Args:
            W: Filter array or Variable of shape ``(out, in / groups, *ksize)``; its rank
                gives ``ndim``.
            b: Bias of shape ``(out,)``, or ``None`` (bias 0).
            stride, pad, nobias, cover_all, dilate, groups: As in the constructor.

        Returns:
            A new link; ``ndim``, the channels and the kernel size are read from ``W``.

        Example:
            >>> import numpy as np, chainlet.links as L
            >>> L.ConvolutionND.from_params(np.ones((4, 3, 2), np.float32)).ndim
            1
        """
        in_channels, out_channels, ksize, W, b = split_params(
            cls.__name__, W, b, None, groups)
        return cls(len(ksize), in_channels, out_channels, ksize, stride, pad, nobias,
                   initialW=W, initial_bias=b, cover_all=cover_all, dilate=dilate,
                   groups=groups)

    def forward(self, x: Any) -> Variable:
        """Convolve ``x`` of shape ``(n, in_channels, d_1, ..., d_ndim)``."""
        self._ensure_params(x)
        return convolution_nd(x, self.W, self.b, self.stride, self.pad, self.cover_all,
                              self.dilate, self.groups)

    def _repr_args(self) -> dict:
        return {'ndim': self.ndim, **super()._repr_args()}


class Convolution1D(ConvolutionND):
    """:class:`ConvolutionND` with one spatial axis: input ``(n, c, l)``.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> L.Convolution1D(2, 3, 5)(np.zeros((4, 2, 10), np.float32)).shape
        (4, 3, 6)
    """

    def __init__(self, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                         initial_bias, cover_all, dilate, groups)

    def _repr_args(self) -> dict:
        return ConvolutionBase._repr_args(self)


class Convolution3D(ConvolutionND):
    """:class:`ConvolutionND` with three spatial axes: input ``(n, c, d, h, w)``.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> L.Convolution3D(2, 3, 2)(np.zeros((1, 2, 4, 4, 4), np.float32)).shape
        (1, 3, 3, 3, 3)
    """

    def __init__(self, in_channels: Optional[int], out_channels: Optional[int],
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                         initial_bias, cover_all, dilate, groups)

    def _repr_args(self) -> dict:
        return ConvolutionBase._repr_args(self)
