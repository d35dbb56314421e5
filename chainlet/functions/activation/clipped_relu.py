"""ReLU clipped from above (also the node behind ``relu6``)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.activation._util import positive_param
from chainlet.variable import Variable


class ClippedReLU(FunctionNode):
    """``y = min(max(x, 0), z)``."""

    def __init__(self, z: float = 20.0, name: str = 'clipped_relu') -> None:
        self.z = z
        self.name = name

    @property
    def label(self) -> str:
        return self.name

    @property
    def cap(self) -> float:
        """The upper bound ``z`` under Chainer's attribute name (graph readers use it)."""
        return self.z

    def _check_arrays(self, in_data):
        type_check.argument(self.name, 'x', in_data[0], kind='f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        dt = x.dtype.type
        self.retain_inputs((0,))
        return xp.minimum(xp.maximum(x, dt(0)), dt(self.z)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return ClippedReLUGrad(x.array, self.z).apply((grad_outputs[0],))


class ClippedReLUGrad(FunctionNode):
    """``gx = gy`` on ``0 < x < z``, zero elsewhere; linear in ``gy``."""

    def __init__(self, x: Any, z: float) -> None:
        self.x = x
        self.z = z

    def forward(self, inputs):
        gy, = inputs
        x = self.x
        return gy * ((x > 0) & (x < self.z)),

    def backward(self, indexes, grad_outputs):
        return ClippedReLUGrad(self.x, self.z).apply((grad_outputs[0],))


def clipped_relu(x: Any, z: float = 20.0) -> Variable:
    """Clipped ReLU, :math:`y = \\min(\\max(x, 0), z)`, elementwise.

    The gradient is 1 on the open interval ``(0, z)`` and 0 elsewhere.

    Args:
        x: Variable or array of floats, any shape.
        z: Positive upper bound.

    Returns:
        Variable of the same shape and dtype, values in ``[0, z]``.

    Raises:
        ValueError: ``z`` is not positive.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.clipped_relu(np.array([-1.0, 2.0, 30.0], np.float32), z=10.0).array
        array([ 0.,  2., 10.], dtype=float32)
    """
    return ClippedReLU(positive_param('clipped_relu', 'z', z)).apply((x,))[0]


def __getattr__(name: str) -> Any:
    # Chainer's module path for relu6; relu6 imports this module, so it is
    # fetched on first use.
    if name == 'relu6':
        from chainlet.functions.activation.relu6 import relu6
        return relu6
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
