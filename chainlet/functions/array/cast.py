"""``cast``: change the dtype."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array
from chainlet.variable import Variable


class Cast(FunctionNode):
    """Cast to ``dtype``; the gradient is cast back to the input dtype.

    An input of a non-float dtype gets no gradient (``None``), as in Chainer 7: casting from
    or through integers is not differentiable.
    """

    def __init__(self, dtype: Any) -> None:
        self.type = numpy.dtype(dtype)

    def forward(self, inputs):
        x, = inputs
        self._in_type = x.dtype
        return x.astype(self.type, copy=False),

    def backward(self, indexes, grad_outputs):
        if self._in_type.kind != 'f':
            return None,
        return cast(grad_outputs[0], self._in_type),


def cast(x: Any, typ: Any) -> Variable:
    """Cast ``x`` to dtype ``typ``; returns ``x`` itself when it already has that dtype.

    Args:
        x: Variable or array.
        typ: Target dtype, e.g. ``numpy.float64``.

    Returns:
        Variable with dtype ``typ``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.cast(np.array([1.5], np.float32), np.float64).dtype
        dtype('float64')
    """
    data = check_array('cast', 'x', x)
    if data.dtype == numpy.dtype(typ):
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return Cast(typ).apply((x,))[0]
