"""Batch normalization with batch statistics, and with fixed statistics."""
from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence, Union

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.cast import cast
from chainlet.functions.array.reshape import reshape
from chainlet.functions.math.sum import sum as _sum
from chainlet.functions.normalization._bn_impl import (  # noqa: F401  (Chainer's names here)
    GeneralBatchNormalizationImpl, _BatchNormalizationImpl)
from chainlet.functions.normalization._standardize import (
    interm_dtype, moments, project, reduced_size, standardize)
from chainlet.variable import Variable

Axis = Optional[Union[int, Sequence[int]]]


def _array(v: Any) -> Any:
    return v.array if isinstance(v, Variable) else v


def parse_axis(func: str, axis: Axis) -> Optional[tuple]:
    """Validate the ``axis`` hyper-parameter: ``None``, an int or a sequence of ints."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else axis
    if not isinstance(axes, (tuple, list)) or \
            any(not isinstance(a, (int, numpy.integer)) or isinstance(a, bool) for a in axes):
        raise TypeError(f'{func}: argument axis: expected None, an int or a tuple of ints, '
                        f'got {axis!r}')
    return tuple(int(a) for a in axes)


def compute_axes(func: str, axis: Optional[tuple], x_ndim: int, gamma_ndim: int) -> tuple:
    """Axes to reduce over: the given ones (made non-negative and sorted), or by default
    ``(0,)`` plus every axis after the ``gamma_ndim`` channel axes."""
    if axis is None:
        if x_ndim < gamma_ndim + 1:
            raise type_check.fail(func, 'x', f'ndim >= {gamma_ndim + 1} (one more than gamma)',
                                  f'ndim {x_ndim}')
        return (0,) + tuple(range(gamma_ndim + 1, x_ndim))
    out = []
    for a in axis:
        if not -x_ndim <= a < x_ndim:
            raise ValueError(f'{func}: argument axis: expected values in [{-x_ndim}, {x_ndim}) '
                             f'for x of ndim {x_ndim}, got {axis}')
        out.append(a % x_ndim)
    if len(set(out)) != len(out):
        raise ValueError(f'{func}: argument axis: duplicate axes in {axis}')
    return tuple(sorted(out))


def check_params(func: str, x: Any, axes: tuple, names: Sequence[str],
                 params: Sequence[Any]) -> None:
    """Check that the per-channel arrays are floats of one dtype and of x's channel shape."""
    type_check.float_input(func, 'x', x)
    type_check.float_input(func, names[0], params[0])
    type_check.same_dtype(func, names, params)
    key_shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
    for name, p in zip(names, params):
        type_check.argument(func, name, p, shape=key_shape)


def broadcast_shape(x_shape: tuple, axes: tuple) -> tuple:
    """``x_shape`` with the reduced axes set to one: the shape per-channel arrays expand to."""
    return tuple(1 if i in axes else s for i, s in enumerate(x_shape))


