"""``erf``: the Gauss error function, computed with W. J. Cody's rational approximations.

NumPy has no ``erf`` and SciPy is not a dependency, so the forward evaluates Cody's minimax
rational functions (Math. Comp. 23, 1969), accurate to about 1e-16 in float64, in three ranges
of ``|x|``: ``erf`` directly below 0.46875, and ``erfc = exp(-x^2) R(|x|)`` above, with
``exp(-x^2)`` split in two factors so that the rounding of ``x^2`` does not spoil large ``|x|``.
The same array code runs on CuPy. ``erfc_array`` and ``ndtr_array`` (the normal CDF, used by
:func:`~chainlet.functions.gelu`) share these pieces and keep full relative precision in the
tails.
"""
from __future__ import annotations

import math
from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable

# erf(x) = x P(x^2) / Q(x^2) for |x| <= 0.46875.
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
# erfc(x) = exp(-x^2) P(x) / Q(x) for 0.46875 < x <= 4.
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
# erfc(x) = exp(-x^2) / x (1/sqrt(pi) + P(1/x^2) / (x^2 Q(1/x^2))) for x > 4.
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# Beyond this, erfc(x) < 1e-300 and erf(x) is +-1 in every float format.
_X_BIG = 27.0
# Beyond this, erfc(x) < exp(-784) is 0 in every float format.
_X_ZERO = 28.0
_SQRT_2 = math.sqrt(2.0)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)


# The helpers below take 1-d arrays (selections by index) and work in place where they can:
# the arithmetic, and so every rounding, is that of the plain formulas in the comments.


def _rational(t: Any, lead: float, p: tuple, q: tuple, factor: Any = None) -> Any:
    """Cody's nested evaluation of ``[factor *] N(t) / D(t)``.

    ``N = (...((lead t + p_0) t + p_1) t ... + p_{n-1}) t + p_n`` and
    ``D = (...((t + q_0) t + q_1) t ... + q_{n-1}) t + q_n`` with ``n = len(q) - 1``; a given
    ``factor`` multiplies ``N`` before the division, as in Cody's code.
    """
    n = len(q) - 1
    num = t * lead
    den = t + q[0]
    den *= t
    num += p[0]
    num *= t
    for i in range(1, n):
        num += p[i]
        num *= t
        den += q[i]
        den *= t
    num += p[n]
    if factor is not None:
        num *= factor
    den += q[n]
    num /= den
    return num


def _erf_small(x: Any) -> Any:
    # erf(x) = x P(x^2) / Q(x^2), for |x| <= 0.46875.
    return _rational(x * x, _A[4], _A[:4], _B, factor=x)


def _exp_minus_square(xp: Any, y: Any, scale: float = -1.0) -> Any:
    # exp(scale * y^2) as exp(scale * r^2) exp(scale * (y - r)(y + r)) with r = y rounded down
    # to 1/16: r^2 is exact, so the rounding of y^2 does not spoil large y. scale = -0.5 gives
    # exp(-y^2 / 2) without forming y / sqrt(2).
    r = y * 16.0
    xp.trunc(r, out=r)
    r /= 16.0
    d = y - r
    t = y + r
    d *= t                       # (y - r)(y + r)
    xp.multiply(r, r, out=t)     # r^2
    t *= scale
    d *= scale
    xp.exp(t, out=t)
    xp.exp(d, out=d)
    t *= d
    return t


def _erfc_mid_ratio(y: Any) -> Any:
    # erfc(y) = exp(-y^2) P(y) / Q(y), for 0.46875 < y <= 4.
    return _rational(y, _C[8], _C[:8], _D)


def _erfc_large_ratio(y: Any) -> Any:
    # erfc(y) = exp(-y^2) (1/sqrt(pi) - z P(z) / Q(z)) / y with z = 1 / y^2, for y > 4.
    z = 1.0 / (y * y)
    r = _rational(z, _P[5], _P[:5], _Q, factor=z)
    r -= _INV_SQRT_PI
    r /= y
    r *= -1.0                    # (1/sqrt(pi) - r) / y, exactly
    return r


def _erfc_tail(xp: Any, z: Any, z_max: float, x: Any = None) -> Any:
    """Yield ``(idx, erfc(z[idx]))`` covering the entries of a 1-d array ``z >= 0`` above 0.46875.

    There ``erfc(z) = exp(-z^2) R(z)``: no subtraction, so the tail keeps its full relative
    precision. ``z`` is clamped at ``z_max`` before it is squared (``+inf`` is fine; NaN must
    have been taken out). Given ``x = |x|`` with ``z = x / sqrt(2)`` (the normal CDF),
    ``exp(-z^2)`` is formed as ``exp(-x^2 / 2)`` from ``x`` itself, so that the rounding of
    ``z`` costs no accuracy. ``idx`` are integer indices: on NumPy, selecting with them is
    several times faster than with boolean masks.
    """
    mid = xp.flatnonzero((z > 0.46875) & (z <= 4.0))
    large = xp.flatnonzero(z > 4.0)
    # Only the large range needs the clamp (z <= 4 in the middle one).
    for idx, ratio, clamp in ((mid, _erfc_mid_ratio, False), (large, _erfc_large_ratio, True)):
        if idx.size:
            zm = xp.minimum(z[idx], z_max) if clamp else z[idx]
            v = ratio(zm)
            if x is None:
                v *= _exp_minus_square(xp, zm)
            else:
                xm = xp.minimum(x[idx], z_max * _SQRT_2) if clamp else x[idx]
                v *= _exp_minus_square(xp, xm, -0.5)
            yield idx, v


