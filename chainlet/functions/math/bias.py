"""``bias``: add a smaller array along some axes of a bigger one (Chainer's ``bias``)."""
from __future__ import annotations

from typing import Any

from chainlet.functions.math._util import expand_along
from chainlet.variable import Variable


def bias(x: Any, y: Any, axis: int = 1) -> Variable:
    """Elementwise sum of ``x`` and ``y``, ``y`` repeated along the axes of ``x`` it lacks.

    A per-channel (or per-feature) offset: ``y``'s axes line up with those of ``x`` from
    ``axis`` on; ``y`` is reshaped with ones on the other axes and broadcast to ``x.shape``,
    so its gradient is ``gy`` summed over those axes.

    Args:
        x: Variable or array of floats.
        y: Variable or array of ``x``'s dtype and of shape ``x.shape[axis:axis + y.ndim]``.
        axis: First axis of ``x`` that ``y``'s axes line up with.

    Returns:
        Variable of ``x``'s shape and dtype.

    Raises:
        ValueError: ``y``'s shape does not match ``x`` from ``axis`` (``AssertionError`` in
            debug mode, as in Chainer).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.bias(np.zeros((2, 3)), np.array([1.0, 2.0, 3.0])).array
        array([[1., 2., 3.],
               [1., 2., 3.]])
    """
    return x + expand_along('bias', x, y, axis)