class BatchNormalization(FunctionNode):
    """``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with the batch's mean and variance.

    Given running statistics, updates them in place. The batch statistics (small, per channel)
    are kept for backward, which is :class:`BatchNormalizationGrad`.
    """

    _impl = None

    def __init__(self, eps: float = 2e-5, mean: Any = None, var: Any = None,
                 decay: float = 0.9, axis: Axis = None, impl_selector: Any = None) -> None:
        self.eps = eps
        self.running_mean = mean
        self.running_var = var
        self.decay = decay
        self.axis = parse_axis('batch_normalization', axis)
        # Chainer's hook for a replaced implementation (``impl_selector(self, inputs)`` returns a
        # GeneralBatchNormalizationImpl or the like); None keeps chainlet's fused path.
        self._impl_selector = impl_selector

    def _check_arrays(self, in_data):
        x, gamma, beta = in_data
        axes = compute_axes('batch_normalization', self.axis, x.ndim, gamma.ndim)
        check_params('batch_normalization', x, axes, ('gamma', 'beta'), (gamma, beta))
        for name, r in (('running_mean', self.running_mean), ('running_var', self.running_var)):
            if r is not None:
                type_check.argument('batch_normalization', name, r, kind='f',
                                    shape=gamma.shape)

    def forward(self, inputs):
        if self._impl_selector is not None:
            return self._forward_with_impl(inputs)
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        # Chainer's ``axis`` also ends up as the axes reduced over (graph exporters read it).
        self.axis = self.axes = axes = compute_axes('batch_normalization', self.axis, x.ndim,
                                                    gamma.ndim)
        self.bshape = bshape = broadcast_shape(x.shape, axes)
        if x.size and all(x.shape[i] == 1 for i in axes):
            warnings.warn('batch_normalization: every axis it averages over has size one, so '
                          'the output is beta alone (a batch of one sample in training mode?)',
                          UserWarning, stacklevel=4)
        mean, var = moments(x, axes)
        inv_std = 1 / xp.sqrt(var + self.eps)
        y = (x - mean) * inv_std
        y *= gamma.reshape(bshape)
        y += beta.reshape(bshape)
        self.mean = mean
        self.inv_std = inv_std
        self._update_running_statistics(x, mean, var, gamma.shape)
        self.retain_inputs((0, 1))
        return y.astype(x.dtype, copy=False),

    def _update_running_statistics(self, x, mean, var, shape):
        m = reduced_size(x.shape, self.axes)
        if m == 0:
            return  # an empty batch carries no information about the statistics
        decay = self.decay
        if self.running_mean is not None:
            r = self.running_mean
            r *= decay
            r += ((1 - decay) * mean).reshape(shape)
        if self.running_var is not None:
            adjust = m / max(m - 1.0, 1.0)  # unbiased estimate of the variance
            r = self.running_var
            r *= decay
            r += ((1 - decay) * adjust * var).reshape(shape)

    def _forward_with_impl(self, inputs):
        x, gamma, beta = inputs
        # Chainer's ``axis`` also ends up as the axes reduced over (graph exporters read it).
        self.axis = self.axes = axes = compute_axes('batch_normalization', self.axis, x.ndim,
                                                    gamma.ndim)
        self.bshape = broadcast_shape(x.shape, axes)
        # The attributes Chainer's selectors and implementations read.
        self.key_axis = tuple(i for i in range(x.ndim) if i not in axes)
        self.expander = tuple(slice(None) if i in self.key_axis else None
                              for i in range(x.ndim))
        self._impl = self._impl_selector(self, inputs)
        (y, _, self.running_mean, self.running_var, self.mean, self.var, self.inv_std,
         self.forward_data) = self._impl.forward(
            axis=axes, gamma=gamma, x=x, x_layout=None, xp=backend.get_array_module(x),
            expander=self.expander, beta=beta, eps=self.eps, decay=self.decay,
            running_mean=self.running_mean, running_var=self.running_var)
        self.retain_inputs((0, 1))
        return y,

    def forward_gpu(self, inputs):
        if self._impl_selector is not None:
            return self._forward_with_impl(inputs)
        # Statistics with CuPy's reductions, then one fused kernel for the normalization.
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        # Chainer's ``axis`` also ends up as the axes reduced over (graph exporters read it).
        self.axis = self.axes = axes = compute_axes('batch_normalization', self.axis, x.ndim,
                                                    gamma.ndim)
        self.bshape = bshape = broadcast_shape(x.shape, axes)
        if x.size and all(x.shape[i] == 1 for i in axes):
            warnings.warn('batch_normalization: every axis it averages over has size one, so '
                          'the output is beta alone (a batch of one sample in training mode?)',
                          UserWarning, stacklevel=4)
        mean, var = moments(x, axes)
        inv_std = 1 / xp.sqrt(var + self.eps)
        self.mean = mean
        self.inv_std = inv_std
        y = _cuda_kernels.batch_norm(x, mean, inv_std, gamma.reshape(bshape), beta.reshape(bshape))
        self._update_running_statistics(x, mean, var, gamma.shape)
        self.retain_inputs((0, 1))
        return y,

    def backward(self, indexes, grad_outputs):
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        if self._impl is not None:
            return _ImplBatchNormalizationGrad(self).apply((x, gamma, gy))
        return BatchNormalizationGrad(self.eps, self.axes, self.bshape, self.mean,
                                      self.inv_std).apply((x, gamma, gy))


