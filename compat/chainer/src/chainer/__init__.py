"""Chainer's import name, served by chainlet.

``import chainer`` gives this module, whose attributes are chainlet's: ``chainer.Variable`` *is*
``chainlet.Variable``, and setting an attribute here sets it on chainlet (so a test that
monkeypatches ``chainer.config`` or ``chainer.functions.relu`` patches what chainlet's own code
uses). Every submodule ``chainer.X.Y`` is the module object ``chainlet.X.Y`` itself, found by an
import hook, so ``sys.modules['chainer.links'] is sys.modules['chainlet.links']``.

The one attribute of its own is ``__version__``: the Chainer API version implemented, which
libraries compare against (``chainer.__version__.split('.')[0] >= '5'``). chainlet's own version is
``chainlet.__version__``.

Example:
    >>> import chainer, chainlet
    >>> chainer.Variable is chainlet.Variable
    True
    >>> import chainer.functions as F
    >>> F is chainlet.functions
    True
    >>> chainer.__version__
    '7.8.1'
"""
import sys

import _chainer_compat

_chainer_compat.install(sys.modules[__name__])
