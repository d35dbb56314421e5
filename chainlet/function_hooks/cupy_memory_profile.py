"""``CupyMemoryProfileHook``: GPU memory taken from CuPy's memory pool by each function.

The hook installs a CuPy memory hook (``cupy.cuda.memory_hook.MemoryHook``) that adds up two
numbers while it is active: the bytes functions *used* from the pool (every allocation request)
and the bytes the pool *acquired* from the GPU (allocations the pool could not serve from its
cache). Around each forward and backward it records how much each number grew. A function
applied inside another one (a backward written with chainlet functions) is recorded with its
depth; the totals count the outermost calls only.

It needs CuPy and a GPU; constructing it elsewhere raises ``RuntimeError``, as in Chainer.

Example (on a GPU)::

    from chainlet.function_hooks import CupyMemoryProfileHook
    hook = CupyMemoryProfileHook()
    with hook:
        trainer.run()
    hook.print_report()

prints::

           FunctionName  UsedBytes  AcquiredBytes  Occurrence
         LinearFunction     5.16GB       179.98MB        3900
                   ReLU     0.99GB       458.97MB        2600
"""
from __future__ import annotations

import collections
import sys
from typing import IO, Any, Optional

from chainlet.backends import cuda
from chainlet.function_hooks.function_hook import FunctionHook
from chainlet.function_hooks.timer import _function_name

_UNITS = ('B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB')
_TABLE = {u: 1024.0 ** i for i, u in enumerate(_UNITS)}
_counter_class: Any = None


class _CumulativeCounts:
    """The counting half of the CuPy memory hook: bytes requested from the pool (``malloc``)
    and bytes the pool allocated on the GPU (``alloc``), added up."""

    name = 'CupyMemoryCumulativeHook'

    def __init__(self) -> None:
        self.used_bytes = 0
        self.acquired_bytes = 0

    def alloc_preprocess(self, **kwargs: Any) -> None:
        self.acquired_bytes += kwargs['mem_size']

    def malloc_preprocess(self, **kwargs: Any) -> None:
        self.used_bytes += kwargs['mem_size']


def _hook_class() -> Any:
    """The CuPy memory hook class that counts (built once, when CuPy is there)."""
    global _counter_class
    if _counter_class is None:
        try:
            from cupy.cuda import memory_hook
        except ImportError as e:
            raise RuntimeError(f'CupyMemoryProfileHook needs cupy.cuda.memory_hook: {e}') from e
        _counter_class = type('CupyMemoryCumulativeHook',
                              (_CumulativeCounts, memory_hook.MemoryHook), {})
    return _counter_class


def _cumulative_hook() -> Any:
    """A new counting CuPy memory hook."""
    return _hook_class()()


def _choose_unit(size: float) -> tuple[float, str]:
    """The largest binary unit in which ``size`` bytes is at least 1 (bytes at the bottom)."""
    denominator = 1.0
    if size <= 0:
        return denominator, _UNITS[0]
    for unit in _UNITS[:-1]:
        if size / (denominator * 1024) < 1:
            return denominator, unit
        denominator *= 1024
    return denominator, _UNITS[-1]