class BatchNormalizationGrad(FunctionNode):
    """``(gx, ggamma, gbeta)`` of batch normalization from ``(x, gamma, gy)``.

    Its backward recomputes the normalized input from ``x`` with differentiable functions, so
    gradients of every order are exact.
    """

    def __init__(self, eps: float, axes: tuple, bshape: tuple, mean: Any,
                 inv_std: Any) -> None:
        self.eps = eps
        self.axes = axes
        self.bshape = bshape
        self.mean = mean
        self.inv_std = inv_std

    def forward(self, inputs):
        x, gamma, gy = inputs
        self.retain_inputs((0, 1, 2))
        axes, bshape = self.axes, self.bshape
        dtype = interm_dtype(x.dtype)
        inv_m = 1.0 / max(reduced_size(x.shape, axes), 1)
        x_hat = (x - self.mean) * self.inv_std
        gbeta = gy.sum(axis=axes, dtype=dtype, keepdims=True)
        ggamma = (gy * x_hat).sum(axis=axes, keepdims=True)
        gx = x_hat * ggamma
        gx += gbeta
        gx *= -inv_m
        gx += gy
        gx *= gamma.reshape(bshape) * self.inv_std
        shape = gamma.shape
        return (gx.astype(x.dtype, copy=False),
                ggamma.reshape(shape).astype(gamma.dtype, copy=False),
                gbeta.reshape(shape).astype(gamma.dtype, copy=False))

    def forward_gpu(self, inputs):
        # Two reductions (sum gy, sum gy * x_hat) and one fused kernel for gx.
        x, gamma, gy = inputs
        self.retain_inputs((0, 1, 2))
        axes, bshape = self.axes, self.bshape
        inv_m = 1.0 / max(reduced_size(x.shape, axes), 1)
        gbeta = gy.sum(axis=axes, dtype=_cuda_kernels.acc_dtype(x.dtype), keepdims=True)
        ggamma = _cuda_kernels.batch_norm_ggamma(gy, x, self.mean, self.inv_std, axis=axes,
                                                 keepdims=True)
        gx = _cuda_kernels.batch_norm_gx(x, gy, self.mean, self.inv_std,
                                         gamma.reshape(bshape), ggamma, gbeta, inv_m)
        shape = gamma.shape
        return (gx, ggamma.reshape(shape).astype(gamma.dtype, copy=False),
                gbeta.reshape(shape).astype(gamma.dtype, copy=False))

    def backward(self, indexes, grad_outputs):
        # Notation: a, b, c are the gradients of gx, ggamma and gbeta; P(g) = g - mean(g) -
        # x_hat * mean(g * x_hat) is the projection that normalization's Jacobian applies.
        x, gamma, gy = self.get_retained_inputs()
        a, b, c = grad_outputs
        axes, bshape = self.axes, self.bshape
        inv_m = 1.0 / max(reduced_size(x.shape, axes), 1)
        x_hat, inv_std = standardize(x, axes, self.eps)
        gamma_e = reshape(gamma, bshape)
        coeff = gamma_e * inv_std
        b_e = None if b is None else reshape(b, bshape)

        ggy = None
        if a is not None:
            ggy = coeff * project(a, x_hat, axes, inv_m)
        if b_e is not None:
            ggy = b_e * x_hat if ggy is None else ggy + b_e * x_hat
        if c is not None:
            c_e = reshape(c, bshape)
            ggy = broadcast_to(c_e, gy.shape) if ggy is None else ggy + c_e

        gx = ggamma = None
        if a is not None or b is not None:
            g = r = None
            if a is not None:
                sum_gy_xh = _sum(gy * x_hat, axes, keepdims=True)
                sum_a_xh = _sum(a * x_hat, axes, keepdims=True)
                g = (gy * sum_a_xh + a * sum_gy_xh) * (coeff * -inv_m)
                # r = sum(a * gx) with gx = coeff * P(gy)
                t = _sum(a * project(gy, x_hat, axes, inv_m), axes, keepdims=True)
                r = coeff * t
                ggamma = reshape(inv_std * t, gamma.shape)
            if b_e is not None:
                g = b_e * gy if g is None else g + b_e * gy
            gx = inv_std * project(g, x_hat, axes, inv_m)
            if r is not None:
                gx = gx - x_hat * (r * inv_std * inv_m)
        return gx, ggamma, ggy


