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

    With ``progress_bar=True`` the sweep's progress is shown (a plain line when the output
    is not a terminal):

    >>> result = extensions.Evaluator(it, model, progress_bar=True)()
    validation: 2/2 iterations (100.0%), 0:00:00...
"""
from __future__ import annotations

import copy
import sys
import time
import warnings
from typing import Any, Callable, Optional, TextIO

from chainlet import _config
from chainlet import reporter as reporter_module
from chainlet.dataset.convert import _call_converter, concat_examples
from chainlet.link import Link
from chainlet.training import extension
from chainlet.training.extensions import progress_bar as _progress_bar
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
        progress_bar: Show the progress of each evaluation on ``sys.stdout`` (keyword only,
            as in Chainer 7). On a terminal with tqdm installed a bar is drawn and removed
            when the evaluation ends; otherwise (a file, a pipe, no tqdm) a plain line such
            as ``validation: 50/50 iterations (100.0%), 0:00:01, 48.2 iters/sec`` is written
            every 100 iterations and at the end. Nothing is printed when ``False``.

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
                 eval_func: Optional[Callable] = None, *, progress_bar: bool = False) -> None:
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
        self._progress_bar = bool(progress_bar)

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
        progress = None
        # getattr: subclasses written for older Chainer often skip Evaluator.__init__.
        if getattr(self, '_progress_bar', False):
            progress = _EvaluationProgress(self.name or self.default_name,
                                           _batches_per_sweep(it), sys.stdout)
        try:
            for batch in it:
                observation: dict = {}
                with reporter_module.report_scope(observation):
                    in_arrays = _call_converter(self.converter, batch, self.device)
                    with _config.no_backprop_mode():
                        call_with_arrays(eval_func, in_arrays)
                summary.add(observation)
                if progress is not None:
                    progress.update()
        finally:
            if progress is not None:
                progress.close()
        return summary.compute_mean()

    def finalize(self) -> None:
        """Finalize the iterators."""
        for it in self._iterators.values():
            finalize = getattr(it, 'finalize', None)
            if finalize is not None:
                finalize()


def _batches_per_sweep(iterator: Any) -> Optional[int]:
    """Number of batches in one pass over the iterator's dataset, or ``None`` if unknown."""
    try:
        size, batch_size = len(iterator.dataset), int(iterator.batch_size)
    except (AttributeError, TypeError):
        return None
    return -(-size // batch_size) if batch_size > 0 else None


class _EvaluationProgress:
    """Progress of one evaluation sweep: a tqdm bar on a terminal, plain lines otherwise."""

    plain_interval = 100  # iterations between two plain lines (and one at the end)

    def __init__(self, name: str, total: Optional[int], out: TextIO) -> None:
        self._name = name
        self._total = total
        self._out = out
        self._count = 0
        self._written = -1  # so that an empty sweep still writes its line
        self._start = time.perf_counter()
        tqdm = _progress_bar._tqdm_module() if _progress_bar._is_terminal(out) else None
        # leave=False: the bar disappears when the evaluation ends, as Chainer's does.
        self._bar = None if tqdm is None else tqdm.tqdm(
            total=total, desc=name, unit='iter', file=out, leave=False, dynamic_ncols=True)

    def update(self) -> None:
        self._count += 1
        if self._bar is not None:
            self._bar.update(1)
        elif self._count % self.plain_interval == 0:
            self._write_line()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._written != self._count:
            self._write_line()

    def _write_line(self) -> None:
        elapsed = time.perf_counter() - self._start
        if self._total:
            done = f'{self._count}/{self._total} iterations ({self._count / self._total:.1%})'
        else:
            done = f'{self._count} iterations'
        line = f'{self._name}: {done}, {_progress_bar._format_seconds(elapsed)}'
        if elapsed > 0:
            line += f', {self._count / elapsed:.4g} iters/sec'
        self._out.write(line + '\n')
        if hasattr(self._out, 'flush'):
            self._out.flush()
        self._written = self._count
