"""``keras.ops``: Keras 3's op namespace on chainlet (``from chainlet.keras import ops``).

The ops are laid out as in Keras: ``ops.numpy`` (NumPy-like maths and array manipulation),
``ops.nn`` (activations, convolution, pooling, losses, normalization), ``ops.math``,
``ops.core`` (conversion, casting, scatter/slice updates, control flow), ``ops.linalg``,
``ops.einops`` (``rearrange``) and ``ops.image``; all but ``image`` are also available directly
as ``ops.<name>``.

Every op works on three kinds of input (see :mod:`chainlet.keras.ops._dispatch`):

* **KerasTensors** -- the call is recorded in the functional graph (``ops.sum(x, axis=-1)``
  between layers of a ``keras.Model``) and replayed on data;
* **chainlet Variables** (what layers see in ``call``) -- the result is a Variable on the
  graph, so gradients flow through it;
* **arrays, numbers and lists** -- the result is a NumPy (or CuPy) array.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> from chainlet.keras import ops
    >>> inputs = keras.Input(shape=(3,))
    >>> outputs = ops.sum(keras.layers.Dense(4)(inputs), axis=-1)
    >>> keras.Model(inputs, outputs)(np.zeros((2, 3), np.float32)).shape
    (2,)
"""
from chainlet.keras.ops import core, einops, image, linalg, math, nn, numpy  # noqa: F401
from chainlet.keras.ops._dispatch import OpLayer  # noqa: F401
from chainlet.keras.ops.core import *  # noqa: F401,F403
from chainlet.keras.ops.einops import *  # noqa: F401,F403
from chainlet.keras.ops.linalg import *  # noqa: F401,F403
from chainlet.keras.ops.math import *  # noqa: F401,F403
from chainlet.keras.ops.nn import *  # noqa: F401,F403
from chainlet.keras.ops.numpy import *  # noqa: F401,F403
from chainlet.keras.ops.numpy import abs, all, any, max, min, round, sum  # noqa: F401
from chainlet.keras.ops.core import map, slice  # noqa: F401
