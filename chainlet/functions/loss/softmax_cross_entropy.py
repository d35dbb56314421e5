"""Cross entropy of the softmax of scores against integer labels or soft targets."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.activation.log_softmax import log_softmax, log_softmax_array
from chainlet.functions.activation.softmax import SoftmaxGrad, softmax
from chainlet.functions.loss._common import (
    check_labels, check_reduce, data_of, reduction_dtype)
from chainlet.variable import Variable

_FUNC = 'softmax_cross_entropy'


def _expand_class_axis(a: Any) -> Any:
    """Turn an array shaped like ``t`` into one that broadcasts against ``x`` (axis 1 added)."""
    return a.reshape(a.shape[:1] + (1,) + a.shape[1:])


def _one_hot(t: Any, n_class: int, dtype: Any) -> Any:
    """One-hot array of ``x``'s shape ``(N, C, ...)`` from labels ``t`` of shape ``(N, ...)``."""
    xp = backend.get_array_module(t)
    classes = xp.arange(n_class).reshape((1, n_class) + (1,) * (t.ndim - 1))
    return (_expand_class_axis(t) == classes).astype(dtype)


def _rest_size(x: Any) -> int:
    """Number of positions per instance and class: ``prod(x.shape[2:])`` (at least 1)."""
    return max(int(numpy.prod(x.shape[2:], dtype=numpy.int64)), 1)


def _gpu_class_weight(class_weight: Any, x: Any) -> Any:
    """Class weights as a contiguous array of ``x``'s dtype on its device (ones if None)."""
    xp = backend.get_array_module(x)
    if class_weight is None:
        return xp.ones(x.shape[1], x.dtype)
    return xp.ascontiguousarray(xp.asarray(class_weight).astype(x.dtype, copy=False))


