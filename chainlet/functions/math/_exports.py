"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.math.absolute import absolute  # noqa: F401
from chainlet.functions.math.basic_math import add, div, mul, neg, pow, sub  # noqa: F401
from chainlet.functions.math.exponential import exp, log  # noqa: F401
from chainlet.functions.math.identity import identity  # noqa: F401
from chainlet.functions.math.matmul import matmul  # noqa: F401
from chainlet.functions.math.sqrt import sqrt  # noqa: F401
from chainlet.functions.math.sum import mean, sum  # noqa: F401
from chainlet.functions.math.trigonometric import cos, sin  # noqa: F401
from chainlet.functions.math.absolute_error import absolute_error  # noqa: F401
from chainlet.functions.math.average import average  # noqa: F401
from chainlet.functions.math.batch_matmul import batch_matmul  # noqa: F401
from chainlet.functions.math.clip import clip  # noqa: F401
from chainlet.functions.math.cumsum import cumsum  # noqa: F401
from chainlet.functions.math.einsum import einsum  # noqa: F401
from chainlet.functions.math.erf import erf  # noqa: F401
from chainlet.functions.math.exponential_m1 import expm1  # noqa: F401
from chainlet.functions.math.hyperbolic import cosh, sinh  # noqa: F401
from chainlet.functions.math.inverse_trigonometric import arccos, arcsin  # noqa: F401
from chainlet.functions.math.inverse_trigonometric import arctan, arctan2  # noqa: F401
from chainlet.functions.math.linear_interpolate import linear_interpolate  # noqa: F401
from chainlet.functions.math.logarithm import log10, log2  # noqa: F401
from chainlet.functions.math.logarithm_1p import log1p  # noqa: F401
from chainlet.functions.math.logsumexp import logsumexp  # noqa: F401
from chainlet.functions.math.maximum import maximum, minimum  # noqa: F401
from chainlet.functions.math.minmax import argmax, argmin, max, min  # noqa: F401
from chainlet.functions.math.prod import prod  # noqa: F401
from chainlet.functions.math.rounding import ceil, fix, floor  # noqa: F401
from chainlet.functions.math.rsqrt import rsqrt  # noqa: F401
from chainlet.functions.math.sign import sign  # noqa: F401
from chainlet.functions.math.square import square  # noqa: F401
from chainlet.functions.math.squared_difference import squared_difference  # noqa: F401
from chainlet.functions.math.squared_error import squared_error  # noqa: F401
from chainlet.functions.math.tangent import tan  # noqa: F401
from chainlet.functions.math.tensordot import tensordot  # noqa: F401
from chainlet.functions.math.arctanh import arctanh  # noqa: F401
from chainlet.functions.math.batch_l2_norm_squared import batch_l2_norm_squared  # noqa: F401
from chainlet.functions.math.bias import bias  # noqa: F401
from chainlet.functions.math.cholesky import cholesky  # noqa: F401
from chainlet.functions.math.cumprod import cumprod  # noqa: F401
from chainlet.functions.math.det import batch_det, det  # noqa: F401
from chainlet.functions.math.digamma import digamma  # noqa: F401
from chainlet.functions.math.erfc import erfc  # noqa: F401
from chainlet.functions.math.erfcinv import erfcinv  # noqa: F401
from chainlet.functions.math.erfcx import erfcx  # noqa: F401
from chainlet.functions.math.erfinv import erfinv  # noqa: F401
from chainlet.functions.math.fft import fft, ifft  # noqa: F401
from chainlet.functions.math.fmod import fmod  # noqa: F401
from chainlet.functions.math.inv import batch_inv, inv  # noqa: F401
from chainlet.functions.math.lgamma import lgamma  # noqa: F401
from chainlet.functions.math.log_ndtr import log_ndtr  # noqa: F401
from chainlet.functions.math.ndtr import ndtr  # noqa: F401
from chainlet.functions.math.ndtri import ndtri  # noqa: F401
from chainlet.functions.math.polygamma import polygamma  # noqa: F401
from chainlet.functions.math.scale import scale  # noqa: F401
from chainlet.functions.math.sparse_matmul import sparse_matmul  # noqa: F401
from chainlet.functions.math.zeta import zeta  # noqa: F401
