"""Noise functions: dropout and random sampling.

As in Chainer, the attributes of this package are its modules: ``chainlet.functions.noise.X``
is the module that defines the function ``X`` and its FunctionNode classes. The functions are
re-exported by :mod:`chainlet.functions` (from ``_exports``).
"""
from chainlet.functions.noise import dropout  # noqa: F401
from chainlet.functions.noise import gaussian  # noqa: F401
from chainlet.functions.noise import gumbel_softmax  # noqa: F401
from chainlet.functions.noise import simplified_dropconnect  # noqa: F401
from chainlet.functions.noise import zoneout  # noqa: F401
