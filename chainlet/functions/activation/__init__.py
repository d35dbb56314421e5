"""Activation functions.

As in Chainer, the attributes of this package are its modules: ``chainlet.functions.activation.X``
is the module that defines the function ``X`` and its FunctionNode classes. The functions are
re-exported by :mod:`chainlet.functions` (from ``_exports``).
"""
from chainlet.functions.activation import celu  # noqa: F401
from chainlet.functions.activation import clipped_relu  # noqa: F401
from chainlet.functions.activation import crelu  # noqa: F401
from chainlet.functions.activation import elu  # noqa: F401
from chainlet.functions.activation import gelu  # noqa: F401
from chainlet.functions.activation import hard_sigmoid  # noqa: F401
from chainlet.functions.activation import leaky_relu  # noqa: F401
from chainlet.functions.activation import log_softmax  # noqa: F401
from chainlet.functions.activation import maxout  # noqa: F401
from chainlet.functions.activation import prelu  # noqa: F401
from chainlet.functions.activation import relu  # noqa: F401
from chainlet.functions.activation import relu6  # noqa: F401
from chainlet.functions.activation import rrelu  # noqa: F401
from chainlet.functions.activation import selu  # noqa: F401
from chainlet.functions.activation import sigmoid  # noqa: F401
from chainlet.functions.activation import softmax  # noqa: F401
from chainlet.functions.activation import softplus  # noqa: F401
from chainlet.functions.activation import swish  # noqa: F401
from chainlet.functions.activation import tanh  # noqa: F401
