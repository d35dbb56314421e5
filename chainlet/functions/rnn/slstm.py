"""S-LSTM cell for binary trees, ``slstm(c_prev1, c_prev2, x1, x2) -> (c, h)``."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.rnn import _ops
from chainlet.functions.rnn.lstm import (_cell_forward, _cell_grad, _cell_grad_grad, _gates,
                                         _zeros_if_none, check_cell_types)

_NAMES = ('c_prev1', 'c_prev2', 'x1', 'x2')


class SLSTM(FunctionNode):
    """``(c, h)`` of an S-LSTM node merging two children; inputs are retained."""

    def _check_arrays(self, in_data):
        check_cell_types('slstm', _NAMES, in_data[:2], in_data[2:], same_batch=True)

    def forward(self, inputs):
        c1, c2, x1, x2 = inputs
        self.retain_inputs((0, 1, 2, 3))
        return _cell_forward(backend.get_array_module(x1), (c1, c2), (_gates(x1), _gates(x2)))

    def backward(self, indexes, grad_outputs):
        c1, c2, x1, x2 = self.get_retained_inputs()
        gc = _zeros_if_none(grad_outputs[0], c1)
        gh = _zeros_if_none(grad_outputs[1], c1)
        grads = SLSTMGrad().apply((c1, c2, x1, x2, gc, gh))
        return tuple(grads[i] for i in indexes)


class SLSTMGrad(FunctionNode):
    """``(gc_prev1, gc_prev2, gx1, gx2)`` from ``(c_prev1, c_prev2, x1, x2, gc, gh)``; its
    backward uses chainlet functions, so :func:`slstm` supports higher-order gradients."""

    def forward(self, inputs):
        c1, c2, x1, x2, gc, gh = inputs
        self.retain_inputs((0, 1, 2, 3, 4, 5))
        xp = backend.get_array_module(x1)
        gcps, ggates = _cell_grad(xp, (c1, c2), (_gates(x1), _gates(x2)), gc, gh)
        gxs = []
        for x, gates in zip((x1, x2), ggates):
            gx = xp.empty(x.shape, x.dtype)
            for dst, src in zip(_gates(gx), gates):
                dst[...] = src
            gxs.append(gx)
        return gcps[0], gcps[1], gxs[0], gxs[1]

    def backward(self, indexes, grad_outputs):
        c1, c2, x1, x2, gc, gh = self.get_retained_inputs()
        g = [_zeros_if_none(gy, v) for gy, v in zip(grad_outputs, (c1, c2, x1, x2))]
        d_cps, d_gates, d_gc, d_gh = _cell_grad_grad(
            (c1, c2), (_gates(x1), _gates(x2)), gc, gh, g[:2], (_gates(g[2]), _gates(g[3])))
        ret = (d_cps[0], d_cps[1], _ops.interleave(d_gates[0]), _ops.interleave(d_gates[1]),
               d_gc, d_gh)
        return tuple(ret[i] for i in indexes)


def slstm(c_prev1: Any, c_prev2: Any, x1: Any, x2: Any) -> tuple:
    """One S-LSTM step: an LSTM cell that merges the states of two child nodes of a tree.

    ``x1`` and ``x2`` hold the gate pre-activations coming from each child, interleaved unit by
    unit as in :func:`~chainlet.functions.lstm` (``a, i, f, o`` at columns ``4n .. 4n+3``). Then

    .. math::
        c &= \\tanh(a_1)\\sigma(i_1) + \\tanh(a_2)\\sigma(i_2)
             + \\sigma(f_1) c_{prev1} + \\sigma(f_2) c_{prev2}, \\\\
        h &= \\sigma(o_1 + o_2) \\tanh(c).

    This is what Chainer computes (its docstring writes :math:`\\tanh(a_1+a_2)\\sigma(i_1+i_2)`,
    but its code, and so its trained weights, use the per-child form above).

    Args:
        c_prev1: Cell state of the first child, float array of shape ``(B, N, ...)``.
        c_prev2: Cell state of the second child, same shape and dtype.
        x1: Gate pre-activations from the first child, shape ``(B, 4N, ...)``.
        x2: Gate pre-activations from the second child, shape ``(B, 4N, ...)``.

    Returns:
        Tuple ``(c, h)`` of Variables of shape ``(B, N, ...)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> c1, c2 = np.ones((1, 1)), np.full((1, 1), 2.0)
        >>> x1 = np.array([[50.0, -50.0, 50.0, 0.0]])   # keep c1, no new input
        >>> x2 = np.array([[50.0, 50.0, -50.0, 50.0]])  # forget c2, add tanh(50) = 1
        >>> c, h = F.slstm(c1, c2, x1, x2)
        >>> np.round(c.array, 4), np.round(h.array, 4)
        (array([[2.]]), array([[0.964]]))
    """
    return SLSTM().apply((c_prev1, c_prev2, x1, x2))
