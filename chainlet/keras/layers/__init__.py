"""Keras layers (``from chainlet.keras import layers``)."""
from chainlet.keras.engine.base_layer import Layer  # noqa: F401
from chainlet.keras.engine.input_layer import Input, InputLayer  # noqa: F401
from chainlet.keras.engine.input_spec import InputSpec  # noqa: F401
from chainlet.keras.layers.dense import Dense  # noqa: F401
from chainlet.keras.layers.operation import Operation  # noqa: F401
