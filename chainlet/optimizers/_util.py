"""Small helpers shared by the update rules."""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy


def check_eps(where: str, eps: float, dtype: Any) -> None:
    """Raise ``ValueError`` when a nonzero ``eps`` rounds to zero in the float ``dtype`` the
    update computes in (float32 for float16 parameters of the adaptive rules)."""
    dtype = numpy.dtype(dtype)
    if eps != 0 and dtype.kind == 'f' and dtype.type(eps) == 0:
        raise ValueError(f'{where}: hyperparameter eps={eps} underflows to 0 in {dtype}; use a '
                         f'larger eps')


def check_range(where: str, name: str, value: Any, low: float, high: float = math.inf,
                high_open: bool = False) -> None:
    """Raise unless ``value`` is a real number in ``[low, high]`` (``[low, high)`` if open).

    ``TypeError`` names a value that is not a real number (``bool`` included), ``ValueError``
    one out of range; both messages name ``where`` (the class) and the argument.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f'{where}: argument {name}: expected a real number, got '
                        f'{type(value).__name__}')
    real: Any = value  # numbers.Real declares no comparisons; every real number has them
    above = real >= high if high_open else real > high
    if not real >= low or above:  # `not >=` also catches NaN
        bracket = ')' if high_open or high == math.inf else ']'
        raise ValueError(f'{where}: argument {name}: expected a value in [{low}, {high}'
                         f'{bracket}, got {value}')


def update_moments(xp: Any, grad: Any, m: Any, v: Any, beta1: float, beta2: float) -> Any:
    """``m += (1 - beta1) (g - m)`` and ``v += (1 - beta2) (g^2 - v)`` in place (Adam's and
    MSVAG's running moments); returns the scratch array, free for the caller to reuse."""
    tmp = xp.subtract(grad, m, out=xp.empty_like(m))
    tmp *= 1.0 - beta1
    m += tmp
    xp.multiply(grad, grad, out=tmp)
    tmp -= v
    tmp *= 1.0 - beta2
    v += tmp
    return tmp
