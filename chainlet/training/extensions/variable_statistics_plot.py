"""``VariableStatisticsPlot``: how parameter values and gradients are distributed over time.

Example:
    >>> import numpy as np, chainlet
    >>> from chainlet.training import extensions
    >>> p = chainlet.Parameter(np.arange(4, dtype=np.float32))
    >>> ext = extensions.VariableStatisticsPlot(p)
    >>> stats = ext.statistics(p.array)
    >>> round(stats['mean'], 2), round(stats['percentile'][-1], 2)
    (1.5, 3.0)
"""
from __future__ import annotations

import os
import warnings
from typing import Any, Optional, Sequence, Union

import numpy

from chainlet import backend
from chainlet.link import Link
from chainlet.training import extension
from chainlet.training import util
from chainlet.training.triggers.interval_trigger import forget_positions
from chainlet.training._files import atomic_write_path

_INSTALL_HINT = ('VariableStatisticsPlot needs matplotlib to draw plots; install it with '
                 'pip install "chainlet-dl[plot]" (nothing is plotted until then)')

_DEFAULT_SIGMAS = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100)


class Reservoir:
    """A fixed-size uniform sample of a stream of arrays (reservoir sampling, Algorithm R).

    The first ``size`` arrays are kept; the n-th one after that replaces a random kept one with
    probability ``size / n``, so at any time each array seen is kept with the same probability.

    Args:
        size: How many arrays are kept.
        data_shape: The shape of each array.
        dtype: Their dtype.

    Example:
        >>> import numpy as np
        >>> r = Reservoir(2, (3,))
        >>> for i in range(2):
        ...     r.add(np.full(3, i), idx=10 + i)
        >>> idxs, data = r.get_data()
        >>> idxs.tolist(), data[:, 0].tolist()
        ([10, 11], [0.0, 1.0])
    """

    def __init__(self, size: int, data_shape: tuple, dtype: Any = numpy.float32) -> None:
        self.size = size
        self.data = numpy.zeros((size,) + tuple(data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int32)
        self.counter = 0

    def add(self, x: Any, idx: Optional[int] = None) -> None:
        """Offer ``x``, labelled ``idx`` (the number of arrays offered so far if ``None``)."""
        label = self.counter if idx is None else idx
        if self.counter < self.size:
            self.data[self.counter] = x
            self.idxs[self.counter] = label
        elif numpy.random.random() < self.size / float(self.counter + 1):
            i = numpy.random.randint(self.size)
            self.data[i] = x
            self.idxs[i] = label
        self.counter += 1

    def get_data(self) -> tuple:
        """``(labels, arrays)`` of the kept arrays, sorted by label."""
        idxs = self.idxs[:min(self.counter, self.size)]
        order = numpy.argsort(idxs)
        return idxs[order], self.data[order]


class Statistician:
    """Mean, standard deviation and percentiles of an array along axes.

    Args:
        collect_mean: Compute ``'mean'``.
        collect_std: Compute ``'std'``.
        percentile_sigmas: Percentiles (0..100) computed as ``'percentile'`` (none if empty).

    Example:
        >>> import numpy as np
        >>> stats = Statistician(True, False, (0, 100))(np.arange(6.).reshape(2, 3), axis=1)
        >>> stats['mean'].tolist(), stats['percentile'].tolist()
        ([1.0, 4.0], [[0.0, 3.0], [2.0, 5.0]])
    """

    def __init__(self, collect_mean: bool, collect_std: bool,
                 percentile_sigmas: Sequence[float]) -> None:
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = percentile_sigmas

    def __call__(self, x: Any, axis: Any = 0, dtype: Any = None, xp: Any = None) -> dict:
        """The statistics of ``x`` along ``axis`` (an int, a tuple, or ``None`` for all)."""
        if axis is None:
            axis = tuple(range(x.ndim))
        elif not isinstance(axis, (tuple, list)):
            axis = (axis,)
        return self.collect(x, tuple(axis))

    def collect(self, x: Any, axis: tuple) -> dict:
        """The statistics of ``x`` along the tuple ``axis``."""
        out = {}
        if self.collect_mean:
            out['mean'] = x.mean(axis=axis)
        if self.collect_std:
            out['std'] = x.std(axis=axis)
        if len(self.percentile_sigmas):
            xp = backend.get_array_module(x)
            out['percentile'] = xp.percentile(x, self.percentile_sigmas, axis=axis)
        return out


class VariableStatisticsPlot(extension.Extension):
    """Plot the mean, standard deviation and percentiles of parameters and their gradients.

    At each trigger the extension samples up to ``max_sample_size`` elements from all target
    arrays, computes their statistics, and redraws ``<trainer.out>/<filename>``: one panel for
    the data and one for the gradients, with the percentile bands shaded. Without matplotlib a
    warning says how to install it and nothing is drawn.

    Args:
        targets: A Link (all its parameters), a Variable, or a list of them.
        max_sample_size: Elements sampled per statistic (all of them when fewer).
        report_data: Plot the parameters' values.
        report_grad: Plot their gradients.
        plot_mean: Draw the mean.
        plot_std: Draw mean +/- one standard deviation.
        percentile_sigmas: Percentiles (0..100) whose bands are shaded.
        trigger: When to record and redraw (default every epoch).
        filename: Output image name.
        figsize: Matplotlib figure size.
        marker: Marker of the mean line.
        grid: Draw grids.
    """

    # Called every iteration; the ``trigger`` argument decides when to record and draw.
    trigger = (1, 'iteration')
    priority = extension.PRIORITY_WRITER

    def __init__(self, targets: Union[Any, Sequence[Any]], max_sample_size: int = 1000,
                 report_data: bool = True, report_grad: bool = True, plot_mean: bool = True,
                 plot_std: bool = True, percentile_sigmas: Sequence[float] = _DEFAULT_SIGMAS,
                 trigger: Any = (1, 'epoch'), filename: str = 'statistics.png',
                 figsize: Optional[tuple] = None, marker: Optional[str] = None,
                 grid: bool = True) -> None:
        if not (report_data or report_grad):
            raise ValueError('VariableStatisticsPlot: report_data and report_grad are both '
                             'False: there is nothing to plot')
        if max_sample_size <= 0:
            raise ValueError(f'VariableStatisticsPlot: argument max_sample_size: expected a '
                             f'positive int, got {max_sample_size}')
        if not isinstance(targets, (list, tuple)):
            targets = [targets]
        self._targets = list(targets)
        self._max_sample_size = int(max_sample_size)
        self._keys = [k for k, on in (('data', report_data), ('grad', report_grad)) if on]
        self._plot_mean = plot_mean
        self._plot_std = plot_std
        self._sigmas = tuple(float(s) for s in percentile_sigmas)
        self._trigger = util.get_trigger(trigger)
        self._filename = filename
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        self._rng = numpy.random.default_rng(0)
        self._history: dict = {key: [] for key in self._keys}

    def initialize(self, trainer: Any) -> None:
        """Warn once, when training starts, if matplotlib is missing."""
        if not self.available():
            warnings.warn(_INSTALL_HINT, stacklevel=2)

    @staticmethod
    def available() -> bool:
        """Whether matplotlib is installed."""
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return False
        return True

    def _arrays(self, key: str) -> list:
        variables: list = []
        for target in self._targets:
            variables.extend(target.params() if isinstance(target, Link) else [target])
        arrays = [getattr(v, 'array' if key == 'data' else 'grad') for v in variables]
        return [backend.to_cpu(a).ravel() for a in arrays if a is not None and a.size]

    def statistics(self, array: Any) -> dict:
        """Mean, standard deviation and percentiles of (a sample of) ``array``."""
        flat = numpy.asarray(backend.to_cpu(array), dtype=numpy.float64).ravel()
        if flat.size > self._max_sample_size:
            flat = self._rng.choice(flat, self._max_sample_size, replace=False)
        return {'mean': float(flat.mean()), 'std': float(flat.std()),
                'percentile': [float(p) for p in numpy.percentile(flat, self._sigmas)]}

    def __call__(self, trainer: Any) -> None:
        if not self._trigger(trainer):
            return
        x = trainer.updater.iteration
        for key in self._keys:
            arrays = self._arrays(key)
            if arrays:
                self._history[key].append((x, self.statistics(numpy.concatenate(arrays))))
        if self.available():
            self._draw(os.path.join(trainer.out, self._filename))

    def _draw(self, path: str) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        if not any(self._history.values()):
            return
        figure = Figure(figsize=self._figsize)
        FigureCanvasAgg(figure)
        for i, key in enumerate(self._keys):
            axes = figure.add_subplot(1, len(self._keys), i + 1)
            axes.set_title(key)
            axes.set_xlabel('iteration')
            if self._grid:
                axes.grid()
            points = self._history[key]
            if not points:
                continue
            xs = [p[0] for p in points]
            pct = numpy.array([p[1]['percentile'] for p in points])
            half = len(self._sigmas) // 2
            for j in range(half):  # outer bands lighter than inner ones
                axes.fill_between(xs, pct[:, j], pct[:, -1 - j], alpha=0.1 + 0.1 * j,
                                  color='tab:blue', linewidth=0)
            mean = numpy.array([p[1]['mean'] for p in points])
            std = numpy.array([p[1]['std'] for p in points])
            if self._plot_mean:
                axes.plot(xs, mean, color='tab:red', marker=self._marker, label='mean')
            if self._plot_std:
                axes.plot(xs, mean - std, color='tab:orange', linestyle='--', label='mean-std')
                axes.plot(xs, mean + std, color='tab:orange', linestyle='--', label='mean+std')
            axes.legend(loc='best', fontsize='small')
        fmt = os.path.splitext(path)[1].lstrip('.') or 'png'
        with atomic_write_path(path) as tmp:
            figure.savefig(tmp, format=fmt, bbox_inches='tight')

    def serialize(self, serializer: Any) -> None:
        """Save nothing, as Chainer (the recorded statistics are not persisted either).

        After a load the trigger takes its position from the updater, so it does not fire
        early on a resumed run.
        """
        forget_positions(self._trigger, serializer)