class _ImplBatchNormalizationGrad(BatchNormalizationGrad):
    """:class:`BatchNormalizationGrad` whose first-order gradient comes from the forward's
    replaced implementation (its higher orders are the plain formulas)."""

    def __init__(self, bn: BatchNormalization) -> None:
        expand = bn.expander
        super().__init__(bn.eps, bn.axes, bn.bshape, bn.mean[expand], bn.inv_std[expand])
        self.bn = bn

    def forward(self, inputs):
        x, gamma, gy = inputs
        self.retain_inputs((0, 1, 2))
        bn = self.bn
        gx, _, ggamma, gbeta = bn._impl.backward(
            axis=bn.axes, gamma=gamma, gy=gy, x=x, x_layout=None,
            xp=backend.get_array_module(x), expander=bn.expander, mean=bn.mean,
            inv_std=bn.inv_std, eps=bn.eps, var=bn.var, forward_data=bn.forward_data)
        return (gx, ggamma.astype(gamma.dtype, copy=False),
                gbeta.astype(gamma.dtype, copy=False))

    forward_gpu = forward


class FixedBatchNormalization(FunctionNode):
    """``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with given ``mean`` and ``var``.

    Backward is written with differentiable functions of the retained inputs, so every order of
    derivative in all five inputs is available.
    """

    def __init__(self, eps: float = 2e-5, axis: Axis = None) -> None:
        self.eps = eps
        self.axis = parse_axis('fixed_batch_normalization', axis)

    def _check_arrays(self, in_data):
        x, gamma = in_data[:2]
        axes = compute_axes('fixed_batch_normalization', self.axis, x.ndim, gamma.ndim)
        check_params('fixed_batch_normalization', x, axes, ('gamma', 'beta', 'mean', 'var'),
                     in_data[1:])

    def forward(self, inputs):
        x, gamma, beta, mean, var = inputs
        xp = backend.get_array_module(x)
        # Chainer's ``axis`` also ends up as the axes reduced over (graph exporters read it).
        self.axis = self.axes = axes = compute_axes('fixed_batch_normalization', self.axis,
                                                    x.ndim, gamma.ndim)
        self.bshape = bshape = broadcast_shape(x.shape, axes)
        dtype = interm_dtype(x.dtype)
        inv_std = 1 / xp.sqrt(var.astype(dtype, copy=False) + self.eps)
        scale = (gamma * inv_std).reshape(bshape)
        y = (x - mean.reshape(bshape)) * scale
        y += beta.reshape(bshape)
        self.retain_inputs((0, 1, 3, 4))
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, gamma, mean, var = self.get_retained_inputs()
        gy, = grad_outputs
        axes, bshape = self.axes, self.bshape
        inv_std = (var + self.eps) ** -0.5
        inv_std_e = reshape(inv_std, bshape)
        ret = []
        gx = ggamma = None
        for i in indexes:
            if i == 0 or i == 3:
                if gx is None:
                    gx = gy * reshape(gamma * inv_std, bshape)
                ret.append(gx if i == 0 else -_sum(gx, axes))
            elif i == 1 or i == 4:
                if ggamma is None:
                    x_hat = (x - reshape(mean, bshape)) * inv_std_e
                    ggamma = _sum(gy * x_hat, axes)
                # d inv_std / d var = -inv_std^3 / 2, and ggamma already holds one inv_std
                ret.append(ggamma if i == 1 else ggamma * gamma * inv_std * inv_std * -0.5)
            else:
                ret.append(_sum(gy, axes))
        return tuple(ret)


def _common_dtype(x: Any, params: Sequence[Any]) -> Any:
    """The dtype to compute in when ``x`` and the parameters have different float dtypes (the
    promoted one), or ``None`` when no cast is needed or the type check should report."""
    x = _array(x)
    arrays = [_array(p) for p in params]
    if not all(hasattr(a, 'dtype') and a.dtype.kind == 'f' for a in [x] + arrays):
        return None
    p_dtype = arrays[0].dtype
    if x.dtype == p_dtype or any(a.dtype != p_dtype for a in arrays):
        return None
    return numpy.promote_types(x.dtype, p_dtype)


