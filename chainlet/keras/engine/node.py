"""``Node``: one call of a layer on symbolic tensors, wiring itself into the graph."""
from __future__ import annotations

from typing import Any, Optional, cast

from chainlet.keras.engine.keras_tensor import KerasHistory, KerasTensor
from chainlet.keras.engine.tree import flatten


class Node:
    """Records that ``layer`` was called with ``call_args``/``call_kwargs`` giving ``outputs``.

    Creating a Node appends it to ``layer._inbound_nodes``, to the ``_outbound_nodes`` of the
    layers that produced its symbolic inputs, and stamps each output with a
    ``KerasHistory(layer, node_index, tensor_index)``. Parent nodes are derived from the inputs'
    histories, never stored twice.
    """

    def __init__(self, layer: Any, call_args: tuple = (), call_kwargs: Optional[dict] = None,
                 outputs: Any = None) -> None:
        self.layer = layer
        self.call_args = tuple(call_args)
        self.call_kwargs = dict(call_kwargs or {})
        self.outputs = outputs
        self.output_tensors = [t for t in flatten(outputs) if isinstance(t, KerasTensor)]
        self.input_tensors = [t for t in flatten((self.call_args, self.call_kwargs))
                              if isinstance(t, KerasTensor)]
        layer._inbound_nodes.append(self)
        node_index = len(layer._inbound_nodes) - 1
        seen = set()
        for t in self.input_tensors:
            # a symbolic input comes from keras.Input or a layer call, which gave it a history
            parent = cast(KerasHistory, t._keras_history).layer
            if id(parent) not in seen:
                seen.add(id(parent))
                parent._outbound_nodes.append(self)
        for i, t in enumerate(self.output_tensors):
            t._keras_history = KerasHistory(layer, node_index, i)

    @property
    def is_input(self) -> bool:
        """True for the node of an InputLayer (it has no symbolic inputs)."""
        return not self.input_tensors

    @property
    def parent_nodes(self) -> list:
        """Nodes that produced this node's symbolic inputs (each once)."""
        nodes, seen = [], set()
        for t in self.input_tensors:
            layer, node_index, _ = cast(KerasHistory, t._keras_history)
            node = layer._inbound_nodes[node_index]
            if id(node) not in seen:
                seen.add(id(node))
                nodes.append(node)
        return nodes

    def __repr__(self) -> str:
        return (f'<Node of {self.layer.name!r}: {len(self.input_tensors)} input(s), '
                f'{len(self.output_tensors)} output(s)>')
