"""L2 regularization as a gradient hook: ``grad += rate * param``."""
from __future__ import annotations

from typing import Any


class WeightDecay:
    """Add ``rate * w`` to each gradient (L2 regularization with coefficient ``rate / 2``).

    Usable as an optimizer hook (``optimizer.add_hook(WeightDecay(1e-4))``, called for every
    parameter before the update) and as an update-rule hook
    (``param.update_rule.add_hook(WeightDecay(1e-4))``).

    Args:
        rate: Coefficient of the weight decay.

    Attributes:
        rate (float): Coefficient of the weight decay.
        timing (str): ``'pre'``: runs before the update.
        call_for_each_param (bool): ``True``: called as ``hook(rule, param)``.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers, optimizer_hooks
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.array([2.0], np.float32))
        >>> opt = optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(optimizer_hooks.WeightDecay(0.25))
        >>> link.w.grad = np.zeros(1, np.float32)
        >>> opt.update()
        >>> link.w.array  # 2 - (0 + 0.25 * 2)
        array([1.5], dtype=float32)
    """

    name = 'WeightDecay'
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
        g += float(self.rate) * p
