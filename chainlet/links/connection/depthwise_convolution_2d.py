"""``DepthwiseConvolution2D``: one set of filters per input channel."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import initializers
from chainlet.functions.connection.depthwise_convolution_2d import depthwise_convolution_2d
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class DepthwiseConvolution2D(Link):
    """Depthwise two-dimensional convolution layer.

    Each of the ``in_channels`` input channels is convolved with its own ``channel_multiplier``
    filters, giving ``in_channels * channel_multiplier`` output channels.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it on the first call.
        channel_multiplier: Number of filters per input channel.
        ksize: Int or pair of filter sizes.
        stride: Int or pair of strides.
        pad: Int or pair of zero paddings.
        nobias: Do not use a bias.
        initialW: Initializer of ``W`` (shape ``(channel_multiplier, in_channels, k_H, k_W)``);
            default ``LeCunNormal``.
        initial_bias: Initializer of ``b`` (shape ``(in_channels * channel_multiplier,)``);
            default 0.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> conv = L.DepthwiseConvolution2D(3, 2, 3, pad=1)
        >>> conv(np.zeros((1, 3, 4, 4), np.float32)).shape
        (1, 6, 4, 4)
        >>> conv.W.shape, conv.b.shape
        ((2, 3, 3, 3), (6,))
    """

    def __init__(self, in_channels: Optional[int], channel_multiplier: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        name = 'DepthwiseConvolution2D'
        self.in_channels = _util.check_size(name, 'in_channels', in_channels, allow_none=True)
        self.channel_multiplier = _util.check_size(name, 'channel_multiplier',
                                                   channel_multiplier)
        self.ksize = _util.as_tuple(name, 'ksize', ksize, 2)
        self.stride = _util.as_tuple(name, 'stride', stride, 2)
        self.pad = _util.as_tuple(name, 'pad', pad, 2)
        self.nobias = bool(nobias)
        dtype = _util.resolve_dtype(initialW, None if nobias else initial_bias)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(
                initialW, initializers.LeCunNormal(), dtype, name, 'initialW'))
            self.b = None if self.nobias else Parameter(_util.get_initializer(
                initial_bias, 0, dtype, name, 'initial_bias'))
        if self.in_channels is not None:
            self._initialize_params(self.in_channels)

    def _initialize_params(self, in_channels: int) -> None:
        self.in_channels = in_channels
        self.W.initialize((self.channel_multiplier, in_channels) + self.ksize)
        if self.b is not None:
            self.b.initialize((self.channel_multiplier * in_channels,))

    def forward(self, x: Any) -> Variable:
        """Convolve ``x`` of shape ``(n, in_channels, h, w)``."""
        if self.W.array is None:
            if len(x.shape) < 2:
                raise ValueError(f'DepthwiseConvolution2D: argument x: expected shape '
                                 f'(n, c, h, w), got {tuple(x.shape)}')
            self._initialize_params(int(x.shape[1]))
        return depthwise_convolution_2d(x, self.W, self.b, self.stride, self.pad)

    def _repr_args(self) -> dict:
        return {'in_channels': self.in_channels, 'channel_multiplier': self.channel_multiplier,
                'ksize': self.ksize, 'stride': self.stride, 'pad': self.pad,
                'nobias': self.nobias}
