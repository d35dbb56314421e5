"""Continuously differentiable exponential linear unit."""
from __future__ import annotations

from typing import Any

from chainlet.functions.activation._util import positive_param
from chainlet.functions.activation.elu import ELU
from chainlet.variable import Variable


def celu(x: Any, alpha: float = 1.0) -> Variable:
    """CELU (Barron, 2017): :math:`y = x` if :math:`x > 0`, else
    :math:`\\alpha (e^{x/\\alpha} - 1)`.

    Unlike :func:`elu`, its derivative is 1 at 0 for every ``alpha``. Not part of Chainer.

    Args:
        x: Variable or array of floats, any shape.
        alpha: Positive parameter :math:`\\alpha`.

    Returns:
        Variable of the same shape and dtype.

    Raises:
        ValueError: ``alpha`` is not positive.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.celu(np.array([-2.0, 0.0, 1.0], np.float32), alpha=2.0).array
        array([-1.2642411,  0.       ,  1.       ], dtype=float32)
    """
    a = positive_param('celu', 'alpha', alpha)
    return ELU(a, 1.0, 1.0 / a, 'celu').apply((x,))[0]
