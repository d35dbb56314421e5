"""``Model``: a layer made of layers, with training methods; the subclassing API.

``keras.Model(inputs, outputs)`` returns a :class:`~chainlet.keras.engine.functional_model.
Functional` (``Model.__new__`` hands it over, as Keras 3 does), which holds everything about
the recorded graph; ``Model`` itself is what ``class MyModel(keras.Model)`` extends. Training
methods (``compile``, ``fit``, ...) come from :class:`~chainlet.keras.trainers.Trainer`.
"""
from __future__ import annotations

from typing import Any, Optional, cast

from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.trainers.trainer import Trainer

_functional_variants: dict = {}


def _functional_args(args: tuple, kwargs: dict) -> bool:
    """Whether a ``Model(...)`` call gives a graph: ``(inputs, outputs)`` positionally or
    by keyword."""
    return len(args) == 2 or (len(args) == 1 and 'outputs' in kwargs) or \
        ('inputs' in kwargs and 'outputs' in kwargs)


def _functional_variant(cls: type) -> type:
    """``cls`` with ``Functional`` mixed in under it: a subclass of ``Model`` whose
    ``__init__`` passes ``inputs``/``outputs`` to ``super().__init__`` (Keras 3 accepts that
    pattern; the subclass's own methods still come first)."""
    from chainlet.keras.engine.functional_model import Functional
    if issubclass(cls, Functional):
        return cls
    variant = _functional_variants.get(cls)
    if variant is None:
        variant = type(cls.__name__, (cls, Functional),
                       {'__module__': cls.__module__, '__qualname__': cls.__qualname__,
                        '_functional_base': cls})
        _functional_variants[cls] = variant
    return variant


class Model(Trainer, Layer):
    """A Layer made of layers, with training methods.

    Functional use (returns a ``Functional``, still a ``Model``)::

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

    _is_graph_network = False

    def __new__(cls, *args: Any, **kwargs: Any) -> 'Model':
        if cls is Model and _functional_args(args, kwargs):
            from chainlet.keras.engine.functional_model import Functional
            cls = Functional
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _functional_args(args, kwargs):
            # A subclass calling super().__init__(inputs, outputs): it becomes functional.
            from chainlet.keras.engine.functional_model import Functional
            self.__class__ = _functional_variant(type(self))
            # self is now an instance of a Functional subclass (its class was just replaced)
            Functional.__init__(cast(Functional, self), *args, **kwargs)
            return
        if len(args) > 2:
            raise TypeError(f'Model: expected at most 2 positional arguments (inputs, outputs), '
                            f'got {len(args)}')
        if args or 'inputs' in kwargs or 'outputs' in kwargs:
            raise ValueError('Model: a functional model needs both inputs= and outputs=')
        layer_kwargs = {k: kwargs.pop(k) for k in list(kwargs)
                        if k in ('name', 'trainable', 'dtype')}
        Layer.__init__(self, **layer_kwargs)
        if kwargs:
            raise TypeError(f'Model: unexpected keyword argument(s) {sorted(kwargs)}')
        Trainer.__init__(self)

    def _init_graph(self, inputs: Any, outputs: Any) -> None:
        from chainlet.keras.engine.functional_model import init_graph
        init_graph(self, inputs, outputs)

    @property
    def layers(self) -> list:
        """The layers assigned as attributes (in assignment order)."""
        return [layer for _, layer in self._child_items() if isinstance(layer, Layer)]

    def _not_functional(self, what: str) -> AttributeError:
        return AttributeError(f'Model "{self.name}" is not a functional model (it has no '
                              f'graph), so it has no {what}')

    @property
    def input_layers(self) -> list:
        raise self._not_functional('input_layers')

    @property
    def output_layers(self) -> list:
        raise self._not_functional('output_layers')

    @property
    def input_shape(self) -> Any:
        raise self._not_functional('input_shape')

    @property
    def output_shape(self) -> Any:
        raise self._not_functional('output_shape')

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

    def call(self, inputs: Any, training: Optional[bool] = None, mask: Any = None) -> Any:
        raise NotImplementedError(f'Model "{self.name}": a subclassed model must define '
                                  f'call(self, inputs, training=None)')

    def build(self, input_shape: Any) -> None:
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

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> 'Model':
        if 'layers' in config:
            from chainlet.keras.engine import serialization
            return serialization.functional_from_config(cls, config, custom_objects)
        return cls(**config)

    def __repr__(self) -> str:
        return f'<{type(self).__name__} name={self.name}, built={self.built}>'
