"""Local response normalization across channels."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def _window_sum(x: Any, half_n: int) -> Any:
    """Sum of ``x`` over the channels ``c - half_n .. c + half_n`` (axis 1), clipped at the
    edges."""
    y = x.copy()
    c = x.shape[1]
    for i in range(1, min(half_n, c - 1) + 1):
        y[:, i:] += x[:, :-i]
        y[:, :-i] += x[:, i:]
    return y


class ChannelWindowSum(FunctionNode):
    """Windowed sum over channels. The window is symmetric, so the operator is its own
    transpose and backward applies it again."""

    def __init__(self, half_n: int) -> None:
        self.half_n = half_n

    def forward(self, inputs):
        return _window_sum(inputs[0], self.half_n),

    def backward(self, indexes, grad_outputs):
        return ChannelWindowSum(self.half_n).apply(grad_outputs)


class LocalResponseNormalization(FunctionNode):
    """``y = x * (k + alpha * window_sum(x^2)) ** -beta``; retains ``x`` and rebuilds the
    scale with differentiable functions in backward."""

    def __init__(self, n: int = 5, k: float = 2, alpha: float = 1e-4,
                 beta: float = 0.75) -> None:
        self.n = n
        self.k = k
        self.alpha = alpha
        self.beta = beta

    def _check_arrays(self, in_data):
        type_check.argument('local_response_normalization', 'x', in_data[0], kind='f',
                            min_ndim=2)

    def forward(self, inputs):
        x, = inputs
        dtype = x.dtype
        # float16 squares overflow early; accumulate in float32.
        xw = x.astype(numpy.float32) if dtype == numpy.float16 else x
        unit = _window_sum(xw * xw, self.n // 2)
        unit *= self.alpha
        unit += self.k
        y = xw * unit ** -self.beta
        self.retain_inputs((0,))
        return y.astype(dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        half_n = self.n // 2
        unit = ChannelWindowSum(half_n).apply((x * x,))[0] * self.alpha + self.k
        scale = unit ** -self.beta
        # d y_c / d x_j = scale_c [c == j] - 2 alpha beta x_c x_j scale_c / unit_c [j in W(c)]
        t = ChannelWindowSum(half_n).apply((gy * x * scale / unit,))[0]
        return gy * scale - x * t * (2 * self.alpha * self.beta),


def local_response_normalization(x: Any, n: int = 5, k: float = 2, alpha: float = 1e-4,
                                 beta: float = 0.75) -> Variable:
    """Local response normalization across channels (axis 1), as in AlexNet.

    .. math::
        y_c = x_c \\Big(k + \\alpha \\sum_{j = c - \\lfloor n/2 \\rfloor}^{c + \\lfloor n/2
        \\rfloor} x_j^2\\Big)^{-\\beta}

    where the sum runs over the channels that exist.

    Args:
        x: Variable or array of floats, shape ``(N, C, ...)``.
        n: Size of the channel window (``n // 2`` channels on each side).
        k: Additive constant.
        alpha: Scale of the sum of squares.
        beta: Exponent.

    Returns:
        Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.ones((1, 3), np.float32)
        >>> F.local_response_normalization(x, n=3, k=1, alpha=1, beta=1).array
        array([[0.33333334, 0.25      , 0.33333334]], dtype=float32)
    """
    if not isinstance(n, (int, numpy.integer)) or isinstance(n, bool):
        raise TypeError(f'local_response_normalization: argument n: expected an int, got '
                        f'{type(n).__name__}')
    if n < 1:
        raise ValueError(f'local_response_normalization: argument n: expected a positive int, '
                         f'got {n}')
    return LocalResponseNormalization(int(n), k, alpha, beta).apply((x,))[0]
