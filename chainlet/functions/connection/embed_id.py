"""Embedding lookup: rows of ``W`` selected by integer ids."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def _check_ids(x: Any, n_rows: int, ignore_label: Optional[int]) -> None:
    """Raise ``ValueError`` for ids outside ``[0, n_rows)`` that are not ``ignore_label``."""
    if x.size == 0:
        return
    bad = (x < 0) | (x >= n_rows)
    if ignore_label is not None:
        bad &= x != ignore_label
    if bool(bad.any()):
        first = x[bad].ravel()[0]
        allowed = f'[0, {n_rows})' + ('' if ignore_label is None else
                                      f' or the ignore_label {ignore_label}')
        raise ValueError(f'embed_id: argument x: expected ids in {allowed}, got {int(first)} '
                         f'(W has {n_rows} rows)')


class EmbedIDFunction(FunctionNode):
    """``y[..., :] = W[x[...]]``; rows for ``ignore_label`` are zero.

    Only ``W`` is differentiable. The gradient :class:`EmbedIDGrad` adds ``gy`` into the rows
    of a zero matrix; the gradient of that scatter is this lookup again.
    """

    def __init__(self, ignore_label: Optional[int] = None) -> None:
        self.ignore_label = ignore_label

    def _check_arrays(self, in_data):
        type_check.count('embed_id', in_data, 2)
        x, W = in_data
        type_check.argument('embed_id', 'x', x, kind='i', min_ndim=1)
        type_check.argument('embed_id', 'W', W, kind='f', ndim=2)

    def forward(self, inputs):
        x, W = inputs
        xp = backend.get_array_module(W)
        _check_ids(x, W.shape[0], self.ignore_label)
        self._x = x
        self._w_shape = W.shape
        if self.ignore_label is None:
            return W.take(x, axis=0),
        mask = x == self.ignore_label
        y = W.take(xp.where(mask, 0, x), axis=0)
        y[mask] = 0
        return y,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return None, EmbedIDGrad(self._x, self._w_shape, self.ignore_label).apply((gy,))[0]


class EmbedIDGrad(FunctionNode):
    """``gW``: zeros of ``W``'s shape with ``gy[i]`` added to row ``x[i]`` (ignored ids skipped).
    """

    def __init__(self, x: Any, w_shape: tuple, ignore_label: Optional[int]) -> None:
        self._x = x
        self._w_shape = w_shape
        self.ignore_label = ignore_label

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        x = self._x.ravel()
        rows = gy.reshape(x.size, self._w_shape[1])
        if self.ignore_label is not None:
            keep = x != self.ignore_label
            x, rows = x[keep], rows[keep]
        if xp is numpy:
            # Sort the ids and sum runs of equal ids with add.reduceat: far faster than
            # numpy.add.at, and memory stays proportional to gy, not to the vocabulary.
            gW = numpy.zeros(self._w_shape, gy.dtype)
            if x.size:
                order = numpy.argsort(x, kind='stable')
                ids = x[order]
                starts = numpy.flatnonzero(numpy.r_[True, ids[1:] != ids[:-1]])
                acc = numpy.float32 if gy.dtype == numpy.float16 else gy.dtype
                gW[ids[starts]] = numpy.add.reduceat(rows[order].astype(acc, copy=False),
                                                     starts, axis=0)
        else:
            import cupyx
            gW = xp.zeros(self._w_shape, gy.dtype)
            cupyx.scatter_add(gW, x, rows)
        return gW,

    def backward(self, indexes, grad_outputs):
        return EmbedIDFunction(self.ignore_label).apply((self._x, grad_outputs[0]))


def embed_id(x: Any, W: Any, ignore_label: Optional[int] = None) -> Variable:
    """Look up embeddings: ``y[i_1, ..., i_k, :] = W[x[i_1, ..., i_k], :]``.

    Equivalent to a linear function of one-hot vectors, without building them. Only ``W`` gets
    a gradient (the rows of repeated ids accumulate it).

    Args:
        x: Signed integer array (or Variable) of ids, any shape with ``ndim >= 1``, each in
            ``[0, V)`` or equal to ``ignore_label``.
        W: Embedding matrix of shape ``(V, D)``.
        ignore_label: Id whose output is a zero vector and which gets no gradient.

    Returns:
        Variable of shape ``x.shape + (D,)`` and the dtype of ``W``.

    Raises:
        ValueError: An id is out of range (and not ``ignore_label``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> W = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], np.float32)
        >>> F.embed_id(np.array([2, 0, -1], np.int32), W, ignore_label=-1).array
        array([[4., 5.],
               [0., 1.],
               [0., 0.]], dtype=float32)
    """
    return EmbedIDFunction(ignore_label).apply((x, W))[0]


__all__ = ['EmbedIDFunction', 'embed_id']
