"""``LocalConvolution2D``: a 2-d convolution with unshared weights (a separate filter at each
output position), computed by :func:`chainlet.functions.local_convolution_2d`.

``W`` has shape ``(out_channels, out_h, out_w, in_channels, kh, kw)`` and ``b`` ``(out_channels,
out_h, out_w)``, so the spatial size of the input must be known: given as ``in_size`` or taken
from the first input (with ``in_channels``). There is no padding, as in Chainer.
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet import initializers
from chainlet.functions.connection.local_convolution_2d import local_convolution_2d
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class LocalConvolution2D(Link):
    """Two-dimensional locally connected (unshared) convolution layer.

    Args:
        in_channels: Input channels, or ``None`` to take them (and the input size) from the
            first input.
        out_channels: Output channels.
        in_size: Spatial size of the input (an int or a pair), or ``None`` to infer it.
        ksize: Filter size (an int or a pair).
        stride: Stride (an int or a pair).
        nobias: Do not use a bias.
        initialW: Initializer of ``W``; default ``LeCunNormal``.
        initial_bias: Initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> conv = L.LocalConvolution2D(3, 2, in_size=4, ksize=3)
        >>> conv.W.shape, conv(np.ones((1, 3, 4, 4), np.float32)).shape
        ((2, 2, 2, 3, 3, 3), (1, 2, 2, 2))
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, in_size: Any = None,
                 ksize: Any = None, stride: Any = 1, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        name = 'LocalConvolution2D'
        if ksize is None:
            raise TypeError(f'{name}: argument ksize: expected an int or a pair, got None')
        self.in_channels = _util.check_size(name, 'in_channels', in_channels, allow_none=True)
        self.out_channels = _util.check_size(name, 'out_channels', out_channels)
        self.ksize = _util.as_tuple(name, 'ksize', ksize, 2)
        self.stride = _util.as_tuple(name, 'stride', stride, 2)
        self.nobias = bool(nobias)
        dtype = _util.resolve_dtype(initialW, None if nobias else initial_bias)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(
                initialW, initializers.LeCunNormal(), dtype, name, 'initialW'))
            self.b = None if self.nobias else Parameter(_util.get_initializer(
                initial_bias, 0, dtype, name, 'initial_bias'))
        if self.in_channels is not None and in_size is not None:
            self._initialize_params(self.in_channels, _util.as_tuple(name, 'in_size', in_size, 2))

    def _initialize_params(self, in_channels: int, in_size: tuple) -> None:
        out_size = tuple((s - k) // st + 1 for s, k, st in zip(in_size, self.ksize, self.stride))
        if min(out_size) <= 0:
            raise ValueError(f'LocalConvolution2D: the kernel {self.ksize} does not fit in the '
                             f'input of spatial size {in_size}')
        self.in_channels = in_channels
        self.W.initialize((self.out_channels,) + out_size + (in_channels,) + self.ksize)
        if self.b is not None:
            self.b.initialize((self.out_channels,) + out_size)

    def forward(self, x: Any) -> Variable:
        """Apply the layer to ``x`` of shape ``(N, C, H, W)``."""
        if self.W.array is None:
            self._initialize_params(int(x.shape[1]), tuple(int(s) for s in x.shape[2:4]))
        return local_convolution_2d(x, self.W, self.b, self.stride)
