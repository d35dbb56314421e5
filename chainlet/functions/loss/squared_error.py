"""Chainer's module path for ``squared_error`` (chainlet defines it in ``math.squared_error``).

Only a re-export, so that imports by Chainer's module path work. chainlet computes
``squared_error`` with the ``squared_difference`` node, so ``SquaredError`` names that node.
"""
from chainlet.functions.math.squared_difference import SquaredDifference as SquaredError  # noqa
from chainlet.functions.math.squared_difference import squared_difference  # noqa: F401
from chainlet.functions.math.squared_error import squared_error  # noqa: F401
