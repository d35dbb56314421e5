"""``chainerx`` as on a Chainer built without ChainerX: importable, and not available.

Chainer's own code, and the libraries built on it, import ``chainerx`` unconditionally and then
ask :func:`is_available`; ChainerX (Chainer's C++ array backend) is not part of chainlet, so this
is the package Chainer installs when ChainerX is not built.

Example:
    >>> import chainerx
    >>> chainerx.is_available()
    False
"""
from __future__ import annotations


class ndarray(object):
    """Stands for ChainerX's array type in ``isinstance`` checks; it cannot be created."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise RuntimeError('chainerx is not available.')


def is_available() -> bool:
    """``False``: ChainerX is not built (as Chainer without it)."""
    return False
