"""L1 regularization as a gradient hook: ``grad += rate * sign(param)``."""
from __future__ import annotations

from typing import Any

from chainlet import backend


class Lasso:
    """Add ``rate * sign(w)`` to each gradient (L1 regularization).

    Usable as an optimizer hook and as an update-rule hook.

    Args:
        rate: Coefficient of the L1 penalty.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers, optimizer_hooks
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.array([2.0, -3.0, 0.0], np.float32))
        >>> opt = optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(optimizer_hooks.Lasso(0.5))
        >>> link.w.grad = np.zeros(3, np.float32)
        >>> opt.update()
        >>> link.w.array
        array([ 1.5, -2.5,  0. ], dtype=float32)
    """

    name = 'Lasso'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __call__(self, rule: Any, param: Any) -> None:
        p = param.array
        if p is None:  # uninitialized: there is no gradient to read yet
            return
        g = param.grad
        if g is None:
            return
        xp = backend.get_array_module(p)
        sign = xp.sign(p)
        sign *= float(self.rate)
        g += sign
