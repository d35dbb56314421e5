"""Differentiable functions, grouped by family (``import chainlet.functions as F``).

Each family is a subpackage (``math``, ``activation``, ``array``, ``connection``, ``pooling``,
``normalization``, ``noise``, ``loss``, ``evaluation``, ``rnn``) with one function per module;
this package re-exports every public function under Chainer's names.

Example:
    >>> import numpy as np, chainlet.functions as F
    >>> F.tanh(np.zeros(2, np.float32)).array
    array([0., 0.], dtype=float32)
"""
from chainlet.functions.math._exports import *  # noqa: F401,F403
from chainlet.functions.activation._exports import *  # noqa: F401,F403
from chainlet.functions.array._exports import *  # noqa: F401,F403
from chainlet.functions.connection._exports import *  # noqa: F401,F403
from chainlet.functions.pooling._exports import *  # noqa: F401,F403
from chainlet.functions.normalization._exports import *  # noqa: F401,F403
from chainlet.functions.noise._exports import *  # noqa: F401,F403
from chainlet.functions.loss._exports import *  # noqa: F401,F403
from chainlet.functions.evaluation._exports import *  # noqa: F401,F403
from chainlet.functions.rnn._exports import *  # noqa: F401,F403
from chainlet.functions.util._exports import *  # noqa: F401,F403
