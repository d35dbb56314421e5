"""Adam and its variants: AdamW (decoupled weight decay), AMSGrad, AdaBound and AMSBound."""
from __future__ import annotations

import math
import warnings
from typing import Any, Optional

import numpy

from chainlet import backend, optimizer
from chainlet.optimizers._util import check_eps, update_moments

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.alpha = 0.001
_default_hyperparam.beta1 = 0.9
_default_hyperparam.beta2 = 0.999
_default_hyperparam.eps = 1e-8
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0
_default_hyperparam.amsgrad = False
_default_hyperparam.adabound = False
_default_hyperparam.final_lr = 0.1
_default_hyperparam.gamma = 1e-3


def _learning_rate(hp: optimizer.Hyperparameter, t: int, where: str) -> float:
    if t == 0:
        raise RuntimeError(f'{where}.alpha_t: the bias-corrected step size is undefined before '
                           f'the first update (t == 0)')
    fix1 = 1.0 - math.pow(hp.beta1, t)
    fix2 = 1.0 - math.pow(hp.beta2, t)
    return hp.alpha * math.sqrt(fix2) / fix1


def _update(xp: Any, rule: 'AdamRule', param: Any) -> None:
    hp = rule.hyperparam
    state = rule.state
    t = rule.t
    alpha, beta1, beta2 = float(hp.alpha), float(hp.beta1), float(hp.beta2)
    eps, eta, wd = float(hp.eps), float(hp.eta), float(hp.weight_decay_rate)
    alpha_t = alpha * math.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t)
    grad, data = param.grad, param.array
    check_eps('Adam', eps, data.dtype)
    m, v = state['m'], state['v']
    tmp = update_moments(xp, grad, m, v, beta1, beta2)  # one scratch array in all
    if hp.amsgrad:
        vhat = state['vhat']
        xp.maximum(vhat, v, out=vhat)
    else:
        vhat = v
    # step = alpha_t / (sqrt(vhat) + eps), clipped for AdaBound
    xp.sqrt(vhat, out=tmp)
    tmp += eps
    xp.divide(alpha_t, tmp, out=tmp)
    if hp.adabound:
        lower, upper = rule.bounds
        xp.clip(tmp, lower, upper, out=tmp)
    tmp *= m
    # w -= eta (step m + wd w)
    if eta != 1.0:
        tmp *= eta
    if wd != 0:
        data *= 1.0 - eta * wd
    data -= tmp


