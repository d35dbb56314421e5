"""Two-dimensional convolution, ``convolution_2d``, with Chainer's node names.

``Convolution2DFunction`` and ``Convolution2DGradW`` are the 2-D forms of
:class:`~chainlet.functions.connection.convolution_nd.ConvolutionND` and
:class:`~chainlet.functions.connection.convolution_nd.ConvolutionNDGradW`.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy

from chainlet.functions.connection._conv_utils import Conv2DAttributes
from chainlet.functions.connection.convolution_nd import (ConvolutionND, ConvolutionNDGradW,
                                                          _apply)
from chainlet.utils import argument
from chainlet.variable import Variable

IntOrPair = Union[int, Sequence[int]]

# Chainer 2 removed the ``deterministic`` argument; Chainer 7 still answers it with this hint.
_DETERMINISTIC = ("deterministic argument is not supported anymore. Use "
                  "chainlet.using_config('cudnn_deterministic', value) context where value is "
                  "either `True` or `False`.")


class Convolution2DFunction(Conv2DAttributes, ConvolutionND):
    """``y = conv2d(x, W) + b``; see :func:`convolution_2d` for the arguments."""

    def __init__(self, stride: IntOrPair = 1, pad: IntOrPair = 0, cover_all: bool = False, *,
                 dilate: IntOrPair = 1, groups: int = 1, cudnn_fast: bool = False,
                 func_name: str = 'convolution_2d') -> None:
        super().__init__(2, stride, pad, cover_all, dilate, groups, func_name=func_name)
        self.cudnn_fast = bool(cudnn_fast)

    def forward(self, inputs):
        # Chainer 7.8's cuDNN "fast" (channels-last, Tensor Core) mode has no CPU
        # implementation, and Chainer refuses it there; on a GPU chainlet computes the same
        # values in the standard layout.
        if self.cudnn_fast and isinstance(inputs[0], numpy.ndarray):
            raise RuntimeError(f"{self.func_name}: cudnn_fast=True (compute_mode 'cudnn_fast') "
                               f"cannot be used in the CPU backend")
        return super().forward(inputs)


class Convolution2DGradW(ConvolutionNDGradW):
    """Gradient of a 2-D convolution with respect to its filter, from ``(x, gy)``."""


def convolution_2d(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrPair = 1,
                   pad: IntOrPair = 0, cover_all: bool = False, *, dilate: IntOrPair = 1,
                   groups: int = 1, cudnn_fast: bool = False, **kwargs: Any) -> Variable:
    """Two-dimensional convolution (cross-correlation) of images, NCHW layout.

    ``y[n, o, i, j] = b[o] + sum_{c, u, v} W[o, c, u, v] x_pad[n, c', s_Y i + d_Y u,
    s_X j + d_X v]`` with ``x_pad`` the input zero-padded by ``(p_H, p_W)`` and ``c'`` the
    input channel ``c`` of the group of ``o``. The output size is

    ``h_O = (h + 2 p_H - dk_H) // s_Y + 1`` and ``w_O = (w + 2 p_W - dk_W) // s_X + 1``,

    with the dilated kernel extent ``dk = k + (k - 1)(d - 1)``. With ``cover_all=True``,
    ``s - 1`` is added to the numerators so that every input pixel is covered by a window.

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        W: Filter of shape ``(c_O, c_I / groups, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)``, same dtype as ``x``.
        stride: Int or pair of positive ints ``(s_Y, s_X)``.
        pad: Int or pair of non-negative ints ``(p_H, p_W)``.
        cover_all: Extend the output so that all input pixels take part.
        dilate: Int or pair of positive ints ``(d_Y, d_X)``: spacing between filter taps.
        groups: Number of channel groups; ``c_I`` and ``c_O`` must be multiples of it.
        cudnn_fast: Chainer 7.8's request for cuDNN's channels-last fast path (what
            ``L.Convolution2D`` passes under ``compute_mode='cudnn_fast'``). On a GPU the result
            is the same as without it; on the CPU it raises, as in Chainer.

    Returns:
        Variable of shape ``(n, c_O, h_O, w_O)`` and the dtype of ``x``.

    Raises:
        TypeError: Non-float inputs, ``x``/``W`` not 4-D, channel or bias mismatches, wrong
            kinds of hyper-parameters.
        ValueError: Non-positive ``stride``/``dilate``/``groups``, negative ``pad``, a
            kernel larger than the padded input, or the removed ``deterministic`` keyword
            (use ``chainlet.using_config('cudnn_deterministic', ...)``).
        RuntimeError: ``cudnn_fast=True`` with NumPy arrays.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> W = np.ones((1, 1, 2, 2), np.float32)
        >>> F.convolution_2d(x, W, stride=2).array
        array([[[[10., 18.],
                 [42., 50.]]]], dtype=float32)
        >>> F.convolution_2d(x, np.ones((8, 1, 3, 3), np.float32), pad=1).shape
        (1, 8, 4, 4)
    """
    argument.check_unexpected_kwargs(kwargs, deterministic=_DETERMINISTIC)
    argument.assert_kwargs_empty(kwargs)
    return _apply(Convolution2DFunction(stride, pad, cover_all, dilate=dilate, groups=groups,
                                        cudnn_fast=cudnn_fast), x, W, b)
