"""``unchain_variables``: cut the graphs of reported Variables after the other extensions ran.

A Variable reported with ``chainlet.config.keep_graph_on_report`` on keeps its whole graph (and
every array it retains) alive through ``trainer.observation``. Extensions that need that graph,
such as :func:`~chainlet.training.extensions.dump_graph`, turn the flag on for one iteration;
this extension, run last (priority 0), releases the graphs of the iteration in which the flag
was on. It is a last resort when an extension keeps a graph and does not release it itself.

Example:
    >>> import numpy as np, chainlet
    >>> import chainlet.functions as F
    >>> from chainlet.training.extensions import unchain_variables
    >>> x = chainlet.Variable(np.ones(2, dtype=np.float32))
    >>> loss = F.sum(x * 2)

    >>> class FakeTrainer:
    ...     observation = {'main/loss': loss}
    >>> ext = unchain_variables()
    >>> with chainlet.using_config('keep_graph_on_report', True):
    ...     ext.initialize(FakeTrainer)
    >>> ext.trigger(FakeTrainer)   # the flag was on during the iteration just finished
    True
    >>> ext(FakeTrainer)
    >>> loss.creator is None
    True
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet import _config
from chainlet.training import extension
from chainlet.variable import Variable


class unchain_variables(extension.Extension):
    """Unchain the backward graph of every Variable in ``trainer.observation``.

    It fires after an iteration in which ``chainlet.config.keep_graph_on_report`` was on: its
    trigger returns the flag's value seen at the previous call (or at ``initialize``), so the
    iteration that kept graphs on purpose is cleaned up right after the extensions that used
    them. Its priority is 0, below every other built-in priority, so it runs last.
    """

    priority = 0

    def __init__(self) -> None:
        self._prev_flag: Optional[bool] = None

    def initialize(self, trainer: Any) -> None:
        self._prev_flag = _config.config.keep_graph_on_report

    def trigger(self, trainer: Any) -> bool:
        flag = self._prev_flag
        self._prev_flag = _config.config.keep_graph_on_report
        return bool(flag)

    def __call__(self, trainer: Any) -> None:
        for value in trainer.observation.values():
            if isinstance(value, Variable):
                value.unchain_backward()