def _work_arrays(xp: Any, x: Any) -> Any:
    """A flat working copy of ``x`` (float16 in float32), ``|x|`` with NaN as 0, and the NaN
    mask (None where there is none)."""
    xw = x.astype(numpy.promote_types(x.dtype, numpy.float32), copy=False).reshape(-1)
    a = xp.abs(xw)
    nan = xp.isnan(xw)
    if nan.any():
        a[nan] = 0
    else:
        nan = None
    return xw, a, nan


def _finish(y: Any, xw: Any, nan: Any, x: Any) -> Any:
    # NaN in, NaN out; back to x's dtype and shape.
    if nan is not None:
        y[nan] = xw[nan]
    return y.astype(x.dtype, copy=False).reshape(x.shape)


def erf_array(x: Any) -> Any:
    """``erf`` of a float array (NumPy or CuPy), in the array's dtype.

    float16 is evaluated in float32; NaN stays NaN and ``erf(+-inf) = +-1``.
    """
    xp = backend.get_array_module(x)
    xw, a, nan = _work_arrays(xp, x)
    y = xp.empty_like(xw)
    small = xp.flatnonzero(a <= 0.46875)
    if small.size:
        # Direct series: keeps the relative accuracy near 0.
        y[small] = _erf_small(xw[small])
    # Above, erf(x) = sign(x) (1 - erfc(|x|)); the far tails are clamped before x^2 so that
    # nothing overflows (erf is +-1 there).
    for idx, e in _erfc_tail(xp, a, _X_BIG):
        xp.subtract(1.0, e, out=e)
        y[idx] = xp.copysign(e, xw[idx])
    return _finish(y, xw, nan, x)


def erfc_array(x: Any) -> Any:
    """``erfc(x) = 1 - erf(x)`` of a float array (NumPy or CuPy), in the array's dtype.

    Valid for every ``x``: for ``x >= 0`` it keeps full relative precision in the tail (down
    to the underflow of the format), and ``erfc(x) = 2 - erfc(-x)`` for ``x < 0``. float16 is
    evaluated in float32; NaN stays NaN, ``erfc(-inf) = 2`` and ``erfc(inf) = 0``.

    Example:
        >>> import numpy as np
        >>> from chainlet.functions.math.erf import erfc_array
        >>> erfc_array(np.array([-1.0, 0.0, 10.0]))
        array([1.84270079e+00, 1.00000000e+00, 2.08848758e-45])
    """
    xp = backend.get_array_module(x)
    xw, a, nan = _work_arrays(xp, x)
    y = xp.empty_like(xw)
    small = xp.flatnonzero(a <= 0.46875)
    if small.size:
        v = _erf_small(xw[small])
        xp.subtract(1.0, v, out=v)
        y[small] = v
    for idx, e in _erfc_tail(xp, a, _X_ZERO):
        neg = xp.flatnonzero(xw[idx] < 0)
        e[neg] = 2.0 - e[neg]
        y[idx] = e
    return _finish(y, xw, nan, x)


def ndtr_array(x: Any) -> Any:
    """The standard normal CDF ``Phi(x) = erfc(-x / sqrt(2)) / 2`` of a float array.

    In the array's dtype (float16 evaluated in float32), accurate also in the left tail:
    there ``exp(-x^2 / 2)`` is computed from ``x`` itself, so the rounding of ``x / sqrt(2)``
    does not spoil the relative precision. NaN stays NaN, ``Phi(-inf) = 0``, ``Phi(inf) = 1``.

    Example:
        >>> import numpy as np
        >>> from chainlet.functions.math.erf import ndtr_array
        >>> ndtr_array(np.array([-10.0, 0.0, 1.0]))
        array([7.61985302e-24, 5.00000000e-01, 8.41344746e-01])
    """
    xp = backend.get_array_module(x)
    xw, a, nan = _work_arrays(xp, x)
    y = xp.empty_like(xw)
    z = a * _INV_SQRT_2
    small = xp.flatnonzero(z <= 0.46875)
    if small.size:
        # 1/2 + erf(x / sqrt(2)) / 2 directly, for either sign.
        v = _erf_small(xw[small] * _INV_SQRT_2)
        v += 1.0
        v *= 0.5
        y[small] = v
    for idx, e in _erfc_tail(xp, z, _X_ZERO, x=a):
        # Phi(x) = erfc(|x| / sqrt(2)) / 2 for x < 0, 1 minus that for x > 0.
        e *= 0.5
        pos = xp.flatnonzero(xw[idx] > 0)
        e[pos] = 1.0 - e[pos]
        y[idx] = e
    return _finish(y, xw, nan, x)


class Erf(FunctionNode):
    """``y = erf(x)``; ``dy/dx = 2 / sqrt(pi) exp(-x^2)``."""

    def _check_arrays(self, in_data):
        type_check.float_input('erf', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return erf_array(inputs[0]),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        return grad_outputs[0] * exp(-(x * x)) * _TWO_OVER_SQRT_PI,


def erf(x: Any) -> Variable:
    """Elementwise error function, :math:`\\mathrm{erf}(x) = \\frac{2}{\\sqrt\\pi}
    \\int_0^x e^{-t^2} dt`.

    The value is computed with rational approximations accurate to about 1e-16 in float64
    (no SciPy needed).

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, values in ``[-1, 1]``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.erf(np.array([0.0, 0.5, -1.0, 3.0])).array
        array([ 0.        ,  0.52049988, -0.84270079,  0.99997791])
    """
    return Erf().apply((x,))[0]