class CupyMemoryProfileHook(FunctionHook):
    """Function hook that records the CuPy memory-pool bytes each function used and acquired.

    Attributes:
        call_history: ``(function name, used bytes, acquired bytes, depth)`` per call, in
            order; depth 0 is an outermost call.

    Raises:
        RuntimeError: CuPy or a GPU is not available.
    """

    name = 'CupyMemoryProfileHook'

    def __init__(self) -> None:
        cuda.check_cuda_available()
        self._start(_cumulative_hook())

    def _start(self, memory_hook: Any) -> None:
        # ``memory_hook`` has ``used_bytes`` and ``acquired_bytes`` and is a context manager.
        self.call_history: list[tuple[str, int, int, int]] = []
        self._memory_hook = memory_hook
        self._running_stack: list[tuple[int, int]] = []
        self._total_used_bytes = 0
        self._total_acquired_bytes = 0

    def added(self, function: Any = None) -> None:
        self._memory_hook.__enter__()

    def deleted(self, function: Any = None) -> None:
        self._memory_hook.__exit__(None, None, None)

    def _preprocess(self) -> None:
        self._running_stack.append((self._memory_hook.used_bytes,
                                    self._memory_hook.acquired_bytes))

    def _postprocess(self, function: Any) -> None:
        start_used, start_acquired = self._running_stack.pop()
        used = self._memory_hook.used_bytes - start_used
        acquired = self._memory_hook.acquired_bytes - start_acquired
        depth = len(self._running_stack)
        self.call_history.append((_function_name(function), used, acquired, depth))
        if depth == 0:
            self._total_used_bytes += used
            self._total_acquired_bytes += acquired

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self._preprocess()

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._preprocess()

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        self._postprocess(function)

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._postprocess(function)

    def total_used_bytes(self) -> int:
        """Bytes the outermost function calls used from the memory pool."""
        return self._total_used_bytes

    def total_acquired_bytes(self) -> int:
        """Bytes the memory pool acquired from the GPU during the outermost function calls."""
        return self._total_acquired_bytes

    def summary(self) -> collections.OrderedDict:
        """Per function name (in order of first call): ``used_bytes``, ``acquired_bytes`` and
        ``occurrence``, over all its calls (nested ones included)."""
        summary: collections.OrderedDict = collections.OrderedDict()
        for name, used, acquired, _ in self.call_history:
            record = summary.setdefault(name, {'used_bytes': 0, 'acquired_bytes': 0,
                                               'occurrence': 0})
            record['used_bytes'] += used
            record['acquired_bytes'] += acquired
            record['occurrence'] += 1
        return summary

    def print_report(self, unit: str = 'auto', file: Optional[IO[str]] = None) -> None:
        """Print one line per function: bytes used, bytes acquired and number of calls.

        Args:
            unit: ``'B'``, ``'KB'``, ... ``'ZB'`` (powers of 1024), ``'auto'`` (one unit per
                column, fitting its largest value) or ``'auto_foreach'`` (a unit per value).
            file: Where to write (``sys.stdout`` when ``None``).
        """
        if unit not in _TABLE and unit not in ('auto', 'auto_foreach'):
            raise ValueError(f"CupyMemoryProfileHook.print_report: argument unit: expected one "
                             f"of {list(_UNITS)}, 'auto' or 'auto_foreach', got {unit!r}")
        file = sys.stdout if file is None else file
        summary = self.summary()
        if unit == 'auto':
            used_unit = _choose_unit(max((r['used_bytes'] for r in summary.values()),
                                         default=0))
            acquired_unit = _choose_unit(max((r['acquired_bytes'] for r in summary.values()),
                                             default=0))
        elif unit != 'auto_foreach':
            used_unit = acquired_unit = (_TABLE[unit], unit)

        def fmt(size: int, fixed: Optional[tuple[float, str]]) -> str:
            # (a fixed unit is set for every unit but 'auto_foreach')
            denominator, name = _choose_unit(size) if fixed is None else fixed
            return f'{size / denominator:3.2f}{name}'

        rows = [('FunctionName', 'UsedBytes', 'AcquiredBytes', 'Occurrence')]
        for name, r in summary.items():
            rows.append((name,
                         fmt(r['used_bytes'], None if unit == 'auto_foreach' else used_unit),
                         fmt(r['acquired_bytes'],
                             None if unit == 'auto_foreach' else acquired_unit),
                         str(r['occurrence'])))
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        for row in rows:
            file.write('  '.join(cell.rjust(w) for cell, w in zip(row, widths)) + '\n')
        if hasattr(file, 'flush'):
            file.flush()


def __getattr__(name: str) -> Any:
    # Chainer's module attributes, computed on first access so that importing this module does
    # not import CuPy: ``memory_hook_available``, ``MemoryHook`` (CuPy's base class of memory
    # hooks, ``object`` without CuPy) and ``CupyMemoryCumulativeHook`` (the counting hook).
    if name in ('memory_hook_available', 'MemoryHook', 'CupyMemoryCumulativeHook'):
        try:
            cls = _hook_class()
        except RuntimeError:
            return {'memory_hook_available': False, 'MemoryHook': object,
                    'CupyMemoryCumulativeHook': _CumulativeCounts}[name]
        return {'memory_hook_available': True, 'MemoryHook': cls.__mro__[2],
                'CupyMemoryCumulativeHook': cls}[name]
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
