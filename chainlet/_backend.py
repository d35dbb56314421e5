"""Chainer's private ``chainer._backend`` module, under its name.

Chainer keeps the base class of its devices here, and libraries built on Chainer import it from
here (``from chainer._backend import Device`` in Chainer Chemistry), so chainlet serves the same
objects at the same place. New code should use :mod:`chainlet.backend`.

Example:
    >>> from chainlet._backend import Device
    >>> import chainlet
    >>> Device is chainlet.backend.Device
    True
    >>> isinstance(chainlet.get_device('@numpy'), Device)
    True
"""
from __future__ import annotations

from chainlet._devices import Device
from chainlet.backend import _convert_arrays


class _DummyContext:
    """A context manager that does nothing (a CPU device's ``create_context()``)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


_dummy_context = _DummyContext()

__all__ = ['Device', '_convert_arrays', '_dummy_context']
