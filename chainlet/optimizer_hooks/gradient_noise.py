"""Add annealed Gaussian noise to the gradients (Neelakantan et al., 2015)."""
from __future__ import annotations

from typing import Any, Callable

import numpy

from chainlet import backend


def exponential_decay_noise(xp: Any, shape: tuple, dtype: Any, hook: 'GradientNoise',
                            opt: Any) -> Any:
    """Gaussian noise with variance ``hook.eta / (1 + t) ** 0.55``.

    Args:
        xp: ``numpy`` or ``cupy``.
        shape: Shape of the noise.
        dtype: Dtype of the noise.
        hook: The :class:`GradientNoise` hook (gives ``eta``).
        opt: The update rule (gives ``t``, the number of updates done so far).

    Returns:
        An array of noise.
    """
    std = numpy.sqrt(hook.eta / numpy.power(1 + opt.t, 0.55))
    return xp.random.normal(0, std, shape).astype(dtype, copy=False)


class GradientNoise:
    """Add noise to each gradient: ``g += noise_func(xp, shape, dtype, hook, rule)``.

    The default noise is :func:`exponential_decay_noise`. Draws come from the global random
    state of NumPy (or CuPy), so ``numpy.random.seed`` makes them reproducible. Usable as an
    optimizer hook and as an update-rule hook.

    Args:
        eta: Scale of the noise variance.
        noise_func: The noise generator.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers, optimizer_hooks
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(1000, np.float32))
        >>> opt = optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(optimizer_hooks.GradientNoise(0.01))
        >>> np.random.seed(0)
        >>> link.w.grad = np.zeros(1000, np.float32)
        >>> opt.update()
        >>> 0.08 < float(link.w.array.std()) < 0.12  # std sqrt(0.01 / 1 ** 0.55) = 0.1
        True
    """

    name = 'GradientNoise'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, eta: float, noise_func: Callable = exponential_decay_noise) -> None:
        self.eta = eta
        self.noise_func = noise_func

    def __call__(self, rule: Any, param: Any) -> None:
        if param.array is None:  # uninitialized: there is no gradient to read yet
            return
        g = param.grad
        if g is None:
            return
        xp = backend.get_array_module(g)
        g += self.noise_func(xp, g.shape, g.dtype, self, rule)
