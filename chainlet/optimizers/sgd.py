"""Plain stochastic gradient descent: ``param -= lr * grad``."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import optimizer

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01


def _update(xp: Any, hp: optimizer.Hyperparameter, param: Any) -> None:
    grad = param.grad
    step = xp.multiply(grad, float(hp.lr))
    data = param.array  # a local: `param.array -= x` would call the property setter
    data -= step


class SGDRule(optimizer.UpdateRule):
    """Update rule of :class:`SGD`.

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        lr: Learning rate (overrides the parent's).
    """

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self.hyperparam, param)

    def update_core_gpu(self, param: Any) -> None:
        from chainlet.optimizers import _cuda_kernels  # one fused kernel per parameter
        _cuda_kernels.sgd(param.grad, float(self.hyperparam.lr), param.array)


class SGD(optimizer.GradientMethod):
    """Vanilla stochastic gradient descent.

    .. math:: w \\leftarrow w - \\eta \\, g

    Args:
        lr: Learning rate :math:`\\eta`.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.array([1.0, 1.0], np.float32))
        >>> opt = optimizers.SGD(lr=0.1).setup(link)
        >>> link.w.grad = np.array([1.0, 2.0], np.float32)
        >>> opt.update()
        >>> link.w.array
        array([0.9, 0.8], dtype=float32)
    """

    lr = optimizer.HyperparameterProxy('lr')

    def __init__(self, lr: float = _default_hyperparam.lr) -> None:
        super().__init__()
        self.hyperparam.lr = lr

    def create_update_rule(self) -> SGDRule:
        return SGDRule(self.hyperparam)
