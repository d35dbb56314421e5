"""``ParameterStatistics``: report the mean, spread and percentiles of parameters and gradients.

Example:
    >>> from chainlet.training import extensions
    >>> sorted(extensions.ParameterStatistics.default_statistics)
    ['max', 'mean', 'min', 'percentile', 'std', 'zeros']
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Iterable, Mapping, Optional, Union

from chainlet import backend
from chainlet import reporter as reporter_module
from chainlet.link import Link
from chainlet.training import extension
from chainlet.training import util
from chainlet.training.triggers.interval_trigger import forget_positions

#: Percentiles of the default ``'percentile'`` statistic: the median and -3..+3 sigma of a
#: normal distribution.
PERCENTILE_SIGMAS = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)


def _mean(x: Any) -> Any:
    return backend.get_array_module(x).mean(x)


def _std(x: Any) -> Any:
    return backend.get_array_module(x).std(x)


def _min(x: Any) -> Any:
    return backend.get_array_module(x).min(x)


def _max(x: Any) -> Any:
    return backend.get_array_module(x).max(x)


def _zeros(x: Any) -> Any:
    return backend.get_array_module(x).count_nonzero(x == 0)


def _percentile(x: Any) -> Any:
    return backend.get_array_module(x).percentile(x, PERCENTILE_SIGMAS)


_DEFAULT_STATISTICS = {'mean': _mean, 'std': _std, 'min': _min, 'max': _max, 'zeros': _zeros,
                       'percentile': _percentile}


def _check_statistic(where: str, name: Any, function: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f'{where}: expected a str as the name of a statistic, got '
                        f'{type(name).__name__}')
    if not callable(function):
        raise TypeError(f'{where}: statistic {name!r}: expected a callable, got '
                        f'{type(function).__name__}')


def _check_flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f'ParameterStatistics: argument {name}: expected a bool, got '
                        f'{type(value).__name__}')


class ParameterStatistics(extension.Extension):
    """Report statistics of the parameters (and gradients) of links to the reporter.

    The extension runs every iteration (after the update) and adds the statistics of every
    parameter of ``links`` to a running summary; when ``trigger`` fires it reports the means
    over the interval with :func:`chainlet.reporter.report` and starts a new interval. A
    :class:`LogReport` with the same trigger therefore logs them once per interval.

    Each statistic is a function of the flattened array (NumPy or CuPy) that returns one
    number or several. Keys are ``prefix/link name/parameter path/data or grad/statistic``,
    e.g. ``main/predictor/l1/W/data/mean`` for ``prefix='main'`` and the child link
    ``model.predictor``; a statistic with several values gets ``/0``, ``/1``, ... appended (the
    default percentiles are ``.../percentile/0`` to ``/6``). The prefix part is left out when
    ``prefix`` is ``None``. A link without a name (a root link) is written ``None``, as Chainer
    writes it: ``ParameterStatistics(model)`` reports ``None/l1/W/data/mean``.

    The default statistics are ``mean``, ``std``, ``min``, ``max``, ``zeros`` (the number of
    elements equal to 0) and ``percentile`` (at :data:`PERCENTILE_SIGMAS`: 0.13, 2.28, 15.87,
    50, 84.13, 97.72 and 99.87). Arrays that are ``None`` (a parameter not initialized yet, a
    gradient not computed yet) and empty arrays are skipped. :meth:`compute_statistics`
    returns the current values without reporting them.

    Args:
        links: A Link, or a sequence of Links, whose parameters (including those of child
            links) are observed.
        statistics: ``'default'`` for the default statistics, a mapping from names to
            functions, or ``None`` for none yet (see :meth:`register_statistics`).
        report_params: Report statistics of the parameter values (``data``).
        report_grads: Report statistics of the gradients (``grad``).
        prefix: Prepended to every key, followed by ``/``.
        trigger: When to report the accumulated means (default every epoch): a
            ``(period, unit)`` pair or a callable ``trigger(trainer) -> bool``.
        skip_nan_params: For an array that contains NaN, report one NaN per statistic (under
            the statistic's key without index) instead of computing it.

    Raises:
        TypeError: ``links`` is not a Link or a sequence of Links, ``statistics`` is not a
            mapping of names to callables, a flag is not a bool or ``prefix`` not a str.
        ValueError: ``links`` is empty, or ``statistics`` is a str other than ``'default'``.

    Example:
        >>> import numpy as np, chainlet
        >>> import chainlet.links as L
        >>> from chainlet.training import extensions
        >>> model = chainlet.Chain()
        >>> with model.init_scope():
        ...     model.l1 = L.Linear(3, 2, initialW=np.arange(6.0).reshape(2, 3))
        >>> ext = extensions.ParameterStatistics(model, prefix='main', report_grads=False,
        ...                                      trigger=(1, 'iteration'))
        >>> stats = ext.compute_statistics()
        >>> float(stats['main/None/l1/W/data/mean']), int(stats['main/None/l1/W/data/zeros'])
        (2.5, 1)
        >>> float(stats['main/None/l1/W/data/percentile/3'])  # the median
        2.5
        >>> sorted(k for k in stats if k.startswith('main/None/l1/b/'))[:3]
        ['main/None/l1/b/data/max', 'main/None/l1/b/data/mean', 'main/None/l1/b/data/min']
    """

    default_name = 'parameter_statistics'
    # Called every iteration to accumulate; ``trigger`` decides when to report.
    trigger = (1, 'iteration')
    priority = extension.PRIORITY_WRITER

    #: How keys are built: ``prefix`` is empty or ends with ``/``; ``param_name`` is the
    #: parameter's path in the link (``/l1/W``), without its leading ``/`` when
    #: ``link_name`` is empty.
    report_key_template = '{prefix}{link_name}{param_name}/{attr_name}/{function_name}'

    #: The statistics used for ``statistics='default'`` (copied by each instance).
    default_statistics: Mapping[str, Callable[[Any], Any]] = _DEFAULT_STATISTICS

    def __init__(self, links: Union[Link, Iterable[Link]],
                 statistics: Union[str, Mapping[str, Callable[[Any], Any]], None] = 'default',
                 report_params: bool = True, report_grads: bool = True,
                 prefix: Optional[str] = None, trigger: Any = (1, 'epoch'),
                 skip_nan_params: bool = False) -> None:
        self._links = self._check_links(links)
        if statistics is None:
            statistics = {}
        elif isinstance(statistics, str):
            if statistics != 'default':
                raise ValueError(f"ParameterStatistics: argument statistics: expected 'default', "
                                 f"a dict or None, got {statistics!r}")
            statistics = self.default_statistics
        elif not isinstance(statistics, Mapping):
            raise TypeError(f"ParameterStatistics: argument statistics: expected 'default', a "
                            f"dict of names to functions or None, got "
                            f"{type(statistics).__name__}")
        for name, function in statistics.items():
            _check_statistic('ParameterStatistics: argument statistics', name, function)
        self._statistics = dict(statistics)
        for name, value in (('report_params', report_params), ('report_grads', report_grads),
                            ('skip_nan_params', skip_nan_params)):
            _check_flag(name, value)
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError(f'ParameterStatistics: argument prefix: expected a str or None, '
                            f'got {type(prefix).__name__}')
        self._attrs = [attr for attr, on in (('data', report_params), ('grad', report_grads))
                       if on]
        self._prefix = prefix
        self._trigger = util.get_trigger(trigger)
        self._skip_nan_params = skip_nan_params
        self._summary = reporter_module.DictSummary()

    @staticmethod
    def _check_links(links: Any) -> list:
        if isinstance(links, Link):
            return [links]
        if isinstance(links, (str, bytes, Mapping)) or not isinstance(links, Iterable):
            raise TypeError(f'ParameterStatistics: argument links: expected a Link or a '
                            f'sequence of Links, got {type(links).__name__}')
        links = list(links)
        if not links:
            raise ValueError('ParameterStatistics: argument links: expected a Link or a '
                             'non-empty sequence of Links, got an empty sequence')
        for i, link in enumerate(links):
            if not isinstance(link, Link):
                raise TypeError(f'ParameterStatistics: argument links: expected Links, got '
                                f'{type(link).__name__} at index {i}')
        return links

    def register_statistics(self, name: str, function: Callable[[Any], Any]) -> None:
        """Add (or replace) the statistic ``name``, computed as ``function(flat_array)``.

        Args:
            name: Last part of the report key.
            function: Takes a one-dimensional NumPy or CuPy array and returns a number, or
                an array or sequence of numbers (reported under ``name/0``, ``name/1``, ...).
        """
        _check_statistic('ParameterStatistics.register_statistics', name, function)
        self._statistics[name] = function

    def compute_statistics(self) -> dict:
        """The statistics of the current parameters and gradients, keyed as reported.

        Nothing is reported or accumulated; ``__call__`` does that.
        """
        prefix = f'{self._prefix}/' if self._prefix else ''
        values: dict = {}
        for link in self._links:
            # As Chainer: an unnamed (root) link is written as 'None', so that the keys, which
            # logs and plots refer to, are the same as Chainer's ('None/l1/W/data/mean').
            link_name = str(getattr(link, 'name', None))
            for path, param in link.namedparams():
                if param.array is None:  # not initialized yet: no data, and no gradient to read
                    continue
                for attr_name in self._attrs:
                    array = param.array if attr_name == 'data' else param.grad
                    if array is None or array.size == 0:
                        continue
                    # Statistics see a flat array: they should not depend on the layout.
                    flat = array.ravel()
                    has_nan = self._skip_nan_params and bool(
                        backend.get_array_module(flat).isnan(flat).any())
                    for function_name, function in self._statistics.items():
                        key = self.report_key_template.format(
                            prefix=prefix, link_name=link_name, param_name=path,
                            attr_name=attr_name, function_name=function_name)
                        value = math.nan if has_nan else function(flat)
                        _store(values, key, value)
        return values

    def __call__(self, trainer: Any) -> None:
        """Add the current statistics to the summary; report the means when the trigger fires.
        """
        self._summary.add(self.compute_statistics())
        if self._trigger(trainer):
            reporter_module.report(self._summary.compute_mean())
            self._summary = reporter_module.DictSummary()

    def serialize(self, serializer: Any) -> None:
        """Save or load the statistics accumulated in the current interval (``_summary``).

        Chainer 7.8.1 saves nothing here (a resumed run loses the part of the interval before
        the snapshot); chainlet keeps ``_summary`` so that the interval's means are those of
        an uninterrupted run. A Chainer snapshot lacks it: the statistics then start from
        zero, with a warning. The trigger's state is not saved, as in Chainer; after a load
        it takes its position from the updater, so it does not fire early.
        """
        forget_positions(self._trigger, serializer)
        try:
            self._summary.serialize(serializer['_summary'])
        except KeyError:
            warnings.warn('ParameterStatistics: the running statistics are not in the '
                          'snapshot; they start from zero', stacklevel=2)


def _store(values: dict, key: str, value: Any) -> None:
    """Store one statistic; several values go to ``key/0``, ``key/1``, ..."""
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            values[f'{key}/{i}'] = v
    elif backend.is_array(value) and value.size != 1:
        for i, v in enumerate(value.ravel()):
            values[f'{key}/{i}'] = v
    elif backend.is_array(value):
        values[key] = value.reshape(())
    else:
        values[key] = value
