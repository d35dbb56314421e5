"""Normalization layers: ``BatchNormalization``, ``LayerNormalization``, ``GroupNormalization``."""
from __future__ import annotations

from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet import Variable
from chainlet.keras import constraints, initializers, regularizers
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec


def _axes(axis: Any, ndim: int, where: str) -> tuple:
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    out = []
    for a in axes:
        if not -ndim <= a < ndim or a % ndim == 0:
            raise ValueError(f'{where}: argument axis: {a} is not a non-batch axis of an input '
                             f'of rank {ndim}')
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f'{where}: argument axis: duplicate axes in {axis!r}')
    return tuple(sorted(out))


class _Normalization(Layer):
    """Shared ``center``/``scale`` weights (``beta``/``gamma``) and their config."""

    supports_masking = True  # keeps the time axis: an input mask passes through

    def __init__(self, axis: Any, epsilon: float, center: bool, scale: bool,
                 beta_initializer: Any, gamma_initializer: Any, beta_regularizer: Any,
                 gamma_regularizer: Any, beta_constraint: Any, gamma_constraint: Any,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis if isinstance(axis, (int, numpy.integer)) else list(axis)
        self.epsilon = float(epsilon)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    @property
    def _where(self) -> str:
        return f'{type(self).__name__} "{self.name}"'

    def _build_affine(self, shape: tuple) -> None:
        if self.scale:
            self.gamma = self.add_weight('gamma', shape, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight('beta', shape, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint)

    def _gamma_beta(self, x: Any, shape: tuple) -> tuple:
        xp = x.xp
        # Weights exist only when scale/center are on; constants stand in otherwise.
        gamma = getattr(self, 'gamma', None)
        beta = getattr(self, 'beta', None)
        gamma = xp.ones(shape, self._dtype) if gamma is None else gamma
        beta = xp.zeros(shape, self._dtype) if beta is None else beta
        return gamma, beta

    def _known_axes(self, input_shape: Any) -> tuple:
        axes = _axes(self.axis, len(input_shape), self._where)
        for a in axes:
            if input_shape[a] is None:
                raise ValueError(f'{self._where}: axis {a} of the input must have a known size, '
                                 f'got input shape {tuple(input_shape)}')
        return axes

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            axis=self.axis, epsilon=self.epsilon, center=self.center, scale=self.scale,
            beta_initializer=initializers.serialize(self.beta_initializer),
            gamma_initializer=initializers.serialize(self.gamma_initializer),
            beta_regularizer=regularizers.serialize(self.beta_regularizer),
            gamma_regularizer=regularizers.serialize(self.gamma_regularizer))
        return config


class BatchNormalization(_Normalization):
    """Normalizes each feature with the batch statistics in training and with moving
    statistics in inference.

    In training (``training=True``, as ``fit`` passes) the output is
    ``gamma * (x - mean) / sqrt(var + epsilon) + beta`` with the mean and biased variance of
    the batch over every axis except ``axis``, and the non-trainable ``moving_mean`` and
    ``moving_variance`` become ``moving * momentum + batch * (1 - momentum)``. Otherwise
    (``training`` false or ``None``) the moving statistics are used and nothing is updated.
    A layer with ``trainable=False`` always runs in inference mode (as in Keras 3).

    Args:
        axis: The feature axis (or list of axes), ``-1`` for channels_last data.
        momentum: Momentum of the moving averages.
        epsilon: Added to the variance.
        center, scale: Whether to learn ``beta`` and ``gamma``.
        beta_initializer, gamma_initializer: Initializers of ``beta`` (zeros) and ``gamma``
            (ones).
        moving_mean_initializer, moving_variance_initializer: Initializers of the moving
            statistics (zeros, ones).
        beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: Optional.

    Weights:
        ``gamma``, ``beta`` (trainable), then ``moving_mean``, ``moving_variance``, each of the
        shape of the feature axes.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> bn = keras.layers.BatchNormalization(momentum=0.5)
        >>> x = np.array([[0.0, 10.0], [2.0, 30.0]], np.float32)
        >>> np.round(bn(x, training=True).array, 2)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
        >>> bn.moving_mean.array
        array([ 0.5, 10. ], dtype=float32)
        >>> bn.moving_variance.array      # 1 * 0.5 + biased batch variance * 0.5
        array([ 1. , 50.5], dtype=float32)
        >>> np.round(bn(x).array, 2)       # inference: moving statistics
        array([[-0.5 ,  0.  ],
               [ 1.5 ,  2.81]], dtype=float32)
    """

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = 'zeros',
                 gamma_initializer: Any = 'ones', moving_mean_initializer: Any = 'zeros',
                 moving_variance_initializer: Any = 'ones', beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, synchronized: bool = False,
                 **kwargs: Any) -> None:
        # Keras 2 arguments with no effect here.
        for ignored in ('renorm', 'renorm_clipping', 'renorm_momentum', 'fused',
                        'virtual_batch_size', 'adjustment'):
            value = kwargs.pop(ignored, None)
            if value:
                raise ValueError(f'BatchNormalization: argument {ignored}={value!r} is not '
                                 f'supported')
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint,
                         gamma_constraint, **kwargs)
        self.momentum = float(momentum)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.synchronized = synchronized

    def build(self, input_shape: Any) -> None:
        axes = self._known_axes(input_shape)
        shape = tuple(input_shape[a] for a in axes)
        self._build_affine(shape)
        self.moving_mean = self.add_weight('moving_mean', shape,
                                           initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight('moving_variance', shape,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False)
        self.input_spec = InputSpec(ndim=len(input_shape),
                                    axes={a: input_shape[a] for a in axes})
        self.built = True

    def call(self, inputs: Any, training: Optional[bool] = None) -> Any:
        x = inputs
        axes = _axes(self.axis, x.ndim, self._where)
        reduce = tuple(i for i in range(x.ndim) if i not in axes)
        shape = tuple(x.shape[a] for a in axes)
        gamma, beta = self._gamma_beta(x, shape)
        if training and self.trainable:
            self._update_moving(x, reduce)
            return F.batch_normalization(x, gamma, beta, eps=self.epsilon, axis=reduce)
        # The moving statistics enter as constants: they must not receive gradients.
        return F.fixed_batch_normalization(x, gamma, beta, self.moving_mean.array,
                                           self.moving_variance.array, eps=self.epsilon,
                                           axis=reduce)

    def _update_moving(self, x: Any, reduce: tuple) -> None:
        data = x.array if isinstance(x, Variable) else x
        data = data.astype(numpy.promote_types(data.dtype, numpy.float32), copy=False)
        m = self.momentum
        for param, batch in ((self.moving_mean, data.mean(axis=reduce)),
                             (self.moving_variance, data.var(axis=reduce))):
            param.array[...] = (param.array * m + batch * (1 - m)).astype(param.dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            momentum=self.momentum,
            moving_mean_initializer=initializers.serialize(self.moving_mean_initializer),
            moving_variance_initializer=initializers.serialize(
                self.moving_variance_initializer))
        return config


class LayerNormalization(_Normalization):
    """Normalizes each sample over ``axis``: ``gamma * (x - mean) / sqrt(var + epsilon) +
    beta`` with the mean and (biased) variance over ``axis``; same in training and inference.

    Args:
        axis: Axis or list of axes to normalize over (``-1``: the features).
        epsilon: Added to the variance.
        center, scale: Whether to learn ``beta`` and ``gamma`` (shape of the ``axis`` sizes).
        beta_initializer, gamma_initializer, regularizers, constraints: As in
            ``BatchNormalization``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> ln = keras.layers.LayerNormalization(epsilon=0.0)
        >>> ln(np.array([[1.0, 3.0]], np.float32)).array
        array([[-1.,  1.]], dtype=float32)
    """

    def __init__(self, axis: Any = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = 'zeros',
                 gamma_initializer: Any = 'ones', beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        if kwargs.pop('rms_scaling', False):
            raise ValueError('LayerNormalization: rms_scaling=True is not supported')
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint,
                         gamma_constraint, **kwargs)

    def build(self, input_shape: Any) -> None:
        axes = self._known_axes(input_shape)
        self._build_affine(tuple(input_shape[a] for a in axes))
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = inputs
        axes = _axes(self.axis, x.ndim, self._where)
        bshape = tuple(d if i in axes else 1 for i, d in enumerate(x.shape))
        mean = F.mean(x, axis=axes, keepdims=True)
        centered = x - F.broadcast_to(mean, x.shape)
        var = F.mean(F.square(centered), axis=axes, keepdims=True)
        y = centered * F.broadcast_to(F.rsqrt(var + x.dtype.type(self.epsilon)), x.shape)
        gamma, beta = self._gamma_beta(x, tuple(x.shape[a] for a in axes))
        return y * F.reshape(gamma, bshape) + F.reshape(beta, bshape)


class GroupNormalization(_Normalization):
    """Normalizes each sample over groups of channels: the ``axis`` channels are split into
    ``groups`` groups, each normalized over its channels and every other non-batch axis.

    Args:
        groups: Number of groups; the channel count must be a multiple of it.
        axis: The channel axis (``-1`` for channels_last).
        epsilon: Added to the variance.
        center, scale, initializers, regularizers, constraints: As in ``LayerNormalization``
            (``gamma``/``beta`` have one value per channel).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> gn = keras.layers.GroupNormalization(groups=2, epsilon=0.0)
        >>> np.round(gn(np.array([[1.0, 3.0, 5.0, 9.0]], np.float32)).array, 3)
        array([[-1.,  1., -1.,  1.]], dtype=float32)
    """

    def __init__(self, groups: int = 32, axis: int = -1, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = 'zeros',
                 gamma_initializer: Any = 'ones', beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint,
                         gamma_constraint, **kwargs)
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f'{self._where}: argument groups: expected a positive int, '
                             f'got {groups!r}')
        self.groups = groups

    def build(self, input_shape: Any) -> None:
        axes = self._known_axes(input_shape)
        if len(axes) != 1:
            raise ValueError(f'{self._where}: argument axis: expected a single axis, '
                             f'got {self.axis!r}')
        channels = input_shape[axes[0]]
        if channels % self.groups:
            raise ValueError(f'{self._where}: the number of channels ({channels}) must be a '
                             f'multiple of groups ({self.groups})')
        self._build_affine((channels,))
        self.input_spec = InputSpec(min_ndim=2, axes={axes[0]: channels})
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = inputs
        axis = _axes(self.axis, x.ndim, self._where)[0]
        channels = x.shape[axis]
        grouped_shape = x.shape[:axis] + (self.groups, channels // self.groups) + \
            x.shape[axis + 1:]
        g = F.reshape(x, grouped_shape)
        # Reduce over every axis but the batch and the group axis.
        reduce = tuple(i for i in range(1, g.ndim) if i != axis)
        mean = F.mean(g, axis=reduce, keepdims=True)
        centered = g - F.broadcast_to(mean, g.shape)
        var = F.mean(F.square(centered), axis=reduce, keepdims=True)
        y = centered * F.broadcast_to(F.rsqrt(var + x.dtype.type(self.epsilon)), g.shape)
        y = F.reshape(y, x.shape)
        gamma, beta = self._gamma_beta(x, (channels,))
        bshape = tuple(channels if i == axis else 1 for i in range(x.ndim))
        return y * F.reshape(gamma, bshape) + F.reshape(beta, bshape)

    def get_config(self) -> dict:
        config = super().get_config()
        config['groups'] = self.groups
        return config


class RMSNormalization(Layer):
    """Root-mean-square normalization (Zhang and Sennrich, 2019):
    ``x / sqrt(mean(x^2, axis) + epsilon) * scale``, with a learned ``scale`` (ones at first).

    Args:
        axis: The axis (or axes) normalized and scaled.
        epsilon: Added to the mean square.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> y = keras.layers.RMSNormalization()(np.array([[3.0, 4.0]], np.float32))
        >>> np.round(y.array ** 2, 4)
        array([[0.72, 1.28]], dtype=float32)
    """

    def __init__(self, axis: Any = -1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis, self.epsilon = axis, float(epsilon)

    def build(self, input_shape: Any) -> None:
        axes = (self.axis,) if isinstance(self.axis, int) else tuple(self.axis)
        ndim = len(input_shape)
        axes = tuple(a % ndim for a in axes)
        shape = tuple(input_shape[a] for a in axes)
        if None in shape:
            raise ValueError(f'RMSNormalization "{self.name}": the normalized axes must have '
                             f'known sizes, got input shape {tuple(input_shape)}')
        self._axes = axes
        self.scale = self.add_weight('scale', shape, initializer='ones')
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = inputs
        ms = F.mean(F.square(x), axis=self._axes, keepdims=True)
        y = x * F.broadcast_to(F.rsqrt(ms + self.epsilon), x.shape)
        # the scale's axes in place, ones elsewhere, for broadcasting
        shape = [1] * x.ndim
        for a in self._axes:
            shape[a] = x.shape[a]
        return y * F.broadcast_to(F.reshape(self.scale, tuple(shape)), x.shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(axis=self.axis, epsilon=self.epsilon)
        return config
