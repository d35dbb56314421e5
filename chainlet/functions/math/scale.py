"""``scale``: multiply by a smaller array along some axes of a bigger one (Chainer's ``scale``)."""
from __future__ import annotations

from typing import Any

from chainlet.functions.math._util import expand_along
from chainlet.variable import Variable


def scale(x: Any, y: Any, axis: int = 1) -> Variable:
    """Elementwise product of ``x`` and ``y``, ``y`` repeated along the axes of ``x`` it lacks.

    A per-channel (or per-feature) factor, lined up and broadcast as in :func:`bias`; the
    gradient of ``y`` is ``gy * x`` summed over the axes ``y`` lacks.

    Args:
        x: Variable or array of floats.
        y: Variable or array of ``x``'s dtype, the factors; its shape must equal
            ``x.shape[axis:axis + y.ndim]``.
        axis: First axis of ``x`` lined up with the first axis of ``y``.

    Returns:
        Variable of ``x``'s shape and dtype.

    Raises:
        ValueError: ``y`` does not fit ``x`` from ``axis`` (``AssertionError`` in debug mode,
            as in Chainer).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.scale(np.ones((2, 3)), np.array([1.0, 2.0]), axis=0).array
        array([[1., 1., 1.],
               [2., 2., 2.]])
    """
    return x * expand_along('scale', x, y, axis)
