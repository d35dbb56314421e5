"""Identity: returns its inputs unchanged (useful as a graph marker or in tests)."""
from __future__ import annotations

from typing import Any

from chainlet.function_node import FunctionNode


class Identity(FunctionNode):
    """Pass inputs through; gradients pass back unchanged."""

    def forward(self, inputs):
        return inputs

    def backward(self, indexes, grad_outputs):
        return grad_outputs


def identity(*inputs: Any) -> Any:
    """Return new Variables holding the same arrays as ``inputs``.

    Returns:
        A Variable for one input, a tuple of Variables otherwise.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.identity(np.array([1.0])).array
        array([1.])
    """
    ret = Identity().apply(inputs)
    return ret[0] if len(ret) == 1 else ret
