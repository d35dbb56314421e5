"""``ProgressBar``: the console-drawing base of progress bars (Chainer's ``extensions.util``).

A subclass says *what* to draw (:meth:`ProgressBar.get_lines`); this base draws it in place:
it clears from the cursor down, writes the lines, and moves the cursor back up, so the next
:meth:`~ProgressBar.update` overwrites them. It uses ANSI escape sequences, which current
terminals understand, also on Windows 10 and later (Chainer called the Win32 console API there).
The :class:`~chainlet.training.extensions.ProgressBar` *extension* is a separate class.

Example:
    >>> import io
    >>> from chainlet.training.extensions.util import ProgressBar
    >>> class Counter(ProgressBar):
    ...     def __init__(self, out):
    ...         super().__init__(out=out)
    ...         self.n = 0
    ...     def get_lines(self):
    ...         return [f'{self.n} done\\n']
    >>> out = io.StringIO()
    >>> bar = Counter(out)
    >>> bar.n = 3
    >>> bar.update()
    >>> out.getvalue()
    '\\x1b[J3 done\\n\\x1b[1A'
"""
from __future__ import annotations

import abc
import collections
import sys
import time
from typing import Any, Optional


class ProgressBar(abc.ABC):
    """Draw the lines of :meth:`get_lines` in place on a console stream.

    Args:
        bar_length: Length of the bar in characters, for subclasses that draw one (50 if
            ``None``).
        out: The stream written to (``sys.stdout`` if ``None``).
    """

    def __init__(self, bar_length: Optional[int] = None, out: Any = None) -> None:
        self._bar_length = 50 if bar_length is None else bar_length
        self._out = sys.stdout if out is None else out
        self._recent_timing: collections.deque = collections.deque([], maxlen=100)

    def update_speed(self, iteration: int, epoch_detail: float) -> tuple[float, float]:
        """Record the progress now and return ``(iterations/s, epochs/s)``.

        The speed is measured over the last 100 calls; ``inf`` before time has passed.
        """
        now = time.time()
        self._recent_timing.append((iteration, epoch_detail, now))
        old_t, old_e, old_sec = self._recent_timing[0]
        span = now - old_sec
        if span == 0:
            return float('inf'), float('inf')
        return (iteration - old_t) / span, (epoch_detail - old_e) / span

    @abc.abstractmethod
    def get_lines(self) -> list[str]:
        """The lines to draw, each ending in a newline."""

    def update(self) -> None:
        """Redraw: clear below the cursor, write :meth:`get_lines`, go back up."""
        self.erase_console()
        lines = self.get_lines()
        for line in lines:
            self._out.write(line)
        self.move_cursor_up(len(lines))
        self.flush()

    def close(self) -> None:
        """Clear what was drawn."""
        self.erase_console()
        self.flush()

    def erase_console(self) -> None:
        """Clear from the cursor to the end of the screen."""
        self._out.write('\033[J')

    def move_cursor_up(self, n: int) -> None:
        """Move the cursor up ``n`` lines (back to the head of the bar)."""
        self._out.write(f'\033[{n:d}A')

    def flush(self) -> None:
        """Flush the stream, if it can be flushed."""
        if hasattr(self._out, 'flush'):
            self._out.flush()
