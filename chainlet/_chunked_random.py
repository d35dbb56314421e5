"""Fill an array with random draws a chunk at a time, with the values of one big draw.

NumPy draws in float64. Drawing a whole weight at once and converting it doubles (float64) and
then triples (float64 + float32 copy) its memory: VGG19's first dense kernel (25088 x 4096)
briefly needed 822 MB + 411 MB. Here each chunk of ``CHUNK`` values is drawn in float64 and
written (converted) into the target at once, so the extra memory is one chunk.

The values are those of the one-shot draw, bit for bit: ``RandomState`` and ``Generator``
draw the values of ``normal``/``uniform`` one after another from one stream (the legacy
Gaussian's cached second value lives in the state, not in the call), so ``size=n`` gives the
same numbers as ``size=a`` then ``size=n - a``. The truncated normal redraws the values outside
two standard deviations after the first pass, in the order of their positions, as the one-shot
version did.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy

CHUNK = 1 << 20  # values per draw: 8 MiB of float64


def _host_target(array: Any) -> tuple[numpy.ndarray, Optional[Callable[[], None]]]:
    """A C-contiguous NumPy array to write into, and what copies it back (``None``: it is
    ``array`` itself)."""
    if isinstance(array, numpy.ndarray) and array.flags.c_contiguous:
        return array, None
    buffer = numpy.empty(array.shape, array.dtype)
    if isinstance(array, numpy.ndarray):
        def copy_back() -> None:
            array[...] = buffer
    else:  # CuPy: one host-to-device copy
        def copy_back() -> None:
            from chainlet import backend
            backend.copyto(array, buffer)
    return buffer, copy_back


def fill(array: Any, source: Any, method: str, **kwargs: Any) -> None:
    """Fill ``array`` in place with ``source.<method>(size=array.shape, **kwargs)``, converted
    to ``array.dtype``, drawing ``CHUNK`` values at a time.

    Args:
        array: NumPy or CuPy array of any shape and dtype.
        source: ``numpy.random`` (the module), a ``RandomState`` or a ``Generator``.
        method: ``'normal'`` or ``'uniform'`` (any method drawing values independently).
        kwargs: The method's parameters (``loc``/``scale``, ``low``/``high``).

    Example:
        >>> import numpy as np
        >>> a = np.empty((2, 3), np.float32)
        >>> fill(a, np.random.RandomState(0), 'uniform', low=0.0, high=1.0)
        >>> bool((a == np.random.RandomState(0).uniform(0, 1, (2, 3)).astype(np.float32)).all())
        True
    """
    target, copy_back = _host_target(array)
    flat = target.reshape(-1)
    draw = getattr(source, method)
    for start in range(0, flat.size, CHUNK):
        stop = min(start + CHUNK, flat.size)
        flat[start:stop] = numpy.asarray(draw(size=stop - start, **kwargs))
    if copy_back is not None:
        copy_back()


def fill_truncated_normal(array: Any, source: Any, stddev: float,
                          mean: Optional[float] = None) -> None:
    """Fill ``array`` with ``N(0, stddev^2)`` redrawn outside ``2 * stddev`` (Keras's
    truncated normal), plus ``mean`` when given (added in float64, before the conversion).

    Example:
        >>> import numpy as np
        >>> a = np.empty(1000, np.float32)
        >>> fill_truncated_normal(a, np.random.default_rng(0), 0.1, mean=1.0)
        >>> bool((abs(a - 1.0) <= 0.2 + 1e-6).all())
        True
    """
    target, copy_back = _host_target(array)
    flat = target.reshape(-1)
    limit = 2 * stddev
    outside = []
    for start in range(0, flat.size, CHUNK):
        stop = min(start + CHUNK, flat.size)
        values = numpy.asarray(source.normal(0.0, stddev, size=stop - start))
        # two comparisons instead of abs: no second float64 chunk
        outside.append(numpy.flatnonzero((values > limit) | (values < -limit)) + start)
        if mean is not None:
            numpy.add(values, mean, out=values)  # in place: the same float64 sums
        flat[start:stop] = values
        del values  # before the next draw: one float64 chunk alive, not two
    positions = numpy.concatenate(outside) if outside else numpy.empty(0, numpy.intp)
    del outside
    while positions.size:  # redraw outside two standard deviations, as Keras does
        values = numpy.asarray(source.normal(0.0, stddev, size=int(positions.size)))
        bad = (values > limit) | (values < -limit)
        good = ~bad
        flat[positions[good]] = values[good] if mean is None else mean + values[good]
        positions = positions[bad]
    if copy_back is not None:
        copy_back()
