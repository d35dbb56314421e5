"""``average``: mean or weighted mean over axes."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.functions.math.sum import Axis, _mean, normalize_axis
from chainlet.functions.math.sum import sum as _sum
from chainlet.variable import Variable, as_variable


def average(x: Any, axis: Axis = None, weights: Optional[Any] = None,
            keepdims: bool = False) -> Variable:
    """Average of the elements over ``axis``, optionally weighted:
    :math:`y = \\sum_i w_i x_i / \\sum_i w_i`.

    The result is differentiable with respect to ``x`` and ``weights``.

    Args:
        x: Variable or array of floats.
        axis: Axis or tuple of axes; ``None`` averages all elements. With ``weights``, at most
            one axis may be given.
        weights: ``None`` (plain mean), or a Variable or array of the dtype of ``x``: of the
            shape of ``x`` when ``axis`` is ``None``, else 1-D of length ``x.shape[axis]``.
        keepdims: Keep the reduced axes with length one.

    Returns:
        Variable with the reduced shape.

    Raises:
        ValueError: ``weights`` has the wrong shape, or several axes are given with weights.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[1.0, 2.0], [3.0, 5.0]])
        >>> F.average(x, axis=1, weights=np.array([3.0, 1.0])).array
        array([1.25, 3.5 ])
    """
    if weights is None:
        return _mean('average', x, axis, keepdims)
    if not (isinstance(weights, Variable) or backend.is_array(weights)):
        raise type_check.fail('average', 'weights', 'None, a Variable or an ndarray',
                              type(weights).__name__)
    x = as_variable(x)
    w = as_variable(weights)
    type_check.float_input('average', 'x', x.array)
    type_check.same_dtype('average', ('x', 'weights'), (x.array, w.array))
    axes = normalize_axis('average', axis, x.ndim)
    if axes is None:
        if w.shape != x.shape:
            raise ValueError(f'average: argument weights: expected shape {x.shape} (the shape '
                             f'of x, as axis is None), got {w.shape}')
        wx = w
    else:
        if len(axes) > 1:
            raise ValueError(f'average: argument axis: expected at most one axis when weights '
                             f'are given, got {axis}')
        a = axes[0]
        if w.shape != (x.shape[a],):
            raise ValueError(f'average: argument weights: expected shape ({x.shape[a]},) '
                             f'(the length of axis {a} of x), got {w.shape}')
        from chainlet.functions.array.broadcast import broadcast_to
        from chainlet.functions.array.reshape import reshape
        wx = broadcast_to(reshape(w, tuple(s if i == a else 1 for i, s in enumerate(x.shape))),
                          x.shape)
    if x.dtype == numpy.float16:
        # Both sums may pass float16's 65504 (and inf / inf is NaN): divide them in float32.
        from chainlet.functions.array.cast import cast
        ratio = _sum(cast(x, numpy.float32) * cast(wx, numpy.float32), axes, keepdims) / \
            _sum(cast(w, numpy.float32))
        return cast(ratio, numpy.float16)
    total = _sum(x * wx, axes, keepdims)
    return total / _sum(w)
