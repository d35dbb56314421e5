"""Matrix product with NumPy's ``matmul`` semantics (1-D operands, batched broadcasting)."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def _swap_last(x: Variable) -> Variable:
    from chainlet.functions.array.transpose import transpose
    if x.ndim < 2:
        return x
    axes = list(range(x.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return transpose(x, axes)


class MatMul(FunctionNode):
    """``y = a @ b`` for arrays of ndim >= 1 with batch broadcasting.

    The operands may differ in float dtype: the product has their promoted dtype (or
    ``dtype`` when given), and each gradient is cast back to its operand's dtype, as in
    Chainer.

    ``transa``/``transb`` are Chainer's flags, always ``False`` here: :func:`matmul` applies
    the transposes as nodes of their own (graph exporters such as onnx_chainer read them).
    """

    transa = transb = False

    def __init__(self, dtype: Any = None) -> None:
        self.dtype = dtype

    def _check_arrays(self, in_data):
        a, b = in_data
        type_check.float_input('matmul', 'a', a)
        type_check.float_input('matmul', 'b', b)
        if a.ndim == 0 or b.ndim == 0:
            raise type_check.fail('matmul', 'a' if a.ndim == 0 else 'b', 'ndim >= 1',
                                  f'shape {(a if a.ndim == 0 else b).shape}')
        ka = a.shape[-1]
        kb = b.shape[-2] if b.ndim > 1 else b.shape[0]
        if ka != kb:
            raise type_check.InvalidType(
                '', '',
                f'matmul: arguments a and b: contracted dimensions differ: a has shape {a.shape} '
                f'(last axis {ka}), b has shape {b.shape} (axis {-2 if b.ndim > 1 else 0}: {kb})')
        if a.ndim > 2 or b.ndim > 2:
            try:
                numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
            except ValueError:
                raise type_check.InvalidType(
                    '', '',
                    f'matmul: arguments a and b: batch dimensions cannot be broadcast together: '
                    f'a has shape {a.shape}, b has shape {b.shape}') from None

    def forward(self, inputs):
        a, b = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(a)
        y = xp.matmul(a, b)
        return y if self.dtype is None else y.astype(self.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.reshape import reshape
        from chainlet.functions.array.sum_to import sum_to
        a, b = self.get_retained_inputs()
        gy = grad_outputs[0]
        a2 = a if a.ndim > 1 else reshape(a, (1,) + a.shape)
        b2 = b if b.ndim > 1 else reshape(b, b.shape + (1,))
        gy_shape = list(gy.shape)
        if a.ndim == 1:
            gy_shape.insert(len(gy_shape) - (1 if b.ndim > 1 else 0), 1)
        if b.ndim == 1:
            gy_shape.append(1)
        gy2 = reshape(gy, tuple(gy_shape))
        ret = []
        for i in indexes:
            if i == 0:
                ga = sum_to(MatMul(a.dtype).apply((gy2, _swap_last(b2)))[0], a2.shape)
                ret.append(reshape(ga, a.shape))
            else:
                gb = sum_to(MatMul(b.dtype).apply((_swap_last(a2), gy2))[0], b2.shape)
                ret.append(reshape(gb, b.shape))
        return tuple(ret)


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Matrix product ``a @ b`` (batched over leading axes, which broadcast).

    Args:
        a: Variable or array of shape ``(..., M, K)`` or ``(K,)``.
        b: Variable or array of shape ``(..., K, N)`` or ``(K,)``.
        transa: Use the transpose of the last two axes of ``a``.
        transb: Use the transpose of the last two axes of ``b``.

    Returns:
        Variable of shape ``(..., M, N)`` (1-D operands drop their axis, as in NumPy).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.matmul(np.ones((2, 3)), np.ones((3, 4))).shape
        (2, 4)
    """
    if transa:
        a = _swap_last(a if isinstance(a, Variable) else Variable(a, requires_grad=False))
    if transb:
        b = _swap_last(b if isinstance(b, Variable) else Variable(b, requires_grad=False))
    return MatMul().apply((a, b))[0]


def __getattr__(name: str) -> Any:
    # Chainer's module path for the deprecated batch_matmul (``math.batch_matmul`` here, which
    # imports this module), fetched on first use.
    if name == 'batch_matmul':
        from chainlet.functions.math.batch_matmul import batch_matmul
        return batch_matmul
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
