"""Loss functions."""
from chainlet.functions.loss.softmax_cross_entropy import softmax_cross_entropy  # noqa: F401