class AdamRule(optimizer.UpdateRule):
    """Update rule of :class:`Adam` (states ``m``, ``v`` and, for AMSGrad, ``vhat``).

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        alpha: Coefficient of the learning rate.
        beta1: Decay rate of the first moment.
        beta2: Decay rate of the second moment.
        eps: Small value for numerical stability.
        eta: Schedule multiplier (e.g. for warm restarts).
        weight_decay_rate: Decoupled weight decay rate (AdamW).
        amsgrad: Use the AMSGrad variant.
        adabound: Use the AdaBound variant.
        final_lr: Final (SGD) learning rate of AdaBound.
        gamma: Convergence speed of AdaBound's bounds.
    """

    _fp16_intermediate = True  # float16 parameters update through float32 temporaries

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 alpha: Optional[float] = None, beta1: Optional[float] = None,
                 beta2: Optional[float] = None, eps: Optional[float] = None,
                 eta: Optional[float] = None, weight_decay_rate: Optional[float] = None,
                 amsgrad: Optional[bool] = None, adabound: Optional[bool] = None,
                 final_lr: Optional[float] = None, gamma: Optional[float] = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        given = dict(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                     weight_decay_rate=weight_decay_rate, amsgrad=amsgrad, adabound=adabound,
                     final_lr=final_lr, gamma=gamma)
        for key, value in given.items():
            if value is not None:
                setattr(self.hyperparam, key, value)
        # AdaBound scales final_lr by alpha / initial_alpha, so that schedules that change
        # alpha (e.g. ExponentialShift) move the bounds too.
        self.initial_alpha = self.hyperparam.alpha

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        self.state['m'] = xp.zeros_like(param.array)
        self.state['v'] = xp.zeros_like(param.array)
        if self.hyperparam.amsgrad:
            self.state['vhat'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self, param)

    def update_core_gpu(self, param: Any) -> None:
        from chainlet.optimizers import _cuda_kernels  # one fused kernel per parameter
        hp = self.hyperparam
        beta1, beta2 = float(hp.beta1), float(hp.beta2)
        eps, eta, wd = float(hp.eps), float(hp.eta), float(hp.weight_decay_rate)
        check_eps('Adam', eps, param.array.dtype)
        lower, upper = self.bounds if hp.adabound else (0.0, 0.0)
        state = self.state
        arrays = [param.array, state['m'], state['v']]
        if hp.amsgrad:
            arrays.append(state['vhat'])
        kernel = _cuda_kernels.adam[bool(hp.amsgrad), bool(hp.adabound)]
        kernel(param.grad, _learning_rate(hp, self.t, 'AdamRule'), 1.0 - beta1, 1.0 - beta2,
               eps, eta, 1.0 - eta * wd, lower, upper, *arrays)

    @property
    def alpha_t(self) -> float:
        """Bias-corrected step size ``alpha * sqrt(1 - beta2^t) / (1 - beta1^t)``."""
        return _learning_rate(self.hyperparam, self.t, 'AdamRule')

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t` (as in Chainer, it warns)."""
        warnings.warn('AdamRule.lr is deprecated; use AdamRule.alpha_t', DeprecationWarning,
                      stacklevel=2)
        return self.alpha_t

    @property
    def bounds(self) -> tuple[float, float]:
        """AdaBound's ``(lower, upper)`` bounds on the element-wise step at step :attr:`t`."""
        if self.t == 0:
            raise RuntimeError('AdamRule.bounds: the AdaBound bounds are undefined before the '
                               'first update (t == 0)')
        hp = self.hyperparam
        final_lr = hp.final_lr * hp.alpha / self.initial_alpha
        lower = final_lr * (1.0 - 1.0 / (hp.gamma * self.t + 1))
        upper = final_lr * (1.0 + 1.0 / (hp.gamma * self.t))
        return lower, upper


class Adam(optimizer.GradientMethod):
    """Adam (Kingma & Ba), with decoupled weight decay, AMSGrad and AdaBound options.

    .. math::
        m &\\leftarrow m + (1 - \\beta_1)(g - m), \\qquad
        v \\leftarrow v + (1 - \\beta_2)(g^2 - v) \\\\
        \\alpha_t &= \\alpha \\frac{\\sqrt{1 - \\beta_2^t}}{1 - \\beta_1^t}, \\qquad
        w \\leftarrow w - \\eta \\left(\\frac{\\alpha_t \\, m}{\\sqrt{v} + \\epsilon}
        + \\lambda w\\right)

    where :math:`\\lambda` is ``weight_decay_rate`` (AdamW, Loshchilov & Hutter). With
    ``amsgrad=True`` the running maximum of :math:`v` replaces :math:`v`; with
    ``adabound=True`` the element-wise step :math:`\\alpha_t / (\\sqrt{v} + \\epsilon)` is
    clipped to bounds that converge to ``final_lr`` at speed ``gamma``.

    Args:
        alpha: Coefficient of the learning rate :math:`\\alpha`.
        beta1: Decay rate of the first moment.
        beta2: Decay rate of the second moment.
        eps: :math:`\\epsilon`, for numerical stability.
        eta: Schedule multiplier :math:`\\eta`.
        weight_decay_rate: Decoupled weight decay rate :math:`\\lambda`.
        amsgrad: Use AMSGrad.
        adabound: Use AdaBound.
        final_lr: Final (SGD) learning rate of AdaBound.
        gamma: Convergence speed of AdaBound's bounds.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(2, np.float32))
        >>> opt = optimizers.Adam(alpha=0.01).setup(link)
        >>> link.w.grad = np.array([3.0, -0.1], np.float32)
        >>> opt.update()
        >>> np.round(link.w.array, 4)  # the first step is about alpha * sign(g)
        array([-0.01,  0.01], dtype=float32)
        >>> round(opt.alpha_t, 5)  # alpha * sqrt(1 - beta2) / (1 - beta1) at t = 1
        0.00316
    """

    alpha = optimizer.HyperparameterProxy('alpha')
    beta1 = optimizer.HyperparameterProxy('beta1')
    beta2 = optimizer.HyperparameterProxy('beta2')
    eps = optimizer.HyperparameterProxy('eps')
    eta = optimizer.HyperparameterProxy('eta')
    weight_decay_rate = optimizer.HyperparameterProxy('weight_decay_rate')
    amsgrad = optimizer.HyperparameterProxy('amsgrad')
    adabound = optimizer.HyperparameterProxy('adabound')
    final_lr = optimizer.HyperparameterProxy('final_lr')
    gamma = optimizer.HyperparameterProxy('gamma')

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
                 amsgrad: bool = _default_hyperparam.amsgrad,
                 adabound: bool = _default_hyperparam.adabound,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma) -> None:
        super().__init__()
        hp = self.hyperparam
        hp.alpha, hp.beta1, hp.beta2, hp.eps, hp.eta = alpha, beta1, beta2, eps, eta
        hp.weight_decay_rate = weight_decay_rate
        hp.amsgrad, hp.adabound = amsgrad, adabound
        hp.final_lr, hp.gamma = final_lr, gamma

    def create_update_rule(self) -> AdamRule:
        return AdamRule(self.hyperparam)

    @property
    def alpha_t(self) -> float:
        """Bias-corrected step size at the optimizer's step :attr:`t`."""
        return _learning_rate(self.hyperparam, self.t, type(self).__name__)

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t` (as in Chainer, it warns)."""
        warnings.warn(f'{type(self).__name__}.lr is deprecated; use alpha_t',
                      DeprecationWarning, stacklevel=2)
        return self.alpha_t


class AdamW(Adam):
    """Adam with decoupled weight decay; :class:`Adam` with ``weight_decay_rate``.

    Example:
        >>> from chainlet import optimizers
        >>> optimizers.AdamW(weight_decay_rate=0.01).weight_decay_rate
        0.01
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         weight_decay_rate=weight_decay_rate)


class AMSGrad(Adam):
    """AMSGrad (Reddi et al.); :class:`Adam` with ``amsgrad=True``.

    Example:
        >>> from chainlet import optimizers
        >>> optimizers.AMSGrad().amsgrad
        True
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta, amsgrad=True)


class AdaBound(Adam):
    """AdaBound (Luo et al.); :class:`Adam` with ``adabound=True``.

    Example:
        >>> from chainlet import optimizers
        >>> opt = optimizers.AdaBound()
        >>> opt.adabound, opt.final_lr, opt.gamma
        (True, 0.1, 0.001)
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=False, adabound=True, final_lr=final_lr, gamma=gamma)


class AMSBound(Adam):
    """AMSBound; :class:`Adam` with ``amsgrad=True`` and ``adabound=True``.

    Example:
        >>> from chainlet import optimizers
        >>> opt = optimizers.AMSBound()
        >>> opt.amsgrad, opt.adabound
        (True, True)
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=True, adabound=True, final_lr=final_lr, gamma=gamma)
