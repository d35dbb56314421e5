"""``Model``: functional (``Model(inputs, outputs)``) or subclassed (``class M(Model)``).

A functional model is a graph of layer calls recorded as Nodes; calling the model replays them
(deepest depth first) and produces ordinary chainlet Variables and FunctionNodes. Training methods
(``compile``, ``fit``, ...) come from :class:`~chainlet.keras.trainers.Trainer`.
"""
from __future__ import annotations

import collections
from typing import Any, Optional

from chainlet.keras.engine import functional
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_layer import InputLayer
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.trainers.trainer import Trainer
from chainlet.keras.engine.tree import flatten, map_structure


class Model(Trainer, Layer):
    """A Layer made of layers, with training methods.

    Functional use::

        inputs = keras.Input(shape=(3,))
        x = keras.layers.Dense(4, activation='relu')(inputs)
        outputs = keras.layers.Dense(5, activation='softmax')(x)
        model = keras.Model(inputs=inputs, outputs=outputs)

    Subclassed use: define layers in ``__init__`` and the computation in ``call``.

    Args:
        inputs: Input KerasTensor(s) (from ``keras.Input``): a tensor, a list or a dict.
        outputs: Output KerasTensor(s): a tensor, a list or a dict.
        name: Model name.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inputs = kwargs.pop('inputs', args[0] if args else None)
        outputs = kwargs.pop('outputs', args[1] if len(args) > 1 else None)
        if len(args) > 2:
            raise TypeError(f'Model: expected at most 2 positional arguments (inputs, outputs), '
                            f'got {len(args)}')
        layer_kwargs = {k: kwargs.pop(k) for k in list(kwargs)
                        if k in ('name', 'trainable', 'dtype')}
        Layer.__init__(self, **layer_kwargs)
        if kwargs:
            raise TypeError(f'Model: unexpected keyword argument(s) {sorted(kwargs)}')
        self.__dict__['_is_graph_network'] = False
        Trainer.__init__(self)
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError('Model: a functional model needs both inputs= and outputs=')
            self._init_graph(inputs, outputs)

    # -- functional graph --

    def _init_graph(self, inputs: Any, outputs: Any) -> None:
        d = self.__dict__
        flat_inputs = flatten(inputs)
        flat_outputs = flatten(outputs)
        for i, t in enumerate(flat_inputs):
            if not isinstance(t, KerasTensor) or t._keras_history is None or \
                    not isinstance(t._keras_history.layer, InputLayer):
                raise ValueError(f'Model "{self.name}": inputs must be tensors created by '
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
            raise ValueError(f'Model "{self.name}": the name "{dup[0]}" is used '
                             f'{counts[dup[0]]} times in the model. All layer names should be '
                             f'unique.')
        d['_nested_inputs'] = inputs
        d['_nested_outputs'] = outputs
        d['inputs'] = flat_inputs
        d['outputs'] = flat_outputs
        d['_nodes'] = nodes
        d['nodes_by_depth'] = nodes_by_depth
        d['layers_by_depth'] = layers_by_depth
        d['_graph_layers'] = layers
        d['_is_graph_network'] = True
        d['input_names'] = [t._keras_history.layer.name for t in flat_inputs]
        d['output_names'] = [t._keras_history.layer.name for t in flat_outputs]
        sub = d['_sublayers']
        for layer in layers:
            sub[layer.name] = layer
        self.built = True

    @property
    def layers(self) -> list:
        """Layers in topological order (a functional model includes its InputLayers)."""
        if self._is_graph_network:
            return list(self._graph_layers)
        return [layer for _, layer in self._child_items() if isinstance(layer, Layer)]

    @property
    def input_layers(self) -> list:
        return [t._keras_history.layer for t in self._graph('input_layers').inputs]

    @property
    def output_layers(self) -> list:
        return [t._keras_history.layer for t in self._graph('output_layers').outputs]

    def _graph(self, what: str) -> 'Model':
        if not self._is_graph_network:
            raise AttributeError(f'Model "{self.name}" is not a functional model (it has no '
                                 f'graph), so it has no {what}')
        return self

    @property
    def input(self) -> Any:
        """A functional model's input tensor(s), in the structure given to ``Model(inputs=)``."""
        if self._is_graph_network:
            return self._nested_inputs
        return Layer.input.fget(self)

    @property
    def output(self) -> Any:
        """A functional model's output tensor(s), in the structure given to ``Model(outputs=)``."""
        if self._is_graph_network:
            return self._nested_outputs
        return Layer.output.fget(self)

    @property
    def input_shape(self) -> Any:
        shapes = [t.shape for t in self._graph('input_shape').inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        shapes = [t.shape for t in self._graph('output_shape').outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def get_layer(self, name: Optional[str] = None, index: Optional[int] = None) -> Layer:
        """A layer by name or by index in :attr:`layers`."""
        if (name is None) == (index is None):
            raise ValueError('get_layer: provide exactly one of name= or index=')
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(f'get_layer: index {index} is out of range: the model has '
                                 f'{len(layers)} layers')
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(f'No such layer: {name}. Existing layers are: '
                         f'{[layer.name for layer in layers]}.')

    # -- calling --

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if self._is_graph_network:
            def copy(t: KerasTensor) -> KerasTensor:
                return KerasTensor(t.shape, t.dtype)
            return map_structure(copy, self._nested_outputs)
        return super().compute_output_spec(inputs, *args, **kwargs)

    def _flatten_call_inputs(self, inputs: Any) -> list:
        if isinstance(inputs, dict):
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

    def _check_spec(self, inputs: Any) -> None:
        if not self._is_graph_network:
            return super()._check_spec(inputs)
        for i, (t, x) in enumerate(zip(self.inputs, self._flatten_call_inputs(inputs))):
            if not hasattr(x, 'shape'):
                continue
            shape = tuple(x.shape)
            want = t.shape
            if len(shape) != len(want) or any(w is not None and w != s
                                              for w, s in zip(want, shape)):
                raise ValueError(f'Input {i} of model "{self.name}" is incompatible: expected '
                                 f'shape {want}, got {shape}')

    def _input_shapes(self, inputs: Any) -> Any:
        return super()._input_shapes(inputs)

    def call(self, inputs: Any, training: Optional[bool] = None, mask: Any = None) -> Any:
        if not self._is_graph_network:
            raise NotImplementedError(f'Model "{self.name}": a subclassed model must define '
                                      f'call(self, inputs, training=None)')
        values = [layer._cast_input(x) if isinstance(layer := t._keras_history.layer, Layer)
                  else x for t, x in zip(self.inputs, self._flatten_call_inputs(inputs))]

        def run_node(node: Any, args: Any, rest: tuple, kwargs: dict) -> Any:
            kwargs = dict(kwargs)
            kwargs.setdefault('training', training)
            return node.layer(args, *rest, **kwargs)
        return functional.run_graph(self.inputs, self._nested_outputs, self.nodes_by_depth,
                                    values, run_node)

    def build(self, input_shape: Any) -> None:
        if self._is_graph_network:
            self.built = True
            return
        # A subclassed model builds its layers by running call once on zeros.
        import numpy
        import chainlet
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        zeros = [numpy.zeros(tuple(2 if s is None else s for s in shape), numpy.float32)
                 for shape in shapes]
        self.built = True
        with chainlet.no_backprop_mode():
            self(zeros[0] if len(zeros) == 1 else zeros)

    def _maybe_build(self, input_shape: Any) -> None:
        # Subclassed models are built by their first call (their layers build themselves).
        self.built = True

    def get_config(self) -> dict:
        if not self._is_graph_network:
            return Layer.get_config(self)
        from chainlet.keras.engine import serialization
        return serialization.functional_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> 'Model':
        if 'layers' in config:
            from chainlet.keras.engine import serialization
            return serialization.functional_from_config(cls, config, custom_objects)
        return cls(**config)

    def __repr__(self) -> str:
        return f'<{type(self).__name__} name={self.name}, built={self.built}>'
