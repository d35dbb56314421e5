"""Keras losses (``from chainlet.keras import losses``), computed with chainlet functions.

Each loss exists as a function returning one value per sample (``mean_squared_error(y_true,
y_pred)``, reduced over the last axis as in Keras) and as a class whose call reduces over the
batch (``MeanSquaredError(reduction='sum_over_batch_size')``). Losses are differentiable: they
take the model's output Variable and return a Variable.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import losses
    >>> y_true = np.array([[0., 1.], [1., 1.]], np.float32)
    >>> y_pred = np.array([[1., 1.], [1., 0.]], np.float32)
    >>> losses.mean_squared_error(y_true, y_pred).array
    array([0.5, 0.5], dtype=float32)
    >>> float(losses.MeanSquaredError()(y_true, y_pred).array)
    0.5
    >>> float(losses.get('mae')(y_true, y_pred).array)  # a Loss object: reduced
    0.5
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy

import chainlet.functions as F
from chainlet import Variable, backend, type_check

EPSILON = 1e-7
_REDUCTIONS = ('sum_over_batch_size', 'sum', 'mean', 'none', None)


def _array(x: Any) -> Any:
    return x.array if isinstance(x, Variable) else x


def _as_pred(y_pred: Any) -> Variable:
    if isinstance(y_pred, Variable):
        return y_pred
    return Variable(backend.get_array_module(y_pred).asarray(y_pred), requires_grad=False)


def _as_target(y_true: Any, y_pred: Variable, integer: bool = False) -> Any:
    """``y_true`` as an array on ``y_pred``'s device, floats in ``y_pred``'s dtype."""
    t = _array(y_true)
    xp = backend.get_array_module(y_pred.array)
    t = xp.asarray(t)
    if integer:
        return t.astype(numpy.int32, copy=False)
    if t.dtype != y_pred.dtype:
        t = t.astype(y_pred.dtype)
    return t


def _check_same_shape(name: str, t: Any, y: Variable) -> None:
    if tuple(t.shape) != tuple(y.shape):
        raise ValueError(f'{name}: y_true and y_pred must have the same shape; got y_true '
                         f'{tuple(t.shape)} and y_pred {tuple(y.shape)}')


def _same_rank(name: str, t: Any, y: Variable) -> tuple:
    """Align ranks that differ by a trailing axis of size 1, as Keras does (``y_true`` of shape
    ``(N,)`` against ``y_pred`` of shape ``(N, 1)`` becomes ``(N, 1)``); then require the same
    shape."""
    if t.ndim == y.ndim + 1 and t.shape[-1] == 1:
        if y.ndim == 1:
            y = F.expand_dims(y, -1)
        else:
            t = t.reshape(t.shape[:-1])
    elif y.ndim == t.ndim + 1 and y.shape[-1] == 1:
        if t.ndim == 1:
            t = t.reshape(t.shape + (1,))
        else:
            y = F.squeeze(y, -1)
    _check_same_shape(name, t, y)
    return t, y


def mean_squared_error(y_true: Any, y_pred: Any) -> Variable:
    """Mean of ``(y_true - y_pred) ** 2`` over the last axis (one value per sample)."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    t, y = _same_rank('mean_squared_error', t, y)
    return F.mean(F.square(y - t), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Variable:
    """Mean of ``|y_true - y_pred|`` over the last axis."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    t, y = _same_rank('mean_absolute_error', t, y)
    return F.mean(F.absolute(y - t), axis=-1)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Variable:
    """Huber loss: quadratic for ``|error| <= delta``, linear beyond; mean over the last axis."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    t, y = _same_rank('huber', t, y)
    err = F.absolute(y - t)
    quadratic = F.clip(err, None, float(delta))
    linear = err - quadratic
    return F.mean(0.5 * F.square(quadratic) + float(delta) * linear, axis=-1)


def _smooth(t: Any, label_smoothing: float, num_classes: int) -> Any:
    if label_smoothing:
        return t * (1.0 - label_smoothing) + label_smoothing / num_classes
    return t


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                             label_smoothing: float = 0.0, axis: int = -1) -> Variable:
    """Cross-entropy between one-hot (or soft) targets and predicted class probabilities.

    Args:
        y_true: Targets, same shape as ``y_pred``.
        y_pred: Probabilities (normalized on ``axis`` first, as Keras does) or logits.
        from_logits: ``y_pred`` holds logits (the softmax is computed here, stably).
        label_smoothing: Mix the targets with the uniform distribution.
        axis: The class axis.
    """
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    t, y = _same_rank('categorical_crossentropy', t, y)
    t = _smooth(t, label_smoothing, y.shape[axis])
    if from_logits:
        logp = F.log_softmax(y, axis=axis % y.ndim)
    else:
        p = y / F.broadcast_to(F.sum(y, axis=axis, keepdims=True), y.shape)
        logp = F.log(F.clip(p, EPSILON, 1.0 - EPSILON))
    return -F.sum(t * logp, axis=axis)


