"""``erf``: the Gauss error function, computed with W. J. Cody's rational approximations.

NumPy has no ``erf`` and SciPy is not a dependency, so the forward evaluates Cody's minimax
rational functions (Math. Comp. 23, 1969), accurate to about 1e-16 in float64, in three ranges
of ``|x|``: ``erf`` directly below 0.46875, and ``erfc = exp(-x^2) R(|x|)`` above, with
``exp(-x^2)`` split in two factors so that the rounding of ``x^2`` does not spoil large ``|x|``.
The same array code runs on CuPy.
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


def _erf_small(x: Any) -> Any:
    z = x * x
    num = _A[4] * z
    den = z
    for i in range(3):
        num = (num + _A[i]) * z
        den = (den + _B[i]) * z
    return x * (num + _A[3]) / (den + _B[3])


def _exp_minus_square(xp: Any, y: Any) -> Any:
    # exp(-y^2) as exp(-r^2) exp(-(y - r)(y + r)) with r = y rounded down to 1/16: r^2 is exact.
    r = xp.trunc(y * 16.0) / 16.0
    return xp.exp(-r * r) * xp.exp(-(y - r) * (y + r))


def _erfc_mid(xp: Any, y: Any) -> Any:
    num = _C[8] * y
    den = y
    for i in range(7):
        num = (num + _C[i]) * y
        den = (den + _D[i]) * y
    return _exp_minus_square(xp, y) * ((num + _C[7]) / (den + _D[7]))


def _erfc_large(xp: Any, y: Any) -> Any:
    z = 1.0 / (y * y)
    num = _P[5] * z
    den = z
    for i in range(4):
        num = (num + _P[i]) * z
        den = (den + _Q[i]) * z
    r = z * (num + _P[4]) / (den + _Q[4])
    return _exp_minus_square(xp, y) * ((_INV_SQRT_PI - r) / y)


def erf_array(x: Any) -> Any:
    """``erf`` of a float array (NumPy or CuPy), in the array's dtype.

    float16 is evaluated in float32; NaN stays NaN and ``erf(+-inf) = +-1``.
    """
    xp = backend.get_array_module(x)
    dtype = x.dtype
    work = numpy.promote_types(dtype, numpy.float32)
    xw = x.astype(work)
    y = xp.empty_like(xw)
    a = xp.abs(xw)
    small = a <= 0.46875
    mid = (a > 0.46875) & (a <= 4.0)
    large = a > 4.0
    if small.any():
        y[small] = _erf_small(xw[small])
    for mask, erfc in ((mid, _erfc_mid), (large, _erfc_large)):
        if mask.any():
            # Far tails are clamped before x^2 so that nothing overflows; erf is +-1 there.
            v = 1.0 - erfc(xp, xp.minimum(a[mask], _X_BIG))
            y[mask] = xp.where(xw[mask] < 0, -v, v)
    nan = xp.isnan(xw)
    if nan.any():
        y[nan] = xw[nan]
    return y.astype(dtype, copy=False)


class Erf(FunctionNode):
    """``y = erf(x)``; ``dy/dx = 2 / sqrt(pi) exp(-x^2)``."""

    def check_type_forward(self, in_data):
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
