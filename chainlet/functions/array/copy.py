"""``copy``: copy an array to a device (host memory or a GPU)."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array
from chainlet.variable import Variable


def _device_of(x: Any) -> int:
    return x.device.id if backend.is_cupy_array(x) else -1


def _copy_to(x: Any, device: int) -> Any:
    if device < 0:
        return x.copy() if isinstance(x, numpy.ndarray) else backend.to_cpu(x)
    y = backend.to_gpu(x, device)
    return y.copy() if y is x else y


class Copy(FunctionNode):
    """Copy the input to device ``out_device`` (-1: host); the gradient goes back to the
    input's device."""

    def __init__(self, out_device: int) -> None:
        self.out_device = out_device

    def forward(self, inputs):
        x, = inputs
        self._in_device = _device_of(x)
        return _copy_to(x, self.out_device),

    def backward(self, indexes, grad_outputs):
        return Copy(self._in_device).apply(grad_outputs)


def copy(x: Any, dst: Any) -> Variable:
    """Copy ``x`` onto the device ``dst``; always a new array, also on the same device.

    Args:
        x: Variable or array (NumPy or CuPy).
        dst: Target device: ``-1``, ``'@numpy'`` or ``'cpu'`` for host memory, or a GPU such as
            ``0``, ``'@cupy:0'`` or ``'cuda:0'`` (see :func:`chainlet.backend.parse_device_spec`).

    Returns:
        Variable on ``dst``; its gradient is copied back to the device of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([1.0, 2.0])
        >>> y = F.copy(x, -1)
        >>> y.array, y.array is x
        (array([1., 2.]), False)
    """
    check_array('copy', 'x', x)
    try:
        device = backend.parse_device_spec(dst)
    except (TypeError, ValueError) as e:
        raise type(e)(f'copy: argument dst: {e}') from None
    return Copy(device).apply((x,))[0]
