"""``Functional``: the model ``keras.Model(inputs, outputs)`` returns (as Keras 3).

A functional model is a graph of layer calls recorded as Nodes (see
:mod:`chainlet.keras.engine.functional`); calling it replays them, deepest depth first, and
produces ordinary chainlet Variables and FunctionNodes. ``Model`` itself is the subclassing
API; ``Model.__new__`` hands ``Model(inputs=..., outputs=...)`` to this class, so
``isinstance(model, keras.Model)`` holds for both. ``Sequential`` borrows these methods once
its graph is built.
"""
from __future__ import annotations

import collections
from typing import Any, Optional

import chainlet.functions as F
from chainlet.keras.engine import functional
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_layer import InputLayer
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.engine.model import Model
from chainlet.keras.engine.tree import flatten, map_structure


class Functional(Model):
    """A model defined by its input and output tensors.

    Args:
        inputs: Input KerasTensor(s) (from ``keras.Input``): a tensor, a list or a dict.
        outputs: Output KerasTensor(s): a tensor, a list or a dict.
        name: Model name.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> inputs = keras.Input(shape=(3,))
        >>> model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
        >>> type(model).__name__, isinstance(model, keras.Model)
        ('Functional', True)
        >>> model.predict(np.zeros((4, 3)), verbose=0).shape
        (4, 2)
    """

    _is_graph_network = True

    # The graph, set by init_graph (input_names is declared on Trainer).
    _nested_inputs: Any  # the structure given as inputs=: a tensor, a list or a dict
    _nested_outputs: Any
    inputs: list
    outputs: list
    _nodes: list
    nodes_by_depth: dict
    layers_by_depth: dict
    _graph_layers: list
    output_names: list

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inputs = kwargs.pop('inputs', args[0] if args else None)
        outputs = kwargs.pop('outputs', args[1] if len(args) > 1 else None)
        if len(args) > 2:
            raise TypeError(f'Model: expected at most 2 positional arguments (inputs, outputs), '
                            f'got {len(args)}')
        if inputs is None or outputs is None:
            raise ValueError('Model: a functional model needs both inputs= and outputs=')
        Model.__init__(self, **kwargs)
        self._init_graph(inputs, outputs)

    @property
    def layers(self) -> list:
        """Layers in topological order (the InputLayers included)."""
        return list(self._graph_layers)

    @property
    def input_layers(self) -> list:
        return [t._keras_history.layer for t in self.inputs]

    @property
    def output_layers(self) -> list:
        return [t._keras_history.layer for t in self.outputs]

    @property
    def input(self) -> Any:
        """The input tensor(s), in the structure given to ``Model(inputs=)``."""
        return self._nested_inputs

    @property
    def output(self) -> Any:
        """The output tensor(s), in the structure given to ``Model(outputs=)``."""
        return self._nested_outputs

    @property
    def input_shape(self) -> Any:
        shapes = [t.shape for t in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        shapes = [t.shape for t in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        def copy(t: KerasTensor) -> KerasTensor:
            return KerasTensor(t.shape, t.dtype)
        return map_structure(copy, self._nested_outputs)

    def _flatten_call_inputs(self, inputs: Any) -> list:
        """The call's inputs in the order of ``self.inputs``: a dict is matched by the keys of
        a dict given as ``Model(inputs=)``, else by the Inputs' names (as Keras)."""
        if isinstance(inputs, dict):
            struct = getattr(self, '_nested_inputs', None)
            if isinstance(struct, dict) and all(k in inputs for k in struct):
                return [inputs[k] for k in sorted(struct)]  # flatten's order of the struct
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise ValueError(f'Model "{self.name}": missing input(s) {missing}; the model '
                                 f'inputs are {self.input_names}')
            return [inputs[n] for n in self.input_names]
        values = flatten(inputs)
        if len(values) != len(self.inputs):
            raise ValueError(f'Model "{self.name}" expects {len(self.inputs)} input(s), but it '
                             f'received {len(values)} input tensors')
        return values

    def _standardize_inputs(self, inputs: Any) -> list:
        """Keras's ``Functional._standardize_inputs``: the inputs flattened (see
        :meth:`_flatten_call_inputs`), converted to each Input's dtype, and of the Input's
        rank: one axis more whose size is 1 is squeezed, one axis less is added when the
        Input's last dimension is 1 (images without their channel axis)."""
        out: list = []
        for t, x in zip(self.inputs, self._flatten_call_inputs(inputs)):
            layer = t._keras_history.layer
            if x is None:
                if not getattr(layer, 'optional', False):
                    raise ValueError(f'Model "{self.name}": the input "{t.name}" is not '
                                     f'optional, but None was passed (create it with '
                                     f'keras.Input(..., optional=True) to allow None)')
                out.append(None)
                continue
            if isinstance(layer, Layer):
                x = layer._cast_input(x)
            adjust = _rank_adjustment(x, t.shape)
            if adjust == 'squeeze':
                x = _keep_mask(x, F.squeeze(x, -1))
            elif adjust == 'expand':
                x = _keep_mask(x, F.expand_dims(x, -1))
            out.append(x)
        return out

    def _check_spec(self, inputs: Any) -> None:
        for i, (t, x) in enumerate(zip(self.inputs, self._flatten_call_inputs(inputs))):
            if not hasattr(x, 'shape'):
                continue
            shape, want = tuple(x.shape), t.shape
            adjust = _rank_adjustment(x, want)
            if adjust == 'squeeze':
                shape = shape[:-1]
            elif adjust == 'expand':
                shape = shape + (1,)
            if len(shape) != len(want) or any(w is not None and w != s
                                              for w, s in zip(want, shape)):
                raise ValueError(f'Input {i} ("{t.name}") of model "{self.name}" is '
                                 f'incompatible: expected shape {want}, got '
                                 f'{tuple(x.shape)}')

    def call(self, inputs: Any, training: Optional[bool] = None, mask: Any = None) -> Any:
        values = Functional._standardize_inputs(self, inputs)

        def run_node(node: Any, args: Any, rest: tuple, kwargs: dict) -> Any:
            kwargs = dict(kwargs)
            kwargs.setdefault('training', training)
            return node.layer(args, *rest, **kwargs)
        return functional.run_graph(self.inputs, self._nested_outputs, self.nodes_by_depth,
                                    values, run_node)

    def build(self, input_shape: Any) -> None:
        self.built = True

    def get_config(self) -> dict:
        from chainlet.keras.engine import serialization
        return serialization.functional_config(self)


def _rank_adjustment(x: Any, want: tuple) -> Optional[str]:
    """``'squeeze'``, ``'expand'`` or ``None``: Keras's rule for an input one rank off its
    Input (``Functional._adjust_input_rank``)."""
    if not hasattr(x, 'shape'):
        return None
    rank = len(x.shape)
    if rank == len(want) + 1 and x.shape[-1] == 1:
        return 'squeeze'
    if rank == len(want) - 1 and want and want[-1] == 1:
        return 'expand'
    return None


def _keep_mask(old: Any, new: Any) -> Any:
    mask = getattr(old, '_keras_mask', None)
    if mask is not None:
        new._keras_mask = mask
    return new


def init_graph(model: Model, inputs: Any, outputs: Any) -> None:
    """Record the graph from ``inputs`` to ``outputs`` on ``model`` (a ``Functional``, or a
    ``Sequential`` building its graph)."""
    flat_inputs = flatten(inputs)
    flat_outputs = flatten(outputs)
    for i, t in enumerate(flat_inputs):
        if not isinstance(t, KerasTensor) or t._keras_history is None or \
                not isinstance(t._keras_history.layer, InputLayer):
            raise ValueError(f'Model "{model.name}": inputs must be tensors created by '
                             f'keras.Input(...); input {i} is {t!r}')
    nodes = functional.collect_nodes(flat_inputs, flat_outputs)
    nodes_by_depth, layers_by_depth = functional.assign_depths(nodes, flat_inputs)
    layers = functional.topological_layers(nodes_by_depth)
    for t in flat_inputs:  # unused inputs still belong to the model
        if t._keras_history.layer not in layers:
            layers.insert(0, t._keras_history.layer)
    counts = collections.Counter(layer.name for layer in layers)
    dup = [n for n, c in counts.items() if c > 1]
    if dup:
        raise ValueError(f'Model "{model.name}": the name "{dup[0]}" is used '
                         f'{counts[dup[0]]} times in the model. All layer names should be '
                         f'unique.')
    model._nested_inputs = inputs
    model._nested_outputs = outputs
    model.inputs = flat_inputs
    model.outputs = flat_outputs
    model._nodes = nodes
    model.nodes_by_depth = nodes_by_depth
    model.layers_by_depth = layers_by_depth
    model._graph_layers = layers
    model._is_graph_network = True
    model.input_names = [t._keras_history.layer.name for t in flat_inputs]
    model.output_names = [t._keras_history.layer.name for t in flat_outputs]
    sub = model._sublayers
    for layer in layers:
        sub[layer.name] = layer
    model.built = True


__all__ = ['Functional', 'init_graph']
