"""Utility functions that wrap other functions (``forget``).

As in Chainer, the attributes of this package are its modules: ``chainlet.functions.util.X``
is the module that defines the function ``X`` and its FunctionNode classes. The functions are
re-exported by :mod:`chainlet.functions` (from ``_exports``).
"""
from chainlet.functions.util import forget  # noqa: F401
