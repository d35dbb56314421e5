"""``PlotReport``: plot observed values over iterations or epochs into an image (matplotlib).

Example:
    >>> from chainlet.training import extensions
    >>> isinstance(extensions.PlotReport.available(), bool)
    True
"""
from __future__ import annotations

import json
import os
import warnings
from typing import Any, Callable, Optional, Sequence, Union

from chainlet import reporter as reporter_module
from chainlet.training import extension
from chainlet.training import util
from chainlet.training.triggers.interval_trigger import forget_positions
from chainlet.training._files import atomic_write_path

_INSTALL_HINT = ('PlotReport needs matplotlib to draw plots; install it with '
                 'pip install "chainlet-dl[plot]" (nothing is plotted until then)')


def _matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _is_serializer(serializer: Any) -> bool:
    from chainlet.serializers import Serializer
    return isinstance(serializer, Serializer)


class PlotReport(extension.Extension):
    """Accumulate observed values and plot their means per interval into an image file.

    Like :class:`LogReport`, each interval's means are computed; each ``y_key`` becomes one
    line against ``x_key`` (``'iteration'`` or ``'epoch'``). The figure is rendered with
    matplotlib's non-interactive Agg backend and written atomically to
    ``<trainer.out>/<filename>``. Without matplotlib a warning says how to install it and the
    extension does nothing.

    Args:
        y_keys: An observation key or a list of them, e.g. ``['main/loss',
            'validation/main/loss']``.
        x_key: ``'iteration'`` or ``'epoch'``.
        trigger: The interval (default ``(1, 'epoch')``).
        postprocess: Called as ``postprocess(figure, axes, summary)`` before saving.
        filename: Image file name; the format follows its extension (``.png``, ``.pdf``, ...).
        marker: Matplotlib marker of the points.
        grid: Draw a grid.
    """

    def __init__(self, y_keys: Union[str, Sequence[str]], x_key: str = 'iteration',
                 trigger: Any = (1, 'epoch'), postprocess: Optional[Callable] = None,
                 filename: Optional[str] = None, marker: str = 'x', grid: bool = True,
                 **kwargs: Any) -> None:
        file_name = kwargs.pop('file_name', None)  # Chainer's older name of the argument
        if kwargs:
            raise TypeError(f'PlotReport: unexpected keyword arguments {sorted(kwargs)}')
        if filename is None:
            filename = file_name or 'plot.png'
        if x_key not in ('iteration', 'epoch'):
            raise ValueError(f"PlotReport: argument x_key: expected 'iteration' or 'epoch', "
                             f"got {x_key!r}")
        self._x_key = x_key
        self._y_keys = [y_keys] if isinstance(y_keys, str) else list(y_keys)
        self._trigger = util.get_trigger(trigger)
        self._file_name = filename
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._data: dict = {k: [] for k in self._y_keys}
        self._init_summary()
        if not _matplotlib_available():
            warnings.warn(_INSTALL_HINT, stacklevel=2)

    @staticmethod
    def available() -> bool:
        """Whether matplotlib is installed (so that plots can be drawn)."""
        return _matplotlib_available()

    def _init_summary(self) -> None:
        self._summary = reporter_module.DictSummary()

    def __call__(self, trainer: Any) -> None:
        """Accumulate the observation; at the end of an interval, redraw the plot."""
        observation = trainer.observation
        self._summary.add({k: observation[k] for k in self._y_keys if k in observation})
        # As Chainer (and LogReport): the call before training adds a point of its own.
        if not (getattr(trainer, 'is_before_training', False) is True
                or self._trigger(trainer)):
            return
        stats = {name: float(value) for name, value in self._summary.compute_mean().items()}
        updater = trainer.updater
        x = updater.epoch if self._x_key == 'epoch' else updater.iteration
        for key in self._y_keys:
            if key in stats:
                self._data[key].append((x, stats[key]))
        if self.available():
            self._draw(os.path.join(trainer.out, self._file_name))
        self._init_summary()

    def _draw(self, path: str) -> None:
        # A Figure with its own Agg canvas leaves pyplot's global state and backend alone.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        figure = Figure()
        FigureCanvasAgg(figure)
        axes = figure.add_subplot(111)
        axes.set_xlabel(self._x_key)
        if self._grid:
            axes.grid()
        for key in self._y_keys:
            points = self._data[key]
            if points:
                xs, ys = zip(*points)
                axes.plot(xs, ys, marker=self._marker, label=key)
        if not axes.has_data():
            return
        if self._postprocess is not None:
            self._postprocess(figure, axes, self._summary)
        legend = axes.legend(bbox_to_anchor=(1.05, 1), loc=2, borderaxespad=0.)
        fmt = os.path.splitext(path)[1].lstrip('.') or 'png'
        with atomic_write_path(path) as tmp:
            figure.savefig(tmp, format=fmt, bbox_extra_artists=(legend,), bbox_inches='tight')

    def serialize(self, serializer: Any) -> None:
        """Save or load the plotted points (Chainer's key ``_plot_<filename>``).

        The trigger's state is not saved, as in Chainer; after a load the trigger takes its
        position from the updater, so it does not fire early on a resumed run.
        """
        forget_positions(self._trigger, serializer)
        key = f'_plot_{self._file_name}'
        if _is_serializer(serializer):
            serializer(key, json.dumps(self._data))
        else:
            text = serializer(key, '')
            if text:
                data = json.loads(text)
                self._data = {k: [tuple(p) for p in data.get(k, [])] for k in self._y_keys}