class SoftmaxCrossEntropy(FunctionNode):
    """``-log softmax(x)[t]`` per instance, weighted, masked and reduced.

    ``t`` is an integer array kept on the node (it is not differentiable); the softmax ``y`` is
    kept too when ``cache_score`` is true, which saves recomputing it in backward.
    """

    def __init__(self, normalize: bool, cache_score: bool, class_weight: Any,
                 ignore_label: int, reduce: str) -> None:
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce
        self.y = None
        self._t: Any = None
        self._coeff: Any = None  # 1 / count for 'mean', set by forward
        self._plain = False

    def _check_arrays(self, in_data):
        x, t = in_data
        type_check.argument(_FUNC, 'x', x, kind='f', min_ndim=2)
        type_check.argument(_FUNC, 't', t, kind='i', shape=x.shape[:1] + x.shape[2:])
        w = self.class_weight
        if w is not None:
            type_check.argument(_FUNC, 'class_weight', w, shape=(x.shape[1],))

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        n_class = x.shape[1]
        all_classes = check_labels(_FUNC, t, n_class, self.ignore_label)
        self.retain_inputs((0, 1))  # t too, as Chainer (graph exporters read both)
        self._t = t
        log_y = log_softmax_array(x, 1)
        if self.cache_score:
            self.y = xp.exp(log_y)
        rdtype = reduction_dtype(x.dtype)
        if all_classes and x.ndim == 2 and self.class_weight is None and self.reduce == 'mean':
            # The common case (no label ignored, no weights): a gather and a mean, without the
            # masks below; the values are the same to the bit.
            self._plain = True
            self._coeff = xp.asarray(1 / xp.asarray(len(t), rdtype), dtype=rdtype)
            loss = 0 - log_y[xp.arange(len(t)), t].sum(dtype=rdtype) * self._coeff
            return xp.asarray(loss, dtype=x.dtype),
        valid = t != self.ignore_label
        t_safe = xp.where(valid, t, 0)
        log_p = xp.take_along_axis(log_y, _expand_class_axis(t_safe), axis=1)
        log_p = log_p.reshape(t.shape)
        weight = valid.astype(x.dtype)
        if self.class_weight is not None:
            weight *= self.class_weight.astype(x.dtype, copy=False)[t_safe]
        log_p *= weight
        if self.reduce == 'no':
            return -log_p,
        count = valid.sum(dtype=rdtype) if self.normalize else xp.asarray(len(x), rdtype)
        self._coeff = xp.asarray(1 / xp.maximum(count, 1), dtype=rdtype)
        loss = 0 - log_p.sum(dtype=rdtype) * self._coeff  # 0 - s: no -0.0 for an empty batch
        return xp.asarray(loss, dtype=x.dtype),

    def forward_gpu(self, inputs):
        # One log-softmax pass and one kernel that gathers -w[t] log y[t] per instance.
        x, t = inputs
        xp = backend.get_array_module(x)
        n_class = x.shape[1]
        check_labels(_FUNC, t, n_class, self.ignore_label)
        self.retain_inputs((0, 1))  # t too, as Chainer (graph exporters read both)
        self._t = t
        if self.class_weight is not None:
            # Sent to x's GPU once, here; the gradient nodes use it as it is now.
            self.class_weight = _gpu_class_weight(self.class_weight, x)
        log_y = _cuda_kernels.log_softmax(x, 1)
        if self.cache_score:
            self.y = xp.exp(log_y)
        loss = _cuda_kernels.softmax_cross_entropy_loss(
            t, log_y, _gpu_class_weight(self.class_weight, x), n_class, _rest_size(x),
            self.ignore_label)
        if self.reduce == 'no':
            return loss,
        rdtype = reduction_dtype(x.dtype)
        count = (t != self.ignore_label).sum(dtype=rdtype) if self.normalize else \
            xp.asarray(len(x), rdtype)
        self._coeff = xp.asarray(1 / xp.maximum(count, 1), dtype=rdtype)
        return xp.asarray(loss.sum(dtype=rdtype) * self._coeff, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        x = self.get_retained_inputs()[0]
        grad = SoftmaxCrossEntropyGrad(self)
        self.y = None
        return grad.apply((x, grad_outputs[0]))[0], None

    def _backward_arrays(self, indexes, grad_outputs):
        grad = SoftmaxCrossEntropyGrad(self)
        self.y = None
        return grad.forward((self._input_array(0), grad_outputs[0]))[0], None


class SoftmaxCrossEntropyGrad(FunctionNode):
    """``gx = (softmax(x) - onehot(t)) * w[t] * gloss * coeff``, itself differentiable."""

    def __init__(self, parent: SoftmaxCrossEntropy) -> None:
        self.y = parent.y
        self._t = parent._t
        self.class_weight = parent.class_weight
        self.ignore_label = parent.ignore_label
        self.reduce = parent.reduce
        self._coeff = parent._coeff
        self._plain = parent._plain  # every label a class, no weights, 2-D, 'mean'

    def _weight(self, x: Any) -> Any:
        """Per-instance weight ``w[t] * valid`` (times ``coeff`` for 'mean'), shaped for ``x``,
        and the labels with the ignored ones made safe to index with."""
        if self._plain:  # every weight is coeff: a scalar, and the labels as they are
            return self._coeff.astype(x.dtype), self._t
        xp = backend.get_array_module(x)
        t = self._t
        valid = t != self.ignore_label
        w = valid.astype(x.dtype)
        if self.class_weight is not None:
            w *= self.class_weight.astype(x.dtype, copy=False)[xp.where(valid, t, 0)]
        if self._coeff is not None:
            w *= self._coeff.astype(x.dtype)
        return _expand_class_axis(w), xp.where(valid, t, 0)

    def forward(self, inputs):
        x, gloss = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        if x.size == 0:
            return xp.zeros_like(x),
        if self.y is not None:
            gx = self.y.copy()
            self.y = None
        else:
            gx = xp.exp(log_softmax_array(x, 1))
        w, t_safe = self._weight(x)
        if x.ndim == 2:
            gx[xp.arange(len(t_safe)), t_safe] -= 1
        else:
            gx -= _one_hot(t_safe, x.shape[1], x.dtype)
        gx *= w
        gx *= gloss if self.reduce == 'mean' else _expand_class_axis(gloss)
        return gx,

    def forward_gpu(self, inputs):
        x, gloss = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        if x.size == 0:
            return xp.zeros_like(x),
        y = self.y if self.y is not None else xp.exp(_cuda_kernels.log_softmax(x, 1))
        self.y = None
        acc = _cuda_kernels.acc_dtype(x.dtype)
        coeff = xp.ones(1, acc) if self._coeff is None else self._coeff.astype(acc).reshape(1)
        return _cuda_kernels.softmax_cross_entropy_grad(
            y, xp.ascontiguousarray(self._t), _gpu_class_weight(self.class_weight, x),
            xp.ascontiguousarray(gloss).reshape(-1), coeff, x.shape[1], _rest_size(x),
            self.ignore_label, int(self.reduce == 'no')),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.sum import sum as sum_
        x, gloss = self.get_retained_inputs()
        ggx = grad_outputs[0]
        w, t_safe = self._weight(x.array)
        y = softmax(x, 1)
        g = gloss if self.reduce == 'mean' else gloss.reshape(_expand_class_axis(gloss).shape)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(SoftmaxGrad(1).apply((y, ggx * w * g))[0])
            else:
                d = y * w - _one_hot(t_safe, x.shape[1], x.dtype) * w
                ret.append(sum_(ggx * d) if self.reduce == 'mean' else sum_(ggx * d, axis=1))
        return tuple(ret)


def _soft_target_loss(x: Any, t: Any, reduce: str, soft_target_loss: str) -> Variable:
    """Cross entropy or KL divergence against a target distribution, built from chainlet ops."""
    from chainlet.functions.math.exponential import log
    from chainlet.functions.math.sum import mean as mean_, sum as sum_
    t_data = data_of(t)
    x_data = data_of(x)
    if t_data.shape != x_data.shape:
        # Float t means soft targets; a float array of the labels' shape is most likely labels
        # of the wrong dtype, so the message names both readings.
        raise type_check.fail(
            _FUNC, 't', f'integer labels of shape {x_data.shape[:1] + x_data.shape[2:]} or '
            f'float soft targets of shape {x_data.shape}',
            f'{t_data.dtype} array of shape {t_data.shape}')
    # The target is a constant, as in Chainer (whose gradient checks mark it no_grads), taken
    # in x's dtype (a float64 gradient check evaluates float64 scores against float16 targets).
    t = Variable(t_data.astype(x_data.dtype, copy=False), requires_grad=False)
    log_y = log_softmax(x, 1)
    if soft_target_loss == 'kl-divergence':
        # The epsilon keeps log finite where t == 0 (those terms are multiplied by 0).
        loss = sum_(t * (log(t + 1e-7) - log_y), axis=1)
    else:
        loss = -sum_(t * log_y, axis=1)
    if reduce == 'mean':
        # mean accumulates float16 in float32 (a float16 sum overflows past 65504)
        loss = mean_(loss) if loss.size else sum_(loss)
    return loss


def softmax_cross_entropy(x: Any, t: Any, normalize: bool = True, cache_score: bool = True,
                          class_weight: Optional[Any] = None, ignore_label: int = -1,
                          reduce: str = 'mean', enable_double_backprop: bool = False,
                          soft_target_loss: str = 'cross-entropy') -> Variable:
    """Cross entropy between ``softmax(x)`` along axis 1 and the targets ``t``.

    With integer labels the loss of instance ``i`` is
    :math:`-w_{t_i} \\log \\mathrm{softmax}(x_i)_{t_i}`, computed from one stable
    ``log_softmax`` pass (finite for scores of any magnitude); instances whose label equals
    ``ignore_label`` contribute 0. With float ``t`` of ``x``'s shape (soft targets) the loss of
    an instance is :math:`-\\sum_c t_c \\log \\mathrm{softmax}(x)_c` (``'cross-entropy'``) or
    :math:`\\sum_c t_c (\\log t_c - \\log \\mathrm{softmax}(x)_c)` (``'kl-divergence'``).

    Args:
        x: Scores of shape ``(N, C)`` or ``(N, C, d1, ...)`` (a softmax per position).
        t: Integer labels of shape ``(N, d1, ...)`` in ``[0, C)`` or ``ignore_label``; or
            float soft targets of ``x``'s shape and dtype.
        normalize: For ``reduce='mean'`` with labels: divide the summed loss by the number of
            non-ignored instances (``True``) or by ``N`` (``False``).
        cache_score: Keep the softmax from forward for backward (more memory, less work).
        class_weight: Optional float array of shape ``(C,)``; the loss of an instance of
            class ``c`` is multiplied by ``class_weight[c]``.
        ignore_label: Label value whose instances are ignored.
        reduce: ``'mean'`` (a scalar) or ``'no'`` (one loss per instance, shape of ``t``
            for labels, ``(N, d1, ...)`` for soft targets). With soft targets, ``'mean'``
            divides by the number of instances ``x.size / C``.
        enable_double_backprop: Accepted for compatibility. Unlike Chainer, the gradient is
            always differentiable, so this only turns ``cache_score`` off, as in Chainer.
        soft_target_loss: ``'cross-entropy'`` or ``'kl-divergence'`` (soft targets only).

    Returns:
        Variable: the loss, 0-d for ``'mean'``. Differentiable in ``x`` (and in soft targets).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[-1.0, 0.0, 1.0, 2.0], [2.0, 0.0, 1.0, -1.0]], np.float32)
        >>> t = np.array([3, 0], np.int32)
        >>> F.softmax_cross_entropy(x, t).array
        array(0.440189..., dtype=float32)
        >>> F.softmax_cross_entropy(x, np.array([3, -1], np.int32), reduce='no').array
        array([0.440189..., 0. ], dtype=float32)
    """
    check_reduce(_FUNC, reduce, ('mean', 'no'))
    if soft_target_loss not in ('cross-entropy', 'kl-divergence'):
        raise ValueError(f"{_FUNC}: argument soft_target_loss: expected 'cross-entropy' or "
                         f"'kl-divergence', got {soft_target_loss!r}")
    if class_weight is not None:
        if isinstance(class_weight, Variable):
            raise type_check.InvalidValue(
                'an ndarray', 'Variable', f'{_FUNC}: argument class_weight: expected an ndarray, '
                f'got a Variable (class weights are constants)')
        try:
            type_check.argument(_FUNC, 'class_weight', class_weight, kind='f', ndim=1)
        except type_check.InvalidType as e:
            raise type_check.InvalidValue(e.expect, e.actual, str(e)) from None
    t_data = data_of(t)
    if not hasattr(t_data, 'dtype'):
        raise TypeError(f'{_FUNC}: argument t: expected an ndarray or Variable, got '
                        f'{type(t).__name__}')
    if t_data.dtype.kind == 'f':
        type_check.argument(_FUNC, 'x', data_of(x), kind='f', min_ndim=2)
        return _soft_target_loss(x, t, reduce, soft_target_loss)
    func = SoftmaxCrossEntropy(normalize, cache_score and not enable_double_backprop,
                               class_weight, ignore_label, reduce)
    return func.apply((x, t_data))[0]
