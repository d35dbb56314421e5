"""Stochastic gradient descent with (classical) momentum."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend, optimizer

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


def _update(xp: Any, hp: optimizer.Hyperparameter, state: dict, param: Any) -> None:
    v = state['v']
    step = xp.multiply(param.grad, float(hp.lr))
    v *= float(hp.momentum)
    v -= step
    data = param.array
    data += v


class MomentumSGDRule(optimizer.UpdateRule):
    """Update rule of :class:`MomentumSGD` (state ``v``, the velocity).

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        lr: Learning rate.
        momentum: Decay rate of the velocity.
    """

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, momentum: Optional[float] = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if momentum is not None:
            self.hyperparam.momentum = momentum

    def init_state(self, param: Any) -> None:
        self.state['v'] = backend.get_array_module(param.array).zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self.hyperparam, self.state, param)

    def update_core_gpu(self, param: Any) -> None:
        from chainlet.optimizers import _cuda_kernels  # one fused kernel per parameter
        hp = self.hyperparam
        _cuda_kernels.momentum_sgd(param.grad, float(hp.lr), float(hp.momentum), param.array,
                                   self.state['v'])


class MomentumSGD(optimizer.GradientMethod):
    """Momentum SGD.

    .. math::
        v \\leftarrow \\mu v - \\eta g, \\qquad w \\leftarrow w + v

    Args:
        lr: Learning rate :math:`\\eta`.
        momentum: Momentum :math:`\\mu`.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(1, np.float32))
        >>> opt = optimizers.MomentumSGD(lr=1.0, momentum=0.5).setup(link)
        >>> for _ in range(2):
        ...     link.w.grad = np.ones(1, np.float32)
        ...     opt.update()
        >>> link.w.array  # -1, then -1 + (0.5 * -1 - 1)
        array([-2.5], dtype=float32)
    """

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    def create_update_rule(self) -> MomentumSGDRule:
        return MomentumSGDRule(self.hyperparam)