def _check_labels(t: Any, n_class: int, ignore_class: Optional[int] = None) -> None:
    # The one label rule of chainlet's classification losses: -1 must not train as the last
    # class (NumPy's indexing) nor be skipped as softmax_cross_entropy's ignore label.
    type_check.labels_in_range('sparse_categorical_crossentropy', 'y_true', t, n_class,
                               ignore_class, ignore_name='ignore_class')


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                                    ignore_class: Optional[int] = None,
                                    axis: int = -1) -> Variable:
    """Cross-entropy between integer class labels and predicted probabilities (or logits).

    ``y_true`` has the shape of ``y_pred`` without the class axis (a trailing axis of size 1
    is accepted too).
    """
    y = _as_pred(y_pred)
    t = _as_target(y_true, y, integer=True)
    if t.ndim == y.ndim and t.shape[-1] == 1:
        t = t.reshape(t.shape[:-1])
    if axis % y.ndim != y.ndim - 1:
        y = F.moveaxis(y, axis, -1)
    if tuple(t.shape) != tuple(y.shape[:-1]):
        raise ValueError(f'sparse_categorical_crossentropy: y_true must have the shape of y_pred '
                         f'without its class axis; got y_true {tuple(t.shape)} and y_pred '
                         f'{tuple(y.shape)}')
    n_class = y.shape[-1]
    _check_labels(t, n_class, ignore_class)
    flat_y = F.reshape(y, (-1, n_class)) if y.ndim != 2 else y
    flat_t = t.reshape(-1)
    xp = backend.get_array_module(flat_t)
    if ignore_class is not None:
        keep = flat_t != ignore_class
        flat_t = xp.where(keep, flat_t, 0)
    if from_logits:
        loss = F.softmax_cross_entropy(flat_y, flat_t, reduce='no')
    else:
        logp = F.log(F.clip(flat_y, EPSILON, 1.0 - EPSILON))
        loss = -F.select_item(logp, flat_t)
    if ignore_class is not None:
        loss = loss * keep.astype(loss.dtype)
    return F.reshape(loss, t.shape) if t.ndim != 1 else loss


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1) -> Variable:
    """Binary cross-entropy, mean over the last axis."""
    y = _as_pred(y_pred)
    t = _as_target(y_true, y)
    t, y = _same_rank('binary_crossentropy', t, y)
    if label_smoothing:
        t = t * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        # log(1 + e^x) - x t, written with softplus so that it stays finite for large |x|
        elementwise = F.softplus(y) - y * t
    else:
        p = F.clip(y, EPSILON, 1.0 - EPSILON)
        elementwise = -(t * F.log(p) + (1.0 - t) * F.log(1.0 - p))
    return F.mean(elementwise, axis=axis)


def kl_divergence(y_true: Any, y_pred: Any) -> Variable:
    """``sum(y_true * log(y_true / y_pred))`` over the last axis (both clipped to [eps, 1])."""
    y = _as_pred(y_pred)
    t, y = _same_rank('kl_divergence', _as_target(y_true, y), y)
    xp = backend.get_array_module(t)
    t = xp.clip(t, EPSILON, 1.0)
    return F.sum(t * (xp.log(t) - F.log(F.clip(y, EPSILON, 1.0))), axis=-1)


def hinge(y_true: Any, y_pred: Any) -> Variable:
    """``mean(max(1 - y_true * y_pred, 0))``; labels in {0, 1} are mapped to {-1, 1}."""
    y = _as_pred(y_pred)
    t, y = _same_rank('hinge', _as_target(y_true, y), y)
    xp = backend.get_array_module(t)
    if xp.all((t == 0) | (t == 1)):
        t = 2 * t - 1
    return F.mean(F.relu(1.0 - t * y), axis=-1)


# Keras's short names.
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
kld = kl_divergence


