"""Chainer's module path for ``floor`` (``chainer.functions.math.floor``); the code is in
:mod:`.rounding`."""
from chainlet.functions.math.rounding import floor  # noqa: F401
