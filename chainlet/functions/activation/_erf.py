"""Private error function, complementary error function and normal CDF on NumPy/CuPy arrays.

Used by :func:`~chainlet.functions.gelu`. For ``z >= 0`` we write
``erfc(z) = exp(-z^2) * t * G(t)`` with ``t = 3 / (3 + z)``, which maps ``[0, inf]`` onto
``(0, 1]``, and ``G`` is smooth on ``[0, 1]`` (it tends to ``3 / sqrt(pi)`` as ``z -> inf``),
so a short Chebyshev series in ``s = 2t - 1`` represents it to double precision. The
coefficients below are the first 25 Chebyshev coefficients of ``G`` (computed once from a
64-point interpolant in 50-digit arithmetic with mpmath; the next ones are below 3e-18). The
relative error of ``erfc`` in float64 is a few ulps for ``z < 4`` and grows like
``z^2 * 1e-16`` (rounding of ``z * z``) until the result turns subnormal near ``z = 26.5``;
float32 is at its rounding level. No step overflows, whatever the input.

Example:
    >>> import numpy as np
    >>> from chainlet.functions.activation import _erf
    >>> np.round(_erf.erf(np.array([-1.0, 0.0, 0.5])), 8)
    array([-0.84270079,  0.        ,  0.52049988])
"""
from __future__ import annotations

import math
from typing import Any

import numpy

from chainlet import backend

_K = 3.0
_CHEB = (
    0.4711460746602906, 0.37715894969156577, 0.11803603344749546, 0.028362346699695153,
    0.004871757757605546, 0.00045985238787654427, -2.143022238105315e-05,
    -1.301447369924135e-05, -8.809283582853514e-07, 2.7464800479702846e-07,
    4.415991899223785e-08, -6.398408385575483e-09, -1.6768357212484645e-09,
    1.9473354700890025e-10, 6.247441303469389e-11, -8.124557552244496e-12,
    -2.330314613222566e-12, 4.191038539225333e-13, 8.19333526881303e-14,
    -2.3352472107929263e-14, -2.2442585649165363e-15, 1.2811435298050507e-15,
    1.1054582965396302e-18, -6.44579513564904e-17, 6.525175975538486e-18,
)
# Terms beyond these are below float32 resolution relative to G (~0.47 .. 1.7).
_N_FLOAT32 = 12
# Taylor coefficients of erf(x) / x in powers of x^2: 2/sqrt(pi) * (-1)^n / (n! (2n + 1)).
_TAYLOR = tuple(2.0 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
                for n in range(12))
_TAYLOR_LIMIT = 0.5


def _work_dtype(x: Any) -> Any:
    # float16 has too little range and precision for the series; compute in float32.
    return numpy.float32 if x.dtype == numpy.float16 else x.dtype


def _erfc_nonneg(z: Any) -> Any:
    """``erfc(z)`` for ``z >= 0`` (``+inf`` allowed) in ``z``'s dtype (float32 or float64)."""
    xp = backend.get_array_module(z)
    dt = z.dtype.type
    coeffs = _CHEB if z.dtype == numpy.float64 else _CHEB[:_N_FLOAT32]
    t = dt(_K) / (dt(_K) + z)
    s2 = t * dt(4) - dt(2)          # 2 * s, with s = 2t - 1 in [-1, 1]
    b1 = b2 = dt(0)
    for c in coeffs[:0:-1]:          # Clenshaw recurrence, highest degree first
        b1, b2 = s2 * b1 - b2 + dt(c), b1
    g = s2 * dt(0.5) * b1 - b2 + dt(coeffs[0])
    # exp(-900) underflows quietly to 0; clipping keeps z * z itself from overflowing.
    zc = xp.minimum(z, dt(30))
    return xp.exp(-(zc * zc)) * t * g


def erfc(x: Any) -> Any:
    """Complementary error function ``1 - erf(x)``, elementwise, in ``x``'s float dtype."""
    xp = backend.get_array_module(x)
    xw = xp.asarray(x, dtype=_work_dtype(x))
    e = _erfc_nonneg(xp.abs(xw))
    y = xp.where(xw >= 0, e, xw.dtype.type(2) - e)
    return xp.asarray(y, dtype=x.dtype)


def erf(x: Any) -> Any:
    """Error function, elementwise, in ``x``'s float dtype (relative accuracy near 0 kept)."""
    xp = backend.get_array_module(x)
    xw = xp.asarray(x, dtype=_work_dtype(x))
    dt = xw.dtype.type
    a = xp.abs(xw)
    # Near 0, 1 - erfc(x) would cancel; the Taylor series keeps full relative accuracy there.
    x2 = xp.minimum(a, dt(_TAYLOR_LIMIT))
    x2 = x2 * x2
    p = dt(0)
    for c in _TAYLOR[::-1]:
        p = p * x2 + dt(c)
    small = xw * p
    large = xp.copysign(dt(1) - _erfc_nonneg(a), xw)
    return xp.asarray(xp.where(a < dt(_TAYLOR_LIMIT), small, large), dtype=x.dtype)


def ndtr(x: Any) -> Any:
    """Standard normal CDF ``Phi(x) = erfc(-x / sqrt(2)) / 2``; accurate also in the left tail."""
    xp = backend.get_array_module(x)
    xw = xp.asarray(x, dtype=_work_dtype(x))
    dt = xw.dtype.type
    half_e = _erfc_nonneg(xp.abs(xw) * dt(1 / math.sqrt(2))) * dt(0.5)
    y = xp.where(xw <= 0, half_e, dt(1) - half_e)
    return xp.asarray(y, dtype=x.dtype)
