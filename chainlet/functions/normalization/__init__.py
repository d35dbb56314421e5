"""Normalization functions.

As in Chainer, the attributes of this package are its modules:
``chainlet.functions.normalization.X`` is the module that defines the function ``X`` and its
FunctionNode classes. The functions are
re-exported by :mod:`chainlet.functions` (from ``_exports``).
"""
from chainlet.functions.normalization import batch_normalization  # noqa: F401
from chainlet.functions.normalization import batch_renormalization  # noqa: F401
from chainlet.functions.normalization import decorrelated_batch_normalization  # noqa: F401
from chainlet.functions.normalization import group_normalization  # noqa: F401
from chainlet.functions.normalization import l2_normalization  # noqa: F401
from chainlet.functions.normalization import layer_normalization  # noqa: F401
from chainlet.functions.normalization import local_response_normalization  # noqa: F401
