"""Chainer's module path for ``fix`` (``chainer.functions.math.fix``); the code is in
:mod:`.rounding`."""
from chainlet.functions.math.rounding import fix  # noqa: F401
