"""Small helpers shared by the loss functions (argument checks, constants)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import _config
from chainlet import backend
from chainlet import type_check
from chainlet.variable import as_array


class ArgumentValueError(type_check.InvalidType, ValueError):
    """A wrong argument that Chainer reports as ``ValueError`` and chainlet's convention as a
    ``TypeError`` (:class:`~chainlet.type_check.InvalidType`): it is both, so code written for
    either catches it."""


class UnknownOptionError(ValueError, NotImplementedError):
    """An unknown option value: a ``ValueError``, and also the ``NotImplementedError`` that
    Chainer raises for some of them (``hinge``'s ``norm``)."""


def check_reduce(func: str, reduce: Any, allowed: Sequence[str]) -> None:
    """Raise ``ValueError`` unless ``reduce`` is one of ``allowed``."""
    if not isinstance(reduce, str) or reduce not in allowed:
        names = ', '.join(repr(a) for a in allowed)
        raise ValueError(f'{func}: argument reduce: expected one of {names}, got {reduce!r}')


# The array of a Variable, or ``x`` itself.
data_of = as_array


def const(x: Any, value: Any) -> Any:
    """``value`` as an array of ``x``'s dtype on ``x``'s device (a constant operand)."""
    xp = backend.get_array_module(x)
    return xp.asarray(value, dtype=x.dtype)


def reduction_dtype(dtype: Any) -> Any:
    """Accumulate float16 sums in float32 (as Chainer does); other dtypes in themselves."""
    return numpy.float32 if dtype == numpy.float16 else dtype


def check_labels(func: str, t: Any, n_class: int, ignore_label: Optional[int] = None,
                 name: str = 't') -> None:
    """Raise ``ValueError`` unless every label is in ``[0, n_class)`` or is ``ignore_label``.

    The one label check of the classification losses: a label out of range must not be read
    as some class (``sigmoid_cross_entropy`` used to take 2, 99 and -5 for 0). On NumPy it
    always runs; on a GPU only in debug mode, since reading the verdict back costs a sync.

    Args:
        func: Public name of the loss, for the message.
        t: Integer label array.
        n_class: Number of classes (2 for binary labels).
        ignore_label: Label value that marks an instance to skip, or ``None``.
        name: Name of the argument, for the message.
    """
    xp = backend.get_array_module(t)
    if t.size == 0 or not (xp is numpy or _config.config.debug):
        return
    ok = (t >= 0) & (t < n_class)
    if ignore_label is not None:
        ok |= t == ignore_label
    if bool(ok.all()):
        return
    bad = sorted(set(t[~ok].ravel().tolist()))
    shown = ', '.join(str(b) for b in bad[:5]) + (', ...' if len(bad) > 5 else '')
    expected = 'labels 0 or 1' if n_class == 2 else f'labels in [0, {n_class})'
    if ignore_label is not None:
        expected += f' or ignore_label {ignore_label}'
    raise ValueError(f'{func}: argument {name}: expected {expected}, got {shown}')
