"""The :class:`Extension` base class, :func:`make_extension` and the priority constants.

An extension is anything callable as ``extension(trainer)``. The trainer reads a few optional
attributes from it: ``trigger`` (when to call it), ``priority`` (the order within an iteration:
higher first), ``default_name``, and the methods ``initialize(trainer)``, ``finalize()``,
``on_error(trainer, exc, tb)`` and ``serialize(serializer)``.

Example:
    >>> from chainlet import training
    >>> @training.make_extension(trigger=(1, 'epoch'), priority=training.PRIORITY_EDITOR)
    ... def halve_lr(trainer):
    ...     trainer.updater.get_optimizer('main').lr *= 0.5
    >>> halve_lr.trigger, halve_lr.default_name, halve_lr.priority
    ((1, 'epoch'), 'halve_lr', 200)
"""
from __future__ import annotations

from typing import Any, Callable, Optional

#: Priority of extensions that write observations (e.g. ``Evaluator``, ``observe_lr``).
PRIORITY_WRITER = 300
#: Priority of extensions that modify observations.
PRIORITY_EDITOR = 200
#: Priority of extensions that only read observations (e.g. ``LogReport``); the default.
PRIORITY_READER = 100


class Extension:
    """Base class of trainer extensions.

    Subclasses implement ``__call__(trainer)`` and override the class attributes as needed.

    Attributes:
        trigger: Default trigger, ``(1, 'iteration')``.
        priority: Default priority, :data:`PRIORITY_READER`.
        name: The name under which the trainer registered the extension (set by
            :meth:`Trainer.extend <chainlet.training.Trainer.extend>`).

    Example:
        >>> from chainlet import training
        >>> class CountCalls(training.Extension):
        ...     trigger = 2, 'iteration'
        ...     def __init__(self):
        ...         self.calls = 0
        ...     def __call__(self, trainer):
        ...         self.calls += 1
        >>> CountCalls().default_name
        'CountCalls'
    """

    trigger: Any = 1, 'iteration'
    priority: int = PRIORITY_READER
    name: Optional[str] = None

    @property
    def default_name(self) -> str:
        """The name used when none is given to ``extend``: the class name."""
        return type(self).__name__

    def __call__(self, trainer: Any) -> Any:
        """Run the extension (subclasses implement this)."""
        raise NotImplementedError(f'{type(self).__name__} does not implement __call__')

    def initialize(self, trainer: Any) -> None:
        """Called once before the training loop (also after resuming from a snapshot).

        Extensions that set trainer state (such as a learning rate schedule) restore it here.
        """

    def finalize(self) -> None:
        """Called once at the end of the training loop, also when it ended with an error."""

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Called when the training loop raised ``exc`` (before :meth:`finalize`)."""

    def serialize(self, serializer: Any) -> None:
        """Save or load the extension's state (nothing by default)."""


def make_extension(trigger: Any = None, default_name: Optional[str] = None,
                   priority: Optional[int] = None, finalizer: Optional[Callable] = None,
                   initializer: Optional[Callable] = None,
                   on_error: Optional[Callable] = None,
                   **kwargs: Any) -> Callable[[Callable], Any]:
    """Decorator that turns a function ``f(trainer)`` into an extension.

    It only sets attributes on the function, so the function is still callable as it was.

    Args:
        trigger: Default trigger (``(1, 'iteration')`` if ``None``).
        default_name: Default name (the function's ``__name__`` if ``None``).
        priority: Default priority (:data:`PRIORITY_READER` if ``None``).
        finalizer: Called as ``finalizer()`` at the end of training.
        initializer: Called as ``initializer(trainer)`` before training.
        on_error: Called as ``on_error(trainer, exc, tb)`` when the loop raised.

    Returns:
        The decorator.

    Raises:
        ValueError: ``invoke_before_training`` is given (removed in Chainer 2; use
            ``initializer``), as Chainer raises.
        TypeError: another unexpected keyword argument.

    Example:
        >>> from chainlet import training
        >>> @training.make_extension(default_name='hello')
        ... def say(trainer):
        ...     pass
        >>> say.default_name, say.trigger
        ('hello', (1, 'iteration'))
    """
    if 'invoke_before_training' in kwargs:
        raise ValueError('make_extension: invoke_before_training was removed in Chainer 2; '
                         'use initializer= (or Trainer.extend(..., call_before_training=True))')
    if kwargs:
        raise TypeError(f'make_extension: unexpected keyword arguments {sorted(kwargs)}')
    if trigger is None:
        trigger = Extension.trigger
    if priority is None:
        priority = Extension.priority

    def decorator(ext: Any) -> Any:  # a function, given the attributes of an Extension
        ext.trigger = trigger
        ext.default_name = default_name or ext.__name__
        ext.priority = priority
        ext.finalize = finalizer
        ext.initialize = initializer
        ext.on_error = on_error
        return ext

    return decorator
