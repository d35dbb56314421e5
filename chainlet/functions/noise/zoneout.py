"""Zoneout: each unit keeps its previous value ``h`` with probability ``ratio``.

The node draws one uniform array (``xp.random.rand(*x.shape)``, so seeding NumPy's global state
reproduces a step) and keeps the two complementary boolean masks ``flag_h`` and ``flag_x`` as
attributes; the gradient is a masked copy of ``gy``, linear and so differentiable again.
"""
from __future__ import annotations

from typing import Any

from chainlet import _config
from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import as_variable


class Zoneout(FunctionNode):
    """``y = h * flag_h + x * flag_x`` with ``flag_h = ~flag_x`` and ``P(flag_h) = ratio``."""

    def __init__(self, zoneout_ratio: float) -> None:
        # Checked where it is applied: in test mode ``zoneout`` builds no node (Chainer checks
        # the ratio nowhere; outside [0, 1] it acts as the nearest bound, surely a bug here).
        if not 0.0 <= zoneout_ratio <= 1.0:
            raise ValueError(f'zoneout: argument ratio: expected a value in [0, 1], got '
                             f'{zoneout_ratio}')
        self.zoneout_ratio = zoneout_ratio

    def _check_arrays(self, in_data):
        type_check.count('zoneout', in_data, 2)
        h, x = in_data
        type_check.float_input('zoneout', 'h', h)
        type_check.argument('zoneout', 'x', x, dtype=h.dtype, shape=h.shape)

    def forward(self, inputs):
        h, x = inputs
        xp = backend.get_array_module(x)
        self.flag_x = xp.random.rand(*x.shape) >= self.zoneout_ratio
        self.flag_h = ~self.flag_x
        return xp.where(self.flag_x, x, h),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        ret = {0: gy * self.flag_h.astype(gy.dtype), 1: gy * self.flag_x.astype(gy.dtype)}
        return tuple(ret[i] for i in indexes)


def zoneout(h: Any, x: Any, ratio: float = .5) -> Any:
    """Zoneout regularization: randomly keep each unit's previous value instead of its new one.

    In training, each element of the output is ``h`` (the previous state) with probability
    ``ratio`` and ``x`` (the new state) otherwise. In test mode ``x`` is returned unchanged
    (as a Variable).

    Args:
        h: Previous state, float Variable or array.
        x: New state, of ``h``'s shape and dtype.
        ratio: Probability of keeping ``h``, in ``[0, 1]`` (checked in training only).

    Returns:
        Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> h, x = np.zeros(3, np.float32), np.ones(3, np.float32)
        >>> F.zoneout(h, x, ratio=1.0).array
        array([0., 0., 0.], dtype=float32)

    See: `Zoneout: Regularizing RNNs by Randomly Preserving Hidden Activations
    <https://arxiv.org/abs/1606.01305>`_.
    """
    if _config.config.train:
        return Zoneout(ratio).apply((h, x))[0]
    return as_variable(x)
