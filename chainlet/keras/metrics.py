"""Keras metrics (``from chainlet.keras import metrics``): functions and stateful objects.

Metric functions take ``(y_true, y_pred)`` arrays (or Variables) and return one value per
sample as an array; they build no graph. Metric objects accumulate over batches with
``update_state``, report with ``result`` and start over with ``reset_state``.

How ``'accuracy'`` (or ``'acc'``) is resolved in ``compile(metrics=['accuracy'])``, once, from
the loss and the shapes of the first batch:

1. the loss is binary cross-entropy, or the output's last axis has size 1: ``binary_accuracy``;
2. the loss is sparse categorical cross-entropy, or the targets have one axis fewer than the
   output (or a trailing axis of size 1): ``sparse_categorical_accuracy``;
3. otherwise: ``categorical_accuracy``.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state(np.array([0, 1]), np.array([[0.9, 0.1], [0.8, 0.2]]))
    >>> m.update_state(np.array([1]), np.array([[0.3, 0.7]]))
    >>> round(m.result(), 4)
    0.6667
    >>> m.reset_state(); m.result()
    0.0
"""
from __future__ import annotations

from typing import Any, Callable, Optional, cast

import numpy

from chainlet import Variable, backend

_EPSILON = 1e-7


def _arrays(y_true: Any, y_pred: Any) -> tuple:
    t = y_true.array if isinstance(y_true, Variable) else y_true
    y = y_pred.array if isinstance(y_pred, Variable) else y_pred
    xp = backend.get_array_module(y)
    return xp, xp.asarray(t), xp.asarray(y)


def _same_rank(t: Any, y: Any) -> tuple:
    """Align ranks that differ by a trailing axis of size 1, as Keras does, so that ``(N,)``
    targets against ``(N, 1)`` predictions compare sample by sample instead of broadcasting."""
    if t.ndim == y.ndim + 1 and t.shape[-1] == 1:
        if y.ndim == 1:
            y = y.reshape(y.shape + (1,))
        else:
            t = t.reshape(t.shape[:-1])
    elif y.ndim == t.ndim + 1 and y.shape[-1] == 1:
        if t.ndim == 1:
            t = t.reshape(t.shape + (1,))
        else:
            y = y.reshape(y.shape[:-1])
    return t, y


def _labels(xp: Any, t: Any, y: Any) -> Any:
    if t.ndim == y.ndim and t.shape[-1] == 1:
        t = t.reshape(t.shape[:-1])
    return t


def accuracy(y_true: Any, y_pred: Any) -> Any:
    """1 where ``y_true == y_pred`` exactly, else 0 (element-wise, as floats)."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    return (t == y).astype(numpy.float32)


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    """Mean over the last axis of ``(y_pred > threshold) == y_true``."""
    xp, t, y = _arrays(y_true, y_pred)
    if t.ndim == y.ndim - 1:
        t = t.reshape(t.shape + (1,))
    return ((y > threshold) == (t > 0.5)).astype(numpy.float32).mean(axis=-1)


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    """1 where the arg-max of one-hot ``y_true`` equals the arg-max of ``y_pred``."""
    xp, t, y = _arrays(y_true, y_pred)
    return (t.argmax(axis=-1) == y.argmax(axis=-1)).astype(numpy.float32)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    """1 where integer ``y_true`` equals the arg-max of ``y_pred``."""
    xp, t, y = _arrays(y_true, y_pred)
    t = _labels(xp, t, y)
    return (t.astype(numpy.int64) == y.argmax(axis=-1)).astype(numpy.float32)


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    """1 where the true class (arg-max of one-hot ``y_true``) is among the ``k`` top scores."""
    xp, t, y = _arrays(y_true, y_pred)
    return _in_top_k(xp, t.argmax(axis=-1), y, k)


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    """1 where integer ``y_true`` is among the ``k`` top scores of ``y_pred``."""
    xp, t, y = _arrays(y_true, y_pred)
    return _in_top_k(xp, _labels(xp, t, y).astype(numpy.int64), y, k)


def _in_top_k(xp: Any, labels: Any, y: Any, k: int) -> Any:
    flat = y.reshape(-1, y.shape[-1])
    lab = labels.reshape(-1)
    target = flat[xp.arange(len(lab)), lab]
    # rank = number of classes scoring strictly higher than the true one
    rank = (flat > target[:, None]).sum(axis=-1)
    return (rank < k).astype(numpy.float32).reshape(labels.shape)


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    """Mean of squared errors over the last axis."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    return ((y - t.astype(y.dtype)) ** 2).mean(axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    """Mean of absolute errors over the last axis."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    return abs(y - t.astype(y.dtype)).mean(axis=-1)


mse = mean_squared_error
mae = mean_absolute_error


