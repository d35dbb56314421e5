"""Nesterov's accelerated gradient (in the reformulation used by Chainer)."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend, optimizer

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


def _update(xp: Any, hp: optimizer.Hyperparameter, state: dict, param: Any) -> None:
    lr, mu = float(hp.lr), float(hp.momentum)
    v = state['v']
    data = param.array
    tmp = xp.multiply(param.grad, lr, out=xp.empty_like(param.grad))
    v *= mu
    v -= tmp
    tmp *= 1.0 + mu
    data -= tmp
    xp.multiply(v, mu * mu, out=tmp)
    data += tmp


class NesterovAGRule(optimizer.UpdateRule):
    """Update rule of :class:`NesterovAG` (state ``v``).

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        lr: Learning rate.
        momentum: Momentum.
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
        _update(backend.get_array_module(param.array), self.hyperparam, self.state, param)


class NesterovAG(optimizer.GradientMethod):
    """Nesterov's accelerated gradient.

    .. math::
        v \\leftarrow \\mu v - \\eta g, \\qquad
        w \\leftarrow w + \\mu^2 v - (1 + \\mu) \\eta g

    Args:
        lr: Learning rate :math:`\\eta`.
        momentum: Momentum :math:`\\mu`.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(1, np.float32))
        >>> opt = optimizers.NesterovAG(lr=1.0, momentum=0.5).setup(link)
        >>> link.w.grad = np.ones(1, np.float32)
        >>> opt.update()
        >>> link.w.array  # 0.25 * -1 - 1.5 * 1
        array([-1.75], dtype=float32)
    """

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    def create_update_rule(self) -> NesterovAGRule:
        return NesterovAGRule(self.hyperparam)
