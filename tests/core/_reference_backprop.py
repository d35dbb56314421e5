"""A reference backward for the tests: plain recursion over the graph, no fast paths.

What the engine (``chainlet._backprop``) does with a heap on rank, a table of bare arrays,
``_backward_arrays``, ``backward_accumulate`` and retained-array shortcuts, this does the plainest
way: a recursive depth-first walk puts the functions in topological order, each function's
``backward(indexes, grad_outputs)`` gets Variables and returns Variables, and the gradients of a
value are added up with ``+`` as they arrive. Only for small test graphs (it recurses).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import chainlet
from chainlet.variable import Variable


def _topological(output_nodes: Sequence[Any]) -> list:
    """The functions that made ``output_nodes``, each after the creators of its inputs."""
    order: list = []
    seen: set = set()

    def visit(func: Any) -> None:
        if func in seen:
            return
        seen.add(func)
        for node in func.inputs:
            if node.creator_node is not None:
                visit(node.creator_node)
        order.append(func)

    for node in output_nodes:
        if node.creator_node is not None:
            visit(node.creator_node)
    return order


class ReferenceResult:
    """The gradients of the requested inputs (``None`` where none arrived) and the largest
    number of gradients added up for one value (``terms``: with at most two the sums are the
    engine's to the bit, since ``a + b == b + a``)."""

    def __init__(self, grads: list, terms: int) -> None:
        self.grads = grads
        self.terms = terms


def reference_grad(outputs: Sequence[Variable], inputs: Sequence[Variable],
                   grad_outputs: Sequence[Any],
                   enable_double_backprop: bool = False) -> ReferenceResult:
    """Gradients of ``outputs`` (seeded with ``grad_outputs``, arrays or Variables) with respect
    to ``inputs``; with ``enable_double_backprop`` the results carry a graph, as
    ``chainlet.grad(..., enable_double_backprop=True)`` gives."""
    grads: dict = {}  # VariableNode -> Variable (nodes hash by identity)
    counts: dict = {}

    def add(node: Any, g: Any) -> None:
        if not isinstance(g, Variable):
            g = Variable(g, requires_grad=False)
        counts[node] = counts.get(node, 0) + 1
        grads[node] = g if node not in grads else grads[node] + g

    with chainlet.using_config('enable_backprop', enable_double_backprop):
        for y, gy in zip(outputs, grad_outputs):
            add(y.node, gy)
        for func in reversed(_topological([y.node for y in outputs])):
            gys = []
            for ref in func.outputs:
                node: Optional[Any] = ref()
                gys.append(None if node is None else grads.get(node))
            inputs_of = func.inputs
            indexes = tuple(i for i, n in enumerate(inputs_of) if n.requires_grad)
            if all(g is None for g in gys) or not indexes:
                continue
            gxs = tuple(func.backward(indexes, tuple(gys)))
            if len(gxs) == len(inputs_of) != len(indexes):  # one per input: pick the targets
                gxs = tuple(gxs[i] for i in indexes)
            for i, gx in zip(indexes, gxs):
                if gx is not None:
                    add(inputs_of[i], gx)
    return ReferenceResult([grads.get(x.node) for x in inputs], max(counts.values(), default=0))
