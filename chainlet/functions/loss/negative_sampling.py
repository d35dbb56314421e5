"""Negative sampling loss (Mikolov et al. 2013).

For each example the positive label and ``sample_size`` drawn negatives form the ids
``samples[n] = (t[n], s_1, ..., s_k)``; the loss is ``sum_k softplus(sign_k * w_k . x)`` with sign
``-1`` for the positive and ``+1`` for the negatives. Forward works on arrays with one gather of
the sampled rows of ``W``; backward recomputes the scores with chainlet functions and scatters
the gradient of ``W`` with embed_id's gradient node, so the loss can be differentiated twice.
Examples labelled ``-1`` contribute nothing.
"""
from __future__ import annotations

from typing import Any, Callable

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.connection.embed_id import EmbedIDGrad, embed_id
from chainlet.functions.math.sum import sum as _sum
from chainlet.variable import Variable

_FUNC = 'negative_sampling'


class NegativeSamplingFunction(FunctionNode):
    """Loss of ``(x, t, W)``; the drawn ids are kept as ``samples`` (shape ``(N, k + 1)``, the
    positive label first)."""

    ignore_label = -1

    def __init__(self, sampler: Callable, sample_size: int, reduce: str = 'sum') -> None:
        if reduce not in ('sum', 'no'):
            raise ValueError(f"{_FUNC}: argument reduce: expected 'sum' or 'no', got {reduce!r}")
        self.sampler = sampler
        self.sample_size = sample_size
        self.reduce = reduce
        self.samples = None

    def _check_arrays(self, in_data):
        type_check.count(_FUNC, in_data, 3)
        x, t, W = in_data
        type_check.argument(_FUNC, 'x', x, kind='f', ndim=2)
        type_check.argument(_FUNC, 't', t, kind='iu', shape=(x.shape[0],))
        type_check.argument(_FUNC, 'W', W, dtype=x.dtype, shape=(None, x.shape[1]))

    def _ids(self, xp: Any) -> Any:
        """Sampled ids with whole rows set to -1 for ignored examples."""
        return xp.where(self.mask[:, None], self.samples, -1)

    def forward(self, inputs):
        x, t, W = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0, 2))
        self.mask = t != self.ignore_label
        if self.samples is None:
            samples = xp.asarray(self.sampler((len(t), self.sample_size + 1)))
            samples[:, 0] = t
            self.samples = samples
        ids = self._ids(xp)
        w = W[xp.maximum(ids, 0)]
        f = xp.einsum('nd,nkd->nk', x, w)
        f[:, 0] *= -1
        loss = xp.logaddexp(f, x.dtype.type(0)).sum(axis=1) * self.mask
        loss = loss.astype(x.dtype, copy=False)
        if self.reduce == 'sum':
            return xp.asarray(loss.sum(), x.dtype),
        return loss,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gloss, = grad_outputs
        xp = backend.get_array_module(x.array)
        ids = self._ids(xp)
        shape = ids.shape + (x.shape[1],)
        sign = xp.ones(ids.shape[1], x.dtype)
        sign[0] = -1
        weight = self.mask[:, None] * sign  # constant (N, k + 1): sign, zero for ignored rows
        w = embed_id(ids, W, ignore_label=-1)
        xb = broadcast_to(x[:, None, :], shape)
        u = _sum(w * xb, axis=2) * sign
        gl = gloss if self.reduce == 'sum' else gloss[:, None]
        g = sigmoid(u) * weight.astype(x.dtype) * broadcast_to(gl, ids.shape)
        gb = broadcast_to(g[:, :, None], shape)
        ret = []
        if 0 in indexes:
            ret.append(_sum(gb * w, axis=1))
        if 1 in indexes:
            ret.append(None)
        if 2 in indexes:
            ret.append(EmbedIDGrad(ids, W.shape, -1).apply((gb * xb,))[0])
        return tuple(ret)


def negative_sampling(x: Any, t: Any, W: Any, sampler: Callable, sample_size: int,
                      reduce: str = 'sum', *, return_samples: bool = False) -> Any:
    """Negative sampling loss.

    For input :math:`x`, positive label :math:`p` and :math:`k` labels :math:`n_j` drawn by
    ``sampler``,

    .. math::
        L = -\\log \\sigma(x^\\top w_p) - \\sum_j \\log \\sigma(-x^\\top w_{n_j}).

    Args:
        x: Float inputs of shape ``(N, D)``.
        t: Integer labels of shape ``(N,)``; ``-1`` marks an example to ignore (loss 0).
        W: Label vectors, shape ``(V, D)``, ``x``'s dtype.
        sampler: Callable taking a shape and returning an integer array of that shape with
            sampled labels (e.g. :class:`~chainlet.utils.WalkerAlias` ``.sample``).
        sample_size: Number ``k`` of negatives per example.
        reduce: ``'sum'`` (a scalar) or ``'no'`` (one loss per example).
        return_samples: Also return the ids used, shape ``(N, k + 1)``, positive first.

    Returns:
        The loss Variable, or ``(loss, samples)`` when ``return_samples``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.zeros((2, 3), np.float32); W = np.ones((4, 3), np.float32)
        >>> sampler = lambda shape: np.full(shape, 3, np.int32)
        >>> loss = F.negative_sampling(x, np.array([0, -1], np.int32), W, sampler, 2,
        ...                            reduce='no')
        >>> np.round(loss.array, 4)  # 3 * log(2) for the first example, 0 for the ignored one
        array([2.0794, 0.    ], dtype=float32)

    See: `Distributed Representations of Words and Phrases and their Compositionality
    <https://arxiv.org/abs/1310.4546>`_.
    """
    func = NegativeSamplingFunction(sampler, sample_size, reduce)
    t = t.array if isinstance(t, Variable) else t
    loss, = func.apply((x, t, W))
    if return_samples:
        return loss, func.samples
    return loss