class Loss:
    """Base class of loss objects: per-sample values from :meth:`call`, then a reduction.

    Args:
        name: Name of the loss (shown in logs).
        reduction: ``'sum_over_batch_size'`` (the mean over all samples, the default),
            ``'sum'``, ``'mean'`` (the same as ``sum_over_batch_size``) or ``'none'``/``None``
            (one value per sample).
        dtype: Ignored; losses follow the prediction dtype.
    """

    def __init__(self, name: Optional[str] = None, reduction: Optional[str] =
                 'sum_over_batch_size', dtype: Any = None) -> None:
        if reduction not in _REDUCTIONS:
            raise ValueError(f'{type(self).__name__}: argument reduction: expected one of '
                             f'{list(_REDUCTIONS)}, got {reduction!r}')
        self.name = name or _snake(type(self).__name__)
        self.reduction = reduction

    def call(self, y_true: Any, y_pred: Any) -> Variable:
        """Per-sample losses; subclasses implement it."""
        raise TypeError(f'{type(self).__name__} must implement call(y_true, y_pred)')

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Variable:
        values = self.call(y_true, y_pred)
        return reduce_values(values, sample_weight, self.reduction)

    def get_config(self) -> dict:
        return {'name': self.name, 'reduction': self.reduction}

    @classmethod
    def from_config(cls, config: dict) -> 'Loss':
        return cls(**config)


def reduce_values(values: Variable, sample_weight: Any = None,
                  reduction: Optional[str] = 'sum_over_batch_size') -> Variable:
    """Weight per-sample losses by ``sample_weight`` and reduce them as Keras does."""
    if sample_weight is not None:
        sw = backend.get_array_module(values.array).asarray(_array(sample_weight))
        sw = sw.astype(values.dtype, copy=False)
        while sw.ndim > values.ndim and sw.shape[-1] == 1:
            sw = sw.reshape(sw.shape[:-1])
        while sw.ndim < values.ndim:
            sw = sw.reshape(sw.shape + (1,))
        values = values * sw
    if reduction in ('none', None):
        return values
    if reduction == 'sum':
        return F.sum(values)
    if values.size == 0:  # Keras divides by max(size, 1): the mean of nothing is 0 here
        return F.sum(values)
    # F.mean, not sum / size: it accumulates float16 in float32, where the sum would overflow
    return F.mean(values)


def _snake(name: str) -> str:
    from chainlet.keras.engine.base_layer import to_snake_case
    return to_snake_case(name)


class LossFunctionWrapper(Loss):
    """A :class:`Loss` calling ``fn(y_true, y_pred, **kwargs)``.

    Args:
        fn: The per-sample loss function.
        reduction, name: As in :class:`Loss`.
        **kwargs: Fixed keyword arguments of ``fn``.
    """

    def __init__(self, fn: Callable, reduction: Optional[str] = 'sum_over_batch_size',
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(name=name or fn.__name__, reduction=reduction)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Any, y_pred: Any) -> Variable:
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config: dict) -> 'Loss':
        return cls(**config)


class MeanSquaredError(LossFunctionWrapper):
    """Mean of squares of errors (see :func:`mean_squared_error`)."""

    def __init__(self, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'mean_squared_error', dtype: Any = None) -> None:
        super().__init__(mean_squared_error, reduction=reduction, name=name)


class MeanAbsoluteError(LossFunctionWrapper):
    """Mean of absolute errors (see :func:`mean_absolute_error`)."""

    def __init__(self, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'mean_absolute_error', dtype: Any = None) -> None:
        super().__init__(mean_absolute_error, reduction=reduction, name=name)


class Huber(LossFunctionWrapper):
    """Huber loss with threshold ``delta`` (see :func:`huber`)."""

    def __init__(self, delta: float = 1.0, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'huber_loss', dtype: Any = None) -> None:
        super().__init__(huber, reduction=reduction, name=name, delta=delta)


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy with one-hot targets (see :func:`categorical_crossentropy`)."""

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'categorical_crossentropy', dtype: Any = None) -> None:
        super().__init__(categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy with integer targets (see :func:`sparse_categorical_crossentropy`)."""

    def __init__(self, from_logits: bool = False, ignore_class: Optional[int] = None,
                 axis: int = -1, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'sparse_categorical_crossentropy', dtype: Any = None) -> None:
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)
        self.from_logits = from_logits

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Variable:
        # The common case (2-D logits, integer labels, mean) is one fused chainlet function.
        if (self.from_logits and sample_weight is None and self._fn_kwargs['ignore_class'] is None
                and self._fn_kwargs['axis'] in (-1, 1)
                and self.reduction in ('sum_over_batch_size', 'mean')
                and isinstance(y_pred, Variable) and y_pred.ndim == 2):
            t = _as_target(y_true, y_pred, integer=True)
            if t.ndim == 2 and t.shape[1] == 1:
                t = t.reshape(-1)
            if t.shape == y_pred.shape[:1]:
                _check_labels(t, y_pred.shape[1])
                return F.softmax_cross_entropy(y_pred, t)
        return super().__call__(y_true, y_pred, sample_weight)


