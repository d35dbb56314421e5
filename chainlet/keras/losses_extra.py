"""More of Keras 3's losses, differentiable (``keras.losses``): ``squared_hinge``,
``categorical_hinge``, ``log_cosh``, ``poisson``, ``cosine_similarity``,
``mean_absolute_percentage_error``, ``mean_squared_logarithmic_error`` and their classes.

Each function returns one value per sample (a Variable of shape ``y_pred.shape[:-1]``) with
Keras's formula; the classes reduce them as every :class:`~chainlet.keras.losses.Loss`.
:mod:`chainlet.keras.losses` registers them by name (``compile(loss='log_cosh')``).

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> loss = keras.losses.LogCosh()
    >>> float(loss(np.zeros((2, 3)), np.zeros((2, 3))))
    0.0
"""
from __future__ import annotations

import math
from typing import Any, Optional

import chainlet.functions as F
from chainlet import Variable, backend
from chainlet.keras.losses import (EPSILON, LossFunctionWrapper, _as_pred, _as_target,
                                   _same_rank)


def _pair(name: str, y_true: Any, y_pred: Any) -> tuple:
    y = _as_pred(y_pred)
    return _same_rank(name, _as_target(y_true, y), y)


def _signed(t: Any) -> Any:
    # Keras's hinge losses take {0, 1} labels as {-1, 1}
    xp = backend.get_array_module(t)
    return 2 * t - 1 if bool(xp.all((t == 0) | (t == 1))) else t


