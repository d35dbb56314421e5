"""Fully connected layer: ``y = x W^T + b``."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.connection._conv_utils import check_bias_dtype
from chainlet.variable import Variable


class LinearFunction(FunctionNode):
    """``y = x @ W.T (+ b)`` for ``x`` of shape ``(N, I)`` and ``W`` of shape ``(O, I)``.

    One BLAS call (NumPy multiplies by the transposed view of ``W`` without copying it) and an
    in-place bias add. The gradients are :class:`LinearGradData` (``gy @ W``),
    :class:`LinearGradWeight` (``gy.T @ x``) and the column sum of ``gy``; the three product
    nodes are each other's gradients, so linear can be differentiated any number of times.
    """

    def _check_arrays(self, in_data):
        n = len(in_data)
        if n == 3 or n == 2:  # one boolean test for correct inputs; the messages come below
            x, W = in_data[0], in_data[1]
            if getattr(x, 'ndim', 0) == 2 and getattr(W, 'ndim', 0) == 2 and \
                    x.dtype.kind == 'f' and W.dtype.kind == 'f' and x.shape[1] == W.shape[1]:
                b = in_data[2] if n == 3 else None
                if b is None or (getattr(b, 'shape', None) == (W.shape[0],) and
                                 b.dtype == x.dtype):
                    return
        self._explain(in_data)

    def _explain(self, in_data):
        """Raise the error that names the first wrong input."""
        type_check.count('linear', in_data, (2, 3))
        x, W = in_data[:2]
        type_check.argument('linear', 'x', x, kind='f', ndim=2)
        type_check.argument('linear', 'W', W, kind='f', ndim=2)
        if x.shape[1] != W.shape[1]:
            raise type_check.fail('linear', 'W', f'shape (*, {x.shape[1]}) to match x of shape '
                                  f'{x.shape}', str(W.shape))
        if len(in_data) == 3:
            b = in_data[2]
            type_check.argument('linear', 'b', b, kind='f', shape=(W.shape[0],))
            check_bias_dtype('linear', x, W, b)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        y = xp.matmul(x, W.T)
        if y.dtype != x.dtype:  # x and W may differ in precision; y has that of x
            y = y.astype(x.dtype)
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(LinearGradData().apply((W, gy))[0])
            elif i == 1:
                ret.append(LinearGradWeight(W.dtype).apply((x, gy))[0])
            else:
                from chainlet.functions.math.sum import sum as _sum
                ret.append(_sum(gy, axis=0))
        return tuple(ret)

    def _backward_arrays(self, indexes, grad_outputs):
        # The forwards of LinearGradData, LinearGradWeight and sum, on the arrays backward
        # would wrap (the live input Variables' arrays when they still exist).
        # NumPy arrays only (the contract of _backward_arrays): NumPy's functions directly.
        x, W = self._input_array(0), self._input_array(1)
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_grad_data(W, gy, numpy))
            elif i == 1:
                ret.append(_grad_weight(x, gy, W.dtype, numpy))
            elif gy.dtype.char == 'e':  # as Sum does: a float16 sum over the batch in float32
                ret.append(numpy.add.reduce(gy, 0, dtype=numpy.float32).astype(gy.dtype))
            else:
                ret.append(numpy.add.reduce(gy, 0))
        return tuple(ret)


def _grad_data(W: Any, gy: Any, xp: Any = None) -> Any:
    gx = (xp or backend.get_array_module(gy)).matmul(gy, W)
    return gx if gx.dtype == gy.dtype else gx.astype(gy.dtype)


def _grad_weight(x: Any, gy: Any, dtype: Any, xp: Any = None) -> Any:
    gW = (xp or backend.get_array_module(gy)).matmul(gy.T, x)
    return gW if gW.dtype == dtype else gW.astype(dtype)


class LinearGradData(FunctionNode):
    """``gx = gy @ W`` (inputs ``W``, ``gy``), in the dtype of ``gy``."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return _grad_data(*inputs),

    def backward(self, indexes, grad_outputs):
        W, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:  # d/dW of sum(ggx * (gy @ W)) = gy.T @ ggx
                ret.append(LinearGradWeight(W.dtype).apply((ggx, gy))[0])
            else:  # d/dgy = ggx @ W.T
                ret.append(LinearFunction().apply((ggx, W))[0])
        return tuple(ret)


