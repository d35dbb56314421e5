"""Scaled exponential linear unit."""
from __future__ import annotations

from typing import Any

from chainlet.functions.activation._util import real_param
from chainlet.functions.activation.elu import ELU
from chainlet.variable import Variable


class Selu(ELU):
    """The node of :func:`selu`: an :class:`~chainlet.functions.activation.elu.ELU` with its
    ``scale``, under the class name graph exporters (onnx_chainer) map to ONNX's ``Selu``."""


def selu(x: Any, alpha: float = 1.6732632423543772,
         scale: float = 1.0507009873554805) -> Variable:
    """Scaled exponential linear unit, :math:`y = \\lambda\\, \\mathrm{elu}(x, \\alpha)`.

    The defaults are the self-normalising constants of Klambauer et al. (2017).

    Args:
        x: Variable or array of floats, any shape.
        alpha: The parameter :math:`\\alpha` of the ELU inside.
        scale: The factor :math:`\\lambda`.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.selu(np.array([-1.0, 0.0, 1.0])).array
        array([-1.11133074,  0.        ,  1.05070099])
    """
    a = real_param('selu', 'alpha', alpha)
    s = real_param('selu', 'scale', scale)
    return Selu(a, s, 1.0, 'selu').apply((x,))[0]