def squared_hinge(y_true: Any, y_pred: Any) -> Variable:
    """``mean(max(1 - y_true * y_pred, 0) ** 2)`` over the last axis (labels {0, 1} are
    taken as {-1, 1})."""
    t, y = _pair('squared_hinge', y_true, y_pred)
    return F.mean(F.square(F.relu(1.0 - _signed(t) * y)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Variable:
    """``max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)`` (one-hot targets)."""
    t, y = _pair('categorical_hinge', y_true, y_pred)
    positive = F.sum(t * y, axis=-1)
    negative = F.max((1.0 - t) * y, axis=-1)
    return F.relu(negative - positive + 1.0)


def log_cosh(y_true: Any, y_pred: Any) -> Variable:
    """Mean over the last axis of ``log(cosh(y_pred - y_true))``, computed stably as
    ``d + softplus(-2 d) - log 2``."""
    t, y = _pair('log_cosh', y_true, y_pred)
    d = y - t
    return F.mean(d + F.softplus(-2.0 * d) - math.log(2.0), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Variable:
    """Mean over the last axis of ``y_pred - y_true * log(y_pred + 1e-7)``."""
    t, y = _pair('poisson', y_true, y_pred)
    return F.mean(y - t * F.log(y + EPSILON), axis=-1)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Variable:
    """The negated cosine similarity along ``axis`` (a loss: -1 for the same direction);
    norms floored at ``sqrt(1e-12)`` as Keras's ``l2_normalize``."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    tn = t / (t * t).sum(axis=axis, keepdims=True).clip(1e-12, None) ** 0.5
    yn = y * F.rsqrt(F.clip(F.sum(y * y, axis=axis, keepdims=True), 1e-12, None))
    return -F.sum(tn * yn, axis=axis)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Variable:
    """``100 * mean(|y_true - y_pred| / max(|y_true|, 1e-7))`` over the last axis."""
    t, y = _pair('mean_absolute_percentage_error', y_true, y_pred)
    scale = abs(t).clip(EPSILON, None)
    return 100.0 * F.mean(F.absolute(t - y) / scale, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Variable:
    """Mean over the last axis of ``(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1))
    ** 2``."""
    t, y = _pair('mean_squared_logarithmic_error', y_true, y_pred)
    first = F.log(F.clip(y, EPSILON, None) + 1.0)
    second = backend.get_array_module(t).log(t.clip(EPSILON, None) + 1.0)
    return F.mean(F.square(first - second), axis=-1)


def _clipped_probabilities(y: Any) -> Any:
    return F.clip(y, EPSILON, 1.0 - EPSILON)


def binary_focal_crossentropy(y_true: Any, y_pred: Any, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False, label_smoothing: float = 0.0,
                              axis: int = -1) -> Variable:
    """Focal binary cross-entropy (Lin et al., 2017): the cross-entropy times
    ``(1 - p_t) ** gamma``, with ``p_t`` the probability of the true label; with
    ``apply_class_balancing``, also ``alpha`` for positives and ``1 - alpha`` for negatives.
    Mean over ``axis``."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    if label_smoothing:
        t = t * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y = F.sigmoid(y)
    p = _clipped_probabilities(y)
    bce = -(t * F.log(p) + (1.0 - t) * F.log(1.0 - p))
    p_t = t * y + (1.0 - t) * (1.0 - y)
    focal = (1.0 - p_t) ** float(gamma) * bce
    if apply_class_balancing:
        focal = (t * alpha + (1.0 - t) * (1.0 - alpha)) * focal
    return F.mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true: Any, y_pred: Any, alpha: float = 0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1) -> Variable:
    """Focal categorical cross-entropy: ``sum(alpha * (1 - p) ** gamma * -y_true * log p)``
    over ``axis``, ``p`` the (renormalized, clipped) class probabilities."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    if label_smoothing:
        t = t * (1.0 - label_smoothing) + label_smoothing / t.shape[-1]
    if from_logits:
        y = F.softmax(y, axis=axis)
    p = _clipped_probabilities(y / F.broadcast_to(F.sum(y, axis=axis, keepdims=True),
                                                  y.shape))
    return F.sum(float(alpha) * (1.0 - p) ** float(gamma) * (-t * F.log(p)), axis=axis)


def tversky(y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5,
            axis: Any = None) -> Variable:
    """``1 - TP / (TP + alpha FP + beta FN + eps)`` with soft counts summed over ``axis``
    (all axes when ``None``); ``alpha = beta = 0.5`` is the Dice loss."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    tp = F.sum(t * y, axis=axis)
    fp = F.sum((1.0 - y) * t, axis=axis)
    fn = F.sum(y * (1.0 - t), axis=axis)
    return 1.0 - tp / (tp + fp * float(alpha) + fn * float(beta) + EPSILON)


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Variable:
    """``1 - 2 sum(y_true y_pred) / (sum(y_true) + sum(y_pred) + eps)`` over ``axis``."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    intersection = F.sum(t * y, axis=axis)
    return 1.0 - 2.0 * intersection / (t.sum(axis=axis) + F.sum(y, axis=axis) + EPSILON)


mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error


def _wrapper(fn: Any, default_name: str, doc: str) -> type:
    def __init__(self: Any, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = default_name, dtype: Any = None) -> None:
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name)
    return type(_camel(default_name), (LossFunctionWrapper,),
                {'__init__': __init__, '__doc__': doc, '__module__': __name__})


def _camel(name: str) -> str:
    return ''.join(part.capitalize() for part in name.split('_'))


SquaredHinge = _wrapper(squared_hinge, 'squared_hinge', 'Squared hinge loss.')
CategoricalHinge = _wrapper(categorical_hinge, 'categorical_hinge', 'Categorical hinge loss.')
LogCosh = _wrapper(log_cosh, 'log_cosh', 'Logarithm of the hyperbolic cosine of the error.')
Poisson = _wrapper(poisson, 'poisson', 'Poisson loss.')
MeanAbsolutePercentageError = _wrapper(mean_absolute_percentage_error,
                                       'mean_absolute_percentage_error',
                                       'Mean absolute percentage error.')
MeanSquaredLogarithmicError = _wrapper(mean_squared_logarithmic_error,
                                       'mean_squared_logarithmic_error',
                                       'Mean squared logarithmic error.')


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """Focal binary cross-entropy (see :func:`binary_focal_crossentropy`)."""

    def __init__(self, apply_class_balancing: bool = False, alpha: float = 0.25,
                 gamma: float = 2.0, from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'binary_focal_crossentropy', dtype: Any = None) -> None:
        super().__init__(binary_focal_crossentropy, reduction=reduction, name=name,
                         apply_class_balancing=apply_class_balancing, alpha=alpha,
                         gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """Focal categorical cross-entropy (see :func:`categorical_focal_crossentropy`)."""

    def __init__(self, alpha: float = 0.25, gamma: float = 2.0, from_logits: bool = False,
                 label_smoothing: float = 0.0, axis: int = -1,
                 reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'categorical_focal_crossentropy', dtype: Any = None) -> None:
        super().__init__(categorical_focal_crossentropy, reduction=reduction, name=name,
                         alpha=alpha, gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class Dice(LossFunctionWrapper):
    """Dice loss (see :func:`dice`)."""

    def __init__(self, reduction: Optional[str] = 'sum_over_batch_size', name: str = 'dice',
                 axis: Any = None, dtype: Any = None) -> None:
        super().__init__(dice, reduction=reduction, name=name, axis=axis)


class Tversky(LossFunctionWrapper):
    """Tversky loss (see :func:`tversky`)."""

    def __init__(self, alpha: float = 0.5, beta: float = 0.5,
                 reduction: Optional[str] = 'sum_over_batch_size', name: str = 'tversky',
                 axis: Any = None, dtype: Any = None) -> None:
        super().__init__(tversky, reduction=reduction, name=name, alpha=alpha, beta=beta,
                         axis=axis)


class CosineSimilarity(LossFunctionWrapper):
    """Negated cosine similarity along ``axis`` (see :func:`cosine_similarity`)."""

    def __init__(self, axis: int = -1, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'cosine_similarity', dtype: Any = None) -> None:
        super().__init__(cosine_similarity, reduction=reduction, name=name, axis=axis)


CLASSES = (SquaredHinge, CategoricalHinge, LogCosh, Poisson, MeanAbsolutePercentageError,
           MeanSquaredLogarithmicError, CosineSimilarity, BinaryFocalCrossentropy,
           CategoricalFocalCrossentropy, Dice, Tversky)
NAMES = {'squared_hinge': SquaredHinge, 'categorical_hinge': CategoricalHinge,
         'log_cosh': LogCosh, 'logcosh': LogCosh, 'poisson': Poisson,
         'cosine_similarity': CosineSimilarity,
         'mean_absolute_percentage_error': MeanAbsolutePercentageError,
         'mape': MeanAbsolutePercentageError,
         'mean_squared_logarithmic_error': MeanSquaredLogarithmicError,
         'msle': MeanSquaredLogarithmicError,
         'binary_focal_crossentropy': BinaryFocalCrossentropy,
         'categorical_focal_crossentropy': CategoricalFocalCrossentropy, 'dice': Dice,
         'tversky': Tversky}

__all__ = ['BinaryFocalCrossentropy', 'CategoricalFocalCrossentropy', 'Dice', 'Tversky',
           'binary_focal_crossentropy', 'categorical_focal_crossentropy', 'dice', 'tversky',
           'CategoricalHinge', 'CosineSimilarity', 'LogCosh', 'MeanAbsolutePercentageError',
           'MeanSquaredLogarithmicError', 'Poisson', 'SquaredHinge', 'categorical_hinge',
           'cosine_similarity', 'log_cosh', 'mean_absolute_percentage_error',
           'mean_squared_logarithmic_error', 'poisson', 'squared_hinge']
