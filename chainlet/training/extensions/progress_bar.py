"""``ProgressBar``: show training progress, as a tqdm bar in a terminal or as plain lines.

Example:
    >>> import io
    >>> from chainlet.training import extensions
    >>> bar = extensions.ProgressBar(training_length=(10, 'iteration'), update_interval=5,
    ...                              out=io.StringIO())
    >>> bar.update_interval
    5
"""
from __future__ import annotations

import collections
import datetime
import sys
import time
from typing import Any, Optional, TextIO

from chainlet.training import extension


def _is_terminal(out: Any) -> bool:
    isatty = getattr(out, 'isatty', None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):
        return False


def _format_seconds(seconds: float) -> str:
    return str(datetime.timedelta(seconds=int(round(seconds))))


class ProgressBar(extension.Extension):
    """Report the training progress every ``update_interval`` iterations.

    When ``out`` is a terminal and `tqdm <https://github.com/tqdm/tqdm>`_ is installed
    (``pip install "chainlet-dl[progress]"``), a tqdm bar is drawn and
    redrawn in place. Otherwise (a file, a pipe, a CI log, or no tqdm) one plain line is
    written every ``update_interval`` iterations, e.g.::

        iteration 200, epoch 3.55/20 (17.8%), elapsed 0:00:02, ETA 0:00:09, 104.2 iters/sec

    Args:
        training_length: ``(length, unit)`` of the whole training; taken from the stop
            trigger's ``get_training_length()`` when ``None`` (then percentages and the ETA
            are left out if the stop trigger cannot tell).
        update_interval: Number of iterations between two updates of the display.
        bar_length: Width of the bar in characters (tqdm mode).
        out: The stream to write to (default ``sys.stdout``).
    """

    trigger = 1, 'iteration'

    def __init__(self, training_length: Optional[tuple] = None, update_interval: int = 100,
                 bar_length: int = 50, out: TextIO = sys.stdout) -> None:
        if not isinstance(update_interval, int) or update_interval < 1:
            raise ValueError(f'ProgressBar: argument update_interval: expected a positive int, '
                             f'got {update_interval!r}')
        self._training_length = training_length
        self.update_interval = update_interval
        self._bar_length = bar_length
        self._out = out
        self._bar: Any = None
        self._use_tqdm: Optional[bool] = None
        self._recent: collections.deque = collections.deque(maxlen=10)
        self._updater: Any = None

    def _length(self, trainer: Any) -> Optional[tuple]:
        if self._training_length is None:
            get_length = getattr(trainer.stop_trigger, 'get_training_length', None)
            if get_length is not None:
                self._training_length = get_length()
        return self._training_length

    def __call__(self, trainer: Any) -> None:
        """Update the display when the iteration is a multiple of ``update_interval``."""
        updater = self._updater = trainer.updater
        iteration = updater.iteration
        epoch_detail = updater.epoch_detail
        if not self._recent:  # the start of this run: the first point for the speed
            self._recent.append((time.perf_counter(), iteration, epoch_detail))
        if iteration % self.update_interval != 0:
            return
        # Speeds are measured over the last few displays (up to 10 update intervals).
        self._recent.append((time.perf_counter(), iteration, epoch_detail))
        if self._use_tqdm is None:
            self._use_tqdm = _is_terminal(self._out) and _tqdm_module() is not None
        length = self._length(trainer)
        if self._use_tqdm:
            self._draw_tqdm(iteration, epoch_detail, length)
        else:
            self._out.write(self._plain_line(trainer, iteration, epoch_detail, length) + '\n')
            if hasattr(self._out, 'flush'):
                self._out.flush()

    def _speeds(self) -> tuple:
        if len(self._recent) < 2:
            return None, None
        (t0, i0, e0), (t1, i1, e1) = self._recent[0], self._recent[-1]
        if t1 <= t0:
            return None, None
        return (i1 - i0) / (t1 - t0), (e1 - e0) / (t1 - t0)

    def _plain_line(self, trainer: Any, iteration: int, epoch_detail: float,
                    length: Optional[tuple]) -> str:
        parts = [f'iteration {iteration}']
        epoch_text = f'epoch {epoch_detail:.2f}'
        speed_iter, speed_epoch = self._speeds()
        eta = None
        if length is not None:
            total, unit = length
            done = epoch_detail if unit == 'epoch' else iteration
            speed = speed_epoch if unit == 'epoch' else speed_iter
            fraction = done / total if total else 1.0
            if unit == 'epoch':
                epoch_text += f'/{total:g} ({fraction:.1%})'
            else:
                parts[0] += f'/{total} ({fraction:.1%})'
            if speed:
                eta = max(total - done, 0) / speed
        parts.append(epoch_text)
        parts.append(f'elapsed {_format_seconds(trainer.elapsed_time)}')
        if eta is not None:
            parts.append(f'ETA {_format_seconds(eta)}')
        if speed_iter:
            parts.append(f'{speed_iter:.4g} iters/sec')
        return ', '.join(parts)

    def _draw_tqdm(self, iteration: int, epoch_detail: float, length: Optional[tuple]) -> None:
        unit = 'iteration' if length is None else length[1]
        value = epoch_detail if unit == 'epoch' else iteration
        if length is not None:
            # The last batch may run past the end (epoch 3.2 of 3 when it wraps around).
            value = min(value, length[0])
        if self._bar is None:
            tqdm = _tqdm_module()
            # An epoch count is fractional: tqdm's own counter would print all its digits
            # (0.7111111111111111/3), so epochs get two decimals.
            r_bar = ('| {n:.2f}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]'
                     if unit == 'epoch' else '{r_bar}')
            self._bar = tqdm.tqdm(
                total=None if length is None else length[0], initial=value, unit=unit,
                file=self._out, mininterval=0, dynamic_ncols=True,
                bar_format=f'{{l_bar}}{{bar:{self._bar_length}}}{r_bar}')
        self._bar.set_postfix_str(f'iter {iteration}, epoch {epoch_detail:.2f}', refresh=False)
        self._bar.update(value - self._bar.n)

    def finalize(self) -> None:
        """Bring the tqdm bar to the final state of training and close it.

        The display is updated every ``update_interval`` iterations only, so without this
        last update a run of 899 iterations would leave the bar at 800 (89%).
        """
        if self._bar is not None:
            updater = self._updater
            if updater is not None:
                length = self._training_length
                self._draw_tqdm(updater.iteration, updater.epoch_detail, length)
                self._bar.refresh()
            self._bar.close()
            self._bar = None


def _tqdm_module() -> Any:
    try:
        import tqdm
    except ImportError:
        return None
    return tqdm
