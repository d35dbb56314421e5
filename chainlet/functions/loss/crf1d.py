"""Linear-chain conditional random field: negative log-likelihood and Viterbi decoding.

Both are compositions of chainlet functions (``logsumexp``, ``max``, ``select_item``,
``embed_id``, ...), so gradients and double gradients come from those. Sequences of different
lengths are handled as Chainer does: they are sorted by decreasing length and transposed, so
step ``t`` holds the ``B_t`` sequences still running and ``B_0 >= B_1 >= ...``. When the batch
shrinks, the rows that ended are set aside and put back in front at the end.
"""
from __future__ import annotations

from typing import Any, Sequence

from chainlet import backend
from chainlet import type_check
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.concat import concat
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.select_item import select_item
from chainlet.functions.connection.embed_id import embed_id
from chainlet.functions.math.logsumexp import logsumexp
from chainlet.functions.math.minmax import max as _max
from chainlet.functions.math.sum import mean as _mean
from chainlet.variable import Variable, as_array, as_variable


def _check_sequences(func: str, cost: Any, xs: Sequence[Any], ys: Any = None) -> None:
    if len(cost.shape) != 2 or cost.shape[0] != cost.shape[1]:
        raise ValueError(f'{func}: argument cost: expected a square (K, K) matrix, got shape '
                         f'{cost.shape}')
    if not xs:
        raise ValueError(f'{func}: argument xs: expected at least one step, got none')
    prev = None
    for t, x in enumerate(xs):
        if len(x.shape) != 2 or x.shape[1] != cost.shape[0]:
            raise ValueError(f'{func}: argument xs[{t}]: expected shape (B, {cost.shape[0]}), '
                             f'got {x.shape}')
        if prev is not None and x.shape[0] > prev:
            raise ValueError(f'{func}: argument xs[{t}]: batch sizes must not increase along '
                             f'the sequence, got {x.shape[0]} after {prev}')
        prev = x.shape[0]
    if ys is not None:
        if len(ys) != len(xs):
            raise ValueError(f'{func}: argument ys: expected {len(xs)} steps (as xs), '
                             f'got {len(ys)}')
        for t, (x, y) in enumerate(zip(xs, ys)):
            if tuple(y.shape) != (x.shape[0],):
                raise ValueError(f'{func}: argument ys[{t}]: expected shape ({x.shape[0]},), '
                                 f'got {y.shape}')


def _split_rows(v: Any, batch: int) -> tuple:
    return v[:batch], v[batch:]


def crf1d(cost: Any, xs: Sequence[Any], ys: Sequence[Any], reduce: str = 'mean') -> Variable:
    """Negative log-likelihood of label sequences under a linear-chain CRF.

    With transition costs :math:`c_{st}`, unary scores :math:`x_{it}` and labels :math:`y_i`,

    .. math::
        L = -\\Big(\\sum_{i=1}^{l} x_{i y_i} + \\sum_{i=1}^{l-1} c_{y_i y_{i+1}}
            - \\log Z\\Big),

    where :math:`Z` sums the exponentiated score over all label sequences.

    Args:
        cost: Transition scores, a float ``(K, K)`` Variable or array.
        xs: Sequence of ``l`` score arrays, ``xs[i]`` of shape ``(B_i, K)`` with
            ``B_0 >= B_1 >= ...`` (variable-length sequences, sorted by decreasing length and
            transposed).
        ys: Sequence of ``l`` integer label arrays, ``ys[i]`` of shape ``(B_i,)``.
        reduce: ``'mean'`` (sum of the losses divided by ``B_0``) or ``'no'`` (one loss per
            sequence).

    Returns:
        A 0-d Variable, or one of shape ``(B_0,)`` when ``reduce='no'``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> cost = np.zeros((2, 2), np.float32)
        >>> xs = [np.zeros((1, 2), np.float32)] * 3
        >>> ys = [np.zeros(1, np.int32)] * 3
        >>> round(float(F.crf1d(cost, xs, ys).array), 4)  # log(2 ** 3): 8 equal paths
        2.0794
    """
    if reduce not in ('mean', 'no'):
        raise ValueError(f"crf1d: argument reduce: expected 'mean' or 'no', got {reduce!r}")
    type_check.array_input('crf1d', 'cost', cost)
    cost = as_variable(cost)
    xs = [as_variable(x) for x in xs]
    ys = [as_array(y) for y in ys]
    _check_sequences('crf1d', cost, xs, ys)
    n_label = cost.shape[0]

    # Forward algorithm: alpha[b, t] = log of the summed scores of the prefixes ending in t.
    alpha = xs[0]
    ended = []
    for x in xs[1:]:
        batch = x.shape[0]
        if alpha.shape[0] > batch:
            alpha, rest = _split_rows(alpha, batch)
            ended.append(rest)
        scores = broadcast_to(alpha[:, :, None], (batch, n_label, n_label)) + \
            broadcast_to(cost, (batch, n_label, n_label))
        alpha = logsumexp(scores, axis=1) + x
    logz = logsumexp(concat([alpha] + ended[::-1], axis=0), axis=1)

    # Score of the given paths: unary terms plus transitions, looked up in the flattened cost.
    flat_cost = reshape(cost, (n_label * n_label, 1))
    score = select_item(xs[0], ys[0])
    done = []
    for x, y, y_prev in zip(xs[1:], ys[1:], ys[:-1]):
        batch = x.shape[0]
        if score.shape[0] > batch:
            score, rest = _split_rows(score, batch)
            done.append(rest)
        trans = reshape(embed_id(y_prev[:batch] * n_label + y, flat_cost), (batch,))
        score = score + select_item(x, y) + trans
    score = concat([score] + done[::-1], axis=0)

    loss = logz - score
    if reduce == 'mean':
        return _mean(loss)  # accumulates float16 in float32 (a float16 sum overflows)
    return loss


