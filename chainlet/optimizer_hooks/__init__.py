"""Hooks that modify gradients before (or after) an optimizer's update.

Register them on an optimizer (``optimizer.add_hook(WeightDecay(1e-4))``) or, for the
per-parameter ones, on a single update rule (``param.update_rule.add_hook(...)``).

Example:
    >>> from chainlet import optimizer_hooks
    >>> hook = optimizer_hooks.WeightDecay(1e-4)
    >>> hook.name, hook.timing, hook.call_for_each_param
    ('WeightDecay', 'pre', True)
"""
from __future__ import annotations

from chainlet.optimizer_hooks.gradient_clipping import GradientClipping  # noqa: F401
from chainlet.optimizer_hooks.gradient_hard_clipping import GradientHardClipping  # noqa: F401
from chainlet.optimizer_hooks.gradient_lars import GradientLARS  # noqa: F401
from chainlet.optimizer_hooks.gradient_noise import (GradientNoise,  # noqa: F401
                                                     exponential_decay_noise)
from chainlet.optimizer_hooks.lasso import Lasso  # noqa: F401
from chainlet.optimizer_hooks.weight_decay import WeightDecay  # noqa: F401
