"""Small helpers shared by the loss functions (argument checks, constants)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.variable import as_array


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
                 name: str = 't') -> bool:
    """The losses' label check: :func:`chainlet.type_check.labels_in_range` (one rule for all).

    Returns whether every label was seen to be a class (none ignored)."""
    return type_check.labels_in_range(func, name, t, n_class, ignore_label)
