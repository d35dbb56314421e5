"""``broadcast``: broadcast several arrays against each other."""
from __future__ import annotations

from typing import Any, Union

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array
from chainlet.variable import Variable, as_variable


class Broadcast(FunctionNode):
    """Broadcast all inputs to their common shape; each gradient is summed back with ``sum_to``.
    """

    def _check_arrays(self, in_data):
        if len(in_data) > 1:
            type_check.broadcastable('broadcast', [f'args[{i}]' for i in range(len(in_data))],
                                     in_data)

    def forward(self, inputs):
        self._shapes = [x.shape for x in inputs]
        return tuple(backend.get_array_module(*inputs).broadcast_arrays(*inputs))

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.sum_to import sum_to
        return tuple(None if grad_outputs[i] is None else sum_to(grad_outputs[i], self._shapes[i])
                     for i in indexes)


def broadcast(*args: Any) -> Union[Variable, tuple[Variable, ...]]:
    """Broadcast the arguments against each other following NumPy's rules.

    Args:
        *args: Variables or arrays whose shapes broadcast together.

    Returns:
        A tuple of Variables of the common shape, one per argument (read-only views when
        possible); with a single argument, that argument as a Variable (as in Chainer).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> a, b = F.broadcast(np.zeros((2, 1)), np.ones(3))
        >>> a.shape, b.shape
        ((2, 3), (2, 3))
    """
    if not args:
        raise type_check.InvalidType('at least one argument', 'none',
                                     'broadcast: expected at least one argument, got none')
    for i, x in enumerate(args):
        check_array('broadcast', f'args[{i}]', x)
    if len(args) == 1:
        return as_variable(args[0])
    return Broadcast().apply(args)
