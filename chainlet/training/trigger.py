"""``chainlet.training.trigger``: the module name Chainer scripts use for the interval trigger.

Chainer kept ``chainer.training.trigger`` (``IntervalTrigger``, ``get_trigger``) after the
triggers moved to :mod:`chainlet.training.triggers`; old scripts and tests still spell
``training.trigger.IntervalTrigger(1, 'epoch')``, so the same objects are reachable here.

Example:
    >>> from chainlet import training
    >>> training.trigger.IntervalTrigger is training.triggers.IntervalTrigger
    True
    >>> training.trigger.get_trigger((2, 'iteration'))
    IntervalTrigger(2, 'iteration')
"""
from __future__ import annotations

from chainlet.training.triggers.interval_trigger import IntervalTrigger  # noqa: F401
from chainlet.training.util import get_trigger  # noqa: F401
