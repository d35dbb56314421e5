"""Coefficient of determination R^2 (not differentiable)."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable

_FUNC = 'r2_score'


class R2Score(FunctionNode):
    """``1 - SS_res / SS_tot`` per output column, optionally averaged. No gradient."""

    def __init__(self, sample_weight: Any, multioutput: str) -> None:
        self.sample_weight = sample_weight
        self.multioutput = multioutput

    def _check_arrays(self, in_data):
        pred, true = in_data
        type_check.argument(_FUNC, 'pred', pred, kind='f', min_ndim=1)
        type_check.argument(_FUNC, 'true', true, dtype=pred.dtype, shape=pred.shape)
        w = self.sample_weight
        if w is not None:
            type_check.argument(_FUNC, 'sample_weight', w, kind='fiu', shape=pred.shape[:1])

    def forward(self, inputs):
        pred, true = inputs
        xp = backend.get_array_module(pred)
        dtype = pred.dtype
        # float16 in float32: the weights' and squares' sums pass 65504 on a large batch
        cdtype = numpy.float32 if dtype == numpy.float16 else dtype
        pred, true = pred.astype(cdtype, copy=False), true.astype(cdtype, copy=False)
        w = self.sample_weight
        if w is None:
            w = xp.ones(len(pred), cdtype)
        w = w.astype(cdtype).reshape((len(pred),) + (1,) * (pred.ndim - 1))
        w_sum = xp.maximum(w.sum(), xp.finfo(cdtype).tiny)
        mean = (w * true).sum(axis=0) / w_sum
        ss_res = (w * (pred - true) ** 2).sum(axis=0)
        ss_tot = (w * (true - mean) ** 2).sum(axis=0)
        # A constant target (SS_tot == 0) scores 0, as in Chainer.
        nonzero = ss_tot != 0
        ret = xp.where(nonzero, 1 - ss_res / xp.where(nonzero, ss_tot, 1), 0).astype(dtype)
        if self.multioutput == 'uniform_average':
            return xp.asarray(ret.mean() if ret.size else 0, dtype=dtype),
        return ret,

    def backward(self, indexes, grad_outputs):
        return (None,) * len(indexes)


R2_score = R2Score  # Chainer's name of the node


def r2_score(pred: Any, true: Any, sample_weight: Optional[Any] = None,
             multioutput: str = 'uniform_average') -> Variable:
    """Coefficient of determination, :math:`R^2 = 1 - \\frac{\\sum_i w_i (\\hat y_i - y_i)^2}
    {\\sum_i w_i (y_i - \\bar y)^2}`, per output column (axis 0 holds the samples).

    Not differentiable: no gradient flows back from the result. A column whose target is
    constant scores 0.

    Args:
        pred: Float predictions of shape ``(N,)`` or ``(N, K, ...)``.
        true: Targets of the same shape and dtype.
        sample_weight: Optional weights of shape ``(N,)`` (Chainer accepts only ``None``);
            ``\\bar y`` is then the weighted mean.
        multioutput: ``'uniform_average'`` (0-d mean over the outputs) or ``'raw_values'``
            (one score per output, shape ``pred.shape[1:]``).

    Returns:
        Variable of ``pred``'s dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.r2_score(np.array([2.5, 0.0, 2.0, 8.0]), np.array([3.0, -0.5, 2.0, 7.0])).array
        array(0.94860814)
    """
    if multioutput not in ('uniform_average', 'raw_values'):
        raise ValueError(f"{_FUNC}: argument multioutput: expected 'uniform_average' or "
                         f"'raw_values', got {multioutput!r}")
    if isinstance(sample_weight, Variable):
        sample_weight = sample_weight.array
    return R2Score(sample_weight, multioutput).apply((pred, true))[0]
