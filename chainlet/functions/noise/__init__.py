"""Noise functions: dropout and random sampling."""
from chainlet.functions.noise.dropout import dropout  # noqa: F401
from chainlet.functions.noise.gaussian import gaussian  # noqa: F401
from chainlet.functions.noise.gumbel_softmax import gumbel_softmax  # noqa: F401
