"""Weight initializers: callables that fill an array in place.

An initializer is called with an array to fill (``init(array)``); ``generate_array(init, shape,
xp, dtype)`` makes a new one. Random initializers draw from NumPy's global random state unless
given ``rng`` (a ``numpy.random.RandomState`` or ``Generator``), so ``numpy.random.seed(0)``
makes a run reproducible and a seeded ``rng`` makes one initializer reproducible on its own.

Example:
    >>> import numpy as np
    >>> from chainlet import initializers
    >>> w = initializers.generate_array(initializers.Constant(0.5), (2, 2), np)
    >>> w
    array([[0.5, 0.5],
           [0.5, 0.5]], dtype=float32)
"""
from chainlet.initializer import Initializer, get_fans  # noqa: F401
from chainlet.initializers.base import (  # noqa: F401
    _get_initializer, generate_array, get_initializer)
from chainlet.initializers.constant import Constant, Identity, NaN, One, Zero  # noqa: F401
from chainlet.initializers.normal import (  # noqa: F401
    GlorotNormal, HeNormal, LeCunNormal, Normal)
from chainlet.initializers.orthogonal import Orthogonal  # noqa: F401
from chainlet.initializers.sampling import (  # noqa: F401
    DownsamplingConvFilter, UpsamplingDeconvFilter)
from chainlet.initializers.uniform import (  # noqa: F401
    GlorotUniform, HeUniform, LeCunUniform, Uniform)
