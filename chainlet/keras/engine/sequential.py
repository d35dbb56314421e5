"""``Sequential``: a stack of single-input, single-output layers."""
from __future__ import annotations

from typing import Any, Optional, Sequence, cast

from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.functional_model import Functional
from chainlet.keras.engine.input_layer import InputLayer
from chainlet.keras.engine.keras_tensor import KerasHistory, KerasTensor
from chainlet.keras.engine.model import Model


def _graph_or_model(name: str) -> property:
    """A property read from ``Functional`` once the graph is built, else from ``Model``."""
    def fget(self: 'Sequential') -> Any:
        owner = Functional if self._is_graph_network else Model
        return getattr(owner, name).fget(self)
    return property(fget, doc=getattr(Functional, name).__doc__)


class Sequential(Model):
    """A linear stack of layers.

    Layers can be given to the constructor or added with :meth:`add`; the input shape comes from a
    leading ``keras.Input``/``InputLayer`` or an ``input_shape=`` argument of the first layer, or
    from the first batch of data.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> model = keras.Sequential([keras.Input(shape=(3,)),
        ...                           keras.layers.Dense(4, activation='relu'),
        ...                           keras.layers.Dense(2)])
        >>> model.output_shape
        (None, 2)
        >>> model.predict(np.zeros((5, 3)), verbose=0).shape
        (5, 2)
    """

    # Set through __dict__ by __init__ and _build_graph; declared for mypy.
    _stack: list  # the layers as added (a leading InputLayer included)
    _graph_nodes: list  # the nodes recorded by the last graph build
    # Set by init_graph once the graph is built (see Functional, whose methods are borrowed).
    inputs: list
    _graph_layers: list

    def __init__(self, layers: Optional[Sequence[Any]] = None, name: Optional[str] = None,
                 trainable: bool = True) -> None:
        super().__init__(name=name, trainable=trainable)
        self.__dict__['_stack'] = []
        self.__dict__['_graph_nodes'] = []
        for layer in layers or ():
            self.add(layer, rebuild=False)
        self._maybe_rebuild()

    def add(self, layer: Any, rebuild: bool = True) -> None:
        """Append a layer (or a ``keras.Input`` tensor, only as the first element)."""
        if isinstance(layer, KerasTensor):
            # a keras.Input tensor: its history points at its InputLayer
            layer = cast(KerasHistory, layer._keras_history).layer
        if not isinstance(layer, Layer):
            raise TypeError(f'Sequential.add: expected a keras Layer, got {type(layer).__name__}')
        if isinstance(layer, InputLayer) and self._stack:
            raise ValueError(f'Sequential "{self.name}": an InputLayer can only be the first '
                             f'layer')
        if any(existing.name == layer.name for existing in self._stack):
            raise ValueError(f'Sequential "{self.name}": all layers added to a Sequential model '
                             f'should have unique names; "{layer.name}" is already used')
        self._stack.append(layer)
        self.__dict__['_sublayers'][layer.name] = layer
        if rebuild:
            self._maybe_rebuild()

    def pop(self, rebuild: bool = True) -> Layer:
        """Remove and return the last layer; ``rebuild=False`` leaves the graph to be rebuilt
        later (as :meth:`add`'s)."""
        layers = self.layers
        if not layers:
            raise TypeError(f'Sequential "{self.name}": there are no layers to pop')
        layer = layers[-1]
        self._stack.remove(layer)
        self.__dict__['_sublayers'].pop(layer.name, None)
        if rebuild:
            self._maybe_rebuild()
        return layer

    @property
    def layers(self) -> list:
        """The layers, without the InputLayer."""
        return [layer for layer in self._stack if not isinstance(layer, InputLayer)]

    def _input_batch_shape(self) -> Optional[tuple]:
        if not self._stack:
            return None
        first = self._stack[0]
        if isinstance(first, InputLayer):
            return first.batch_shape
        return first._batch_input_shape

    def _forget_graph(self) -> None:
        # Nodes of an earlier build are removed so that layers do not look shared.
        for node in self._graph_nodes:
            layer = node.layer
            if node in layer._inbound_nodes:
                layer._inbound_nodes.remove(node)
            for other in layer._inbound_nodes:  # re-stamp histories after the removal
                index = layer._inbound_nodes.index(other)
                for i, t in enumerate(other.output_tensors):
                    t._keras_history = t._keras_history._replace(node_index=index,
                                                                 tensor_index=i)
            for parent_t in node.input_tensors:
                parent = parent_t._keras_history.layer
                if node in parent._outbound_nodes:
                    parent._outbound_nodes.remove(node)
        self.__dict__['_graph_nodes'] = []
        self.__dict__['_is_graph_network'] = False

    def _maybe_rebuild(self) -> None:
        shape = self._input_batch_shape()
        if shape is None or not self.layers:
            return
        self._build_graph(shape)

    def _build_graph(self, batch_shape: tuple) -> None:
        from chainlet.keras.engine.input_layer import Input
        self._forget_graph()
        first = self._stack[0]
        if isinstance(first, InputLayer):
            inputs = first._input_tensor
        else:
            inputs = Input(batch_shape=batch_shape, dtype=first.dtype,
                           name=f'{self.name}_input')
        before = {id(layer): len(layer._inbound_nodes) for layer in self.layers}
        x = inputs
        for layer in self.layers:
            x = layer(x)
        self.__dict__['_graph_nodes'] = [
            node for layer in self.layers for node in layer._inbound_nodes[before[id(layer)]:]]
        sub = dict(self.__dict__['_sublayers'])
        self._init_graph(inputs, x)
        # keep the children registry in stack order, without the InputLayer
        self.__dict__['_sublayers'].clear()
        self.__dict__['_sublayers'].update((k, v) for k, v in sub.items())
        if not isinstance(first, InputLayer):
            self.__dict__['_graph_layers'] = [layer for layer in self._graph_layers
                                              if not isinstance(layer, InputLayer)]

    def build(self, input_shape: Any = None) -> None:
        """Build with ``input_shape`` (including the batch dimension, which may be ``None``)."""
        if input_shape is None:
            input_shape = self._input_batch_shape()
        if input_shape is None:
            raise ValueError(f'Sequential "{self.name}": cannot build without an input shape; '
                             f'give input_shape= to the first layer or call the model on data')
        self._build_graph(tuple(input_shape))

    def _maybe_build(self, input_shape: Any) -> None:
        if not self._is_graph_network and self.layers and isinstance(input_shape, tuple):
            self._build_graph((None,) + tuple(input_shape[1:]))
        self.built = True

    def call(self, inputs: Any, training: Optional[bool] = None, mask: Any = None) -> Any:
        if self._is_graph_network:
            # Functional's methods borrowed: once its graph is built, a Sequential has every
            # attribute they read (init_graph set them), though it is not a Functional.
            return Functional.call(cast(Functional, self), inputs, training=training)
        x = inputs
        for layer in self.layers:
            x = layer(x, training=training)
        return x

    def _check_spec(self, inputs: Any) -> None:
        if self._is_graph_network:
            Functional._check_spec(cast(Functional, self), inputs)  # borrowed, as in call

    # Once its graph is built, a Sequential answers as a functional model.
    input = _graph_or_model('input')
    output = _graph_or_model('output')
    input_shape = _graph_or_model('input_shape')
    output_shape = _graph_or_model('output_shape')
    input_layers = _graph_or_model('input_layers')
    output_layers = _graph_or_model('output_layers')

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        owner = Functional if self._is_graph_network else Model
        return owner.compute_output_spec(self, inputs, *args, **kwargs)

    def _flatten_call_inputs(self, inputs: Any) -> list:
        return Functional._flatten_call_inputs(cast(Functional, self), inputs)  # as in call

    def get_config(self) -> dict:
        from chainlet.keras.engine import serialization
        return {'name': self.name, 'trainable': self.trainable,
                'layers': [serialization.serialize_layer(layer) for layer in self._stack]}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> 'Sequential':
        from chainlet.keras.engine import serialization
        layers = [serialization.deserialize_layer(c, custom_objects) for c in config['layers']]
        return cls(layers, name=config.get('name'), trainable=config.get('trainable', True))
