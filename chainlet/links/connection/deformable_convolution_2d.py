"""``DeformableConvolution2D``: a 2-d convolution whose sampling positions are shifted by
learned offsets (Dai et al., 2017).

Two children, with Chainer's names: ``offset_conv`` (a :class:`Convolution2D` predicting two
offsets per filter tap, zero at the start so the layer begins as a plain convolution) and
``deform_conv`` (:class:`DeformableConvolution2DSampler`, holding ``W`` and ``b`` and calling
:func:`chainlet.functions.deformable_convolution_2d_sampler`).
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler)
from chainlet.link import Chain, Link
from chainlet.links import _util
from chainlet.links.connection.convolution_2d import Convolution2D
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class DeformableConvolution2DSampler(Link):
    """The sampling convolution of :class:`DeformableConvolution2D`: ``y = f(x, offset)``.

    Args:
        in_channels: Input channels (``None``: inferred on the first call).
        out_channels: Output channels.
        ksize, stride, pad: As in :class:`Convolution2D`.
        nobias: Do not use a bias.
        initialW: Initializer of ``W`` ``(out, in, kh, kw)``; default 0, as in Chainer 7.
        initial_bias: Initializer of ``b``; default 0.
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        name = 'DeformableConvolution2DSampler'
        self.in_channels = _util.check_size(name, 'in_channels', in_channels, allow_none=True)
        self.out_channels = _util.check_size(name, 'out_channels', out_channels)
        self.ksize = _util.as_tuple(name, 'ksize', ksize, 2)
        self.stride = _util.as_tuple(name, 'stride', stride, 2)
        self.pad = _util.as_tuple(name, 'pad', pad, 2)
        dtype = _util.resolve_dtype(initialW, None if nobias else initial_bias)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(
                initialW, 0, dtype, name, 'initialW'))
            self.b = None if nobias else Parameter(_util.get_initializer(
                initial_bias, 0, dtype, name, 'initial_bias'), (self.out_channels,))
        if self.in_channels is not None:
            self._initialize_params(self.in_channels)

    def _initialize_params(self, in_channels: int) -> None:
        self.in_channels = in_channels
        self.W.initialize((self.out_channels, in_channels) + self.ksize)

    def forward(self, x: Any, offset: Any) -> Variable:
        """Convolve ``x`` ``(N, C, H, W)`` sampling at the positions shifted by ``offset``."""
        if self.W.array is None:
            self._initialize_params(int(x.shape[1]))
        return deformable_convolution_2d_sampler(x, offset, self.W, self.b, self.stride,
                                                 self.pad)


class DeformableConvolution2D(Chain):
    """Two-dimensional deformable convolution layer.

    Args:
        in_channels: Input channels (``None``: inferred on the first call).
        out_channels: Output channels.
        ksize: Filter size (an int or a pair).
        stride: Stride.
        pad: Padding.
        offset_nobias: ``offset_conv`` without a bias.
        offset_initialW: Initializer of ``offset_conv.W``; default ``LeCunNormal`` (that of
            :class:`Convolution2D`).
        offset_initial_bias: Initializer of ``offset_conv.b``; default 0.
        deform_nobias: ``deform_conv`` without a bias.
        deform_initialW: Initializer of ``deform_conv.W``; default 0.
        deform_initial_bias: Initializer of ``deform_conv.b``; default 0.

    The defaults are Chainer 7.8.1's (random offset predictor, zero sampling filter), so a
    seeded random state gives Chainer's initial weights; the deformable-convolution paper
    starts the other way round (zero offsets), which ``offset_initialW=0,
    deform_initialW=chainlet.initializers.LeCunNormal()`` gives.

    Example:
        >>> import numpy as np, chainlet, chainlet.links as L, chainlet.functions as F
        >>> conv = L.DeformableConvolution2D(3, 2, 3, pad=1, offset_initialW=0,
        ...                                  deform_initialW=chainlet.initializers.LeCunNormal())
        >>> x = np.random.RandomState(0).rand(1, 3, 5, 5).astype(np.float32)
        >>> y = conv(x)                  # zero offsets: a plain convolution at the start
        >>> np.allclose(y.array, F.convolution_2d(x, conv.deform_conv.W, conv.deform_conv.b,
        ...                                       pad=1).array, atol=1e-5)
        True
    """

    def __init__(self, in_channels: Optional[int], out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, offset_nobias: bool = False,
                 offset_initialW: Any = None, offset_initial_bias: Any = None,
                 deform_nobias: bool = False, deform_initialW: Any = None,
                 deform_initial_bias: Any = None) -> None:
        super().__init__()
        kh, kw = _util.as_tuple('DeformableConvolution2D', 'ksize', ksize, 2)
        with self.init_scope():
            self.offset_conv = Convolution2D(
                in_channels, 2 * kh * kw, (kh, kw), stride, pad, offset_nobias,
                offset_initialW, offset_initial_bias)
            self.deform_conv = DeformableConvolution2DSampler(
                in_channels, out_channels, (kh, kw), stride, pad, deform_nobias,
                deform_initialW, deform_initial_bias)

    def forward(self, x: Any) -> Variable:
        """Predict the offsets from ``x`` and convolve ``x`` at the shifted positions."""
        return self.deform_conv(x, self.offset_conv(x))
