"""Randomized leaky rectified linear unit (RReLU).

In training, each element gets its own negative slope drawn from ``U(l, u)``; in test mode
the slope is the constant ``(l + u) / 2``. The slopes ``r`` are kept on the node (and can be
returned or passed back in) so that a step can be replayed exactly.
"""
from __future__ import annotations

from typing import Any

from chainlet import _config
from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.activation._util import real_param


class RReLU(FunctionNode):
    """``y = x`` where ``x >= 0``, ``r * x`` elsewhere; ``r`` is drawn in forward unless given.
    """

    def __init__(self, lower: float = 1. / 8, upper: float = 1. / 3, r: Any = None) -> None:
        lower = real_param('rrelu', 'l', lower)
        upper = real_param('rrelu', 'u', upper)
        if not 0.0 <= lower < 1.0:
            raise ValueError(f'rrelu: argument l: expected a value in [0, 1), got {lower}')
        if not 0.0 <= upper < 1.0:
            raise ValueError(f'rrelu: argument u: expected a value in [0, 1), got {upper}')
        if not lower < upper:
            raise ValueError(f'rrelu: arguments l and u: expected l < u, got l={lower}, '
                             f'u={upper}')
        self.lower = lower
        self.upper = upper
        self.r = r

    def _check_arrays(self, in_data):
        type_check.count('rrelu', in_data, 1)
        x, = in_data
        type_check.float_input('rrelu', 'x', x)
        if self.r is not None and _config.config.train:
            type_check.argument('rrelu', 'r', self.r, shape=x.shape)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        if not _config.config.train:
            self.r = xp.full(x.shape, (self.lower + self.upper) / 2, x.dtype)
        elif self.r is None:
            self.r = xp.random.uniform(self.lower, self.upper, x.shape).astype(x.dtype)
        r = self.r if self.r.dtype == x.dtype else self.r.astype(x.dtype)
        self.retain_outputs((0,))
        return xp.where(x >= 0, x, x * r),

    def backward(self, indexes, grad_outputs):
        y, = self.output_data()
        return RReLUGrad(y >= 0, self.r).apply(grad_outputs)


class RReLUGrad(FunctionNode):
    """``gx = gy`` where the output was non-negative, ``r * gy`` elsewhere; linear in ``gy``,
    so it is its own backward (RReLU's second derivative is zero almost everywhere)."""

    def __init__(self, cond: Any, r: Any) -> None:
        self.cond = cond
        self.r = r

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        return xp.where(self.cond, gy, gy * self.r.astype(gy.dtype, copy=False)),

    def backward(self, indexes, grad_outputs):
        return RReLUGrad(self.cond, self.r).apply(grad_outputs)


def rrelu(x: Any, l: float = 1. / 8, u: float = 1. / 3, *, r: Any = None,  # noqa: E741
          return_r: bool = False) -> Any:
    """Randomized leaky ReLU: :math:`y = x` if :math:`x \\ge 0`, else :math:`a x` with
    :math:`a \\sim U(l, u)` drawn per element.

    In test mode (``chainlet.config.train`` false) :math:`a = (l + u) / 2` everywhere and ``r``
    is ignored. Slopes are drawn from the global random state of the input's array module.

    Args:
        x: Variable or array of floats, any shape.
        l: Lower bound of the slope distribution, in ``[0, 1)``.
        u: Upper bound, in ``[0, 1)`` and greater than ``l``.
        r: Slopes to use instead of random ones in training (an array of ``x``'s shape on its
            device); ``l`` and ``u`` then only matter in test mode.
        return_r: Also return the slopes used.

    Returns:
        The output Variable (shape and dtype of ``x``), or ``(output, r)`` when ``return_r``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([-2.0, 3.0], np.float32)
        >>> F.rrelu(x, r=np.array([0.25, 0.25], np.float32)).array
        array([-0.5,  3. ], dtype=float32)
    """
    func = RReLU(l, u, r)
    out = func.apply((x,))[0]
    if return_r:
        return out, func.r
    return out
