"""M-SVAG: momentum SGD whose step shrinks element-wise where the gradient's variance is high."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend, optimizer
from chainlet.optimizers._util import check_range, update_moments

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.1
_default_hyperparam.beta = 0.9
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0

# The variance correction rho is 1 at the first step; capping it keeps 1 - rho nonzero.
_RHO_MAX = 0.9999


def _check_args(where: str, lr: Optional[float], beta: Optional[float], eta: Optional[float],
                weight_decay_rate: Optional[float], optional: bool = False) -> None:
    # A rule's arguments may be None (inherit the parent's value); an optimizer's may not.
    if lr is not None or not optional:
        check_range(where, 'lr', lr, 0.0)
    if beta is not None or not optional:
        check_range(where, 'beta', beta, 0.0, 1.0)  # 1 is refused by the update
    if eta is not None or not optional:
        check_range(where, 'eta', eta, 0.0)
    if weight_decay_rate is not None or not optional:
        check_range(where, 'weight_decay_rate', weight_decay_rate, 0.0)


def _rho(beta: float, t: int) -> float:
    """Variance correction of an exponential moving average after ``t`` steps (capped)."""
    beta_t = beta ** t
    rho = (1.0 - beta) ** 2 * (1.0 - beta_t ** 2) / ((1.0 - beta_t) ** 2 * (1.0 - beta ** 2))
    return min(rho, _RHO_MAX)


def _update(xp: Any, hp: optimizer.Hyperparameter, state: dict, param: Any, t: int) -> None:
    lr, beta = float(hp.lr), float(hp.beta)
    eta, wd = float(hp.eta), float(hp.weight_decay_rate)
    if beta >= 1.0:  # accepted when set (as in Chainer), but the moments would never move
        raise ValueError(f'MSVAG: hyperparameter beta must be below 1 to update, got {beta}')
    grad, data = param.grad, param.array
    m, v = state['m'], state['v']
    tmp = update_moments(xp, grad, m, v, beta, beta)
    # Bias-corrected mean mt and variance estimate s = (vt - mt^2) / (1 - rho).
    fix = 1.0 - beta ** t
    rho = _rho(beta, t)
    mt = xp.divide(m, fix, out=xp.empty_like(m))
    mt2 = xp.multiply(mt, mt, out=xp.empty_like(mt))
    xp.divide(v, fix, out=tmp)
    tmp -= mt2
    tmp *= rho / (1.0 - rho)  # rho * s
    # factor = mt^2 / (mt^2 + rho s) in [0, 1]; fmax/fmin also turn 0 / 0 (m = v = 0) into 0.
    tmp += mt2
    with numpy.errstate(divide='ignore', invalid='ignore'):
        xp.divide(mt2, tmp, out=tmp)
    xp.fmax(tmp, 0.0, out=tmp)
    xp.fmin(tmp, 1.0, out=tmp)
    # w -= eta (lr mt factor + wd w)
    tmp *= mt
    tmp *= eta * lr
    if wd != 0:
        data *= 1.0 - eta * wd
    data -= tmp


class MSVAGRule(optimizer.UpdateRule):
    """Update rule of :class:`MSVAG` (states ``m`` and ``v``).

    The bias corrections use the rule's step count :attr:`t`, so they survive saving and
    loading the optimizer.

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        lr: Learning rate.
        beta: Decay rate of the first and second moments, in ``[0, 1]`` (the update refuses
            1).
        eta: Schedule multiplier (e.g. for warm restarts).
        weight_decay_rate: Decoupled weight decay rate.

    Raises:
        TypeError: An argument is not a real number.
        ValueError: An argument is out of range.
    """

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, beta: Optional[float] = None,
                 eta: Optional[float] = None,
                 weight_decay_rate: Optional[float] = None) -> None:
        _check_args('MSVAGRule', lr, beta, eta, weight_decay_rate, optional=True)
        super().__init__(parent_hyperparam or _default_hyperparam)
        given = dict(lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)
        for key, value in given.items():
            if value is not None:
                setattr(self.hyperparam, key, value)

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        self.state['m'] = xp.zeros_like(param.array)
        self.state['v'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self.hyperparam, self.state, param, self.t)

    def update_core_gpu(self, param: Any) -> None:
        _update(backend.get_array_module(param.array), self.hyperparam, self.state, param,
                self.t)

    @property
    def rho(self) -> float:
        """The variance correction at step :attr:`t` (capped at 0.9999)."""
        if self.t == 0:
            raise RuntimeError('MSVAGRule.rho: the variance correction is undefined before the '
                               'first update (t == 0)')
        return _rho(float(self.hyperparam.beta), self.t)


class MSVAG(optimizer.GradientMethod):
    """M-SVAG, "momentum with stochastic variance adapted gradient" (Balles & Hennig, 2018).

    Like momentum SGD, but each element of the bias-corrected momentum :math:`\\hat m` is
    scaled by a factor in :math:`[0, 1]` that is small where the gradient's estimated
    variance :math:`s` dominates its squared mean. With decoupled weight decay
    :math:`\\lambda` (as in AdamW):

    .. math::
        m &\\leftarrow m + (1 - \\beta)(g - m), \\qquad
        v \\leftarrow v + (1 - \\beta)(g^2 - v) \\\\
        \\hat m &= \\frac{m}{1 - \\beta^t}, \\qquad \\hat v = \\frac{v}{1 - \\beta^t}, \\qquad
        \\rho = \\min\\left(\\frac{(1 - \\beta)^2 (1 - \\beta^{2t})}
        {(1 - \\beta^t)^2 (1 - \\beta^2)}, 0.9999\\right) \\\\
        s &= \\frac{\\hat v - \\hat m^2}{1 - \\rho}, \\qquad
        w \\leftarrow w - \\eta \\left(\\mathrm{lr}\\,
        \\frac{\\hat m^2}{\\hat m^2 + \\rho s} \\hat m + \\lambda w\\right)

    (the factor is clipped to :math:`[0, 1]`, and is 0 where :math:`\\hat m = \\hat v = 0`).
    See https://arxiv.org/abs/1705.07774 and, for the weight decay,
    https://arxiv.org/abs/1711.05101.

    Args:
        lr: Learning rate.
        beta: Decay rate :math:`\\beta` of both moments, in ``[0, 1]`` (the update refuses
            1).
        eta: Schedule multiplier :math:`\\eta`.
        weight_decay_rate: Decoupled weight decay rate :math:`\\lambda`.

    Raises:
        TypeError: An argument is not a real number.
        ValueError: An argument is out of range (negative, or ``beta`` not in ``[0, 1]``).

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(2, np.float32))
        >>> opt = optimizers.MSVAG(lr=0.1).setup(link)
        >>> link.w.grad = np.array([2.0, 0.0], np.float32)
        >>> opt.update()
        >>> link.w.array  # no variance seen yet: the first step is lr * g
        array([-0.2,  0. ], dtype=float32)
        >>> link.w.update_rule.rho
        0.9999
    """

    lr = optimizer.HyperparameterProxy('lr')
    beta = optimizer.HyperparameterProxy('beta')
    eta = optimizer.HyperparameterProxy('eta')
    weight_decay_rate = optimizer.HyperparameterProxy('weight_decay_rate')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 beta: float = _default_hyperparam.beta,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate) -> None:
        _check_args('MSVAG', lr, beta, eta, weight_decay_rate)
        super().__init__()
        hp = self.hyperparam
        hp.lr, hp.beta, hp.eta = lr, beta, eta
        hp.weight_decay_rate = weight_decay_rate

    def create_update_rule(self) -> MSVAGRule:
        return MSVAGRule(self.hyperparam)
