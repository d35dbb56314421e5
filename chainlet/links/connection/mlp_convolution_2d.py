"""``MLPConvolution2D``: the "network in network" block (Lin et al., 2014).

A :class:`~chainlet.ChainList` of one ``ksize`` convolution followed by 1x1 convolutions (a
small per-pixel MLP), with ``activation`` between them but not after the last (as Chainer
since v2). The children are named ``'0'``, ``'1'``, ... like Chainer's.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from chainlet.functions.activation.relu import relu
from chainlet.link import ChainList
from chainlet.links.connection.convolution_2d import Convolution2D
from chainlet.utils import argument
from chainlet.variable import Variable

_WSCALE = ('MLPConvolution2D: wscale is not supported anymore; use the conv_init and '
           'bias_init arguments to change the scale of the initial parameters')


class MLPConvolution2D(ChainList):
    """Two-dimensional MLP convolution layer.

    Args:
        in_channels: Input channels, or ``None`` to infer them. With only two positional
            arguments they are ``out_channels, ksize``.
        out_channels: A sequence: the output channels of each convolution in turn.
        ksize: Filter size of the first convolution (the others are 1x1).
        stride: Stride of the first convolution.
        pad: Padding of the first convolution.
        activation: Applied after every convolution but the last; default ReLU.
        conv_init: Initializer of every ``W``; default ``LeCunNormal`` (keyword only).
        bias_init: Initializer of every bias; default 0 (keyword only). Chainer v1's
            ``wscale``, positional or keyword, raises ``TypeError`` / ``ValueError`` with a
            hint, as in Chainer.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> block = L.MLPConvolution2D(3, (8, 4, 2), 3, pad=1)
        >>> block(np.ones((1, 3, 5, 5), np.float32)).shape, len(block)
        ((1, 2, 5, 5), 3)
    """

    def __init__(self, in_channels: Optional[int], out_channels: Any, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0,
                 activation: Callable[[Any], Variable] = relu, *args: Any,
                 **kwargs: Any) -> None:
        # Chainer v1 took wscale as the next positional argument: refuse it with a hint.
        if args:
            raise TypeError(_WSCALE)
        conv_init, bias_init = argument.parse_kwargs(
            kwargs, ('conv_init', None), ('bias_init', None), wscale=_WSCALE)
        if ksize is None:  # the two-argument form: (out_channels, ksize)
            out_channels, ksize, in_channels = in_channels, out_channels, None
        if not isinstance(out_channels, Sequence) or len(out_channels) == 0:
            raise TypeError(f'MLPConvolution2D: argument out_channels: expected a non-empty '
                            f'sequence of ints, got {out_channels!r}')
        channels: Sequence[int] = tuple(out_channels)
        convs = [Convolution2D(in_channels, channels[0], ksize, stride, pad,
                               initialW=conv_init, initial_bias=bias_init)]
        for n_in, n_out in zip(channels, channels[1:]):
            convs.append(Convolution2D(n_in, n_out, 1, initialW=conv_init,
                                       initial_bias=bias_init))
        super().__init__(*convs)
        self.activation = activation

    def forward(self, x: Any) -> Variable:
        """Apply the convolutions to ``x`` of shape ``(N, C, H, W)``."""
        n = len(self)
        for i, conv in enumerate(self):
            x = conv(x)
            if i < n - 1:
                x = self.activation(x)
        return x