class BinaryCrossentropy(LossFunctionWrapper):
    """Binary cross-entropy (see :func:`binary_crossentropy`)."""

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'binary_crossentropy', dtype: Any = None) -> None:
        super().__init__(binary_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class KLDivergence(LossFunctionWrapper):
    """Kullback-Leibler divergence (see :func:`kl_divergence`)."""

    def __init__(self, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'kl_divergence', dtype: Any = None) -> None:
        super().__init__(kl_divergence, reduction=reduction, name=name)


class Hinge(LossFunctionWrapper):
    """Hinge loss (see :func:`hinge`)."""

    def __init__(self, reduction: Optional[str] = 'sum_over_batch_size',
                 name: str = 'hinge', dtype: Any = None) -> None:
        super().__init__(hinge, reduction=reduction, name=name)


_BY_NAME: dict = {
    'mean_squared_error': MeanSquaredError, 'mse': MeanSquaredError,
    'mean_absolute_error': MeanAbsoluteError, 'mae': MeanAbsoluteError,
    'huber': Huber, 'huber_loss': Huber,
    'categorical_crossentropy': CategoricalCrossentropy,
    'sparse_categorical_crossentropy': SparseCategoricalCrossentropy,
    'binary_crossentropy': BinaryCrossentropy,
    'kl_divergence': KLDivergence, 'kld': KLDivergence, 'kullback_leibler_divergence':
    KLDivergence, 'hinge': Hinge,
}
_CLASSES: dict[str, Any] = {
    c.__name__: c for c in (MeanSquaredError, MeanAbsoluteError, Huber, CategoricalCrossentropy,
                            SparseCategoricalCrossentropy, BinaryCrossentropy, KLDivergence,
                            Hinge)}


def get(identifier: Any) -> Optional[Loss]:
    """A :class:`Loss` from a name (``'mse'``, ``'categorical_crossentropy'``...), a class, a
    config dict, a Loss, or a function ``fn(y_true, y_pred)`` (wrapped)."""
    if identifier is None:
        return None
    if isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier) or _CLASSES.get(identifier)
        if cls is None:
            raise ValueError(f'Unknown loss: {identifier!r}. Known losses: '
                             f'{sorted(_BY_NAME)}')
        return cls()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier):
        return LossFunctionWrapper(identifier)
    raise TypeError(f'losses.get: expected a loss name, Loss or callable, got '
                    f'{type(identifier).__name__}')


def serialize(loss: Any) -> Any:
    """``{'class_name': ..., 'config': ...}`` for a :class:`Loss`, the name for a function."""
    if loss is None:
        return None
    if isinstance(loss, str):
        return loss
    if isinstance(loss, LossFunctionWrapper) and type(loss) is LossFunctionWrapper:
        return loss.fn.__name__
    if isinstance(loss, Loss):
        return {'class_name': type(loss).__name__, 'config': loss.get_config()}
    return getattr(loss, '__name__', repr(loss))


def deserialize(name: Any, custom_objects: Optional[dict] = None) -> Optional[Loss]:
    """Inverse of :func:`serialize` (``name``: a name or a config dict, as Keras's)."""
    config = name
    if isinstance(config, dict):
        name = config['class_name']
        cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
        if cls is None:
            raise ValueError(f'Unknown loss: {name}; pass it in custom_objects')
        return cls.from_config(config.get('config', {}))
    if isinstance(config, str) and custom_objects and config in custom_objects:
        return get(custom_objects[config])
    return get(config)


__all__ = ['Loss', 'LossFunctionWrapper', 'MeanSquaredError', 'MeanAbsoluteError', 'Huber',
           'CategoricalCrossentropy', 'SparseCategoricalCrossentropy', 'BinaryCrossentropy',
           'KLDivergence', 'Hinge', 'mean_squared_error', 'mean_absolute_error', 'huber',
           'categorical_crossentropy', 'sparse_categorical_crossentropy', 'binary_crossentropy',
           'kl_divergence', 'hinge', 'mse', 'mae', 'get', 'serialize', 'deserialize',
           'reduce_values']

# More losses, in their own module (it builds on the helpers above).
from chainlet.keras import losses_extra as _extra  # noqa: E402
from chainlet.keras.losses_extra import (  # noqa: E402,F401
    MAPE, MSLE, BinaryFocalCrossentropy, CategoricalFocalCrossentropy, CategoricalHinge,
    CosineSimilarity, Dice, LogCosh, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
    Poisson, SquaredHinge, Tversky, binary_focal_crossentropy, categorical_focal_crossentropy,
    categorical_hinge, cosine_similarity, dice, log_cosh, mape, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, msle, poisson, squared_hinge, tversky)

_BY_NAME.update(_extra.NAMES)
_CLASSES.update({c.__name__: c for c in _extra.CLASSES})
__all__ += _extra.__all__