def batch_normalization(x: Any, gamma: Any, beta: Any, eps: float = 2e-5,
                        running_mean: Any = None, running_var: Any = None, decay: float = 0.9,
                        axis: Axis = None) -> Variable:
    """Batch normalization with the statistics of the batch.

    .. math::
        y = \\gamma \\frac{x - \\mu}{\\sqrt{\\sigma^2 + \\epsilon}} + \\beta

    where :math:`\\mu` and :math:`\\sigma^2` are the mean and the (biased) variance of ``x`` over
    ``axis``. By default ``axis`` is the first axis plus every axis after the channel axes:
    ``gamma`` of shape ``(C,)`` with ``x`` of shape ``(N, C, H, W)`` averages over
    ``(0, 2, 3)``. The batch statistics are always used, whatever ``chainlet.config.train`` says
    (use :func:`fixed_batch_normalization` for inference).

    Args:
        x: Input Variable or array of floats, shape ``(N, *channel_shape, ...)``.
        gamma: Scale, shape ``channel_shape`` (the axes of ``x`` not reduced over).
        beta: Shift, same shape and dtype as ``gamma``.
        eps: Added to the variance before the square root.
        running_mean: Array (``channel_shape``) updated in place to
            ``decay * running_mean + (1 - decay) * mean``; ``None`` to skip.
        running_var: Array updated in place to ``decay * running_var + (1 - decay) * m / (m -
            1) * var``, ``m`` being the number of values averaged per channel (the unbiased
            estimate); ``None`` to skip.
        decay: Decay rate of the running averages.
        axis: Int or tuple of ints to reduce over, or ``None`` for the default above.

    Returns:
        Variable of the shape and dtype of ``x``. When ``x`` and ``gamma`` have different float
        dtypes, the computation runs in the wider one.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[0.0, 10.0], [2.0, 20.0]], np.float32)
        >>> gamma, beta = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> mean, var = np.zeros(2, np.float32), np.ones(2, np.float32)
        >>> y = F.batch_normalization(x, gamma, beta, running_mean=mean, running_var=var)
        >>> np.round(y.array, 3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
        >>> mean
        array([0.1, 1.5], dtype=float32)
    """
    if not 0 <= decay <= 1:
        raise ValueError(f'batch_normalization: argument decay: expected a value in [0, 1], '
                         f'got {decay}')
    running_mean, running_var = _array(running_mean), _array(running_var)
    dtype = _common_dtype(x, (gamma, beta))
    if dtype is not None:
        x_dtype = _array(x).dtype
        y = BatchNormalization(eps, running_mean, running_var, decay, axis).apply(
            (cast(x, dtype), cast(gamma, dtype), cast(beta, dtype)))[0]
        return cast(y, x_dtype)
    return BatchNormalization(eps, running_mean, running_var, decay, axis).apply(
        (x, gamma, beta))[0]


def fixed_batch_normalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                              eps: float = 2e-5, axis: Axis = None) -> Variable:
    """Batch normalization with given statistics (inference mode of batch normalization).

    .. math::
        y = \\gamma \\frac{x - \\mathrm{mean}}{\\sqrt{\\mathrm{var} + \\epsilon}} + \\beta

    Differentiable in all five inputs. ``axis`` has the meaning it has in
    :func:`batch_normalization`.

    Args:
        x: Input Variable or array of floats.
        gamma, beta: Scale and shift, shape ``channel_shape``.
        mean, var: Statistics, same shape and dtype as ``gamma``.
        eps: Added to ``var`` before the square root.
        axis: Int or tuple of ints, or ``None`` for the default.

    Returns:
        Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[1.0, 4.0]], np.float32)
        >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> y = F.fixed_batch_normalization(x, one, zero, np.array([1, 2], np.float32),
        ...                                 np.array([1, 4], np.float32), eps=0.0)
        >>> y.array
        array([[0., 1.]], dtype=float32)
    """
    dtype = _common_dtype(x, (gamma, beta, mean, var))
    if dtype is not None:
        x_dtype = _array(x).dtype
        params = tuple(cast(p, dtype) for p in (gamma, beta, mean, var))
        y = FixedBatchNormalization(eps, axis).apply((cast(x, dtype),) + params)[0]
        return cast(y, x_dtype)
    return FixedBatchNormalization(eps, axis).apply((x, gamma, beta, mean, var))[0]
