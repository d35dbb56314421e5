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

from typing import Any, Callable, Optional

import numpy

from chainlet import Variable, backend


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

    Subclasses implement :meth:`update_state`, :meth:`result` and :meth:`reset_state`.

    Args:
        name: Name shown in logs and ``History`` (``val_`` is prepended for validation).
        dtype: Ignored (results are Python floats).
    """

    def __init__(self, name: Optional[str] = None, dtype: Any = None) -> None:
        from chainlet.keras.engine.base_layer import to_snake_case
        self.name = name or to_snake_case(type(self).__name__)

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate statistics from one batch."""
        raise TypeError(f'{type(self).__name__} must implement update_state')

    def result(self) -> float:
        """The metric value from everything accumulated so far."""
        raise TypeError(f'{type(self).__name__} must implement result')

    def reset_state(self) -> None:
        """Forget the accumulated statistics."""
        raise TypeError(f'{type(self).__name__} must implement reset_state')

    reset_states = reset_state

    def __call__(self, *args: Any, **kwargs: Any) -> float:
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
        xp = backend.get_array_module(v)
        v = xp.asarray(v, dtype=numpy.float64)
        if sample_weight is None:
            self.total += float(v.sum())
            self.count += float(v.size)
            return
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

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
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


_FUNCTIONS: dict = {
    'accuracy': accuracy, 'binary_accuracy': binary_accuracy,
    'categorical_accuracy': categorical_accuracy,
    'sparse_categorical_accuracy': sparse_categorical_accuracy,
    'top_k_categorical_accuracy': top_k_categorical_accuracy,
    'sparse_top_k_categorical_accuracy': sparse_top_k_categorical_accuracy,
    'mean_squared_error': mean_squared_error, 'mse': mean_squared_error,
    'mean_absolute_error': mean_absolute_error, 'mae': mean_absolute_error,
}
_CLASSES: dict = {c.__name__: c for c in (
    Mean, Sum, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanSquaredError,
    MeanAbsoluteError)}
_BY_FUNCTION = {accuracy: Accuracy, binary_accuracy: BinaryAccuracy,
                categorical_accuracy: CategoricalAccuracy,
                sparse_categorical_accuracy: SparseCategoricalAccuracy,
                top_k_categorical_accuracy: TopKCategoricalAccuracy,
                sparse_top_k_categorical_accuracy: SparseTopKCategoricalAccuracy,
                mean_squared_error: MeanSquaredError, mean_absolute_error: MeanAbsoluteError}


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
    return getattr(loss, 'name', None) or getattr(loss, '__name__', '')


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
            lfn = losses.get(loss)
            return MeanMetricWrapper(lambda t, y: lfn.call(t, y).array, name=identifier)
        if identifier in _FUNCTIONS:
            fn = _FUNCTIONS[identifier]
            return _BY_FUNCTION[fn](name=identifier)
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
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
           'deserialize', 'resolve_accuracy']
