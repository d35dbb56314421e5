"""Reporting observed values (losses, accuracies, ...) from inside a model, and averaging them.

A :class:`Reporter` collects values into its current *observation* dictionary. Code deep inside a
model calls the module-level :func:`report`; it is a no-op unless a reporter is active (``with
reporter:`` or ``with reporter.scope(observation):``). When an *observer* (usually the link
reporting) was registered with a name, its values are stored as ``name/key``, e.g. ``main/loss``.

:class:`Summary` and :class:`DictSummary` accumulate reported values into mean and standard
deviation, e.g. over an epoch.

Example:
    >>> import numpy as np, chainlet
    >>> from chainlet import reporter as reporter_module
    >>> model = chainlet.Link()
    >>> reporter = reporter_module.Reporter()
    >>> reporter.add_observer('main', model)
    >>> summary = reporter_module.DictSummary()
    >>> for loss in (1.0, 3.0):
    ...     observation = {}
    ...     with reporter.scope(observation):
    ...         reporter_module.report({'loss': np.asarray(loss)}, model)
    ...     summary.add(observation)
    >>> summary.compute_mean()
    {'main/loss': 2.0}
"""
from __future__ import annotations

import collections
import contextlib
import json
import math
import threading
import warnings
from typing import Any, Iterable, Iterator, Mapping

import numpy

from chainlet import _config
from chainlet import backend

_local = threading.local()


def _reporters() -> list:
    stack = getattr(_local, 'reporters', None)
    if stack is None:
        stack = _local.reporters = []
    return stack


def _is_variable(value: Any) -> bool:
    from chainlet.variable import Variable
    return isinstance(value, Variable)


def _detach(value: Any) -> Any:
    """A Variable with the same array and no graph (so the graph can be freed)."""
    if _is_variable(value):
        from chainlet.variable import Variable
        return Variable(value.array, name=value.name, requires_grad=False)
    return value


class Reporter:
    """Collects reported values into the current observation dictionary.

    Attributes:
        observation: The dictionary values are written to (replaced inside :meth:`scope`).

    Example:
        >>> import chainlet
        >>> from chainlet.reporter import Reporter, report
        >>> reporter = Reporter()
        >>> link = chainlet.Link()
        >>> reporter.add_observer('main', link)
        >>> with reporter:
        ...     report({'accuracy': 0.5}, link)
        ...     report({'lr': 0.1})
        >>> reporter.observation
        {'main/accuracy': 0.5, 'lr': 0.1}
    """

    def __init__(self) -> None:
        self._observer_names: dict[int, str] = {}
        self.observation: dict = {}

    def __enter__(self) -> 'Reporter':
        """Make this the current reporter of this thread (until the ``with`` block ends)."""
        _reporters().append(self)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        stack = _reporters()
        if not stack or stack[-1] is not self:
            raise RuntimeError('Reporter.__exit__: this reporter is not the current one '
                               '(reporter blocks must be nested properly)')
        stack.pop()

    @contextlib.contextmanager
    def scope(self, observation: dict) -> Iterator[None]:
        """Make this reporter current and write reported values into ``observation``.

        Args:
            observation: The dictionary to fill; the previous one is restored afterwards.
        """
        if not isinstance(observation, dict):
            raise TypeError(f'Reporter.scope: argument observation: expected a dict, got '
                            f'{type(observation).__name__}')
        old = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__(None, None, None)
            self.observation = old

    def add_observer(self, name: str, observer: Any) -> None:
        """Register ``observer`` (any object, usually a link); its values get ``name/`` prefixed.
        """
        if not isinstance(name, str):
            raise TypeError(f'Reporter.add_observer: argument name: expected a str, got '
                            f'{type(name).__name__}')
        self._observer_names[id(observer)] = name

    def add_observers(self, prefix: str, observers: Iterable[tuple[str, Any]]) -> None:
        """Register ``(name, observer)`` pairs under ``prefix + name``.

        ``reporter.add_observers('main', model.namedlinks(skipself=True))`` names the child
        ``l1`` of ``model`` ``main/l1``.
        """
        for name, observer in observers:
            self.add_observer(prefix + name, observer)

    def report(self, values: Mapping[str, Any], observer: Any = None) -> None:
        """Write ``values`` into the observation, prefixed with the observer's name if given.

        Variables are stored without their graph (a new Variable sharing the array) unless
        ``chainlet.config.keep_graph_on_report`` is ``True``.

        Raises:
            KeyError: ``observer`` was not registered.
        """
        if not _config.config.keep_graph_on_report:
            values = {key: _detach(value) for key, value in values.items()}
        if observer is None:
            self.observation.update(values)
            return
        name = self._observer_names.get(id(observer))
        if name is None:
            raise KeyError(f'Reporter.report: the observer {type(observer).__name__} is not '
                           f'registered; call add_observer(name, observer) first')
        for key, value in values.items():
            self.observation[f'{name}/{key}'] = value


