"""Elementwise math, reductions and products."""
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
