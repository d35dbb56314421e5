"""Rescale all gradients so that their global L2 norm is at most a threshold."""
from __future__ import annotations

import math
from typing import Any

import numpy

from chainlet import backend


def _sum_sqnorm(arrays: Any) -> float:
    """The sum of the squared L2 norms of ``arrays`` (an iterable of arrays), as a float.

    Chainer's helper of the same name (its tests call it). Each array's part is computed on
    its own device; only the per-array results are brought to the host.

    Example:
        >>> import numpy as np
        >>> _sum_sqnorm([np.array([3.0, 4.0]), np.array(2.0)])
        29.0
    """
    total = 0.0
    for x in arrays:
        flat = x.ravel()
        total += float(flat.dot(flat))
    return total


class GradientClipping:
    """Scale every gradient by ``min(1, threshold / ||g||)`` where ``||g||`` is the L2 norm of
    all gradients of the target taken together.

    An optimizer hook only (it needs all gradients at once): ``optimizer.add_hook(...)``.
    Parameters without a gradient do not count.

    Args:
        threshold: The largest allowed global norm.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers, optimizer_hooks
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.a = chainlet.Parameter(np.zeros(1, np.float32))
        ...     link.b = chainlet.Parameter(np.zeros(1, np.float32))
        >>> opt = optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(optimizer_hooks.GradientClipping(1.0))
        >>> link.a.grad = np.array([3.0], np.float32)
        >>> link.b.grad = np.array([4.0], np.float32)
        >>> opt.update()  # the norm 5 is scaled down to 1
        >>> link.a.array, link.b.array
        (array([-0.6], dtype=float32), array([-0.8], dtype=float32))
    """

    name = 'GradientClipping'
    timing = 'pre'

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    def __call__(self, opt: Any) -> None:
        grads = [p.grad for p in opt.target.params(False) if p.grad is not None]
        if not grads:
            return
        if all(type(g) is numpy.ndarray for g in grads):
            norm = math.sqrt(_sum_sqnorm(grads))
            if norm == 0 or self.threshold / norm >= 1:
                return
            rate = self.threshold / norm
            for g in grads:
                g *= rate
            return
        # On the GPU the rate stays on the device: no synchronisation to decide.
        xp = backend.get_array_module(*grads)
        sqnorm = sum(xp.vdot(g, g).astype(numpy.float64) for g in grads)
        rate = xp.minimum(self.threshold / xp.sqrt(sqnorm), 1.0)
        for g in grads:
            g *= rate.astype(g.dtype)
