"""Long short-term memory cell, ``lstm(c_prev, x) -> (c, h)``.

The gate pre-activations arrive interleaved as in Chainer: column ``4*n + k`` of ``x`` feeds gate
``k`` (``a, i, f, o``) of unit ``n``, so weights trained with Chainer's ``L.LSTM`` port unchanged.
The cell math below is written for ``K`` children (``K = 1`` here, ``K = 2`` for
:func:`~chainlet.functions.slstm`): ``c = sum_k tanh(a_k) sig(i_k) + sig(f_k) c_k``,
``h = sig(sum_k o_k) tanh(c)``.

:class:`LSTMGrad` follows Chainer's contract: it maps ``(c_prev, x, c_next, gc, gh)`` to
``(gc_prev, gx)`` and treats the new cell state ``c_next`` (retained by :class:`LSTM`) as an
input of its own, so backward reuses it instead of recomputing it and its own gradient has a
``c_next`` part; the chain rule through ``LSTM`` gives the same higher-order gradients.
"""
from __future__ import annotations

from typing import Any, Sequence

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.rnn import _ops
from chainlet.variable import Variable


def _gates(x: Any) -> list:
    """Split interleaved pre-activations ``(B, 4N, ...)`` into ``[a, i, f, o]`` of ``(B, N, ...)``
    (views for arrays, ``get_item`` nodes for Variables)."""
    r = x.reshape((x.shape[0], x.shape[1] // 4, 4) + tuple(x.shape[2:]))
    return [r[:, :, k] for k in range(4)]


def _sig(xp: Any, x: Any) -> Any:
    # tanh form: no overflow, the dtype is kept, and it is the cheapest in the recurrence; the
    # gates need absolute, not left-tail relative, precision.
    return xp.tanh(x * 0.5) * 0.5 + 0.5


def _cell_forward(xp: Any, cps: Sequence[Any], gates: Sequence[list]) -> tuple:
    """Arrays: return ``(c, h)`` of the ``K``-child cell."""
    c = None
    for cp, (a, i, f, _) in zip(cps, gates):
        term = xp.tanh(a) * _sig(xp, i) + _sig(xp, f) * cp
        c = term if c is None else c + term
    o = gates[0][3]
    for g in gates[1:]:
        o = o + g[3]
    return c, _sig(xp, o) * xp.tanh(c)


def _cell_grad(xp: Any, cps: Sequence[Any], gates: Sequence[list], gc: Any, gh: Any,
               c: Any = None) -> tuple:
    """Arrays: gradients ``([gc_k], [[ga_k, gi_k, gf_k, go_k]])`` of the ``K``-child cell.

    ``c`` is the cell state the forward computed; it is recomputed when not given.
    """
    acts = [(xp.tanh(a), _sig(xp, i), _sig(xp, f)) for a, i, f, _ in gates]
    if c is None:
        for cp, (A, I, Fg) in zip(cps, acts):
            term = A * I + Fg * cp
            c = term if c is None else c + term
    o = gates[0][3]
    for g in gates[1:]:
        o = o + g[3]
    Og = _sig(xp, o)
    T = xp.tanh(c)
    g = gh * Og * (1 - T * T) + gc
    go = gh * T * Og * (1 - Og)
    gcps, ggates = [], []
    for cp, (A, I, Fg) in zip(cps, acts):
        ggates.append([g * I * (1 - A * A), g * A * I * (1 - I), g * cp * Fg * (1 - Fg), go])
        gcps.append(g * Fg)
    return gcps, ggates


def _cell_grad_grad(cps: Sequence[Variable], gates: Sequence[list], gc: Variable,
                    gh: Variable, g_cps: Sequence[Variable], g_gates: Sequence[list],
                    c: Any = None) -> tuple:
    """Variables: derivative of ``sum(G * _cell_grad(...))`` with respect to the inputs of
    ``_cell_grad`` (``G`` = ``g_cps``, ``g_gates``), written with chainlet functions so it can be
    differentiated again. Returns ``([d c_k], [[d a_k, d i_k, d f_k, d o_k]], d gc, d gh)``.

    Without ``c`` the cell state is recomputed from ``cps`` and ``gates`` and what reaches it
    flows on into them; with ``c`` it is an input of its own and its derivative ``d c`` is
    appended as a fifth element.
    """
    acts = []
    given = c is not None
    for cp, (a, i, f, _) in zip(cps, gates):
        A, I, Fg = tanh(a), sigmoid(i), sigmoid(f)
        acts.append((A, I, Fg, 1 - A * A, I * (1 - I), Fg * (1 - Fg)))
        if not given:
            term = A * I + Fg * cp
            c = term if c is None else c + term
    o = gates[0][3]
    Go = g_gates[0][3]
    for k in range(1, len(gates)):
        o = o + gates[k][3]
        Go = Go + g_gates[k][3]
    Og = sigmoid(o)
    T = tanh(c)
    T1 = 1 - T * T
    Og1 = Og * (1 - Og)
    g = gh * Og * T1 + gc
    # Gg: total weight of g in the outputs; Gc: weight of c reached through tanh(c).
    Gg: Any = None
    for cp, (A, I, Fg, A1, I1, F1), Gcp, (Ga, Gi, Gf, _) in zip(cps, acts, g_cps, g_gates):
        term = Gcp * Fg + Ga * I * A1 + Gi * A * I1 + Gf * cp * F1
        Gg = term if Gg is None else Gg + term
    Gc = T1 * (Go * gh * Og1 - 2 * Gg * gh * Og * T)
    go = Og1 * gh * (Gg * T1 + Go * T * (1 - 2 * Og))
    d_cps, d_gates = [], []
    for cp, (A, I, Fg, A1, I1, F1), Gcp, (Ga, Gi, Gf, _) in zip(cps, acts, g_cps, g_gates):
        da = g * (Gi * I1 - 2 * Ga * I * A)
        di = g * (Ga * A1 + Gi * A * (1 - 2 * I))
        df = g * (Gcp + Gf * cp * (1 - 2 * Fg))
        d_cp = Gf * g * F1
        if not given:  # the chain rule through the recomputed c
            da, di, df, d_cp = da + Gc * I, di + Gc * A, df + Gc * cp, d_cp + Gc * Fg
        d_gates.append([A1 * da, I1 * di, F1 * df, go])
        d_cps.append(d_cp)
    ret = (d_cps, d_gates, Gg, Gg * Og * T1 + Go * T * Og1)
    return ret + (Gc,) if given else ret


def _zeros_if_none(g: Any, like: Variable, shape: Any = None) -> Any:
    """``g``, or a constant zero array (``like``'s dtype, ``shape`` or ``like``'s shape)."""
    if g is not None:
        return g
    xp = backend.get_array_module(like.array)
    return xp.zeros(like.shape if shape is None else shape, like.dtype)


def check_cell_types(func: str, names: Sequence[str], cs: Sequence[Any], xs: Sequence[Any],
                     same_batch: bool) -> None:
    """Shared type check of :func:`lstm` and :func:`~chainlet.functions.slstm`."""
    c0 = cs[0]
    type_check.argument(func, names[0], c0, min_ndim=2, kind='f')
    for name, a in zip(names[1:], tuple(cs[1:]) + tuple(xs)):
        type_check.argument(func, name, a, dtype=c0.dtype, ndim=c0.ndim)
    for name, c in zip(names[1:len(cs)], cs[1:]):
        type_check.argument(func, name, c, shape=c0.shape)
    for name, x in zip(names[len(cs):], xs):
        if not same_batch and x.shape[0] > c0.shape[0]:
            raise type_check.fail(func, name, f'batch size <= {c0.shape[0]} (that of '
                                  f'{names[0]})', f'shape {x.shape}')
        batch = c0.shape[0] if same_batch else None
        type_check.argument(func, name, x, shape=(batch, 4 * c0.shape[1]) + tuple(c0.shape[2:]))


class LSTM(FunctionNode):
    """``(c, h)`` of one LSTM step; the inputs are retained and the gates recomputed in
    backward (cheaper in memory than keeping four activations)."""

    def _check_arrays(self, in_data):
        check_cell_types('lstm', ('c_prev', 'x'), in_data[:1], in_data[1:], same_batch=False)

    def forward(self, inputs):
        c_prev, x = inputs
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        c_top, h = _cell_forward(xp, (c_prev[:batch],), (_gates(x),))
        if batch == c_prev.shape[0]:
            return c_top, h
        c = xp.empty(c_prev.shape, c_prev.dtype)
        c[:batch] = c_top
        c[batch:] = c_prev[batch:]  # rows without input pass through unchanged
        return c, h

    def backward(self, indexes, grad_outputs):
        c_prev, x = self.get_retained_inputs()
        c_next, = self.get_retained_outputs()
        gc, gh = grad_outputs
        gc = _zeros_if_none(gc, c_prev)
        gh = _zeros_if_none(gh, x, (x.shape[0],) + tuple(c_prev.shape[1:]))
        gc_prev, gx = LSTMGrad().apply((c_prev, x, c_next, gc, gh))
        return tuple((gc_prev, gx)[i] for i in indexes)


class LSTMGrad(FunctionNode):
    """``(gc_prev, gx)`` from ``(c_prev, x, c_next, gc, gh)`` (Chainer's contract).

    ``c_next`` is the cell state :class:`LSTM` returned; only its first ``len(x)`` rows are
    read. The node's own backward, to all five inputs, is written with chainlet functions, so
    :func:`lstm` can be differentiated any number of times.
    """

    def __call__(self, *inputs: Any) -> tuple:
        """``LSTMGrad()(c_prev, x, c_next, gc, gh)``: Chainer's ``LSTMGrad`` is an old-style
        function called on its inputs, and code (its tests among them) calls it that way.

        Returns:
            Tuple ``(gc_prev, gx)`` of Variables.
        """
        return self.apply(inputs)

    def _check_arrays(self, in_data):
        type_check.count('LSTMGrad', in_data, 5)
        c_prev, x, c_next, gc, gh = in_data
        check_cell_types('LSTMGrad', ('c_prev', 'x'), (c_prev,), (x,), same_batch=False)
        for name, a in (('c_next', c_next), ('gc', gc)):
            type_check.argument('LSTMGrad', name, a, dtype=c_prev.dtype, shape=c_prev.shape)
        type_check.argument('LSTMGrad', 'gh', gh, dtype=c_prev.dtype,
                            shape=(x.shape[0],) + tuple(c_prev.shape[1:]))

    def forward(self, inputs):
        c_prev, x, c_next, gc, gh = inputs
        self.retain_inputs((0, 1, 2, 3, 4))
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        (gcp,), (ggates,) = _cell_grad(xp, (c_prev[:batch],), (_gates(x),), gc[:batch], gh,
                                       c=c_next[:batch])
        gx = xp.empty(x.shape, x.dtype)
        for dst, src in zip(_gates(gx), ggates):
            dst[...] = src
        if batch == c_prev.shape[0]:
            return gcp, gx
        gc_prev = xp.empty(c_prev.shape, c_prev.dtype)
        gc_prev[:batch] = gcp
        gc_prev[batch:] = gc[batch:]
        return gc_prev, gx

    def backward(self, indexes, grad_outputs):
        c_prev, x, c_next, gc, gh = self.get_retained_inputs()
        g_cprev = _zeros_if_none(grad_outputs[0], c_prev)
        g_x = _zeros_if_none(grad_outputs[1], x)
        batch, full = x.shape[0], c_prev.shape[0]
        split = batch < full
        top = (lambda v: v[:batch]) if split else (lambda v: v)
        (d_cp,), (d_gates,), d_gc, d_gh, d_c = _cell_grad_grad(
            (top(c_prev),), (_gates(x),), top(gc), gh, (top(g_cprev),), (_gates(g_x),),
            c=top(c_next))
        if split:
            # rows past len(x): gc_prev copies gc there and nothing else depends on them
            xp = backend.get_array_module(x.array)
            rest = xp.zeros((full - batch,) + tuple(c_prev.shape[1:]), c_prev.dtype)
            d_cp = _ops.concat([d_cp, rest], axis=0)
            d_c = _ops.concat([d_c, rest], axis=0)
            d_gc = _ops.concat([d_gc, g_cprev[batch:]], axis=0)
        ret = (d_cp, _ops.interleave(d_gates), d_c, d_gc, d_gh)
        return tuple(ret[i] for i in indexes)


def lstm(c_prev: Any, x: Any) -> tuple:
    """One step of a long short-term memory cell with forget gate.

    ``x`` holds the pre-activations of the four gates interleaved unit by unit (Chainer's layout):
    for unit ``n``, ``x[:, 4n]`` is the cell input ``a``, ``x[:, 4n+1]`` the input gate ``i``,
    ``x[:, 4n+2]`` the forget gate ``f`` and ``x[:, 4n+3]`` the output gate ``o``. Then

    .. math::
        c = \\tanh(a)\\,\\sigma(i) + \\sigma(f)\\,c_{prev}, \\qquad h = \\sigma(o) \\tanh(c).

    When ``x`` has fewer rows than ``c_prev`` (variable-length sequences sorted by decreasing
    length), only ``c[:len(x)]`` is updated; the other rows of ``c_prev`` are passed through.

    Args:
        c_prev: Previous cell state, float array of shape ``(B, N, ...)``.
        x: Gate pre-activations of shape ``(B', 4N, ...)`` with ``B' <= B``, same dtype.

    Returns:
        Tuple ``(c, h)``: the new cell state of shape ``(B, N, ...)`` and the output of shape
        ``(B', N, ...)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> c, h = F.lstm(np.zeros((1, 2), np.float32), np.zeros((1, 8), np.float32))
        >>> c.shape, h.shape
        ((1, 2), (1, 2))
        >>> c, h = F.lstm(np.ones((1, 1)), np.array([[50.0, 50.0, -50.0, 50.0]]))
        >>> np.round(c.array, 4), np.round(h.array, 4)
        (array([[1.]]), array([[0.7616]]))
    """
    return LSTM().apply((c_prev, x))
