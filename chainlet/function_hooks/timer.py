"""``TimerHook``: time spent in each function, in forward and in backward.

Example:
    >>> import numpy as np, chainlet, chainlet.functions as F
    >>> from chainlet.function_hooks import TimerHook
    >>> x = chainlet.Variable(np.ones((4, 4), np.float32))
    >>> with TimerHook() as hook:
    ...     y = F.sum(F.tanh(x))
    ...     y.backward()
    >>> s = hook.summary()
    >>> list(s)
    ['Tanh', 'Sum', ...]
    >>> s['Tanh']['forward_occurrence'], s['Tanh']['backward_occurrence']
    (1, 1)
    >>> hook.total_time() > 0
    True
"""
from __future__ import annotations

import collections
import sys
import time
from typing import IO, Any, Optional

from chainlet import backend
from chainlet.function_hooks.function_hook import FunctionHook

_UNITS = {'sec': 1.0, 'ms': 1e3, 'us': 1e6, 'ns': 1e9}


def _choose_unit(seconds: float) -> tuple[float, str]:
    """The largest unit in which ``seconds`` is at least 1 (nanoseconds at the bottom)."""
    for unit in ('sec', 'ms', 'us'):
        if seconds * _UNITS[unit] >= 1:
            return _UNITS[unit], unit
    return _UNITS['ns'], 'ns'


def _function_name(function: Any) -> str:
    """The name a function is recorded under: its class name, as Chainer's ``_impl_name``.

    For an old-style :class:`~chainlet.Function` it is the Function's class, not the node that
    wraps it. (Labels are not used: arithmetic nodes are labelled ``'_ * _'`` and the like.)
    """
    name = getattr(function, '_impl_name', None)
    if name is not None:
        return name
    wrapped = getattr(function, 'function', None) if hasattr(function, '_weak_function') else None
    return type(wrapped if wrapped is not None else function).__name__


def _synchronize(arrays: tuple) -> None:
    # GPU kernels run asynchronously: wait for them so the time is the real one.
    for a in arrays:
        if a is not None and backend.is_cupy_array(a):
            backend.import_cupy().cuda.get_current_stream().synchronize()
            return


class TimerHook(FunctionHook):
    """Function hook measuring the time of every function, in forward and in backward.

    Times are *inclusive*: the time of a backward includes the functions applied inside it
    (which are also recorded under their own names, as forward calls), so the per-function times
    can add up to more than the wall time. :meth:`total_time` counts outermost calls only and
    therefore never double-counts.

    Attributes:
        call_history: ``(function name, elapsed seconds)`` of every call, in order (forward and
            backward together, as in Chainer). The name is the function's class name.

    Example:
        >>> import io, numpy as np, chainlet.functions as F
        >>> from chainlet.function_hooks import TimerHook
        >>> with TimerHook() as hook:
        ...     _ = F.exp(np.ones(3))
        >>> out = io.StringIO()
        >>> hook.print_report(file=out)
        >>> print(out.getvalue())  # doctest: +ELLIPSIS
        FunctionName  ElapsedTime  Occurrence
                 Exp  ...
    """

    name = 'TimerHook'
    table = _UNITS

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._stack: list[float] = []
        self._total_time = 0.0
        # label -> [forward seconds, forward calls, backward seconds, backward calls]
        self._records: collections.OrderedDict = collections.OrderedDict()

    def _pre(self, arrays: tuple) -> None:
        _synchronize(arrays)
        self._stack.append(time.perf_counter())

    def _post(self, function: Any, arrays: tuple, phase: int) -> None:
        if not self._stack:  # the hook was registered between the pre- and post-callback
            return
        _synchronize(arrays)
        elapsed = time.perf_counter() - self._stack.pop()
        label = _function_name(function)
        self.call_history.append((label, elapsed))
        record = self._records.get(label)
        if record is None:
            record = self._records[label] = [0.0, 0, 0.0, 0]
        record[phase] += elapsed
        record[phase + 1] += 1
        if not self._stack:  # outermost call: nested ones are already inside this time
            self._total_time += elapsed

    def deleted(self, function: Any = None) -> None:
        # A function that raised never reached its post-callback; forget its start time.
        self._stack.clear()

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self._pre(in_data)

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        self._post(function, in_data, 0)

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._pre(out_grad)

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._post(function, out_grad, 2)

    def total_time(self) -> float:
        """Seconds spent in hooked functions, counting nested calls once."""
        return self._total_time

    def summary(self) -> collections.OrderedDict:
        """Per function label (in order of first call), a dict with

        ``elapsed_time`` and ``occurrence`` (forward and backward together, as in Chainer),
        ``mean_time``, ``forward_time``, ``forward_occurrence``, ``backward_time`` and
        ``backward_occurrence``. Times are in seconds.
        """
        result = collections.OrderedDict()
        for label, (f_time, f_n, b_time, b_n) in self._records.items():
            total, n = f_time + b_time, f_n + b_n
            result[label] = {
                'elapsed_time': total, 'occurrence': n, 'mean_time': total / n,
                'forward_time': f_time, 'forward_occurrence': f_n,
                'backward_time': b_time, 'backward_occurrence': b_n,
            }
        return result

    def print_report(self, unit: str = 'auto', file: Optional[IO[str]] = None,
                     detailed: bool = False) -> None:
        """Print one line per function: its total time and number of calls (Chainer's table).

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``, ``'auto'`` (one unit fitting the
                largest time) or ``'auto_foreach'`` (a unit per value).
            file: Where to write (``sys.stdout`` when ``None``).
            detailed: Also print the mean, forward and backward times per function and a
                last line with :meth:`total_time` (not in Chainer's table, which is the
                default so that parsers of it keep working).
        """
        if unit not in _UNITS and unit not in ('auto', 'auto_foreach'):
            raise ValueError(f"TimerHook.print_report: argument unit: expected one of 'sec', "
                             f"'ms', 'us', 'ns', 'auto', 'auto_foreach', got {unit!r}")
        file = sys.stdout if file is None else file
        summary = self.summary()
        if unit == 'auto':
            largest = max((r['elapsed_time'] for r in summary.values()), default=0.0)
            factor, unit_name = _choose_unit(largest)

        def fmt(seconds: float) -> str:
            if unit == 'auto_foreach':
                f, name = _choose_unit(seconds)
            elif unit == 'auto':
                f, name = factor, unit_name
            else:
                f, name = _UNITS[unit], unit
            return f'{seconds * f:.2f}{name}'

        header: tuple = ('FunctionName', 'ElapsedTime', 'Occurrence')
        rows = [(label, fmt(r['elapsed_time']), str(r['occurrence']))
                + ((fmt(r['mean_time']), fmt(r['forward_time']), fmt(r['backward_time']))
                   if detailed else ())
                for label, r in summary.items()]
        if detailed:
            header += ('MeanTime', 'Forward', 'Backward')
        widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
        for row in [header] + rows:
            file.write('  '.join(cell.rjust(w) for cell, w in zip(row, widths)) + '\n')
        if detailed:
            file.write(f'Total time of outermost calls: {fmt(self._total_time)} (function '
                       f'times include the functions applied inside them)\n')
        if hasattr(file, 'flush'):
            file.flush()
