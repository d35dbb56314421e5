"""Chainer's module path for ``ceil`` (``chainer.functions.math.ceil``); the code is in
:mod:`.rounding`."""
from chainlet.functions.math.rounding import ceil  # noqa: F401
