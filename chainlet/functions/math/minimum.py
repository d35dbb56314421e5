"""Chainer's module path for ``minimum`` (``chainer.functions.math.minimum``); the code is in
:mod:`.maximum`, which shares one node class between the two."""
from chainlet.functions.math.maximum import Minimum, minimum  # noqa: F401
