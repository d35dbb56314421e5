"""Activation functions."""
from chainlet.functions.activation.sigmoid import sigmoid  # noqa: F401
from chainlet.functions.activation.tanh import tanh  # noqa: F401
