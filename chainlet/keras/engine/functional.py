"""Building and running a functional graph: free functions used by ``Model``.

``collect_nodes`` walks back from the outputs through the tensors' histories and checks that the
graph is connected to the given inputs; ``assign_depths`` orders the nodes: a node's depth is at
least one more than the depth of every node that consumes its outputs, and the nodes of a shared
layer that do not depend on one another share the deepest depth of that layer. ``run_graph``
replays the nodes from the deepest depth to 0, calling each layer eagerly.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, cast

from chainlet.keras.engine.keras_tensor import KerasHistory, KerasTensor
from chainlet.keras.engine.node import Node
from chainlet.keras.engine.tree import flatten, map_structure


def _node_of(tensor: KerasTensor) -> Node:
    # Called on outputs checked by collect_nodes and on the inputs of their nodes: tensors
    # made by layers, which have a history.
    layer, node_index, _ = cast(KerasHistory, tensor._keras_history)
    return layer._inbound_nodes[node_index]


def collect_nodes(inputs: list, outputs: list) -> list:
    """Nodes needed to compute ``outputs`` from ``inputs``, parents before children.

    Raises:
        ValueError: An output depends on an input tensor that is not among ``inputs``
            ("Graph disconnected"), or an output is not a KerasTensor.
    """
    input_ids = {id(t) for t in inputs}
    for i, t in enumerate(outputs):
        if not isinstance(t, KerasTensor) or t._keras_history is None:
            raise ValueError(f'Model outputs must be KerasTensors produced by layers; output {i} '
                             f'is {type(t).__name__}')
    order: list = []
    state: dict = {}  # id(node) -> 1 visiting, 2 done
    for out in outputs:
        stack = [(out, False)]
        while stack:
            tensor, expanded = stack.pop()
            node = _node_of(tensor)
            key = id(node)
            if expanded:
                if state.get(key) != 2:
                    state[key] = 2
                    order.append(node)
                continue
            if state.get(key) == 2:
                continue
            if id(tensor) in input_ids:
                if state.get(key) != 2:
                    state[key] = 2
                    order.append(node)
                continue
            if node.is_input:
                given = ', '.join(repr(getattr(t, 'name', None)) for t in inputs)
                raise ValueError(
                    f'Graph disconnected: cannot obtain value for tensor {tensor.name!r} (the '
                    f'output of layer "{node.layer.name}"). It is needed to compute the outputs '
                    f'but is not one of the model inputs given: [{given}]')
            state[key] = 1
            stack.append((tensor, True))
            for parent in reversed(node.input_tensors):
                if state.get(id(_node_of(parent))) != 2:
                    stack.append((parent, False))
    return order


def assign_depths(nodes: list, inputs: Optional[list] = None) -> tuple[dict, dict]:
    """Depths of ``nodes`` (from :func:`collect_nodes`), grouped as Keras does.

    Args:
        nodes: Nodes, parents before children.
        inputs: Model input tensors; nodes producing them are not expanded further.

    Returns:
        ``(nodes_by_depth, layers_by_depth)``: dicts from depth (0 = the outputs) to lists of
        nodes and of layers; a layer appears once, at the deepest depth of its nodes.
    """
    input_ids = {id(t) for t in (inputs or [])}
    member = {id(n) for n in nodes}

    def parents(node: Node) -> list:
        if any(id(t) in input_ids for t in node.output_tensors):
            return []
        return [p for p in node.parent_nodes if id(p) in member]

    # ancestors of each node (for shared layers: nodes that feed one another cannot share a depth)
    ancestors: dict = {}
    for node in nodes:
        acc = set()
        for p in parents(node):
            acc.add(id(p))
            acc |= ancestors[id(p)]
        ancestors[id(node)] = acc

    depth = {id(n): 0 for n in nodes}
    by_layer: dict = {}
    for n in nodes:
        by_layer.setdefault(id(n.layer), []).append(n)
    changed = True
    while changed:
        changed = False
        for node in reversed(nodes):  # children before parents
            for p in parents(node):
                if depth[id(p)] < depth[id(node)] + 1:
                    depth[id(p)] = depth[id(node)] + 1
                    changed = True
        for group in by_layer.values():
            if len(group) < 2:
                continue
            deepest = max(depth[id(n)] for n in group)
            for n in group:
                related = any(id(m) in ancestors[id(n)] or id(n) in ancestors[id(m)]
                              for m in group if m is not n)
                if not related and depth[id(n)] < deepest:
                    depth[id(n)] = deepest
                    changed = True

    nodes_by_depth: dict = {}
    for n in nodes:
        nodes_by_depth.setdefault(depth[id(n)], []).append(n)
    layer_depth: dict = {}
    layers: dict = {}
    for n in nodes:
        key = id(n.layer)
        layers[key] = n.layer
        layer_depth[key] = max(layer_depth.get(key, 0), depth[id(n)])
    layers_by_depth: dict = {}
    for key, d in layer_depth.items():
        layers_by_depth.setdefault(d, []).append(layers[key])
    return nodes_by_depth, layers_by_depth


def run_graph(inputs: list, outputs: Any, nodes_by_depth: dict, values: list,
              call: Callable[[Node, Any, tuple, dict], Any]) -> Any:
    """Replay the graph: map ``values`` onto ``inputs`` and compute ``outputs``.

    Args:
        inputs: The model's input KerasTensors (flat).
        outputs: The model's output structure of KerasTensors.
        nodes_by_depth: From :func:`assign_depths`.
        values: Real values for ``inputs`` (same order).
        call: ``call(node, inputs, args, kwargs)`` runs the node's layer eagerly.
    """
    computed = {id(t): v for t, v in zip(inputs, values)}

    def substitute(x: Any) -> Any:
        if isinstance(x, KerasTensor):
            if id(x) not in computed:
                raise RuntimeError(f'internal error: tensor {x.name!r} has no value yet')
            return computed[id(x)]
        return x

    for d in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[d]:
            if node.is_input or all(id(t) in computed for t in node.output_tensors):
                continue
            args = map_structure(substitute, node.call_args)
            kwargs = map_structure(substitute, node.call_kwargs)
            result = call(node, args[0], tuple(args[1:]), kwargs)
            for t, v in zip(node.output_tensors, flatten(result)):
                computed[id(t)] = v
    return map_structure(substitute, outputs)


def topological_layers(nodes_by_depth: dict) -> list:
    """Layers from inputs to outputs (deepest depth first), each once, in first-use order."""
    out, seen = [], set()
    for d in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[d]:
            if id(node.layer) not in seen:
                seen.add(id(node.layer))
                out.append(node.layer)
    return out
