"""Clip every gradient element into ``[lower_bound, upper_bound]``."""
from __future__ import annotations

from typing import Any

from chainlet import backend


class GradientHardClipping:
    """Clip each gradient element to ``[lower_bound, upper_bound]``.

    Usable as an optimizer hook and as an update-rule hook.

    Args:
        lower_bound: Smallest allowed gradient value.
        upper_bound: Largest allowed gradient value.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers, optimizer_hooks
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(3, np.float32))
        >>> opt = optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(optimizer_hooks.GradientHardClipping(-0.5, 1.0))
        >>> link.w.grad = np.array([-2.0, 0.25, 3.0], np.float32)
        >>> opt.update()
        >>> link.w.array
        array([ 0.5 , -0.25, -1.  ], dtype=float32)
    """

    name = 'GradientHardClipping'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, lower_bound: float, upper_bound: float) -> None:
        if lower_bound > upper_bound:
            raise ValueError(f'GradientHardClipping: lower_bound ({lower_bound}) must not '
                             f'exceed upper_bound ({upper_bound})')
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def __call__(self, rule: Any, param: Any) -> None:
        if param.array is None:  # uninitialized: there is no gradient to read yet
            return
        g = param.grad
        if g is None:
            return
        xp = backend.get_array_module(g)
        xp.clip(g, self.lower_bound, self.upper_bound, out=g)
