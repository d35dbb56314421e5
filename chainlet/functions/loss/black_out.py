"""BlackOut loss (Ji et al. 2016), a composition of chainlet functions.

The scores of the true label and of the given negative samples are normalized over that small
set only; the loss is ``-log p(t) - sum_s log(1 - p(s))``.
"""
from __future__ import annotations

from typing import Any

from chainlet import type_check
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.concat import concat
from chainlet.functions.connection.embed_id import embed_id
from chainlet.functions.math.exponential import exp, log
from chainlet.functions.math.logsumexp import logsumexp
from chainlet.functions.math.sum import mean as _mean
from chainlet.functions.math.sum import sum as _sum
from chainlet.variable import Variable, as_array, as_variable


def black_out(x: Any, t: Any, W: Any, samples: Any, reduce: str = 'mean') -> Variable:
    """BlackOut loss: a softmax over the true label and a few negative samples.

    .. math::
        p(y) = \\frac{\\exp(w_y^\\top x)}{\\sum_{s \\in \\{t\\} \\cup S} \\exp(w_s^\\top x)},
        \\qquad L = -\\log p(t) - \\sum_{s \\in S} \\log(1 - p(s)).

    Args:
        x: Float inputs of shape ``(N, D)``.
        t: Integer labels of shape ``(N,)``.
        W: Label vectors, shape ``(V, D)``.
        samples: Integer negative samples of shape ``(N, S)``.
        reduce: ``'mean'`` (a scalar) or ``'no'`` (one loss per example).

    Returns:
        A 0-d Variable, or one of shape ``(N,)`` when ``reduce='no'``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.zeros((1, 2), np.float32); W = np.ones((3, 2), np.float32)
        >>> loss = F.black_out(x, np.array([0]), W, np.array([[1, 2]]))
        >>> round(float(loss.array), 4)  # -log(1/3) - 2 log(2/3)
        1.9095

    See: `BlackOut: Speeding up Recurrent Neural Network Language Models With Very Large
    Vocabularies <https://arxiv.org/abs/1511.06909>`_.
    """
    if reduce not in ('mean', 'no'):
        raise ValueError(f"black_out: argument reduce: expected 'mean' or 'no', got {reduce!r}")
    for name, a in (('x', x), ('t', t), ('W', W), ('samples', samples)):
        type_check.array_input('black_out', name, a)
    x = as_variable(x)
    t, samples = as_array(t), as_array(samples)
    if x.ndim != 2 or t.shape != (x.shape[0],) or samples.ndim != 2 or \
            samples.shape[0] != x.shape[0]:
        raise ValueError(f'black_out: expected x (N, D), t (N,) and samples (N, S), got '
                         f'{x.shape}, {t.shape} and {samples.shape}')
    n, s = samples.shape
    xb = broadcast_to(x[:, None, :], (n, s, x.shape[1]))
    neg = _sum(embed_id(samples, W) * xb, axis=2)  # (N, S)
    pos = _sum(embed_id(t, W) * x, axis=1)  # (N,)
    logz = logsumexp(concat([pos[:, None], neg], axis=1), axis=1)
    log_not = log(1 - exp(neg - broadcast_to(logz[:, None], (n, s))))
    loss = logz - pos - _sum(log_not, axis=1)
    if reduce == 'mean':
        # F.mean accumulates float16 in float32 (a float16 sum overflows past 65504)
        loss = _mean(loss) if n else _sum(loss)
    return loss
