"""AdaDelta: step sizes from running averages of squared gradients and squared steps."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend, optimizer
from chainlet.optimizers._util import check_eps

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.rho = 0.95
_default_hyperparam.eps = 1e-6


def _update(xp: Any, hp: optimizer.Hyperparameter, state: dict, param: Any) -> None:
    rho, eps = float(hp.rho), float(hp.eps)
    grad, data = param.grad, param.array
    msg, msdx = state['msg'], state['msdx']
    check_eps('AdaDelta', eps, data.dtype)
    tmp = xp.multiply(grad, grad, out=xp.empty_like(grad))
    tmp *= 1.0 - rho
    msg *= rho
    msg += tmp
    dx = xp.add(msdx, eps, out=xp.empty_like(msdx))
    xp.add(msg, eps, out=tmp)
    dx /= tmp
    xp.sqrt(dx, out=dx)
    dx *= grad
    xp.multiply(dx, dx, out=tmp)
    tmp *= 1.0 - rho
    msdx *= rho
    msdx += tmp
    data -= dx


class AdaDeltaRule(optimizer.UpdateRule):
    """Update rule of :class:`AdaDelta` (states ``msg`` and ``msdx``).

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        rho: Decay rate of the running averages.
        eps: Small value for numerical stability.
    """

    _fp16_intermediate = True  # float16 parameters update through float32 temporaries

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 rho: Optional[float] = None, eps: Optional[float] = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        if rho is not None:
            self.hyperparam.rho = rho
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        self.state['msg'] = xp.zeros_like(param.array)
        self.state['msdx'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self.hyperparam, self.state, param)

    def update_core_gpu(self, param: Any) -> None:
        _update(backend.get_array_module(param.array), self.hyperparam, self.state, param)


class AdaDelta(optimizer.GradientMethod):
    """AdaDelta (Zeiler, 2012); it has no learning rate.

    .. math::
        s_g &\\leftarrow \\rho s_g + (1 - \\rho) g^2 \\\\
        \\Delta &= \\sqrt{\\frac{s_{\\Delta} + \\epsilon}{s_g + \\epsilon}} \\, g \\\\
        s_{\\Delta} &\\leftarrow \\rho s_{\\Delta} + (1 - \\rho) \\Delta^2, \\qquad
        w \\leftarrow w - \\Delta

    Args:
        rho: Decay rate :math:`\\rho`.
        eps: :math:`\\epsilon`.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(1, np.float32))
        >>> opt = optimizers.AdaDelta().setup(link)
        >>> opt.rho, opt.eps
        (0.95, 1e-06)
        >>> link.w.grad = np.ones(1, np.float32)
        >>> opt.update()
        >>> float(link.w.array[0])  # -sqrt(eps / (0.05 + eps))
        -0.00447...
    """

    rho = optimizer.HyperparameterProxy('rho')
    eps = optimizer.HyperparameterProxy('eps')

    def __init__(self, rho: float = _default_hyperparam.rho,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.rho = rho
        self.hyperparam.eps = eps

    def create_update_rule(self) -> AdaDeltaRule:
        return AdaDeltaRule(self.hyperparam)
