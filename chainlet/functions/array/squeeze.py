"""``squeeze``: remove axes of length one."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from chainlet.functions.array._util import check_array, normalize_axes
from chainlet.functions.array.reshape import Reshape
from chainlet.variable import Variable


def squeeze(x: Any, axis: Optional[Union[int, Sequence[int]]] = None) -> Variable:
    """Remove axes of length one from ``x`` (a reshape).

    Args:
        x: Variable or array.
        axis: Axis or tuple of axes to remove; each must have length one. ``None`` removes
            every axis of length one.

    Returns:
        Variable without those axes.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.squeeze(np.zeros((1, 3, 1))).shape
        (3,)
        >>> F.squeeze(np.zeros((1, 3, 1)), axis=2).shape
        (1, 3)
    """
    shape = check_array('squeeze', 'x', x).shape
    if axis is None:
        axes = tuple(i for i, s in enumerate(shape) if s == 1)
    else:
        axes = normalize_axes('squeeze', 'axis', axis, len(shape))
        for a in axes:
            if shape[a] != 1:
                raise ValueError(f'squeeze: argument axis: expected axes of length 1, but axis '
                                 f'{a} of shape {shape} has length {shape[a]}')
    return Reshape(tuple(s for i, s in enumerate(shape) if i not in axes)).apply((x,))[0]
