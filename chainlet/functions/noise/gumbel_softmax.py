"""Gumbel-softmax: a differentiable relaxation of sampling from a categorical distribution."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.functions.activation.log_softmax import check_softmax_axis
from chainlet.functions.activation.softmax import softmax
from chainlet.functions.math.basic_math import add
from chainlet.variable import Variable, as_array


def gumbel_softmax(log_pi: Any, tau: Any = 0.1, axis: int = 1) -> Variable:
    """Draw a relaxed one-hot sample from the categorical distribution ``softmax(log_pi)``.

    .. math::
        y_i = \\frac{\\exp((g_i + \\log \\pi_i) / \\tau)}{\\sum_j \\exp((g_j + \\log \\pi_j) /
        \\tau)}

    with :math:`g_i` drawn from the Gumbel(0, 1) distribution (NumPy's global random state).
    As ``tau`` goes to 0 the sample approaches a one-hot vector.

    Args:
        log_pi: Variable or array of floats, unnormalized log-probabilities; categories along
            ``axis``.
        tau: Temperature: a positive float, or a Variable/array broadcastable to ``log_pi``.
        axis: Axis of the categories.

    Returns:
        Variable of ``log_pi``'s shape; sums to one along ``axis``. A 0-d ``log_pi`` gives
        a 0-d one, as in Chainer.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> np.random.seed(0)
        >>> y = F.gumbel_softmax(np.log(np.array([[0.2, 0.8]], np.float32)), tau=1.0)
        >>> y.shape, bool(np.isclose(y.array.sum(), 1.0))
        ((1, 2), True)
    """
    data = as_array(log_pi)
    if not backend.is_array(data):
        raise type_check.fail('gumbel_softmax', 'log_pi', 'a Variable or an ndarray',
                              type(log_pi).__name__)
    xp = backend.get_array_module(data)
    if data.ndim < 1:
        return Variable(xp.ones((), data.dtype))
    type_check.float_input('gumbel_softmax', 'log_pi', data)
    if not isinstance(tau, Variable) and not backend.is_array(tau) and tau <= 0:
        raise ValueError(f'gumbel_softmax: argument tau: expected a positive temperature, got '
                         f'{tau}')
    # Validated here, before any noise is drawn, so that errors name gumbel_softmax.
    axis = check_softmax_axis('gumbel_softmax', data, axis)
    if backend.is_array(tau):
        tau = tau.astype(data.dtype, copy=False)
    g = xp.random.gumbel(size=data.shape).astype(data.dtype, copy=False)
    z = add(log_pi, g) / tau
    return softmax(z, axis)