def get_current_reporter() -> Reporter:
    """Return the reporter active in this thread (the innermost ``with reporter:``).

    Raises:
        RuntimeError: no reporter is active.
    """
    stack = _reporters()
    if not stack:
        raise RuntimeError('get_current_reporter: no reporter is active; use "with reporter:" '
                           'or "with reporter.scope(observation):"')
    return stack[-1]


def report(values: Mapping[str, Any], observer: Any = None) -> None:
    """Report ``values`` to the current reporter; does nothing when no reporter is active.

    Args:
        values: Names to values (Variables, arrays or numbers).
        observer: The object reporting; its registered name prefixes the keys.

    Example:
        >>> from chainlet.reporter import report
        >>> report({'loss': 1.0})   # no reporter: nothing happens
    """
    stack = _reporters()
    if stack:
        stack[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation: dict) -> Iterator[None]:
    """Redirect the current reporter's values into ``observation`` inside a ``with`` block.

    Example:
        >>> from chainlet.reporter import Reporter, report, report_scope
        >>> with Reporter():
        ...     inner = {}
        ...     with report_scope(inner):
        ...         report({'x': 1})
        >>> inner
        {'x': 1}
    """
    with get_current_reporter().scope(observation):
        yield


def _as_number(value: Any, what: str) -> Any:
    """A Python float for Variables, 0-d NumPy arrays and numbers; other arrays pass through."""
    if _is_variable(value):
        value = value.array
    if isinstance(value, numpy.ndarray):
        return float(value) if value.ndim == 0 else value
    if backend.is_cupy_array(value):
        return value  # kept on the device: converting would synchronize every step
    if isinstance(value, (bool, int, float, numpy.number, numpy.bool_)):
        return float(value)
    raise TypeError(f'{what}: expected a number, an array or a Variable, got '
                    f'{type(value).__name__}')


def _is_deserializer(serializer: Any) -> bool:
    return any(c.__name__ == 'Deserializer' for c in type(serializer).__mro__)


class Summary:
    """Running weighted mean and standard deviation of reported values.

    Variables and 0-d arrays are turned into Python floats (no graph is kept); arrays of other
    shapes are averaged element-wise.

    Example:
        >>> from chainlet.reporter import Summary
        >>> s = Summary()
        >>> for v in (1.0, 2.0, 3.0):
        ...     s.add(v)
        >>> s.compute_mean()
        2.0
        >>> mean, std = s.make_statistics()
        >>> round(std, 6)
        0.816497
    """

    def __init__(self) -> None:
        self._x: Any = 0.0
        self._x2: Any = 0.0
        self._n: Any = 0.0

    def add(self, value: Any, weight: Any = 1) -> None:
        """Add ``value`` with ``weight`` (a number, Variable or 0-d array)."""
        value = _as_number(value, 'Summary.add')
        weight = _as_number(weight, 'Summary.add (weight)')
        self._x += weight * value
        self._x2 += weight * value * value
        self._n += weight

    def compute_mean(self) -> Any:
        """The weighted mean of the added values."""
        if isinstance(self._n, float) and self._n == 0:
            raise RuntimeError('Summary.compute_mean: no value has been added')
        return self._x / self._n

    def make_statistics(self) -> tuple[Any, Any]:
        """Return ``(mean, std)`` of the added values."""
        mean = self.compute_mean()
        var = self._x2 / self._n - mean * mean
        if isinstance(var, float):
            return mean, math.sqrt(max(var, 0.0))  # rounding can make var slightly negative
        xp = backend.get_array_module(var)
        return mean, xp.sqrt(xp.maximum(var, 0))

    def serialize(self, serializer: Any) -> None:
        """Save or load the running sums (to resume statistics from a snapshot)."""
        from chainlet.serializers import Serializer
        if isinstance(serializer, Serializer):
            # Chainer keeps the count an int and refuses to load a float count into it, so
            # a whole count is saved as an int (Chainer can then resume our snapshots).
            n = self._n
            if isinstance(n, float) and n.is_integer():
                n = int(n)
            serializer('_x', self._x)
            serializer('_x2', self._x2)
            serializer('_n', n)
            return
        try:
            self._x = serializer('_x', self._x)
            self._x2 = serializer('_x2', self._x2)
            self._n = serializer('_n', self._n)
        except KeyError:
            warnings.warn('Summary.serialize: the previous statistics were not saved; they '
                          'start from zero', stacklevel=2)


