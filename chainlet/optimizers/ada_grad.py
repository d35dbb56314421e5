"""AdaGrad: per-element learning rates from the sum of squared gradients."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend, optimizer
from chainlet.optimizers._util import check_eps

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-8


def _update(xp: Any, hp: optimizer.Hyperparameter, state: dict, param: Any) -> None:
    lr, eps = float(hp.lr), float(hp.eps)
    grad, data, h = param.grad, param.array, state['h']
    check_eps('AdaGrad', eps, data.dtype)
    tmp = xp.multiply(grad, grad, out=xp.empty_like(grad))
    h += tmp
    xp.sqrt(h, out=tmp)
    tmp += eps
    xp.divide(grad, tmp, out=tmp)
    tmp *= lr
    data -= tmp


class AdaGradRule(optimizer.UpdateRule):
    """Update rule of :class:`AdaGrad` (state ``h``, the sum of squared gradients).

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        lr: Learning rate.
        eps: Small value for numerical stability.
    """

    _fp16_intermediate = True  # float16 parameters update through float32 temporaries

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, eps: Optional[float] = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param: Any) -> None:
        self.state['h'] = backend.get_array_module(param.array).zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self.hyperparam, self.state, param)

    def update_core_gpu(self, param: Any) -> None:
        from chainlet.optimizers import _cuda_kernels  # one fused kernel per parameter
        lr, eps = float(self.hyperparam.lr), float(self.hyperparam.eps)
        check_eps('AdaGrad', eps, param.array.dtype)
        _cuda_kernels.ada_grad(param.grad, lr, eps, param.array, self.state['h'])


class AdaGrad(optimizer.GradientMethod):
    """AdaGrad (Duchi et al., 2011).

    .. math::
        h \\leftarrow h + g^2, \\qquad w \\leftarrow w - \\eta \\frac{g}{\\sqrt{h} + \\epsilon}

    Args:
        lr: Learning rate :math:`\\eta`.
        eps: :math:`\\epsilon`, for numerical stability.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(2, np.float32))
        >>> opt = optimizers.AdaGrad(lr=0.1).setup(link)
        >>> link.w.grad = np.array([2.0, -0.5], np.float32)
        >>> opt.update()
        >>> link.w.array  # the first step has size lr whatever the gradient's scale
        array([-0.1,  0.1], dtype=float32)
    """

    lr = optimizer.HyperparameterProxy('lr')
    eps = optimizer.HyperparameterProxy('eps')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    def create_update_rule(self) -> AdaGradRule:
        return AdaGradRule(self.hyperparam)
