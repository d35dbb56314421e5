"""``Evaluator``: average the values a model reports over a validation dataset.

Example:
    >>> import numpy as np, chainlet.links as L
    >>> from chainlet import iterators
    >>> from chainlet.training import extensions
    >>> x = np.eye(3, dtype=np.float32)
    >>> t = np.array([0, 1, 2], np.int32)
    >>> model = L.Classifier(L.Linear(3, 3, initialW=np.eye(3, dtype=np.float32)))
    >>> it = iterators.SerialIterator(list(zip(x, t)), 2, repeat=False, shuffle=False)
    >>> result = extensions.Evaluator(it, model)()
    >>> sorted(result), result['main/accuracy']
    (['main/accuracy', 'main/loss'], 1.0)
"""
from __future__ import annotations

import copy
import warnings
from typing import Any, Callable, Optional

from chainlet import _config
from chainlet import reporter as reporter_module
from chainlet.dataset.convert import concat_examples
from chainlet.link import Link
from chainlet.training import extension
from chainlet.training.updaters.standard_updater import call_with_arrays


class Evaluator(extension.Extension):
    """Evaluate a model on a validation iterator and report the means.

    Each call sweeps the ``'main'`` iterator once (it is reset first, or copied if it has no
    ``reset``) in test mode (``chainlet.config.train`` is ``False``) and without building a
    graph (``no_backprop_mode``). The values the target reports for each batch are averaged with
    a :class:`~chainlet.reporter.DictSummary`, weighted equally per batch, and reported under
    ``<extension name>/<observer name>/<key>``: with the default name ``validation`` and a
    ``Classifier`` as the main target, ``validation/main/loss`` and
    ``validation/main/accuracy``.

    Args:
        iterator: A non-repeating iterator, or a dict of them with a ``'main'`` entry.
        target: The link to evaluate, or a dict of links with a ``'main'`` entry.
        converter: ``converter(batch, device)`` turning examples into arrays.
        device: Device for the input arrays (``None``: leave them where they are).
        eval_hook: Called as ``eval_hook(evaluator)`` before each evaluation.
        eval_func: What to call with each batch; the main target if ``None``.

    Attributes:
        trigger: Default ``(1, 'epoch')``.
        priority: :data:`~chainlet.training.PRIORITY_WRITER` (runs before readers such as
            ``LogReport`` in the same iteration).
    """

    trigger = 1, 'epoch'
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(self, iterator: Any, target: Any, converter: Callable = concat_examples,
                 device: Any = None, eval_hook: Optional[Callable] = None,
                 eval_func: Optional[Callable] = None) -> None:
        iterators = iterator if isinstance(iterator, dict) else {'main': iterator}
        targets = target if isinstance(target, dict) else {'main': target}
        if 'main' not in iterators:
            raise ValueError(f"Evaluator: argument iterator: a dict of iterators needs a 'main' "
                             f"entry, got keys {sorted(iterators)}")
        for name, link in targets.items():
            if not isinstance(link, Link):
                raise TypeError(f'Evaluator: argument target: expected a Link (or a dict of '
                                f'Links), got {type(link).__name__} for {name!r}')
        for name, it in iterators.items():
            if getattr(it, 'repeat', False):
                warnings.warn(f'Evaluator: the iterator {name!r} repeats (repeat=True), so an '
                              f'evaluation would never end; create it with repeat=False',
                              stacklevel=2)
        self._iterators = iterators
        self._targets = targets
        self.converter = converter
        self.device = device
        self.eval_hook = eval_hook
        self.eval_func = eval_func

    def get_iterator(self, name: str) -> Any:
        """The iterator registered as ``name``."""
        return self._iterators[name]

    def get_all_iterators(self) -> dict:
        """A new dict of all iterators."""
        return dict(self._iterators)

    def get_target(self, name: str) -> Any:
        """The target link registered as ``name``."""
        return self._targets[name]

    def get_all_targets(self) -> dict:
        """A new dict of all target links."""
        return dict(self._targets)

    def __call__(self, trainer: Any = None) -> dict:
        """Run :meth:`evaluate` with the targets as observers and report the result.

        Returns:
            The dict of means, e.g. ``{'validation/main/loss': 0.3, ...}``.
        """
        reporter = reporter_module.Reporter()
        prefix = '' if self.name is None else self.name + '/'
        for name, target in self._targets.items():
            reporter.add_observer(prefix + name, target)
            reporter.add_observers(prefix + name, target.namedlinks(skipself=True))
        with reporter:
            with _config.using_config('train', False):
                result = self.evaluate()
        reporter_module.report(result)
        return result

    def evaluate(self) -> dict:
        """Sweep the main iterator once and return the means of the reported values.

        Runs in no-backprop mode. :meth:`__call__` adds test mode (``train=False``).
        """
        iterator = self._iterators['main']
        eval_func = self.eval_func or self._targets['main']
        if self.eval_hook:
            self.eval_hook(self)
        if hasattr(iterator, 'reset'):
            iterator.reset()
            it = iterator
        else:
            it = copy.copy(iterator)
        summary = reporter_module.DictSummary()
        for batch in it:
            observation: dict = {}
            with reporter_module.report_scope(observation):
                in_arrays = self.converter(batch, self.device)
                with _config.no_backprop_mode():
                    call_with_arrays(eval_func, in_arrays)
            summary.add(observation)
        return summary.compute_mean()

    def finalize(self) -> None:
        """Finalize the iterators."""
        for it in self._iterators.values():
            finalize = getattr(it, 'finalize', None)
            if finalize is not None:
                finalize()