class LinearGradWeight(FunctionNode):
    """``gW = gy.T @ x`` (inputs ``x``, ``gy``), in ``dtype`` (that of the weight)."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return _grad_weight(*inputs, self.dtype),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:  # d/dx of sum(ggW * (gy.T @ x)) = gy @ ggW
                ret.append(LinearGradData().apply((ggW, gy))[0])
            else:  # d/dgy = x @ ggW.T
                ret.append(LinearFunction().apply((x, ggW))[0])
        return tuple(ret)


def linear(x: Any, W: Any, b: Optional[Any] = None, n_batch_axes: int = 1) -> Variable:
    """Linear (fully connected) function ``y = x W^T + b``.

    The first ``n_batch_axes`` axes of ``x`` are batch axes; the remaining ones are flattened
    into the feature axis, whose size must equal ``W.shape[1]``.

    Args:
        x: Variable or float array of shape ``(B_1, ..., B_k, I_1, ..., I_m)`` with
            ``k = n_batch_axes`` and ``I_1 * ... * I_m = I``; e.g. ``(N, I)``, or images
            ``(N, C, H, W)`` that are flattened to ``(N, C * H * W)``.
        W: Weight of shape ``(O, I)``, of any float dtype (``y`` takes the dtype of ``x``).
        b: Optional bias of shape ``(O,)``.
        n_batch_axes: Number of leading batch axes (>= 1).

    Returns:
        Variable of shape ``(B_1, ..., B_k, O)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[1.0, 2.0]], np.float32)
        >>> W = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, -1.0]], np.float32)
        >>> F.linear(x, W, np.ones(3, np.float32)).array
        array([[ 2.,  4., -1.]], dtype=float32)
    """
    if isinstance(n_batch_axes, bool) or not isinstance(n_batch_axes, int):
        raise TypeError(f'linear: argument n_batch_axes: expected an int, '
                        f'got {type(n_batch_axes).__name__}')
    if n_batch_axes <= 0:
        raise ValueError(f'linear: argument n_batch_axes: expected a value >= 1, '
                         f'got {n_batch_axes}')
    if not (isinstance(x, Variable) or backend.is_array(x)):
        raise type_check.fail('linear', 'x', 'a Variable or an ndarray', type(x).__name__)
    shape = tuple(x.shape)
    if len(shape) <= n_batch_axes:
        raise type_check.fail('linear', 'x', f'ndim > n_batch_axes = {n_batch_axes}',
                              f'shape {shape}')
    batch_shape = shape[:n_batch_axes]
    if len(shape) != 2 or n_batch_axes != 1:
        from chainlet.functions.array.reshape import reshape
        batch = 1
        for s in batch_shape:
            batch *= s
        features = 1
        for s in shape[n_batch_axes:]:
            features *= s
        w_shape = getattr(W, 'shape', None)
        if w_shape is not None and len(w_shape) == 2 and w_shape[1] != features:
            # Name the shape the user gave, not the flattened one.
            raise type_check.fail('linear', 'W', f'shape (*, {features}) to match x of shape '
                                  f'{shape} with n_batch_axes={n_batch_axes}',
                                  str(tuple(w_shape)))
        x = reshape(x, (batch, features))
    args = (x, W) if b is None else (x, W, b)
    y = LinearFunction().apply(args)[0]
    if n_batch_axes > 1:
        from chainlet.functions.array.reshape import reshape
        y = reshape(y, batch_shape + (y.shape[1],))
    return y


__all__ = ['LinearFunction', 'linear']
