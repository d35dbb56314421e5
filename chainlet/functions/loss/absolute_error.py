"""Chainer's module path for ``absolute_error`` (chainlet defines it in ``math.absolute_error``).

Only a re-export, so that ``from chainlet.functions.loss.absolute_error import absolute_error``
works as it does in Chainer.
"""
from chainlet.functions.math.absolute_error import AbsoluteError, absolute_error  # noqa: F401