class DictSummary:
    """A :class:`Summary` per key of the dictionaries added (e.g. observations).

    Values that are not scalars (arrays with more than one element, strings, ...) are skipped.
    A value may be a ``(value, weight)`` tuple.

    Example:
        >>> import numpy as np
        >>> from chainlet.reporter import DictSummary
        >>> s = DictSummary()
        >>> s.add({'loss': 1.0, 'acc': np.float32(0.5)})
        >>> s.add({'loss': 3.0, 'image': np.zeros((2, 2))})
        >>> s.compute_mean()
        {'loss': 2.0, 'acc': 0.5}
        >>> s.make_statistics()
        {'loss': 2.0, 'loss.std': 1.0, 'acc': 0.5, 'acc.std': 0.0}
    """

    def __init__(self) -> None:
        self._summaries: collections.defaultdict = collections.defaultdict(Summary)

    def add(self, d: Mapping[str, Any]) -> None:
        """Add the scalar values of ``d`` to the summaries of their keys."""
        summaries = self._summaries
        for key, value in d.items():
            weight: Any = 1
            if isinstance(value, tuple):
                if len(value) != 2:
                    raise ValueError(f'DictSummary.add: value of {key!r}: expected a value or a '
                                     f'(value, weight) pair, got a tuple of {len(value)}')
                value, weight = value
                w = weight.array if _is_variable(weight) else weight
                if not (numpy.isscalar(w) or getattr(w, 'ndim', -1) == 0):
                    raise ValueError(f'DictSummary.add: the weight of {key!r} is not a scalar')
            if _is_variable(value):
                value = value.array
            if isinstance(value, (str, bytes)):
                continue
            if numpy.isscalar(value) or getattr(value, 'ndim', -1) == 0:
                summaries[key].add(value, weight=weight)

    def compute_mean(self) -> dict:
        """``{key: mean}`` for every key added so far."""
        return {key: s.compute_mean() for key, s in self._summaries.items()}

    def make_statistics(self) -> dict:
        """``{key: mean, key + '.std': std}`` for every key added so far."""
        stats = {}
        for key, s in self._summaries.items():
            mean, std = s.make_statistics()
            stats[key] = mean
            stats[key + '.std'] = std
        return stats

    def serialize(self, serializer: Any) -> None:
        """Save or load every summary (names are stored as a JSON list under ``_names``)."""
        if not _is_deserializer(serializer):
            names = list(self._summaries)
            serializer('_names', json.dumps(names))
            for index, name in enumerate(names):
                self._summaries[name].serialize(serializer['_summaries'][str(index)])
            return
        self._summaries.clear()
        try:
            saved = serializer('_names', '')
        except KeyError:
            saved = ''
        if not saved:
            warnings.warn('DictSummary.serialize: the names of the statistics were not saved; '
                          'starting empty', stacklevel=2)
            return
        for index, name in enumerate(json.loads(saved)):
            self._summaries[name].serialize(serializer['_summaries'][str(index)])
