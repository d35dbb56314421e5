"""Cross entropy of the logistic sigmoid of scores against binary labels."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.loss._common import check_labels, check_reduce, data_of, reduction_dtype
from chainlet.variable import Variable

_FUNC = 'sigmoid_cross_entropy'
_IGNORE = -1


class SigmoidCrossEntropy(FunctionNode):
    """``log(1 + exp(x)) - t x`` per element, masked where ``t == -1``, then reduced.

    The labels are kept on the node (they are not differentiable).
    """

    def __init__(self, normalize: bool, reduce: str) -> None:
        self.normalize = normalize
        self.reduce = reduce
        self._coeff = None

    def _check_arrays(self, in_data):
        x, t = in_data
        type_check.float_input(_FUNC, 'x', x)
        type_check.argument(_FUNC, 't', t, kind='i', shape=x.shape)

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        check_labels(_FUNC, t, 2, _IGNORE)
        self.retain_inputs((0,))
        self._t = t
        rdtype = reduction_dtype(x.dtype)
        xw = x.astype(rdtype, copy=False)
        valid = t != _IGNORE
        # log(1 + e^x) - t x == max(x, 0) - t x + log1p(e^-|x|): no overflow for any x.
        loss = xp.maximum(xw, 0) - xw * (t == 1) + xp.log1p(xp.exp(-abs(xw)))
        loss *= valid
        if self.reduce == 'no':
            return loss.astype(x.dtype),
        count = valid.sum() if self.normalize else (len(x) if x.ndim else 1)
        self._coeff = xp.asarray(1 / xp.maximum(count, 1), dtype=x.dtype)
        return xp.asarray(loss.sum() * self._coeff, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy = grad_outputs[0]
        t = self._t
        dtype = x.dtype
        mask = (t != _IGNORE).astype(dtype)
        if self._coeff is not None:
            mask *= self._coeff
        # d/dx = (sigmoid(x) - t) on valid elements; built from sigmoid so it differentiates.
        gx = (sigmoid(x) - (t == 1).astype(dtype)) * mask * gy
        return gx, None


def sigmoid_cross_entropy(x: Any, t: Any, normalize: bool = True,
                          reduce: str = 'mean') -> Variable:
    """Cross entropy of :math:`\\sigma(x)` against labels ``t`` in ``{0, 1}`` (``-1``: ignored).

    Elementwise :math:`\\log(1 + e^{x}) - t x`, computed as
    :math:`\\max(x, 0) - t x + \\log(1 + e^{-|x|})` so it is finite for scores of any magnitude.

    Args:
        x: Float scores (logits), any shape.
        t: Signed integer labels of ``x``'s shape: 1, 0, or -1 to ignore the element.
        normalize: For ``'mean'``: divide the sum by the number of non-ignored elements
            (``True``) or by the batch size ``x.shape[0]`` (``False``).
        reduce: ``'mean'`` (a scalar) or ``'no'`` (elementwise, 0 where ignored).

    Returns:
        Variable of ``x``'s dtype. Differentiable in ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[0.0, 2.0], [-1e4, 1e4]], np.float32)
        >>> t = np.array([[1, 0], [0, -1]], np.int32)
        >>> F.sigmoid_cross_entropy(x, t, reduce='no').array
        array([[0.6931472, 2.126928 ],
               [0.       , 0.       ]], dtype=float32)
    """
    check_reduce(_FUNC, reduce, ('mean', 'no'))
    return SigmoidCrossEntropy(normalize, reduce).apply((x, data_of(t)))[0]
