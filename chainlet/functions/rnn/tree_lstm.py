"""Tree-LSTM cell with one forget gate per child, ``tree_lstm(c_1, ..., c_N, x) -> (c, h)``.

Unlike :func:`~chainlet.functions.lstm`, the gate pre-activations are laid out in contiguous
blocks (Chainer's layout for this function): ``x[:, k*C:(k+1)*C]`` is block ``k`` of
``a, i, o, f_1, ..., f_N``. The forward works on arrays and keeps only the inputs; the backward
recomputes the gates with chainlet functions, so the cell can be differentiated again.
"""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.stack import stack


def _blocks(x: Any, n: int) -> list:
    """Split ``(B, n*C, ...)`` into ``n`` blocks of ``(B, C, ...)`` (views or get_item nodes)."""
    r = x.reshape((x.shape[0], n, x.shape[1] // n) + tuple(x.shape[2:]))
    return [r[:, k] for k in range(n)]


def _sig(xp: Any, x: Any) -> Any:
    half = x.dtype.type(0.5)
    return xp.tanh(x * half) * half + half


class TreeLSTM(FunctionNode):
    """``(c, h)`` of an N-ary Tree-LSTM node; the inputs are retained."""

    def _check_arrays(self, in_data):
        if len(in_data) < 2:
            raise type_check.InvalidType(
                '>= 2', str(len(in_data)),
                f'tree_lstm: expected at least 2 inputs (c_1, ..., c_N, x), got {len(in_data)}')
        cs, x = in_data[:-1], in_data[-1]
        type_check.argument('tree_lstm', 'x', x, kind='f', min_ndim=2)
        n = len(cs)
        for k, c in enumerate(cs):
            name = f'c_{k + 1}'
            type_check.argument('tree_lstm', name, c, dtype=x.dtype, ndim=x.ndim)
            want = (x.shape[0], x.shape[1] // (3 + n)) + tuple(x.shape[2:])
            if x.shape[1] % (3 + n) or c.shape != want:
                raise type_check.fail('tree_lstm', name,
                                      f'shape {want} (x has {3 + n} blocks along axis 1)',
                                      str(c.shape))

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        cs, x = inputs[:-1], inputs[-1]
        xp = backend.get_array_module(x)
        a, i, o, *fs = _blocks(x, 3 + len(cs))
        c = xp.tanh(a) * _sig(xp, i)
        for f, cp in zip(fs, cs):
            c = c + _sig(xp, f) * cp
        return c, _sig(xp, o) * xp.tanh(c)

    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs()
        cs, x = inputs[:-1], inputs[-1]
        a, i, o, *fs = _blocks(x, 3 + len(cs))
        A, In, Og = tanh(a), sigmoid(i), sigmoid(o)
        Fs = [sigmoid(f) for f in fs]
        c = A * In
        for F_, cp in zip(Fs, cs):
            c = c + F_ * cp
        T = tanh(c)
        gc, gh = grad_outputs
        g = gc
        if gh is not None:
            g_h = gh * Og * (1 - T * T)
            g = g_h if g is None else g + g_h
        xp = backend.get_array_module(x.array)
        zeros = xp.zeros(cs[0].shape, x.dtype)
        if g is None:
            g = zeros
        go = zeros if gh is None else gh * T * Og * (1 - Og)
        blocks = [g * In * (1 - A * A), g * A * In * (1 - In), go]
        blocks += [g * cp * F_ * (1 - F_) for F_, cp in zip(Fs, cs)]
        gx = reshape(stack(blocks, axis=1), x.shape)
        ret = [g * F_ for F_ in Fs] + [gx]
        return tuple(ret[k] for k in indexes)


def tree_lstm(*inputs: Any) -> tuple:
    """One step of an N-ary Tree-LSTM cell (Tai et al. 2015; Bowman et al. 2016 variant).

    The last argument ``x`` holds ``3 + N`` blocks of gate pre-activations along axis 1, in
    the order ``a, i, o, f_1, ..., f_N`` (contiguous blocks, each as wide as a cell state).
    With the children's cell states ``c_1, ..., c_N``:

    .. math::
        c = \\tanh(a)\\,\\sigma(i) + \\sum_k \\sigma(f_k)\\,c_k, \\qquad
        h = \\sigma(o) \\tanh(c).

    Args:
        *inputs: ``c_1, ..., c_N, x``: ``N >= 1`` cell states of shape ``(B, C, ...)`` and the
            pre-activations ``x`` of shape ``(B, (3 + N) C, ...)``, all of one float dtype.

    Returns:
        Tuple ``(c, h)`` of Variables of shape ``(B, C, ...)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> c1, c2 = np.ones((1, 1)), np.full((1, 1), 2.0)
        >>> x = np.array([[50.0, 50.0, 50.0, 50.0, -50.0]])  # add tanh(50), keep c1, drop c2
        >>> c, h = F.tree_lstm(c1, c2, x)
        >>> np.round(c.array, 4), np.round(h.array, 4)
        (array([[2.]]), array([[0.964]]))
    """
    return TreeLSTM().apply(inputs)
