"""Chainer's old module path ``chainer.cuda``: the very module :mod:`chainlet.backends.cuda`.

``import chainlet.cuda``, ``from chainlet import cuda`` and ``chainlet.cuda`` all give that
module object: this file replaces itself in ``sys.modules`` while it is imported. Should a tool
load this file as a module of its own anyway (pytest's doctest collection does), every
attribute is still looked up in :mod:`chainlet.backends.cuda`.
"""
import sys
from typing import Any, List

from chainlet.backends import cuda as _cuda


def __getattr__(name: str) -> Any:
    return getattr(_cuda, name)


def __dir__() -> List[str]:
    return dir(_cuda)


sys.modules[__name__] = _cuda
