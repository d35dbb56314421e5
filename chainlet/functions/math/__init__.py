"""Elementwise math, reductions and products."""
from chainlet.functions.math.absolute import absolute  # noqa: F401
from chainlet.functions.math.basic_math import add, div, mul, neg, pow, sub  # noqa: F401
from chainlet.functions.math.exponential import exp, log  # noqa: F401
from chainlet.functions.math.identity import identity  # noqa: F401
from chainlet.functions.math.matmul import matmul  # noqa: F401
from chainlet.functions.math.sqrt import sqrt  # noqa: F401
from chainlet.functions.math.sum import mean, sum  # noqa: F401
from chainlet.functions.math.trigonometric import cos, sin  # noqa: F401
