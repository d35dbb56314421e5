"""A Keras-like facade on chainlet: ``from chainlet import keras``.

Calling layers on ``keras.Input`` tensors records a graph; ``keras.Model(inputs, outputs)``
replays it on data, producing ordinary chainlet Variables and FunctionNodes, so training uses
``Variable.backward()`` and chainlet optimizers.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> inputs = keras.Input(shape=(3,))
    >>> x = keras.layers.Dense(4, activation='relu')(inputs)
    >>> outputs = keras.layers.Dense(5, activation='softmax')(x)
    >>> model = keras.Model(inputs=inputs, outputs=outputs)
    >>> model(np.zeros((2, 3), np.float32)).shape
    (2, 5)
"""
from chainlet.keras import config  # noqa: F401
from chainlet.keras.config import DTypePolicy  # noqa: F401
from chainlet.keras import activations, constraints, initializers, layers  # noqa: F401
from chainlet.keras import regularizers  # noqa: F401
from chainlet.keras.engine.base_layer import Layer  # noqa: F401
from chainlet.keras.engine.input_layer import Input, InputLayer  # noqa: F401
from chainlet.keras.engine.input_spec import InputSpec  # noqa: F401
from chainlet.keras.engine.keras_tensor import KerasHistory, KerasTensor  # noqa: F401
from chainlet.keras.engine.model import Model  # noqa: F401
from chainlet.keras.engine.node import Node  # noqa: F401
from chainlet.keras.engine.sequential import Sequential  # noqa: F401
from chainlet.keras.engine.variables import KerasVariable as Variable  # noqa: F401
from chainlet.keras import backend, callbacks, losses, metrics, models  # noqa: F401,E402
from chainlet.keras import optimizers, utils  # noqa: F401,E402
from chainlet.keras import ops, random  # noqa: F401,E402
from chainlet.keras import saving  # noqa: F401,E402
from chainlet.keras import tree  # noqa: F401,E402
from chainlet.keras import preprocessing  # noqa: F401,E402
from chainlet.keras import datasets  # noqa: F401,E402
from chainlet.keras import applications  # noqa: F401,E402
from chainlet.keras.scopes import device, name_scope, version  # noqa: F401,E402
from chainlet.keras.config import DTypePolicy as FloatDTypePolicy  # noqa: F401,E402
from chainlet.keras.initializers import Initializer  # noqa: F401,E402
from chainlet.keras.layers.operation import Operation  # noqa: F401,E402
from chainlet.keras.losses import Loss  # noqa: F401,E402
from chainlet.keras.metrics import Metric  # noqa: F401,E402
from chainlet.keras.optimizers import Optimizer  # noqa: F401,E402
from chainlet.keras.regularizers import Regularizer  # noqa: F401,E402
from chainlet.keras import dtype_policies, mixed_precision  # noqa: F401,E402
