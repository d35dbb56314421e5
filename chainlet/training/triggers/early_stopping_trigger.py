"""``EarlyStoppingTrigger``: a stop trigger that fires when a monitored value stops improving.

Example:
    >>> from chainlet.training.triggers import EarlyStoppingTrigger
    >>> class Updater:
    ...     iteration, epoch, epoch_detail, previous_epoch_detail = 0, 0, 0.0, None
    >>> class Trainer:
    ...     updater, observation = Updater(), {}
    >>> trainer = Trainer()
    >>> stop = EarlyStoppingTrigger(check_trigger=(1, 'iteration'), monitor='val/loss',
    ...                             patience=2, max_trigger=(100, 'iteration'))
    >>> decisions = []
    >>> for it, loss in enumerate([1.0, 0.8, 0.9, 0.85, 0.7], start=1):
    ...     trainer.updater.iteration = it
    ...     trainer.observation = {'val/loss': loss}
    ...     decisions.append(stop(trainer))
    >>> decisions
    [False, False, False, True, False]
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any, Optional

from chainlet import reporter
from chainlet.training import util
from chainlet.training.triggers.interval_trigger import forget_positions


class EarlyStoppingTrigger:
    """Stop when ``monitor`` has not improved for ``patience`` checks (or at ``max_trigger``).

    At each firing of ``check_trigger`` the mean of ``monitor`` since the previous check is
    compared with the best mean so far; a check without improvement increments :attr:`count`,
    an improvement resets it. The trigger fires (training stops) when ``count >= patience``, or
    when ``max_trigger`` fires.

    Args:
        check_trigger: When to check (default once per epoch).
        monitor: The observation key to watch.
        patience: Number of checks without improvement to tolerate.
        mode: ``'max'``, ``'min'`` or ``'auto'`` (``'max'`` when ``monitor`` contains
            ``'accuracy'``, ``'min'`` otherwise).
        verbose: Print a line when stopping early.
        max_trigger: Upper bound on the training length (default 100 epochs).
    """

    def __init__(self, check_trigger: Any = (1, 'epoch'), monitor: str = 'main/loss',
                 patience: Optional[int] = 3, mode: str = 'auto', verbose: bool = False,
                 max_trigger: Any = (100, 'epoch'), **kwargs: Any) -> None:
        patients = kwargs.pop('patients', None)  # Chainer's old spelling
        if kwargs:
            raise TypeError(f'EarlyStoppingTrigger: unexpected keyword arguments '
                            f'{sorted(kwargs)}')
        if patients is not None:
            patience = patients
        if patience is None:
            patience = 3
        if mode not in ('auto', 'max', 'min'):
            raise ValueError(f"EarlyStoppingTrigger: argument mode: expected 'auto', 'max' or "
                             f"'min', got {mode!r}")
        self.count = 0
        self.patience = patience
        self.monitor = monitor
        self.verbose = verbose
        self._max_trigger: Any = util.get_trigger(max_trigger)
        self._interval_trigger = util.get_trigger(check_trigger)
        if mode == 'max' or (mode == 'auto' and 'accuracy' in monitor):
            self._operator, self.best = operator.gt, -math.inf
        else:
            self._operator, self.best = operator.lt, math.inf
        self._init_summary()

    def _init_summary(self) -> None:
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Any) -> bool:
        """Return whether training should stop now."""
        observation = trainer.observation
        if self.monitor in observation:
            self._summary.add({self.monitor: observation[self.monitor]})
        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False
        if self.monitor not in observation:
            warnings.warn(f'EarlyStoppingTrigger: {self.monitor!r} is not in the observation; '
                          f'is the monitored key reported at the check interval?', stacklevel=2)
            return False
        current = float(self._summary.compute_mean()[self.monitor])
        self._init_summary()
        if self._operator(current, self.best):
            self.best = current
            self.count = 0
        else:
            self.count += 1
        if self.count >= self.patience:
            if self.verbose:
                print(f'Epoch {trainer.updater.epoch}: early stopping')
            return True
        return False

    def get_training_length(self) -> Any:
        """The length of ``max_trigger`` (used by ``ProgressBar``)."""
        return self._max_trigger.get_training_length()

    def serialize(self, serializer: Any) -> None:
        """Save or load the count, the best value, the summary and both triggers' state.

        Chainer 7.8.1's trigger has no ``serialize`` (a resumed run starts counting patience
        afresh); chainlet saves this state under ``stop_trigger/`` so that a resumed run stops
        where an uninterrupted one would. Chainer ignores these keys when it loads a chainlet
        snapshot; a Chainer snapshot lacks them, and then the state starts afresh (with a
        warning) while both inner triggers take their position from the updater.
        """
        try:
            self.count = int(serializer('count', self.count))
        except KeyError:
            warnings.warn('EarlyStoppingTrigger: the snapshot has no state of the trigger (a '
                          'Chainer snapshot); patience is counted afresh', stacklevel=2)
            forget_positions(self._max_trigger, serializer)
            forget_positions(self._interval_trigger, serializer)
            return
        self.best = float(serializer('best', self.best))
        self._summary.serialize(serializer['summary'])
        for key, trigger in (('max_trigger', self._max_trigger),
                             ('interval_trigger', self._interval_trigger)):
            if hasattr(trigger, 'serialize'):
                trigger.serialize(serializer[key])
