"""Alex Graves's RMSprop: centred mean square plus momentum."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend, optimizer

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 1e-4
_default_hyperparam.alpha = 0.95
_default_hyperparam.momentum = 0.9
_default_hyperparam.eps = 1e-4


def _update(xp: Any, hp: optimizer.Hyperparameter, state: dict, param: Any) -> None:
    lr, alpha = float(hp.lr), float(hp.alpha)
    momentum, eps = float(hp.momentum), float(hp.eps)
    grad, data = param.grad, param.array
    n, g, delta = state['n'], state['g'], state['delta']
    tmp = xp.multiply(grad, grad, out=xp.empty_like(grad))
    tmp *= 1.0 - alpha
    n *= alpha
    n += tmp
    xp.multiply(grad, 1.0 - alpha, out=tmp)
    g *= alpha
    g += tmp
    xp.multiply(g, g, out=tmp)
    xp.subtract(n, tmp, out=tmp)
    tmp += eps
    xp.sqrt(tmp, out=tmp)
    xp.divide(grad, tmp, out=tmp)
    tmp *= lr
    delta *= momentum
    delta -= tmp
    data += delta


class RMSpropGravesRule(optimizer.UpdateRule):
    """Update rule of :class:`RMSpropGraves` (states ``n``, ``g`` and ``delta``).

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        lr: Learning rate.
        alpha: Decay rate of the first and second moments of the gradient.
        momentum: Decay rate of the step.
        eps: Small value for numerical stability.
    """

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, alpha: Optional[float] = None,
                 momentum: Optional[float] = None, eps: Optional[float] = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if alpha is not None:
            self.hyperparam.alpha = alpha
        if momentum is not None:
            self.hyperparam.momentum = momentum
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        for key in ('n', 'g', 'delta'):
            self.state[key] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self.hyperparam, self.state, param)

    def update_core_gpu(self, param: Any) -> None:
        _update(backend.get_array_module(param.array), self.hyperparam, self.state, param)


class RMSpropGraves(optimizer.GradientMethod):
    """RMSprop as in Graves (2013), "Generating Sequences With Recurrent Neural Networks".

    .. math::
        n &\\leftarrow \\alpha n + (1 - \\alpha) g^2, \\qquad
        \\bar g \\leftarrow \\alpha \\bar g + (1 - \\alpha) g \\\\
        \\Delta &\\leftarrow \\mu \\Delta - \\eta \\frac{g}{\\sqrt{n - \\bar g^2 + \\epsilon}},
        \\qquad w \\leftarrow w + \\Delta

    Args:
        lr: Learning rate :math:`\\eta`.
        alpha: Decay rate :math:`\\alpha`.
        momentum: Momentum :math:`\\mu`.
        eps: :math:`\\epsilon`.

    Example:
        >>> from chainlet import optimizers
        >>> opt = optimizers.RMSpropGraves()
        >>> opt.lr, opt.alpha, opt.momentum, opt.eps
        (0.0001, 0.95, 0.9, 0.0001)
    """

    lr = optimizer.HyperparameterProxy('lr')
    alpha = optimizer.HyperparameterProxy('alpha')
    momentum = optimizer.HyperparameterProxy('momentum')
    eps = optimizer.HyperparameterProxy('eps')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 alpha: float = _default_hyperparam.alpha,
                 momentum: float = _default_hyperparam.momentum,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.momentum = momentum
        self.hyperparam.eps = eps

    def create_update_rule(self) -> RMSpropGravesRule:
        return RMSpropGravesRule(self.hyperparam)
