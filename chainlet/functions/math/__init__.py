"""Elementwise math, reductions, products, linear algebra and special functions.

As in Chainer, the attributes of this package are its modules: ``chainlet.functions.math.X``
is the module that defines the function ``X`` and its FunctionNode classes (for example
``chainlet.functions.math.sparse_matmul.CooMatMul``). The functions are re-exported by
:mod:`chainlet.functions` (from ``_exports``).
"""
from chainlet.functions.math import absolute  # noqa: F401
from chainlet.functions.math import absolute_error  # noqa: F401
from chainlet.functions.math import arctanh  # noqa: F401
from chainlet.functions.math import average  # noqa: F401
from chainlet.functions.math import basic_math  # noqa: F401
from chainlet.functions.math import batch_l2_norm_squared  # noqa: F401
from chainlet.functions.math import batch_matmul  # noqa: F401
from chainlet.functions.math import bias  # noqa: F401
from chainlet.functions.math import ceil  # noqa: F401
from chainlet.functions.math import cholesky  # noqa: F401
from chainlet.functions.math import clip  # noqa: F401
from chainlet.functions.math import cumprod  # noqa: F401
from chainlet.functions.math import cumsum  # noqa: F401
from chainlet.functions.math import det  # noqa: F401
from chainlet.functions.math import digamma  # noqa: F401
from chainlet.functions.math import einsum  # noqa: F401
from chainlet.functions.math import erf  # noqa: F401
from chainlet.functions.math import erfc  # noqa: F401
from chainlet.functions.math import erfcinv  # noqa: F401
from chainlet.functions.math import erfcx  # noqa: F401
from chainlet.functions.math import erfinv  # noqa: F401
from chainlet.functions.math import exponential  # noqa: F401
from chainlet.functions.math import exponential_m1  # noqa: F401
from chainlet.functions.math import fft  # noqa: F401
from chainlet.functions.math import fix  # noqa: F401
from chainlet.functions.math import floor  # noqa: F401
from chainlet.functions.math import fmod  # noqa: F401
from chainlet.functions.math import hyperbolic  # noqa: F401
from chainlet.functions.math import identity  # noqa: F401
from chainlet.functions.math import inv  # noqa: F401
from chainlet.functions.math import inverse_trigonometric  # noqa: F401
from chainlet.functions.math import lgamma  # noqa: F401
from chainlet.functions.math import linear_interpolate  # noqa: F401
from chainlet.functions.math import log_ndtr  # noqa: F401
from chainlet.functions.math import logarithm  # noqa: F401
from chainlet.functions.math import logarithm_1p  # noqa: F401
from chainlet.functions.math import logsumexp  # noqa: F401
from chainlet.functions.math import matmul  # noqa: F401
from chainlet.functions.math import maximum  # noqa: F401
from chainlet.functions.math import minimum  # noqa: F401
from chainlet.functions.math import minmax  # noqa: F401
from chainlet.functions.math import ndtr  # noqa: F401
from chainlet.functions.math import ndtri  # noqa: F401
from chainlet.functions.math import polygamma  # noqa: F401
from chainlet.functions.math import prod  # noqa: F401
from chainlet.functions.math import rounding  # noqa: F401
from chainlet.functions.math import rsqrt  # noqa: F401
from chainlet.functions.math import scale  # noqa: F401
from chainlet.functions.math import sign  # noqa: F401
from chainlet.functions.math import sparse_matmul  # noqa: F401
from chainlet.functions.math import sqrt  # noqa: F401
from chainlet.functions.math import square  # noqa: F401
from chainlet.functions.math import squared_difference  # noqa: F401
from chainlet.functions.math import squared_error  # noqa: F401
from chainlet.functions.math import sum  # noqa: F401
from chainlet.functions.math import tangent  # noqa: F401
from chainlet.functions.math import tensordot  # noqa: F401
from chainlet.functions.math import trigonometric  # noqa: F401
from chainlet.functions.math import zeta  # noqa: F401
