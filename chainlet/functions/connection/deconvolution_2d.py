"""Two-dimensional deconvolution (transposed convolution), ``deconvolution_2d``.

``Deconvolution2DFunction`` is the 2-D form of
:class:`~chainlet.functions.connection.deconvolution_nd.DeconvolutionND`.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from chainlet.functions.connection import _conv_utils
from chainlet.functions.connection.convolution_2d import _DETERMINISTIC
from chainlet.functions.connection.convolution_nd import _apply
from chainlet.functions.connection.deconvolution_nd import DeconvolutionND
from chainlet.utils import argument
from chainlet.variable import Variable

IntOrPair = Union[int, Sequence[int]]


class Deconvolution2DFunction(_conv_utils.Conv2DAttributes, DeconvolutionND):
    """``y = deconv2d(x, W) + b``; see :func:`deconvolution_2d` for the arguments.

    Chainer's ``outh, outw``: the output size, once ``forward`` has run (or as given).
    """

    outh = property(lambda self: None if self.outsize is None else self.outsize[0])
    outw = property(lambda self: None if self.outsize is None else self.outsize[1])

    def __init__(self, stride: IntOrPair = 1, pad: IntOrPair = 0,
                 outsize: Optional[Sequence[int]] = None, *, dilate: IntOrPair = 1,
                 groups: int = 1, func_name: str = 'deconvolution_2d') -> None:
        super().__init__(2, stride, pad, outsize, dilate, groups, func_name=func_name)


def deconvolution_2d(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrPair = 1,
                     pad: IntOrPair = 0, outsize: Optional[Sequence[int]] = None, *,
                     dilate: IntOrPair = 1, groups: int = 1, **kwargs: Any) -> Variable:
    """Two-dimensional deconvolution (transposed convolution) of images, NCHW layout.

    The adjoint of :func:`convolution_2d` with the same filter (so ``W`` has its input
    channels first): each input pixel ``x[n, c, i, j]`` adds ``x[n, c, i, j] * W[c, o, u, v]``
    to output pixel ``(s_Y i + d_Y u - p_H, s_X j + d_X v - p_W)``, then ``b`` is added.
    Without ``outsize`` the output size is

    ``h_O = s_Y (h - 1) + dk_H - 2 p_H`` and ``w_O = s_X (w - 1) + dk_W - 2 p_W``

    with ``dk = k + (k - 1)(d - 1)``. ``outsize`` may ask for another size as long as
    ``convolution_2d`` of it (with or without ``cover_all``) has the input's size.

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        W: Filter of shape ``(c_I, c_O / groups, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)``, same dtype as ``x``.
        stride: Int or pair of positive ints ``(s_Y, s_X)``.
        pad: Int or pair of non-negative ints ``(p_H, p_W)``, cropped from the output.
        outsize: Pair ``(h_O, w_O)`` or ``None`` (computed as above).
        dilate: Int or pair of positive ints ``(d_Y, d_X)``.
        groups: Number of channel groups; ``c_I`` must be a multiple of it.

    Returns:
        Variable of shape ``(n, c_O, h_O, w_O)`` and the dtype of ``x``.

    Raises:
        TypeError: Non-float inputs, wrong ranks, channel or bias mismatches.
        ValueError: Bad hyper-parameters, an ``outsize`` inconsistent with the input, or the
            removed ``deterministic`` keyword (as in Chainer).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32)
        >>> W = np.ones((1, 1, 2, 2), np.float32)
        >>> F.deconvolution_2d(x, W, stride=2).array
        array([[[[1., 1., 2., 2.],
                 [1., 1., 2., 2.],
                 [3., 3., 4., 4.],
                 [3., 3., 4., 4.]]]], dtype=float32)
        >>> F.deconvolution_2d(x, np.ones((1, 5, 3, 3), np.float32), stride=2, pad=1,
        ...                    outsize=(4, 4)).shape
        (1, 5, 4, 4)
    """
    argument.check_unexpected_kwargs(kwargs, deterministic=_DETERMINISTIC)
    argument.assert_kwargs_empty(kwargs)
    return _apply(Deconvolution2DFunction(stride, pad, outsize, dilate=dilate, groups=groups),
                  x, W, b)
