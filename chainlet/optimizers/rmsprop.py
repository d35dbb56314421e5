"""RMSprop: divide the gradient by a running root mean square of recent gradients."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend, optimizer
from chainlet.optimizers._util import check_eps

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.alpha = 0.99
_default_hyperparam.eps = 1e-8
_default_hyperparam.eps_inside_sqrt = False


def _update(xp: Any, hp: optimizer.Hyperparameter, state: dict, param: Any) -> None:
    lr, alpha, eps = float(hp.lr), float(hp.alpha), float(hp.eps)
    grad, data, ms = param.grad, param.array, state['ms']
    check_eps('RMSprop', eps, data.dtype)
    tmp = xp.multiply(grad, grad, out=xp.empty_like(grad))
    tmp *= 1.0 - alpha
    ms *= alpha
    ms += tmp
    if hp.eps_inside_sqrt:
        xp.add(ms, eps, out=tmp)
        xp.sqrt(tmp, out=tmp)
    else:
        xp.sqrt(ms, out=tmp)
        tmp += eps
    xp.divide(grad, tmp, out=tmp)
    tmp *= lr
    data -= tmp


class RMSpropRule(optimizer.UpdateRule):
    """Update rule of :class:`RMSprop` (state ``ms``, the running mean square).

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        lr: Learning rate.
        alpha: Decay rate of the mean square.
        eps: Small value for numerical stability.
        eps_inside_sqrt: Put ``eps`` inside the square root (as TensorFlow does).
    """

    _fp16_intermediate = True  # float16 parameters update through float32 temporaries

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, alpha: Optional[float] = None,
                 eps: Optional[float] = None, eps_inside_sqrt: Optional[bool] = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if alpha is not None:
            self.hyperparam.alpha = alpha
        if eps is not None:
            self.hyperparam.eps = eps
        if eps_inside_sqrt is not None:
            self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    def init_state(self, param: Any) -> None:
        self.state['ms'] = backend.get_array_module(param.array).zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self.hyperparam, self.state, param)

    def update_core_gpu(self, param: Any) -> None:
        from chainlet.optimizers import _cuda_kernels  # one fused kernel per parameter
        hp = self.hyperparam
        lr, alpha, eps = float(hp.lr), float(hp.alpha), float(hp.eps)
        check_eps('RMSprop', eps, param.array.dtype)
        _cuda_kernels.rmsprop[bool(hp.eps_inside_sqrt)](param.grad, lr, alpha, eps, param.array,
                                                        self.state['ms'])


class RMSprop(optimizer.GradientMethod):
    """RMSprop (Hinton's lecture notes).

    .. math::
        s \\leftarrow \\alpha s + (1 - \\alpha) g^2, \\qquad
        w \\leftarrow w - \\eta \\frac{g}{\\sqrt{s} + \\epsilon}

    (:math:`\\sqrt{s + \\epsilon}` in the denominator when ``eps_inside_sqrt=True``).

    Args:
        lr: Learning rate :math:`\\eta`.
        alpha: Decay rate :math:`\\alpha`.
        eps: :math:`\\epsilon`.
        eps_inside_sqrt: Where :math:`\\epsilon` goes.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(1, np.float32))
        >>> opt = optimizers.RMSprop(lr=0.1, alpha=0.75).setup(link)
        >>> link.w.grad = np.ones(1, np.float32)
        >>> opt.update()
        >>> link.w.array  # -0.1 / sqrt(0.25)
        array([-0.2], dtype=float32)
    """

    lr = optimizer.HyperparameterProxy('lr')
    alpha = optimizer.HyperparameterProxy('alpha')
    eps = optimizer.HyperparameterProxy('eps')
    eps_inside_sqrt = optimizer.HyperparameterProxy('eps_inside_sqrt')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 alpha: float = _default_hyperparam.alpha,
                 eps: float = _default_hyperparam.eps,
                 eps_inside_sqrt: bool = _default_hyperparam.eps_inside_sqrt) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.alpha = alpha
        self.hyperparam.eps = eps
        self.hyperparam.eps_inside_sqrt = eps_inside_sqrt

    def create_update_rule(self) -> RMSpropRule:
        return RMSpropRule(self.hyperparam)
