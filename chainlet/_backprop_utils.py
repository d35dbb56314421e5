"""Chainer's ``chainer._backprop_utils``: one backward step on a gradient table.

``backprop_step(func, target_input_indexes, grad_outputs, grad_inputs, is_debug)`` runs the
backward of one function node and adds the gradients of its inputs to ``grad_inputs``, a dict
from input :class:`~chainlet.VariableNode` to the list of gradients found so far; with
``config.lazy_grad_sum`` off (the default) each list is summed as it grows. The scheduler in
:mod:`chainlet._backprop` uses the same step (``_backward_step``), so the checks on what a
backward returns are the same here and there.
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet import _config
from chainlet._backprop import _backward_step
from chainlet._grad_sum import sum_grads
from chainlet.variable import Variable


def _reduce(grad_list: list) -> Optional[Variable]:
    """Sum a list of gradients in place (leaving one entry) and return the sum, or ``None``."""
    if not grad_list:
        return None
    if len(grad_list) > 1:
        grad_list[:] = [sum_grads(grad_list)]
    return grad_list[0]


def backprop_step(func: Any, target_input_indexes: tuple, grad_outputs: tuple,
                  grad_inputs: dict, is_debug: bool) -> None:
    """Run ``func``'s backward for ``target_input_indexes`` and record the input gradients.

    Args:
        func: The :class:`~chainlet.FunctionNode` (its ``inputs`` are read).
        target_input_indexes: Indexes of the inputs that need a gradient.
        grad_outputs: Gradients of the outputs (Variables, arrays or ``None``).
        grad_inputs: ``{input node: [gradients]}``, updated in place.
        is_debug: Check the gradients for NaN and Inf.
    """
    gys = tuple(g if g is None or isinstance(g, Variable) else Variable(g, requires_grad=False)
                for g in grad_outputs)
    double = bool(_config.config.enable_backprop)
    nodes = func.inputs
    if func._has_backward_accumulate:
        # Only the first position of an input passed twice carries its gradients so far.
        seen: set = set()
        pending = []
        for i in target_input_indexes:
            node = nodes[i]
            pending.append(None if node in seen else _reduce(grad_inputs.get(node, [])))
            seen.add(node)
        gxs = _backward_step(func, target_input_indexes, gys, tuple(pending), double, is_debug)
        for i, gx in zip(target_input_indexes, gxs):
            # Update the caller's lists in place: they may hold references to them.
            grad_inputs.setdefault(nodes[i], [])[:] = [] if gx is None else [gx]
        return
    gxs = _backward_step(func, target_input_indexes, gys, None, double, is_debug)
    lazy = _config.config.lazy_grad_sum
    for i, gx in zip(target_input_indexes, gxs):
        if gx is None:
            continue
        lst = grad_inputs.setdefault(nodes[i], [])
        lst.append(gx)
        if not lazy:
            _reduce(lst)
