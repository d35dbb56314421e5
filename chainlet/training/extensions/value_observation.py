"""``observe_value`` and ``observe_lr``: put a value into the observation.

Example:
    >>> from chainlet.training import extensions
    >>> ext = extensions.observe_lr()
    >>> ext.default_name, ext.trigger  # Chainer's name, also for observe_lr
    ('_observe_value', (1, 'epoch'))
"""
from __future__ import annotations

from typing import Any, Callable

from chainlet.training import extension


def observe_value(observation_key: str, target_func: Callable[[Any], Any]) -> Callable:
    """An extension that stores ``target_func(trainer)`` as ``observation[observation_key]``.

    Its default trigger is ``(1, 'epoch')`` and its priority
    :data:`~chainlet.training.PRIORITY_WRITER`, so readers such as ``LogReport`` see the value
    in the same iteration. Extend it with ``trigger=(1, 'iteration')`` to record the value at
    every iteration (``LogReport`` then logs its mean over the interval).

    Args:
        observation_key: The key to store the value under.
        target_func: ``target_func(trainer)`` returning the value.
    """
    @extension.make_extension(trigger=(1, 'epoch'), priority=extension.PRIORITY_WRITER)
    def _observe_value(trainer: Any) -> None:
        trainer.observation[observation_key] = target_func(trainer)

    # The registration name is Chainer's, ``_observe_value`` (``_observe_value_1``, ... for
    # more than one): it names the trigger's state in trainer snapshots.
    return _observe_value


def observe_lr(optimizer_name: str = 'main', observation_key: str = 'lr') -> Callable:
    """An extension that records the learning rate ``lr`` of an optimizer (see
    :func:`observe_value`).

    Args:
        optimizer_name: The updater's name of the optimizer.
        observation_key: The key to store it under.
    """
    return observe_value(observation_key,
                         lambda trainer: trainer.updater.get_optimizer(optimizer_name).lr)
