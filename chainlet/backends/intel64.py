"""Chainer's ``chainer.backends.intel64`` (iDeep), which chainlet does not have.

Everything reports iDeep as unavailable, the way Chainer does on a machine without
``ideep4py``: :func:`is_ideep_available`, :func:`should_use_ideep` and :func:`inputs_all_ready`
answer False, :func:`check_ideep_available` and :class:`Intel64Device` raise ``RuntimeError``,
``ideep`` is ``None`` and ``mdarray`` is a class no array belongs to. Code written for Chainer
therefore takes its NumPy path. ``config.use_ideep`` is accepted and has no effect.

Example:
    >>> import numpy as np
    >>> from chainlet.backends import intel64
    >>> intel64.is_ideep_available(), intel64.should_use_ideep('>=auto')
    (False, False)
    >>> isinstance(np.zeros(1), intel64.mdarray), intel64.Intel64Device.from_array(np.zeros(1))
    (False, None)
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet._devices import Device

ideep = None
_ideep_version = None
_SHOULD_USE_LEVELS = ('==always', '>=auto')


class mdarray:
    """Stands for ``ideep4py.mdarray``: no object is an instance of it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        check_ideep_available()


def is_ideep_available() -> bool:
    """False: iDeep is not part of chainlet."""
    return False


def check_ideep_available() -> None:
    """Raise ``RuntimeError``: iDeep is not available."""
    raise RuntimeError('iDeep is not available.\nReason: chainlet does not support iDeep '
                       '(ideep4py); NumPy is used on the CPU')


def should_use_ideep(level: str) -> bool:
    """Whether to call iDeep: always False (``level`` is still checked).

    Raises:
        ValueError: ``level`` is not ``'==always'`` or ``'>=auto'``.
    """
    if level not in _SHOULD_USE_LEVELS:
        raise ValueError(f'should_use_ideep: invalid iDeep use level {level!r} (expected '
                         f'"==always" or ">=auto")')
    return False


def inputs_all_ready(inputs: Sequence[Any], supported_ndim: tuple = (2, 4)) -> bool:
    """Whether ``inputs`` can go to an iDeep primitive: always False."""
    return False


class Intel64Device(Device):
    """Chainer's device for iDeep. Creating one raises ``RuntimeError``; :meth:`from_array`
    answers ``None`` for every array."""

    name = '@intel64'
    xp = numpy  # type: ignore[assignment]
    supported_array_types = (numpy.ndarray, mdarray)  # type: ignore[assignment]

    def __init__(self) -> None:
        check_ideep_available()

    @staticmethod
    def from_array(array: Any) -> None:
        """``None``: no array lives on an iDeep device here."""
        return None

    def __repr__(self) -> str:
        return '<Intel64Device>'