def argmax_crf1d(cost: Any, xs: Sequence[Any]) -> tuple:
    """The most likely label sequences of a linear-chain CRF (Viterbi decoding).

    Args:
        cost: Transition scores, a float ``(K, K)`` Variable or array.
        xs: Sequence of score arrays ``xs[i]`` of shape ``(B_i, K)``, ``B_0 >= B_1 >= ...``,
            as for :func:`crf1d`.

    Returns:
        Tuple ``(score, path)``: ``score`` is a Variable of shape ``(B_0,)`` holding the score
        of each best sequence (differentiable with respect to ``cost`` and ``xs``), and
        ``path`` is a list of ``len(xs)`` integer arrays, ``path[i]`` of shape ``(B_i,)``,
        holding the best labels.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> cost = np.array([[0.0, -5.0], [-5.0, 0.0]], np.float32)  # switching is costly
        >>> xs = [np.array([[1.0, 0.0]], np.float32), np.array([[0.0, 0.5]], np.float32)]
        >>> score, path = F.argmax_crf1d(cost, xs)
        >>> score.array, [p.tolist() for p in path]
        (array([1.], dtype=float32), [[0], [0]])
    """
    type_check.array_input('argmax_crf1d', 'cost', cost)
    cost = as_variable(cost)
    xs = [as_variable(x) for x in xs]
    _check_sequences('argmax_crf1d', cost, xs)
    n_label = cost.shape[0]
    xp = backend.get_array_module(cost.array)

    alpha = xs[0]
    ended = []  # per step: the alphas of the rows that ended there (or None)
    back = []  # per step: argmax over the previous label
    for x in xs[1:]:
        batch = x.shape[0]
        rest = None
        if alpha.shape[0] > batch:
            alpha, rest = _split_rows(alpha, batch)
        ended.append(rest)
        scores = broadcast_to(alpha[:, :, None], (batch, n_label, n_label)) + \
            broadcast_to(cost, (batch, n_label, n_label))
        back.append(xp.argmax(scores.array, axis=1))
        alpha = _max(scores, axis=1) + x

    labels = xp.argmax(alpha.array, axis=1)
    path = [labels]
    for b, rest in zip(back[::-1], ended[::-1]):
        labels = b[xp.arange(len(labels)), labels]
        if rest is not None:
            labels = xp.concatenate([labels, xp.argmax(rest.array, axis=1)])
        path.append(labels)
    path.reverse()

    parts = [_max(alpha, axis=1)] + [_max(r, axis=1) for r in ended[::-1] if r is not None]
    return concat(parts, axis=0), path