class Metric:
    """Base class of stateful metrics.

    Subclasses implement :meth:`update_state` and :meth:`result`; state kept in variables made
    by :meth:`add_variable` (``keras.Variable`` objects, updated with ``assign_add`` ...) is
    reset to zeros by the default :meth:`reset_state`, as in Keras.

    Args:
        name: Name shown in logs and ``History`` (``val_`` is prepended for validation).
        dtype: Dtype of the variables made by :meth:`add_variable` (``float32``).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> class Total(keras.metrics.Metric):
        ...     def __init__(self, name='total', **kwargs):
        ...         super().__init__(name=name, **kwargs)
        ...         self.total = self.add_variable(shape=(), initializer='zeros', name='total')
        ...     def update_state(self, y_true, y_pred, sample_weight=None):
        ...         self.total.assign_add(np.sum(y_pred))
        ...     def result(self):
        ...         return self.total.value
        >>> m = Total(); m.update_state(None, np.ones(3)); float(m.result().array)
        3.0
        >>> m.reset_state(); float(m.result().array)
        0.0
    """

    def __init__(self, name: Optional[str] = None, dtype: Any = None) -> None:
        from chainlet.keras.engine.base_layer import to_snake_case
        self.name = name or to_snake_case(type(self).__name__)
        self._dtype = numpy.dtype(dtype or 'float32').name
        self._variables: list = []

    @property
    def dtype(self) -> str:
        return self.__dict__.get('_dtype', 'float32')

    @property
    def variables(self) -> list:
        """The variables made by :meth:`add_variable`."""
        return list(self.__dict__.get('_variables', []))

    def add_variable(self, shape: Any = (), initializer: Any = 'zeros', dtype: Any = None,
                     aggregation: str = 'sum', name: Optional[str] = None) -> Any:
        """A non-trainable ``keras.Variable`` holding part of the metric's state."""
        from chainlet.keras.engine.variables import KerasVariable
        shape = (int(shape),) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
        var = KerasVariable(initializer, shape=shape, dtype=dtype or self.dtype,
                            trainable=False, aggregation=aggregation, name=name)
        self.__dict__.setdefault('_variables', []).append(var)
        return var

    add_weight = add_variable

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate statistics from one batch."""
        raise TypeError(f'{type(self).__name__} must implement update_state')

    def result(self) -> Any:
        """The metric value from everything accumulated so far."""
        raise TypeError(f'{type(self).__name__} must implement result')

    def reset_state(self) -> None:
        """Forget the accumulated statistics (the variables of :meth:`add_variable` go back to
        zeros)."""
        variables = self.__dict__.get('_variables')
        if not variables:
            raise TypeError(f'{type(self).__name__} must implement reset_state (it has no '
                            f'variables made by add_variable to reset)')
        for v in variables:
            v.assign(0)

    def reset_states(self) -> None:
        self.reset_state()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {'name': self.name}

    @classmethod
    def from_config(cls, config: dict) -> 'Metric':
        return cls(**config)

    def __repr__(self) -> str:
        return f'<{type(self).__name__} name={self.name}>'


class Mean(Metric):
    """Weighted mean of the values given to :meth:`update_state`.

    Example:
        >>> from chainlet.keras import metrics
        >>> m = metrics.Mean()
        >>> m.update_state([1, 3, 5, 7]); m.result()
        4.0
    """

    def __init__(self, name: str = 'mean', dtype: Any = None) -> None:
        super().__init__(name=name)
        self.total = 0.0
        self.count = 0.0

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        v = values.array if isinstance(values, Variable) else values
        if not hasattr(v, 'sum'):
            v = numpy.asarray(v, dtype=numpy.float64)
        if sample_weight is None or isinstance(sample_weight, (int, float)):
            # the common cases (no weights; the loss tracker's batch size) without a copy
            if v.ndim == 0:   # a loss value: no reduction needed
                total, count = float(v), 1.0
            else:
                total, count = float(v.sum(dtype=numpy.float64)), float(v.size)
            if sample_weight is not None:
                total, count = total * sample_weight, count * sample_weight
            self.total += total
            self.count += count
            return
        xp = backend.get_array_module(v)
        v = xp.asarray(v, dtype=numpy.float64)
        sw = xp.asarray(sample_weight.array if isinstance(sample_weight, Variable)
                        else sample_weight, dtype=numpy.float64)
        while sw.ndim > v.ndim and sw.shape[-1] == 1:
            sw = sw.reshape(sw.shape[:-1])
        while sw.ndim < v.ndim:
            sw = sw.reshape(sw.shape + (1,))
        sw = xp.broadcast_to(sw, v.shape)
        self.total += float((v * sw).sum())
        self.count += float(sw.sum())

    def result(self) -> float:
        return self.total / self.count if self.count else 0.0

    def reset_state(self) -> None:
        self.total = 0.0
        self.count = 0.0


class Sum(Metric):
    """Sum of the values given to :meth:`update_state`."""

    def __init__(self, name: str = 'sum', dtype: Any = None) -> None:
        super().__init__(name=name)
        self.total = 0.0

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        v = numpy.asarray(backend.to_cpu(values.array if isinstance(values, Variable)
                                         else values), dtype=numpy.float64)
        if sample_weight is not None:
            v = v * numpy.asarray(backend.to_cpu(sample_weight), dtype=numpy.float64)
        self.total += float(v.sum())

    def result(self) -> float:
        return self.total

    def reset_state(self) -> None:
        self.total = 0.0


class MeanMetricWrapper(Mean):
    """The weighted mean over samples of ``fn(y_true, y_pred, **kwargs)``.

    Args:
        fn: A metric function returning one value per sample.
        name: Metric name.
        **kwargs: Fixed keyword arguments of ``fn``.
    """

    def __init__(self, fn: Callable, name: Optional[str] = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name or fn.__name__)
        self._fn = fn
        self._fn_kwargs = kwargs

    # Keras's API: (y_true, y_pred, ...) where Mean takes (values, ...), hence the ignore.
    def update_state(self, y_true: Any, y_pred: Any,  # type: ignore[override]
                     sample_weight: Any = None) -> None:
        super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)

    def get_config(self) -> dict:
        config = {'name': self.name}
        config.update(self._fn_kwargs)
        return config


class Accuracy(MeanMetricWrapper):
    """How often predictions equal targets exactly."""

    def __init__(self, name: str = 'accuracy', dtype: Any = None) -> None:
        super().__init__(accuracy, name=name)


class BinaryAccuracy(MeanMetricWrapper):
    """How often predictions above ``threshold`` match binary targets."""

    def __init__(self, name: str = 'binary_accuracy', dtype: Any = None,
                 threshold: float = 0.5) -> None:
        super().__init__(binary_accuracy, name=name, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the arg-max of the prediction matches one-hot targets."""

    def __init__(self, name: str = 'categorical_accuracy', dtype: Any = None) -> None:
        super().__init__(categorical_accuracy, name=name)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the arg-max of the prediction matches integer targets."""

    def __init__(self, name: str = 'sparse_categorical_accuracy', dtype: Any = None) -> None:
        super().__init__(sparse_categorical_accuracy, name=name)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot target is among the ``k`` top-scoring classes."""

    def __init__(self, k: int = 5, name: str = 'top_k_categorical_accuracy',
                 dtype: Any = None) -> None:
        super().__init__(top_k_categorical_accuracy, name=name, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer target is among the ``k`` top-scoring classes."""

    def __init__(self, k: int = 5, name: str = 'sparse_top_k_categorical_accuracy',
                 dtype: Any = None) -> None:
        super().__init__(sparse_top_k_categorical_accuracy, name=name, k=k)


class MeanSquaredError(MeanMetricWrapper):
    """Mean of squared errors."""

    def __init__(self, name: str = 'mean_squared_error', dtype: Any = None) -> None:
        super().__init__(mean_squared_error, name=name)


class MeanAbsoluteError(MeanMetricWrapper):
    """Mean of absolute errors."""

    def __init__(self, name: str = 'mean_absolute_error', dtype: Any = None) -> None:
        super().__init__(mean_absolute_error, name=name)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    """``100 * mean(|y_true - y_pred| / max(|y_true|, 1e-7))`` over the last axis."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    t = t.astype(y.dtype)
    return 100.0 * (abs(t - y) / xp.maximum(abs(t), _EPSILON)).mean(axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    """Mean over the last axis of ``(log(1 + y_pred) - log(1 + y_true)) ** 2`` (both clipped
    from below at ``1e-7``, as Keras)."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    t = t.astype(y.dtype)
    first = xp.log(xp.maximum(y, _EPSILON) + 1.0)
    second = xp.log(xp.maximum(t, _EPSILON) + 1.0)
    return ((first - second) ** 2).mean(axis=-1)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Cosine of the angle between ``y_true`` and ``y_pred`` along ``axis`` (L2-normalized
    with a floor of ``1e-12`` on the norms)."""
    xp, t, y = _arrays(y_true, y_pred)
    t = t.astype(y.dtype)
    tn = t / xp.sqrt(xp.maximum((t * t).sum(axis=axis, keepdims=True), 1e-12))
    yn = y / xp.sqrt(xp.maximum((y * y).sum(axis=axis, keepdims=True), 1e-12))
    return (tn * yn).sum(axis=axis)


def log_cosh_error(y_true: Any, y_pred: Any) -> Any:
    """Mean over the last axis of ``log(cosh(y_pred - y_true))``, computed stably."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    d = y - t.astype(y.dtype)
    return (d + xp.logaddexp(-2.0 * d, 0.0) - numpy.log(2.0)).mean(axis=-1)


def _from_loss(name: str, **fixed: Any) -> Callable:
    """A metric function evaluating the Keras loss function ``name`` without building a
    graph (one value per sample, as an array)."""
    def fn(y_true: Any, y_pred: Any, **kwargs: Any) -> Any:
        import chainlet
        from chainlet.keras import losses
        with chainlet.no_backprop_mode():
            out = getattr(losses, name)(y_true, y_pred, **{**fixed, **kwargs})
        return out.array if isinstance(out, Variable) else out
    fn.__name__ = name
    return fn


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1) -> Any:
    """Per-sample binary cross-entropy (the loss's values, as an array)."""
    fn = _from_loss('binary_crossentropy')
    return fn(y_true, y_pred, from_logits=from_logits, label_smoothing=label_smoothing,
              axis=axis)


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                             label_smoothing: float = 0.0, axis: int = -1) -> Any:
    """Per-sample categorical cross-entropy (the loss's values, as an array)."""
    fn = _from_loss('categorical_crossentropy')
    return fn(y_true, y_pred, from_logits=from_logits, label_smoothing=label_smoothing,
              axis=axis)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                                    ignore_class: Optional[int] = None, axis: int = -1) -> Any:
    """Per-sample cross-entropy of integer labels (the loss's values, as an array)."""
    return _from_loss('sparse_categorical_crossentropy')(
        y_true, y_pred, from_logits=from_logits, ignore_class=ignore_class, axis=axis)


kl_divergence = _from_loss('kl_divergence')
hinge = _from_loss('hinge')


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    """Per-sample Huber loss (the loss's values, as an array)."""
    return _from_loss('huber')(y_true, y_pred, delta=delta)


def binary_focal_crossentropy(y_true: Any, y_pred: Any, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False, label_smoothing: float = 0.0,
                              axis: int = -1) -> Any:
    """Per-sample focal binary cross-entropy (the loss's values, as an array)."""
    return _from_loss('binary_focal_crossentropy')(
        y_true, y_pred, apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
        from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


def categorical_focal_crossentropy(y_true: Any, y_pred: Any, alpha: float = 0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1) -> Any:
    """Per-sample focal categorical cross-entropy (the loss's values, as an array)."""
    return _from_loss('categorical_focal_crossentropy')(
        y_true, y_pred, alpha=alpha, gamma=gamma, from_logits=from_logits,
        label_smoothing=label_smoothing, axis=axis)


log_cosh = _from_loss('log_cosh')


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    """Mean over the last axis of ``max(1 - y_true * y_pred, 0) ** 2`` (labels in {0, 1}
    are mapped to {-1, 1})."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    t = t.astype(y.dtype)
    if bool(xp.all((t == 0) | (t == 1))):
        t = 2 * t - 1
    return (xp.maximum(1.0 - t * y, 0.0) ** 2).mean(axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    """Mean over the last axis of ``y_pred - y_true * log(y_pred + 1e-7)``."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    return (y - t.astype(y.dtype) * xp.log(y + _EPSILON)).mean(axis=-1)


mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error


class MeanAbsolutePercentageError(MeanMetricWrapper):
    """Mean absolute percentage error: ``100 * mean(|y_true - y_pred| / max(|y_true|, eps))``.

    Example:
        >>> from chainlet.keras import metrics
        >>> m = metrics.MeanAbsolutePercentageError()
        >>> m.update_state([[1.0, 2.0]], [[1.5, 2.0]]); m.result()
        25.0
    """

    def __init__(self, name: str = 'mean_absolute_percentage_error', dtype: Any = None) -> None:
        super().__init__(mean_absolute_percentage_error, name=name)


class MeanSquaredLogarithmicError(MeanMetricWrapper):
    """Mean squared logarithmic error."""

    def __init__(self, name: str = 'mean_squared_logarithmic_error', dtype: Any = None) -> None:
        super().__init__(mean_squared_logarithmic_error, name=name)


def pearson_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Pearson correlation of ``y_true`` and ``y_pred`` along ``axis`` (one value per sample,
    Keras's formula: standardized values, then their mean product)."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    t = t.astype(y.dtype)
    tn = t - t.mean(axis=axis, keepdims=True)
    yn = y - y.mean(axis=axis, keepdims=True)
    tn = tn / tn.std(axis=axis, keepdims=True)
    yn = yn / yn.std(axis=axis, keepdims=True)
    return (tn * yn).mean(axis=axis)


def concordance_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Lin's concordance correlation along ``axis``, with Keras 3's formula (whose covariance
    centres ``y_true`` on the mean of ``y_pred``, as here)."""
    xp, t, y = _arrays(y_true, y_pred)
    t, y = _same_rank(t, y)
    t = t.astype(y.dtype)
    t_mean = t.mean(axis=axis, keepdims=True)
    y_mean = y.mean(axis=axis, keepdims=True)
    t_var = (t - t_mean).var(axis=axis, keepdims=True)
    y_var = (y - y_mean).var(axis=axis, keepdims=True)
    covar = (t - y_mean) * (y - y_mean)
    norm = t_var + y_var + (t_mean - y_mean) ** 2
    return (2 * covar / (norm + _EPSILON)).mean(axis=axis)


class PearsonCorrelation(MeanMetricWrapper):
    """Mean over samples of :func:`pearson_correlation` along ``axis``."""

    def __init__(self, name: str = 'pearson_correlation', dtype: Any = None,
                 axis: int = -1) -> None:
        super().__init__(pearson_correlation, name=name, axis=axis)


class ConcordanceCorrelation(MeanMetricWrapper):
    """Mean over samples of :func:`concordance_correlation` along ``axis``."""

    def __init__(self, name: str = 'concordance_correlation', dtype: Any = None,
                 axis: int = -1) -> None:
        super().__init__(concordance_correlation, name=name, axis=axis)


class RootMeanSquaredError(Mean):
    """Square root of the (weighted) mean of squared errors over all elements."""

    def __init__(self, name: str = 'root_mean_squared_error', dtype: Any = None) -> None:
        super().__init__(name=name)

    # Keras's API: (y_true, y_pred, ...) where Mean takes (values, ...), hence the ignore.
    def update_state(self, y_true: Any, y_pred: Any,  # type: ignore[override]
                     sample_weight: Any = None) -> None:
        xp, t, y = _arrays(y_true, y_pred)
        t, y = _same_rank(t, y)
        super().update_state((y - t.astype(y.dtype)) ** 2, sample_weight)

    def result(self) -> float:
        return float(numpy.sqrt(super().result()))


class CosineSimilarity(MeanMetricWrapper):
    """Mean cosine similarity between targets and predictions along ``axis``."""

    def __init__(self, name: str = 'cosine_similarity', dtype: Any = None,
                 axis: int = -1) -> None:
        super().__init__(cosine_similarity, name=name, axis=axis)


class LogCoshError(MeanMetricWrapper):
    """Mean of ``log(cosh(y_pred - y_true))``."""

    def __init__(self, name: str = 'logcosh', dtype: Any = None) -> None:
        super().__init__(log_cosh_error, name=name)


class BinaryCrossentropy(MeanMetricWrapper):
    """Mean binary cross-entropy (``from_logits``, ``label_smoothing`` as the loss)."""

    def __init__(self, name: str = 'binary_crossentropy', dtype: Any = None,
                 from_logits: bool = False, label_smoothing: float = 0.0) -> None:
        super().__init__(binary_crossentropy, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing)


class CategoricalCrossentropy(MeanMetricWrapper):
    """Mean categorical cross-entropy of one-hot targets."""

    def __init__(self, name: str = 'categorical_crossentropy', dtype: Any = None,
                 from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1) -> None:
        super().__init__(categorical_crossentropy, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """Mean categorical cross-entropy of integer targets."""

    def __init__(self, name: str = 'sparse_categorical_crossentropy', dtype: Any = None,
                 from_logits: bool = False, ignore_class: Optional[int] = None,
                 axis: int = -1) -> None:
        super().__init__(sparse_categorical_crossentropy, name=name, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)


class KLDivergence(MeanMetricWrapper):
    """Mean Kullback-Leibler divergence."""

    def __init__(self, name: str = 'kl_divergence', dtype: Any = None) -> None:
        super().__init__(kl_divergence, name=name)


class Hinge(MeanMetricWrapper):
    """Mean hinge loss."""

    def __init__(self, name: str = 'hinge', dtype: Any = None) -> None:
        super().__init__(hinge, name=name)


class SquaredHinge(MeanMetricWrapper):
    """Mean squared hinge loss."""

    def __init__(self, name: str = 'squared_hinge', dtype: Any = None) -> None:
        super().__init__(squared_hinge, name=name)


class Poisson(MeanMetricWrapper):
    """Mean Poisson loss."""

    def __init__(self, name: str = 'poisson', dtype: Any = None) -> None:
        super().__init__(poisson, name=name)


# ------------------------------------------------------- confusion-matrix metrics

def _check_thresholds(owner: str, thresholds: Any, default: float) -> tuple:
    """``(list of floats, single)``: ``single`` when one number was given (the result is then
    a scalar)."""
    if thresholds is None:
        return [default], True
    single = isinstance(thresholds, (int, float, numpy.floating, numpy.integer))
    values = [float(thresholds)] if single else [float(t) for t in thresholds]
    for t in values:
        if not 0.0 <= t <= 1.0 and t != default:
            raise ValueError(f'{owner}: argument thresholds: every threshold must be in [0, 1], '
                             f'got {t}')
    return values, single


def _confusion(y_true: Any, y_pred: Any, thresholds: list, sample_weight: Any = None,
               class_id: Optional[int] = None, top_k: Optional[int] = None,
               multi_label: bool = False) -> tuple:
    """True/false positives/negatives at each threshold, as float64 NumPy arrays of shape
    ``(T,)`` (or ``(T, labels)`` with ``multi_label``). A prediction counts as positive when
    it is strictly greater than the threshold (Keras's rule)."""
    t = y_true.array if isinstance(y_true, Variable) else y_true
    y = y_pred.array if isinstance(y_pred, Variable) else y_pred
    t = numpy.asarray(backend.to_cpu(t) if backend.is_array(t) else t)
    y = numpy.asarray(backend.to_cpu(y) if backend.is_array(y) else y, dtype=numpy.float64)
    t, y = _same_rank(t, y)
    t = t.astype(bool) if t.dtype.kind == 'b' else t.astype(numpy.float64) > 0.5
    if t.shape != y.shape:
        t = numpy.broadcast_to(t, y.shape)
    if top_k is not None:
        # only the k highest scores of each sample can count as positive
        order = numpy.argsort(-y, axis=-1, kind='stable')[..., :top_k]
        keep = numpy.zeros(y.shape, bool)
        numpy.put_along_axis(keep, order, True, axis=-1)
        y = numpy.where(keep, y, -numpy.inf)
    if class_id is not None:
        t, y = t[..., class_id], y[..., class_id]
    w = None
    if sample_weight is not None:
        w = numpy.asarray(backend.to_cpu(sample_weight.array if isinstance(
            sample_weight, Variable) else sample_weight), dtype=numpy.float64)
        while w.ndim > y.ndim and w.shape[-1] == 1:
            w = w.reshape(w.shape[:-1])
        while w.ndim < y.ndim:
            w = w.reshape(w.shape + (1,))
        w = numpy.broadcast_to(w, y.shape)
    if multi_label:
        t = t.reshape(-1, y.shape[-1])
        y = y.reshape(-1, y.shape[-1])
        w = None if w is None else w.reshape(-1, y.shape[-1])
    else:
        t, y = t.reshape(-1), y.reshape(-1)
        w = None if w is None else w.reshape(-1)
    th = numpy.asarray(thresholds, numpy.float64).reshape((-1,) + (1,) * y.ndim)
    pred_pos = y[None] > th
    true_pos = t[None]
    weight = numpy.ones(y.shape) if w is None else w
    tp = (pred_pos & true_pos) * weight
    fp = (pred_pos & ~true_pos) * weight
    fn = (~pred_pos & true_pos) * weight
    tn = (~pred_pos & ~true_pos) * weight
    return tp.sum(axis=1), fp.sum(axis=1), tn.sum(axis=1), fn.sum(axis=1)


def _divide_no_nan(a: Any, b: Any) -> Any:
    with numpy.errstate(divide='ignore', invalid='ignore'):
        return numpy.where(b == 0, 0.0, a / numpy.where(b == 0, 1.0, b))


def _scalar_or_list(values: numpy.ndarray, single: bool) -> Any:
    return float(values[0]) if single else values.astype(numpy.float32)


class _ConfusionMetric(Metric):
    """Counts of one cell of the binary confusion matrix at one or more thresholds."""

    _cell = 0   # index into _confusion's (tp, fp, tn, fn)

    def __init__(self, thresholds: Any = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds, self._single = _check_thresholds(type(self).__name__, thresholds, 0.5)
        self.accumulator = numpy.zeros(len(self.thresholds))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self.accumulator += _confusion(y_true, y_pred, self.thresholds, sample_weight)[
            self._cell]

    def result(self) -> Any:
        return _scalar_or_list(self.accumulator, self._single)

    def reset_state(self) -> None:
        self.accumulator = numpy.zeros(len(self.thresholds))

    def get_config(self) -> dict:
        return {'name': self.name, 'thresholds': self.init_thresholds}


class TruePositives(_ConfusionMetric):
    """Number (or total sample weight) of true positives: ``y_pred > threshold`` and
    ``y_true`` true. ``thresholds``: a float in [0, 1] or a list (then the result is an array
    with one count per threshold); 0.5 by default."""
    _cell = 0


class FalsePositives(_ConfusionMetric):
    """Number of false positives (see :class:`TruePositives` for ``thresholds``)."""
    _cell = 1


class TrueNegatives(_ConfusionMetric):
    """Number of true negatives (see :class:`TruePositives` for ``thresholds``)."""
    _cell = 2


class FalseNegatives(_ConfusionMetric):
    """Number of false negatives (see :class:`TruePositives` for ``thresholds``)."""
    _cell = 3


class _PrecisionRecall(Metric):
    def __init__(self, thresholds: Any = None, top_k: Optional[int] = None,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        # with top_k, every top-k prediction counts as positive unless thresholds are given
        default = 0.5 if top_k is None else -numpy.inf
        self.thresholds, self._single = _check_thresholds(type(self).__name__, thresholds,
                                                          default)
        self.top_k = top_k
        self.class_id = class_id
        self.reset_state()

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        tp, fp, _, fn = _confusion(y_true, y_pred, self.thresholds, sample_weight,
                                   class_id=self.class_id, top_k=self.top_k)
        self.true_positives += tp
        self.false_positives += fp
        self.false_negatives += fn

    def reset_state(self) -> None:
        n = len(self.thresholds)
        self.true_positives = numpy.zeros(n)
        self.false_positives = numpy.zeros(n)
        self.false_negatives = numpy.zeros(n)

    def get_config(self) -> dict:
        return {'name': self.name, 'thresholds': self.init_thresholds, 'top_k': self.top_k,
                'class_id': self.class_id}


class Precision(_PrecisionRecall):
    """``TP / (TP + FP)`` accumulated over batches (0 when nothing was predicted positive).

    Args:
        thresholds: A float in [0, 1] or a list (one result per threshold); 0.5 by default.
        top_k: Count only the ``k`` highest predictions of each sample as positive.
        class_id: Compute the metric for this class (last-axis index) only.

    Example:
        >>> from chainlet.keras import metrics
        >>> m = metrics.Precision()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1]); round(m.result(), 4)
        0.6667
    """

    def result(self) -> Any:
        return _scalar_or_list(_divide_no_nan(self.true_positives,
                                              self.true_positives + self.false_positives),
                               self._single)


class Recall(_PrecisionRecall):
    """``TP / (TP + FN)`` accumulated over batches (0 when there is no positive target).
    Arguments as :class:`Precision`."""

    def result(self) -> Any:
        return _scalar_or_list(_divide_no_nan(self.true_positives,
                                              self.true_positives + self.false_negatives),
                               self._single)


class AUC(Metric):
    """Area under the ROC or precision-recall curve, from confusion counts at fixed
    thresholds (Keras's approximation).

    Args:
        num_thresholds: Number of thresholds (> 1): ``0 - 1e-7``, then ``num_thresholds - 2``
            evenly spaced inside (0, 1), then ``1 + 1e-7``.
        curve: ``'ROC'`` or ``'PR'``.
        summation_method: ``'interpolation'`` (trapezoids for ROC; Davis & Goadrich's
            interpolation for PR), ``'minoring'`` or ``'majoring'`` (left/right Riemann sums
            taking the lower/upper value).
        thresholds: Explicit thresholds in [0, 1] (then ``num_thresholds`` is ignored); the two
            end points are added.
        multi_label: Treat the last axis as separate labels, one curve each, then average
            (weighted by ``label_weights``); otherwise every element is one sample.
        num_labels, label_weights: For ``multi_label``.
        from_logits: Predictions are logits (a sigmoid is applied first).

    Example:
        >>> from chainlet.keras import metrics
        >>> m = metrics.AUC(num_thresholds=3)
        >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]); round(m.result(), 4)
        0.75
    """

    # Confusion counts per threshold: None until the first update_state.
    true_positives: Any
    false_positives: Any
    true_negatives: Any
    false_negatives: Any

    def __init__(self, num_thresholds: int = 200, curve: str = 'ROC',
                 summation_method: str = 'interpolation', name: Optional[str] = None,
                 dtype: Any = None, thresholds: Any = None, multi_label: bool = False,
                 num_labels: Optional[int] = None, label_weights: Any = None,
                 from_logits: bool = False) -> None:
        super().__init__(name=name or 'auc', dtype=dtype)
        curve = str(curve).upper()
        if curve not in ('ROC', 'PR'):
            raise ValueError(f'AUC: argument curve: expected "ROC" or "PR", got {curve!r}')
        summation_method = str(summation_method).lower()
        if summation_method not in ('interpolation', 'minoring', 'majoring'):
            raise ValueError(f'AUC: argument summation_method: expected "interpolation", '
                             f'"minoring" or "majoring", got {summation_method!r}')
        eps = 1e-7
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            for t in inner:
                if not 0.0 <= t <= 1.0:
                    raise ValueError(f'AUC: argument thresholds: every threshold must be in '
                                     f'[0, 1], got {t}')
            num_thresholds = len(inner) + 2
        else:
            if isinstance(num_thresholds, bool) or int(num_thresholds) <= 1:
                raise ValueError(f'AUC: argument num_thresholds: expected an int > 1, got '
                                 f'{num_thresholds!r}')
            num_thresholds = int(num_thresholds)
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._init_thresholds = None if thresholds is None else list(inner)
        self.num_thresholds = num_thresholds
        self.thresholds = [0.0 - eps] + inner + [1.0 + eps]
        self.curve = curve
        self.summation_method = summation_method
        self.multi_label = bool(multi_label)
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else \
            numpy.asarray(label_weights, numpy.float64)
        if self.label_weights is not None and numpy.any(self.label_weights < 0):
            raise ValueError('AUC: argument label_weights: all values must be non-negative')
        self.from_logits = bool(from_logits)
        self.reset_state()

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if self.from_logits:
            y = y_pred.array if isinstance(y_pred, Variable) else y_pred
            y = numpy.asarray(backend.to_cpu(y) if backend.is_array(y) else y, numpy.float64)
            y_pred = 1.0 / (1.0 + numpy.exp(-y))
        tp, fp, tn, fn = _confusion(y_true, y_pred, self.thresholds, sample_weight,
                                    multi_label=self.multi_label)
        if self.true_positives is None:
            self.true_positives, self.false_positives = tp, fp
            self.true_negatives, self.false_negatives = tn, fn
        else:
            self.true_positives = self.true_positives + tp
            self.false_positives = self.false_positives + fp
            self.true_negatives = self.true_negatives + tn
            self.false_negatives = self.false_negatives + fn

    def reset_state(self) -> None:
        self.true_positives = self.false_positives = None
        self.true_negatives = self.false_negatives = None

    def _interpolate_pr_auc(self, tp: Any, fp: Any, fn: Any) -> Any:
        # Davis & Goadrich (2006): precision is interpolated linearly in the number of
        # predicted positives between two thresholds, which integrates in closed form.
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = _divide_no_nan(dtp, numpy.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        both = (p[:-1] > 0) & (p[1:] > 0)
        ratio = numpy.where(both, _divide_no_nan(p[:-1], numpy.maximum(p[1:], 0)), 1.0)
        with numpy.errstate(divide='ignore'):
            log_ratio = numpy.log(numpy.where(ratio > 0, ratio, 1.0))
        return _divide_no_nan(slope * (dtp + intercept * log_ratio),
                              numpy.maximum(tp[1:] + fn[1:], 0)).sum(axis=0)

    def result(self) -> float:
        if self.true_positives is None:
            return 0.0
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        if self.curve == 'PR' and self.summation_method == 'interpolation':
            per_label = self._interpolate_pr_auc(tp, fp, fn)
        else:
            recall = _divide_no_nan(tp, tp + fn)
            if self.curve == 'ROC':
                x, y = _divide_no_nan(fp, fp + tn), recall
            else:
                x, y = recall, _divide_no_nan(tp, tp + fp)
            if self.summation_method == 'interpolation':
                heights = (y[:-1] + y[1:]) / 2.0
            elif self.summation_method == 'minoring':
                heights = numpy.minimum(y[:-1], y[1:])
            else:
                heights = numpy.maximum(y[:-1], y[1:])
            per_label = ((x[:-1] - x[1:]) * heights).sum(axis=0)
        if not self.multi_label:
            return float(per_label)
        if self.label_weights is None:
            return float(numpy.mean(per_label))
        return float(_divide_no_nan((per_label * self.label_weights).sum(),
                                    self.label_weights.sum()))

    def get_config(self) -> dict:
        return {'name': self.name, 'num_thresholds': self.num_thresholds, 'curve': self.curve,
                'summation_method': self.summation_method, 'thresholds': self._init_thresholds,
                'multi_label': self.multi_label, 'num_labels': self.num_labels,
                'label_weights': None if self.label_weights is None else
                self.label_weights.tolist(), 'from_logits': self.from_logits}


def _host(x: Any, dtype: Any = numpy.float64) -> numpy.ndarray:
    x = x.array if isinstance(x, Variable) else x
    return numpy.asarray(backend.to_cpu(x) if backend.is_array(x) else x, dtype=dtype)


class FBetaScore(Metric):
    """F-beta score of multi-class or multi-label predictions, accumulated over batches.

    Args:
        average: ``None`` (one score per class, an array), ``'micro'`` (from the counts summed
            over classes), ``'macro'`` (mean of the class scores) or ``'weighted'`` (class
            scores weighted by the number of true instances of each class).
        beta: Weight of recall against precision (> 0).
        threshold: Predictions above it count as positive; ``None``: the highest score of
            each sample (ties included) counts as positive.

    Shape:
        ``y_true`` and ``y_pred`` are ``(batch, num_classes)``.

    Example:
        >>> import numpy as np
        >>> from chainlet.keras import metrics
        >>> m = metrics.F1Score(average='macro', threshold=0.5)
        >>> m.update_state(np.array([[1, 0], [0, 1], [1, 0]]),
        ...                np.array([[0.9, 0.2], [0.6, 0.7], [0.3, 0.1]]))
        >>> round(m.result(), 4)
        0.75
    """

    # Per-class counts: None until the first update_state.
    true_positives: Any
    false_positives: Any
    false_negatives: Any
    intermediate_weights: Any

    def __init__(self, average: Optional[str] = None, beta: float = 1.0,
                 threshold: Optional[float] = None, name: str = 'fbeta_score',
                 dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        if average not in (None, 'micro', 'macro', 'weighted'):
            raise ValueError(f'{owner}: argument average: expected None, "micro", "macro" or '
                             f'"weighted", got {average!r}')
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta <= 0:
            raise ValueError(f'{owner}: argument beta: expected a number > 0, got {beta!r}')
        if threshold is not None and (not isinstance(threshold, (int, float)) or
                                      not 0 < threshold <= 1):
            raise ValueError(f'{owner}: argument threshold: expected a number in (0, 1] or '
                             f'None, got {threshold!r}')
        self.average = average
        self.beta = float(beta)
        self.threshold = threshold
        self.reset_state()

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        t, y = _host(y_true), _host(y_pred)
        if t.ndim != 2 or y.ndim != 2 or t.shape != y.shape:
            raise ValueError(f'{type(self).__name__}: y_true and y_pred must both have shape '
                             f'(batch, num_classes); got {t.shape} and {y.shape}')
        if self.threshold is None:
            pred = (y == y.max(axis=-1, keepdims=True)).astype(numpy.float64)
        else:
            pred = (y > self.threshold).astype(numpy.float64)
        w = numpy.ones((len(t), 1)) if sample_weight is None else \
            _host(sample_weight).reshape(-1, 1)
        counts = ((pred * t * w).sum(0), (pred * (1 - t) * w).sum(0),
                  ((1 - pred) * t * w).sum(0), (t * w).sum(0))
        if self.true_positives is None:
            self.true_positives, self.false_positives, self.false_negatives, \
                self.intermediate_weights = counts
        else:
            self.true_positives = self.true_positives + counts[0]
            self.false_positives = self.false_positives + counts[1]
            self.false_negatives = self.false_negatives + counts[2]
            self.intermediate_weights = self.intermediate_weights + counts[3]

    def result(self) -> Any:
        if self.true_positives is None:
            return 0.0
        tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
        if self.average == 'micro':
            tp, fp, fn = tp.sum(), fp.sum(), fn.sum()
        precision = _divide_no_nan(tp, tp + fp)
        recall = _divide_no_nan(tp, tp + fn)
        b2 = self.beta ** 2
        score = _divide_no_nan(precision * recall, b2 * precision + recall) * (1 + b2)
        if self.average == 'weighted':
            weights = _divide_no_nan(self.intermediate_weights, self.intermediate_weights.sum())
            return float((score * weights).sum())
        if self.average is not None:
            return float(numpy.mean(score))
        return score.astype(numpy.float32)

    def reset_state(self) -> None:
        self.true_positives = self.false_positives = None
        self.false_negatives = self.intermediate_weights = None

    def get_config(self) -> dict:
        return {'name': self.name, 'average': self.average, 'beta': self.beta,
                'threshold': self.threshold}


class F1Score(FBetaScore):
    """F1 score (:class:`FBetaScore` with ``beta=1``)."""

    def __init__(self, average: Optional[str] = None, threshold: Optional[float] = None,
                 name: str = 'f1_score', dtype: Any = None) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        del config['beta']
        return config


class R2Score(Metric):
    """Coefficient of determination, accumulated over batches.

    Args:
        class_aggregation: ``'uniform_average'`` (mean over outputs),
            ``'variance_weighted_average'`` (weighted by each output's variance) or ``None``
            (one score per output).
        num_regressors: Number of independent regressors, for the adjusted R^2 (0: plain R^2).

    Example:
        >>> import numpy as np
        >>> from chainlet.keras import metrics
        >>> m = metrics.R2Score()
        >>> m.update_state(np.array([[1.0], [2.0], [3.0]]), np.array([[1.0], [2.0], [2.0]]))
        >>> round(m.result(), 4)
        0.5
    """

    # Per-output sums: None until the first update_state.
    squared_sum: Any
    sum: Any
    total_mse: Any
    count: Any
    num_samples: int

    def __init__(self, class_aggregation: Optional[str] = 'uniform_average',
                 num_regressors: int = 0, name: str = 'r2_score', dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in (None, 'uniform_average', 'variance_weighted_average'):
            raise ValueError(f'R2Score: argument class_aggregation: expected None, '
                             f'"uniform_average" or "variance_weighted_average", got '
                             f'{class_aggregation!r}')
        if isinstance(num_regressors, bool) or int(num_regressors) < 0:
            raise ValueError(f'R2Score: argument num_regressors: expected an int >= 0, got '
                             f'{num_regressors!r}')
        self.class_aggregation = class_aggregation
        self.num_regressors = int(num_regressors)
        self.reset_state()

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        t, y = _host(y_true), _host(y_pred)
        if t.ndim == 1:
            t = t.reshape(-1, 1)
        if y.ndim == 1:
            y = y.reshape(-1, 1)
        if t.ndim != 2 or t.shape != y.shape:
            raise ValueError(f'R2Score: y_true and y_pred must have the same shape (batch, '
                             f'outputs); got {t.shape} and {y.shape}')
        w = numpy.ones_like(t) if sample_weight is None else numpy.broadcast_to(
            _host(sample_weight).reshape(len(t), -1), t.shape)
        parts = ((t * t * w).sum(0), (t * w).sum(0), ((t - y) ** 2 * w).sum(0), w.sum(0))
        if self.squared_sum is None:
            self.squared_sum, self.sum, self.total_mse, self.count = parts
        else:
            self.squared_sum = self.squared_sum + parts[0]
            self.sum = self.sum + parts[1]
            self.total_mse = self.total_mse + parts[2]
            self.count = self.count + parts[3]
        self.num_samples += len(t)

    def result(self) -> Any:
        if self.squared_sum is None:
            return 0.0
        with numpy.errstate(divide='ignore', invalid='ignore'):
            mean = self.sum / self.count
            total = self.squared_sum - self.sum * mean
            raw = 1.0 - self.total_mse / total
        raw = numpy.where(numpy.isinf(raw), 0.0, raw)
        if self.class_aggregation == 'uniform_average':
            r2: Any = float(numpy.mean(raw))
        elif self.class_aggregation == 'variance_weighted_average':
            r2 = float(_divide_no_nan((raw * total).sum(), total.sum()))
        else:
            r2 = raw
        n, p = self.num_samples, self.num_regressors
        if p:
            if p >= n - 1:
                import warnings
                warnings.warn(f'R2Score: num_regressors={p} needs more than {p + 1} samples '
                              f'(got {n}); returning the unadjusted R^2', stacklevel=2)
            else:
                r2 = 1.0 - (1.0 - r2) * (n - 1) / (n - p - 1)
        return r2 if self.class_aggregation is None else float(r2)

    def reset_state(self) -> None:
        self.squared_sum = self.sum = self.total_mse = self.count = None
        self.num_samples = 0

    def get_config(self) -> dict:
        return {'name': self.name, 'class_aggregation': self.class_aggregation,
                'num_regressors': self.num_regressors}


class _AtConstraint(Metric):
    """The best value of one rate among thresholds where another rate reaches ``value``
    (Keras's ``SensitivityAtSpecificity`` family), from counts at ``num_thresholds``
    thresholds spread as in :class:`AUC`."""

    _arg = 'value'
    counts: list  # (tp, fp, tn, fn), one array over the thresholds each

    def __init__(self, value: float, num_thresholds: int = 200, class_id: Optional[int] = None,
                 name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        if not isinstance(value, (int, float)) or isinstance(value, bool) or \
                not 0 <= value <= 1:
            raise ValueError(f'{owner}: argument {self._arg}: expected a number in [0, 1], got '
                             f'{value!r}')
        if isinstance(num_thresholds, bool) or int(num_thresholds) <= 0:
            raise ValueError(f'{owner}: argument num_thresholds: expected an int > 0, got '
                             f'{num_thresholds!r}')
        self.value = float(value)
        self.num_thresholds = int(num_thresholds)
        self.class_id = class_id
        inner = [(i + 1) / (self.num_thresholds - 1) for i in range(self.num_thresholds - 2)]
        self.thresholds = ([0.0 - _EPSILON] + inner + [1.0 + _EPSILON]) \
            if self.num_thresholds > 1 else [0.5]
        self.reset_state()

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        counts = _confusion(y_true, y_pred, self.thresholds, sample_weight,
                            class_id=self.class_id)
        self.counts = [c + d for c, d in zip(self.counts, counts)]

    def reset_state(self) -> None:
        self.counts = [numpy.zeros(len(self.thresholds)) for _ in range(4)]

    def _rates(self) -> tuple:
        raise TypeError(f'{type(self).__name__} must implement _rates')

    def result(self) -> float:
        constraint, dependent = self._rates()
        feasible = constraint >= self.value
        if not feasible.any():
            return 0.0
        return float(numpy.max(numpy.where(feasible, dependent, 0.0)))

    def get_config(self) -> dict:
        return {'name': self.name, self._arg: self.value, 'num_thresholds': self.num_thresholds,
                'class_id': self.class_id}

    @classmethod
    def from_config(cls, config: dict) -> 'Metric':
        return cls(**config)


class SensitivityAtSpecificity(_AtConstraint):
    """The best sensitivity (recall) at a threshold where the specificity is at least
    ``specificity``."""

    _arg = 'specificity'

    def __init__(self, specificity: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def _rates(self) -> tuple:
        tp, fp, tn, fn = self.counts
        return _divide_no_nan(tn, tn + fp), _divide_no_nan(tp, tp + fn)


class SpecificityAtSensitivity(_AtConstraint):
    """The best specificity at a threshold where the sensitivity is at least
    ``sensitivity``."""

    _arg = 'sensitivity'

    def __init__(self, sensitivity: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def _rates(self) -> tuple:
        tp, fp, tn, fn = self.counts
        return _divide_no_nan(tp, tp + fn), _divide_no_nan(tn, tn + fp)


class PrecisionAtRecall(_AtConstraint):
    """The best precision at a threshold where the recall is at least ``recall``."""

    _arg = 'recall'

    def __init__(self, recall: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def _rates(self) -> tuple:
        tp, fp, tn, fn = self.counts
        return _divide_no_nan(tp, tp + fn), _divide_no_nan(tp, tp + fp)


class RecallAtPrecision(_AtConstraint):
    """The best recall at a threshold where the precision is at least ``precision``."""

    _arg = 'precision'

    def __init__(self, precision: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def _rates(self) -> tuple:
        tp, fp, tn, fn = self.counts
        return _divide_no_nan(tp, tp + fp), _divide_no_nan(tp, tp + fn)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    """``max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)`` over the last axis."""
    xp, t, y = _arrays(y_true, y_pred)
    t = t.astype(y.dtype)
    pos = (t * y).sum(axis=-1)
    neg = ((1 - t) * y).max(axis=-1)
    return xp.maximum(neg - pos + 1.0, 0.0)


class CategoricalHinge(MeanMetricWrapper):
    """Mean categorical hinge loss of one-hot targets."""

    def __init__(self, name: str = 'categorical_hinge', dtype: Any = None) -> None:
        super().__init__(categorical_hinge, name=name)


class IoU(Metric):
    """Intersection over union of the classes ``target_class_ids``, from a confusion matrix
    accumulated over batches (Keras's ``IoU``): per class ``TP / (TP + FP + FN)``, averaged over
    the target classes that occurred (in targets or predictions).

    Args:
        num_classes: Number of classes.
        target_class_ids: The classes to average over.
        ignore_class: A target class id whose samples are left out (e.g. a void label).
        sparse_y_true, sparse_y_pred: ``False`` when that argument holds scores or one-hot
            vectors along ``axis`` (the arg-max is taken).
        axis: The class axis of non-sparse inputs.

    Example:
        >>> from chainlet.keras import metrics
        >>> m = metrics.IoU(num_classes=2, target_class_ids=[0])
        >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1]); round(m.result(), 4)
        0.3333
    """

    def __init__(self, num_classes: int, target_class_ids: Any, name: Optional[str] = None,
                 dtype: Any = None, ignore_class: Optional[int] = None,
                 sparse_y_true: bool = True, sparse_y_pred: bool = True,
                 axis: int = -1) -> None:
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        if isinstance(num_classes, bool) or int(num_classes) < 1:
            raise ValueError(f'{owner}: argument num_classes: expected an int >= 1, got '
                             f'{num_classes!r}')
        self.num_classes = int(num_classes)
        ids = [int(i) for i in target_class_ids]
        bad = [i for i in ids if not 0 <= i < self.num_classes]
        if bad or not ids:
            raise ValueError(f'{owner}: argument target_class_ids: expected ids in [0, '
                             f'{self.num_classes}), got {list(target_class_ids)!r}')
        self.target_class_ids = ids
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.reset_state()

    def _labels(self, y_true: Any, y_pred: Any) -> tuple:
        t, y = _host(y_true), _host(y_pred)
        if not self.sparse_y_true:
            t = t.argmax(axis=self.axis)
        if not self.sparse_y_pred:
            y = y.argmax(axis=self.axis)
        return t, y

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        t, y = self._labels(y_true, y_pred)
        if t.size != y.size:
            raise ValueError(f'{type(self).__name__}: y_true and y_pred hold {t.size} and '
                             f'{y.size} labels')
        if sample_weight is None:
            w = numpy.ones(t.size)
        else:
            w = _host(sample_weight)
            if w.size != t.size:  # per-sample weights of per-pixel labels
                w = numpy.broadcast_to(w.reshape(w.shape + (1,) * (t.ndim - w.ndim)), t.shape)
            w = w.reshape(-1)
        t = t.reshape(-1).astype(numpy.int64)
        y = y.reshape(-1).astype(numpy.int64)
        keep = numpy.ones(t.shape, bool) if self.ignore_class is None else \
            t != self.ignore_class
        t, y, w = t[keep], y[keep], w[keep]
        n = self.num_classes
        for name, labels in (('y_true', t), ('y_pred', y)):
            if labels.size and (labels.min() < 0 or labels.max() >= n):
                raise ValueError(f'{type(self).__name__}: {name} holds class ids outside '
                                 f'[0, {n}): [{labels.min()}, {labels.max()}]')
        self.total_cm += numpy.bincount(t * n + y, weights=w, minlength=n * n).reshape(n, n)

    def result(self) -> float:
        cm = self.total_cm
        tp = numpy.diag(cm)
        denominator = cm.sum(axis=0) + cm.sum(axis=1) - tp
        ids = self.target_class_ids
        tp, denominator = tp[ids], denominator[ids]
        valid = float(numpy.sum(denominator > 1e-9))
        iou = tp / (denominator + _EPSILON)
        return float(iou.sum() / (valid + _EPSILON))

    def reset_state(self) -> None:
        self.total_cm = numpy.zeros((self.num_classes, self.num_classes))

    def get_config(self) -> dict:
        return {'name': self.name, 'num_classes': self.num_classes,
                'target_class_ids': list(self.target_class_ids),
                'ignore_class': self.ignore_class, 'sparse_y_true': self.sparse_y_true,
                'sparse_y_pred': self.sparse_y_pred, 'axis': self.axis}


class MeanIoU(IoU):
    """Mean :class:`IoU` over all ``num_classes`` classes."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(num_classes, list(range(int(num_classes))), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        config = super().get_config()
        del config['target_class_ids']
        return config


class BinaryIoU(IoU):
    """:class:`IoU` of binary targets against predictions thresholded at ``threshold``
    (a prediction above it is class 1)."""

    def __init__(self, target_class_ids: Any = (0, 1), threshold: float = 0.5,
                 name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = float(threshold)

    def _labels(self, y_true: Any, y_pred: Any) -> tuple:
        return _host(y_true) > 0.5, _host(y_pred) > self.threshold

    def get_config(self) -> dict:
        return {'name': self.name, 'target_class_ids': list(self.target_class_ids),
                'threshold': self.threshold}


class OneHotIoU(IoU):
    """:class:`IoU` of one-hot targets and class scores (arg-max over ``axis``)."""

    def __init__(self, num_classes: int, target_class_ids: Any, name: Optional[str] = None,
                 dtype: Any = None, ignore_class: Optional[int] = None,
                 sparse_y_pred: bool = False, axis: int = -1) -> None:
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        config = super().get_config()
        del config['sparse_y_true']
        return config


class OneHotMeanIoU(MeanIoU):
    """:class:`MeanIoU` of one-hot targets and class scores (arg-max over ``axis``)."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_pred: bool = False,
                 axis: int = -1) -> None:
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        config = super().get_config()
        del config['sparse_y_true']
        return config


_FUNCTIONS: dict = {
    'accuracy': accuracy, 'binary_accuracy': binary_accuracy,
    'categorical_accuracy': categorical_accuracy,
    'sparse_categorical_accuracy': sparse_categorical_accuracy,
    'top_k_categorical_accuracy': top_k_categorical_accuracy,
    'sparse_top_k_categorical_accuracy': sparse_top_k_categorical_accuracy,
    'mean_squared_error': mean_squared_error, 'mse': mean_squared_error,
    'mean_absolute_error': mean_absolute_error, 'mae': mean_absolute_error,
    'mean_absolute_percentage_error': mean_absolute_percentage_error,
    'mape': mean_absolute_percentage_error,
    'mean_squared_logarithmic_error': mean_squared_logarithmic_error,
    'msle': mean_squared_logarithmic_error, 'cosine_similarity': cosine_similarity,
    'log_cosh_error': log_cosh_error, 'logcosh': log_cosh_error,
    'binary_crossentropy': binary_crossentropy,
    'categorical_crossentropy': categorical_crossentropy,
    'sparse_categorical_crossentropy': sparse_categorical_crossentropy,
    'kl_divergence': kl_divergence, 'kld': kl_divergence, 'hinge': hinge,
    'squared_hinge': squared_hinge, 'poisson': poisson, 'categorical_hinge': categorical_hinge,
    'pearson_correlation': pearson_correlation,
    'concordance_correlation': concordance_correlation,
}
_CLASSES: dict = {c.__name__: c for c in (
    Mean, Sum, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanSquaredError,
    MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
    RootMeanSquaredError, CosineSimilarity, LogCoshError, BinaryCrossentropy,
    CategoricalCrossentropy, SparseCategoricalCrossentropy, KLDivergence, Hinge, SquaredHinge,
    Poisson, TruePositives, FalsePositives, TrueNegatives, FalseNegatives, Precision, Recall,
    AUC, FBetaScore, F1Score, R2Score, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU,
    SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall, RecallAtPrecision,
    CategoricalHinge, PearsonCorrelation, ConcordanceCorrelation)}
# Keras also knows the classes by their snake-case names ('precision', 'auc', ...).
_SNAKE_CLASSES: dict = {}
_BY_FUNCTION = {accuracy: Accuracy, binary_accuracy: BinaryAccuracy,
                categorical_accuracy: CategoricalAccuracy,
                sparse_categorical_accuracy: SparseCategoricalAccuracy,
                top_k_categorical_accuracy: TopKCategoricalAccuracy,
                sparse_top_k_categorical_accuracy: SparseTopKCategoricalAccuracy,
                mean_squared_error: MeanSquaredError, mean_absolute_error: MeanAbsoluteError,
                mean_absolute_percentage_error: MeanAbsolutePercentageError,
                mean_squared_logarithmic_error: MeanSquaredLogarithmicError,
                cosine_similarity: CosineSimilarity, log_cosh_error: LogCoshError,
                binary_crossentropy: BinaryCrossentropy,
                categorical_crossentropy: CategoricalCrossentropy,
                sparse_categorical_crossentropy: SparseCategoricalCrossentropy,
                kl_divergence: KLDivergence, hinge: Hinge, squared_hinge: SquaredHinge,
                poisson: Poisson, categorical_hinge: CategoricalHinge,
                pearson_correlation: PearsonCorrelation,
                concordance_correlation: ConcordanceCorrelation}


def resolve_accuracy(loss: Any, y_true_shape: tuple, y_pred_shape: tuple) -> Callable:
    """The accuracy function that ``'accuracy'`` means for this loss and these shapes (see the
    module docstring for the rule)."""
    loss_name = _loss_name(loss)
    if 'binary_crossentropy' in loss_name or (y_pred_shape and y_pred_shape[-1] == 1):
        return binary_accuracy
    sparse_shapes = len(y_true_shape) == len(y_pred_shape) - 1 or (
        len(y_true_shape) == len(y_pred_shape) and y_true_shape and y_true_shape[-1] == 1)
    if 'sparse_categorical' in loss_name or sparse_shapes:
        return sparse_categorical_accuracy
    return categorical_accuracy


def _loss_name(loss: Any) -> str:
    if loss is None:
        return ''
    fn = getattr(loss, 'fn', None)
    if fn is not None:
        return fn.__name__
    name: Any = getattr(loss, 'name', None)
    return name or getattr(loss, '__name__', '')


def get(identifier: Any, loss: Any = None, y_true_shape: tuple = (),
        y_pred_shape: tuple = ()) -> Metric:
    """A new :class:`Metric` from a name, function, class, config dict or Metric.

    ``'accuracy'``/``'acc'`` are resolved with :func:`resolve_accuracy` (give the loss and the
    shapes); the metric keeps the name the user gave (``accuracy`` or ``acc``).
    """
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        if identifier in ('accuracy', 'acc'):
            fn = resolve_accuracy(loss, y_true_shape, y_pred_shape)
            return _BY_FUNCTION[fn](name=identifier)
        if identifier in ('crossentropy', 'ce'):
            from chainlet.keras import losses
            # cast: with loss=None this fails when the metric is first updated, as before.
            lfn = cast(losses.Loss, losses.get(loss))
            return MeanMetricWrapper(lambda t, y: lfn.call(t, y).array, name=identifier)
        if identifier in _FUNCTIONS:
            fn = _FUNCTIONS[identifier]
            return _BY_FUNCTION[fn](name=identifier)
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        if not _SNAKE_CLASSES:
            from chainlet.keras.engine.base_layer import to_snake_case
            _SNAKE_CLASSES.update({to_snake_case(k): c for k, c in _CLASSES.items()})
        if identifier in _SNAKE_CLASSES:
            return _SNAKE_CLASSES[identifier]()
        raise ValueError(f'Unknown metric: {identifier!r}. Known metrics: '
                         f'{sorted(_FUNCTIONS)}')
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        cls = _BY_FUNCTION.get(identifier)
        if cls is not None:
            return cls()
        return MeanMetricWrapper(_as_array_fn(identifier), name=identifier.__name__)
    raise TypeError(f'metrics.get: expected a metric name, Metric or callable, got '
                    f'{type(identifier).__name__}')


def _as_array_fn(fn: Callable) -> Callable:
    # A user function may be written with chainlet functions and return a Variable.
    def wrapped(y_true: Any, y_pred: Any, **kwargs: Any) -> Any:
        out = fn(y_true, y_pred, **kwargs)
        return out.array if isinstance(out, Variable) else out
    wrapped.__name__ = getattr(fn, '__name__', 'metric')
    return wrapped


def serialize(metric: Metric) -> dict:
    """``{'class_name': ..., 'config': ...}``."""
    return {'class_name': type(metric).__name__, 'config': metric.get_config()}


def deserialize(config: dict, custom_objects: Optional[dict] = None) -> Metric:
    """Inverse of :func:`serialize`."""
    name = config['class_name']
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(f'Unknown metric: {name}; pass it in custom_objects')
    return cls.from_config(config.get('config', {}))


__all__ = ['Metric', 'Mean', 'Sum', 'MeanMetricWrapper', 'Accuracy', 'BinaryAccuracy',
           'CategoricalAccuracy', 'SparseCategoricalAccuracy', 'TopKCategoricalAccuracy',
           'SparseTopKCategoricalAccuracy', 'MeanSquaredError', 'MeanAbsoluteError',
           'accuracy', 'binary_accuracy', 'categorical_accuracy', 'sparse_categorical_accuracy',
           'top_k_categorical_accuracy', 'sparse_top_k_categorical_accuracy',
           'mean_squared_error', 'mean_absolute_error', 'mse', 'mae', 'get', 'serialize',
           'deserialize', 'resolve_accuracy', 'MeanAbsolutePercentageError',
           'MeanSquaredLogarithmicError', 'RootMeanSquaredError', 'CosineSimilarity',
           'LogCoshError', 'BinaryCrossentropy', 'CategoricalCrossentropy',
           'SparseCategoricalCrossentropy', 'KLDivergence', 'Hinge', 'SquaredHinge', 'Poisson',
           'TruePositives', 'FalsePositives', 'TrueNegatives', 'FalseNegatives', 'Precision',
           'Recall', 'AUC', 'mean_absolute_percentage_error', 'mean_squared_logarithmic_error',
           'cosine_similarity', 'log_cosh_error', 'binary_crossentropy',
           'categorical_crossentropy', 'sparse_categorical_crossentropy', 'kl_divergence',
           'hinge', 'squared_hinge', 'poisson', 'mape', 'msle', 'FBetaScore', 'F1Score',
           'R2Score', 'IoU', 'MeanIoU', 'BinaryIoU', 'OneHotIoU', 'OneHotMeanIoU',
           'SensitivityAtSpecificity', 'SpecificityAtSensitivity', 'PrecisionAtRecall',
           'RecallAtPrecision', 'CategoricalHinge', 'categorical_hinge']
