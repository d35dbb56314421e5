"""``CRF1d``: a linear-chain conditional random field over label sequences.

The link holds the transition cost matrix ``cost`` (``cost[i, j]`` scores label ``i`` followed
by label ``j``) and calls :func:`chainlet.functions.crf1d` for the negative log-likelihood and
:func:`chainlet.functions.argmax_crf1d` for Viterbi decoding. Sequences are given time-major
(a list over time steps of ``(batch_t, n_label)`` arrays with non-increasing ``batch_t``), or
batch-major with ``transpose=True``: a list over the batch of ``(length, n_label)`` arrays in any
order, which the link sorts by decreasing length before transposing and whose results (the path,
the score, the per-sequence loss of ``reduce='no'``) it returns in the order of the input.
Chainer 7 returns the path in input order too, but the score and the per-sequence loss in the
sorted order; see ``docs/differences.md``.
"""
from __future__ import annotations

from typing import Any, Sequence

from chainlet import backend
from chainlet.functions.array.permutate import permutate
from chainlet.functions.array.transpose_sequence import transpose_sequence
from chainlet.functions.loss.crf1d import argmax_crf1d, crf1d
from chainlet.link import Link
from chainlet.links import _util
from chainlet.links.connection.n_step_rnn import argsort_list_descent, permutate_list
from chainlet.parameter import Parameter
from chainlet.variable import Variable


def _unsort(v: Variable, indices: Any) -> Variable:
    """Undo the sort by length on a per-sequence Variable (indices on the Variable's device)."""
    return permutate(v, backend.get_array_module(v).asarray(indices), inv=True)


class CRF1d(Link):
    """Linear-chain CRF loss layer.

    Args:
        n_label: Number of labels.
        initial_cost: Initializer of ``cost`` (shape ``(n_label, n_label)``); default 0.
        transpose: Take batch-major sequences by default (a list over the batch of
            ``(length, n_label)`` arrays, in any order).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> crf = L.CRF1d(2)
        >>> xs = [np.array([[2.0, 0.0]], np.float32), np.array([[0.0, 2.0]], np.float32)]
        >>> ys = [np.array([0], np.int32), np.array([1], np.int32)]
        >>> loss = crf(xs, ys)
        >>> score, path = crf.argmax(xs)
        >>> [p.tolist() for p in path]
        [[0], [1]]
    """

    def __init__(self, n_label: int, initial_cost: Any = None, transpose: bool = False) -> None:
        super().__init__()
        self.n_label = _util.check_size('CRF1d', 'n_label', n_label)
        self.transpose = bool(transpose)
        dtype = _util.resolve_dtype(initial_cost)
        with self.init_scope():
            self.cost = Parameter(_util.get_initializer(
                initial_cost, 0, dtype, 'CRF1d', 'initial_cost'), (self.n_label, self.n_label))

    def forward(self, xs: Sequence[Any], ys: Sequence[Any], reduce: str = 'mean',
                transpose: bool = False) -> Variable:
        """Negative log-likelihood of the label sequences ``ys`` given the scores ``xs``.

        Args:
            xs: Scores per time step (see the module docstring for the layouts).
            ys: Labels (int32) in the same layout.
            reduce: ``'mean'`` (over the batch) or ``'no'`` (one loss per sequence).
            transpose: Batch-major input for this call (also when the link was built with
                ``transpose=True``).

        Returns:
            The loss Variable.
        """
        if not (self.transpose or transpose):
            return crf1d(self.cost, xs, ys, reduce)
        indices = argsort_list_descent(xs)
        xs = transpose_sequence(permutate_list(xs, indices, inv=False))
        ys = transpose_sequence(permutate_list(ys, indices, inv=False))
        loss = crf1d(self.cost, xs, ys, reduce)
        if reduce == 'no':
            loss = _unsort(loss, indices)
        return loss

    def argmax(self, xs: Sequence[Any], transpose: bool = False) -> tuple:
        """The most probable label sequences (Viterbi) and their scores.

        Args:
            xs: Scores per time step (batch-major with ``transpose=True`` or when the link
                was built so).
            transpose: Batch-major input and output for this call.

        Returns:
            ``(score, path)``: the score Variable of each sequence and the list of label
            arrays, in the layout of ``xs``.
        """
        if not (self.transpose or transpose):
            return argmax_crf1d(self.cost, xs)
        indices = argsort_list_descent(xs)
        score, path = argmax_crf1d(
            self.cost, transpose_sequence(permutate_list(xs, indices, inv=False)))
        path = permutate_list([p.array for p in transpose_sequence(path)], indices, inv=True)
        return _unsort(score, indices), path

    def _repr_args(self) -> dict:
        return {'n_label': self.n_label}
