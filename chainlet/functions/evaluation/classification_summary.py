"""Per-class precision, recall, F-beta score and support (not differentiable)."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.evaluation.accuracy import check_scores_and_labels
from chainlet.variable import Variable

_FUNC = 'classification_summary'


class ClassificationSummary(FunctionNode):
    """Counts true positives, predictions and supports per class with ``bincount``."""

    def __init__(self, label_num: Optional[int], beta: float, ignore_label: int) -> None:
        self.label_num = label_num
        self.beta = beta
        self.ignore_label = ignore_label

    def _check_arrays(self, in_data):
        check_scores_and_labels(_FUNC, *in_data)

    def forward(self, inputs):
        y, t = inputs
        xp = backend.get_array_module(y)
        ignored = (t == self.ignore_label).ravel()
        if self.label_num is None:
            kept = t.ravel()[~ignored]
            n = int(kept.max()) + 1 if kept.size else 0
        else:
            n = self.label_num
        # Ignored instances are counted in an extra bin n, which is then dropped.
        pred = xp.where(ignored, n, y.argmax(axis=1).ravel())
        true = xp.where(ignored, n, t.ravel())
        labels = t.ravel()
        if bool((~ignored & ((labels < 0) | (labels >= n))).any()):
            raise ValueError(f'{_FUNC}: argument t: expected labels in [0, {n}) or ignore_label '
                             f'{self.ignore_label}')
        support = xp.bincount(true, minlength=n + 1)[:n]
        relevant = xp.bincount(xp.minimum(pred, n), minlength=n + 1)[:n]
        tp = xp.bincount(xp.where(pred == true, true, n), minlength=n + 1)[:n]
        dtype = y.dtype
        # 0/0 (a class never predicted or never present) is NaN, as in Chainer.
        with numpy.errstate(divide='ignore', invalid='ignore'):
            precision = (tp / relevant).astype(dtype)
            recall = (tp / support).astype(dtype)
            b2 = self.beta * self.beta
            fbeta = ((1 + b2) * precision * recall / (b2 * precision + recall)).astype(dtype)
        return precision, recall, fbeta, support

    def backward(self, indexes, grad_outputs):
        return (None,) * len(indexes)


def _summary(y: Any, t: Any, label_num: Optional[int], beta: float,
             ignore_label: int) -> tuple:
    if label_num is not None and (isinstance(label_num, bool) or
                                  not isinstance(label_num, (int, numpy.integer)) or
                                  label_num < 0):
        raise ValueError(f'{_FUNC}: argument label_num: expected a non-negative int or None, '
                         f'got {label_num!r}')
    t = t.array if isinstance(t, Variable) else t
    return ClassificationSummary(label_num, beta, ignore_label).apply((y, t))


def classification_summary(y: Any, t: Any, label_num: Optional[int] = None,
                           beta: float = 1.0, ignore_label: int = -1) -> tuple:
    """Per-class precision, recall, F-beta score and support of ``argmax(y, axis=1)``.

    Precision is :math:`tp / (tp + fp)`, recall :math:`tp / (tp + fn)`, the F-beta score
    :math:`(1 + \\beta^2) P R / (\\beta^2 P + R)`, and the support is the number of instances
    of each true class. A ratio with a zero denominator is NaN. Not differentiable.

    Args:
        y: Float scores of shape ``(N, C)`` or ``(N, C, d1, ...)``.
        t: Integer labels of shape ``(N,)`` or ``(N, d1, ...)``.
        label_num: Number of classes; ``None`` means ``max(t) + 1`` (ignored labels aside).
        beta: Weight of recall relative to precision in the F-beta score.
        ignore_label: Instances with this label are left out.

    Returns:
        Tuple ``(precision, recall, fbeta_score, support)`` of Variables of shape
        ``(label_num,)``; the first three have ``y``'s dtype, ``support`` is an integer array.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]], np.float32)
        >>> t = np.array([0, 1, 1, 1], np.int32)
        >>> p, r, f, s = F.classification_summary(y, t)
        >>> p.array
        array([0.5, 1. ], dtype=float32)
        >>> r.array
        array([1. , 0.6666667], dtype=float32)
        >>> s.array
        array([1, 3])
    """
    return _summary(y, t, label_num, beta, ignore_label)


def precision(y: Any, t: Any, label_num: Optional[int] = None,
              ignore_label: int = -1) -> tuple:
    """Per-class precision and support: ``(precision, support)``; see
    :func:`classification_summary`."""
    ret = _summary(y, t, label_num, 1.0, ignore_label)
    return ret[0], ret[3]


def recall(y: Any, t: Any, label_num: Optional[int] = None, ignore_label: int = -1) -> tuple:
    """Per-class recall and support: ``(recall, support)``; see
    :func:`classification_summary`."""
    ret = _summary(y, t, label_num, 1.0, ignore_label)
    return ret[1], ret[3]


def fbeta_score(y: Any, t: Any, label_num: Optional[int] = None, beta: float = 1.0,
                ignore_label: int = -1) -> tuple:
    """Per-class F-beta score and support: ``(fbeta_score, support)``; see
    :func:`classification_summary`."""
    ret = _summary(y, t, label_num, beta, ignore_label)
    return ret[2], ret[3]


def f1_score(y: Any, t: Any, label_num: Optional[int] = None, ignore_label: int = -1) -> tuple:
    """Per-class F1 score and support: ``(f1_score, support)``; see
    :func:`classification_summary`."""
    ret = _summary(y, t, label_num, 1.0, ignore_label)
    return ret[2], ret[3]
