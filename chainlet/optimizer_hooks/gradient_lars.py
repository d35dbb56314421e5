"""Layer-wise adaptive rate scaling (LARS) of the gradients."""
from __future__ import annotations

from typing import Any

from chainlet import backend


class GradientLARS:
    """Scale each parameter's gradient to the parameter's norm (You et al., 2017).

    For a parameter ``w`` with gradient ``g``:
    ``rate = |w| / (eps + |g| + weight_decay * |w|)`` if ``|w| > threshold`` else ``1``, then
    ``g <- rate * (g + weight_decay * w)``. Usable as an optimizer hook and as an update-rule
    hook.

    Args:
        threshold: Parameters whose norm is at most this are left unscaled.
        weight_decay: Coefficient of the weight decay folded into the gradient.
        eps: Small value for numerical stability.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers, optimizer_hooks
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.array([3.0, 4.0], np.float32))
        >>> opt = optimizers.SGD(lr=0.1).setup(link)
        >>> opt.add_hook(optimizer_hooks.GradientLARS())
        >>> link.w.grad = np.array([0.0, 10.0], np.float32)
        >>> opt.update()  # the gradient is rescaled to norm |w| = 5
        >>> link.w.array
        array([3. , 3.5], dtype=float32)
    """

    name = 'GradientLARS'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, threshold: float = 1e-2, weight_decay: float = 0.0,
                 eps: float = 1e-9) -> None:
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def __call__(self, rule: Any, param: Any) -> None:
        p = param.array
        if p is None:  # uninitialized: there is no gradient to read yet
            return
        g = param.grad
        if g is None:
            return
        xp = backend.get_array_module(p)
        p_norm = xp.linalg.norm(p)
        g_norm = xp.linalg.norm(g)
        wd = float(self.weight_decay)
        local_rate = p_norm / (self.eps + g_norm + wd * p_norm)
        rate = xp.where(p_norm > self.threshold, local_rate, 1.0).astype(g.dtype)
        if wd != 0:
            g += wd * p
        g *= rate
