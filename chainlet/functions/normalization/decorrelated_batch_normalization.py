"""Decorrelated batch normalization (Huang et al. 2018): ZCA whitening of channel groups.

The ``c`` channels are split into ``g`` groups of ``C``; within each group the batch (and
spatial positions, ``m`` samples in all) is centered and whitened with
``P = Sigma^{-1/2} = V diag(lambda^{-1/2}) V^T``, where ``Sigma = x_c x_c^T / m + eps I``.
Arrays are rearranged to ``(g, C, m)`` so every step is one batched matrix product.

Backward differentiates the matrix inverse square root through the eigendecomposition
(Daleckii-Krein): ``dP = V (L o (V^T dSigma V)) V^T`` with
``L_ij = (l_i^{-1/2} - l_j^{-1/2}) / (l_i - l_j) = -1 / (s_i s_j (s_i + s_j))``, ``s = sqrt(l)``.
That closed form holds on the diagonal too (it is the derivative there) and, unlike the divided
difference, does not lose precision when eigenvalues are close. The gradient is not itself
differentiable (a second derivative would need that of the eigenvectors); asking for one
raises. :func:`fixed_decorrelated_batch_normalization`, which applies given statistics, is a
composition of chainlet functions and can be differentiated any number of times.
"""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.cast import cast
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.transpose import transpose
from chainlet.functions.math.matmul import matmul
from chainlet.variable import Variable


def _to_groups(x: Any, groups: int) -> Any:
    """``(b, c, ...)`` array to ``(g, C, m)``; channel ``k*C + j`` is row ``j`` of group ``k``."""
    perm = (1, 0) + tuple(range(2, x.ndim))
    return x.transpose(perm).reshape(groups, x.shape[1] // groups, -1)


def _from_groups(y: Any, shape: tuple) -> Any:
    """Inverse of :func:`_to_groups` for an output of ``shape``."""
    perm = (1, 0) + tuple(range(2, len(shape)))
    return y.reshape((shape[1], shape[0]) + tuple(shape[2:])).transpose(perm)


def _eigh(xp: Any, a: Any) -> tuple:
    try:
        w, v = xp.linalg.eigh(a)
    except ValueError:  # an array module without batched eigh
        pairs = [xp.linalg.eigh(ai) for ai in a]
        return xp.stack([w for w, _ in pairs]), xp.stack([v for _, v in pairs])
    # asarray: eigh returns a named tuple, whose members some CuPy stand-ins leave unwrapped.
    return xp.asarray(w), xp.asarray(v)


def _check_groups(func: str, x: Any, groups: int) -> None:
    type_check.argument(func, 'x', x, kind='f', min_ndim=2)
    if x.shape[1] % groups:
        raise type_check.fail(func, 'x', f'a channel count divisible by groups={groups}',
                              f'shape {x.shape}')


class DecorrelatedBatchNormalization(FunctionNode):
    """Whiten each channel group with its batch statistics; optionally update running ones."""

    def __init__(self, groups: int = 16, eps: float = 2e-5, mean: Any = None,
                 projection: Any = None, decay: float = 0.9) -> None:
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError(f'decorrelated_batch_normalization: argument groups: expected a '
                             f'positive int, got {groups!r}')
        self.groups = groups
        self.eps = eps
        self.running_mean = mean
        self.running_projection = projection
        self.decay = decay

    def _check_arrays(self, in_data):
        type_check.count('decorrelated_batch_normalization', in_data, 1)
        _check_groups('decorrelated_batch_normalization', in_data[0], self.groups)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        xh = _to_groups(x, self.groups)
        m = xh.shape[2]
        mean = xh.mean(axis=2, keepdims=True)
        xc = xh - mean
        C = xh.shape[1]
        cov = xp.matmul(xc, xc.transpose(0, 2, 1)) / x.dtype.type(m)
        cov += x.dtype.type(self.eps) * xp.eye(C, dtype=x.dtype)
        w, V = _eigh(xp, cov)
        s = xp.sqrt(w)
        P = xp.matmul(V / s[:, None, :], V.transpose(0, 2, 1))
        self.xc, self.V, self.s, self.P = xc, V, s, P
        if self.running_mean is not None:
            self.running_mean *= self.decay
            self.running_mean += (1 - self.decay) * mean[:, :, 0]
        if self.running_projection is not None:
            unbias = m / max(m - 1., 1.)
            self.running_projection *= self.decay
            self.running_projection += (1 - self.decay) * unbias * P
        return _from_groups(xp.matmul(P, xc), x.shape),

    def backward(self, indexes, grad_outputs):
        grad = DecorrelatedBatchNormalizationGrad(self.groups, self.xc, self.V, self.s, self.P)
        return grad.apply(grad_outputs)


class DecorrelatedBatchNormalizationGrad(FunctionNode):
    """``gx`` from ``gy`` given the forward's centered input, eigenvectors ``V``, square roots
    ``s`` of the eigenvalues and projection ``P``."""

    def __init__(self, groups: int, xc: Any, V: Any, s: Any, P: Any) -> None:
        self.groups = groups
        self.xc, self.V, self.s, self.P = xc, V, s, P

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        xc, V, s, P = self.xc, self.V, self.s, self.P
        m = xc.shape[2]
        gyh = _to_groups(gy, self.groups)
        Vt = V.transpose(0, 2, 1)
        gP = xp.matmul(gyh, xc.transpose(0, 2, 1))
        L = -1 / (s[:, :, None] * s[:, None, :] * (s[:, :, None] + s[:, None, :]))
        g_cov = xp.matmul(xp.matmul(V, xp.matmul(xp.matmul(Vt, gP), V) * L), Vt)
        gxc = xp.matmul(P, gyh) + xp.matmul(g_cov + g_cov.transpose(0, 2, 1), xc) / \
            gy.dtype.type(m)
        gxh = gxc - gxc.mean(axis=2, keepdims=True)
        return _from_groups(gxh, gy.shape).astype(gy.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        raise RuntimeError('decorrelated_batch_normalization: the second derivative is not '
                           'available (it needs derivatives of the eigenvectors); use '
                           'fixed_decorrelated_batch_normalization with given statistics to '
                           'differentiate twice')


def decorrelated_batch_normalization(x: Any, *, groups: int = 16, eps: float = 2e-5,
                                     running_mean: Any = None, running_projection: Any = None,
                                     decay: float = 0.9) -> Variable:
    """Decorrelated batch normalization: center and ZCA-whiten channel groups over the batch.

    The channels of ``x`` (axis 1) are split into ``groups`` groups of ``C`` channels. Over the
    batch and spatial axes (``m`` samples), each group is centered and multiplied by
    :math:`\\Sigma^{-1/2}` where :math:`\\Sigma = \\frac{1}{m} x_c x_c^T + \\epsilon I`, so its
    output has zero mean and (nearly) identity covariance.

    Args:
        x: Float Variable or array of shape ``(b, c, ...)`` with ``c`` divisible by ``groups``.
        groups: Number of channel groups whitened independently.
        eps: Added to the covariance's diagonal for numerical stability.
        running_mean: Optional array of shape ``(groups, C)`` updated in place with an
            exponential moving average of the batch means.
        running_projection: Optional array of shape ``(groups, C, C)`` updated in place with a
            moving average of the whitening matrices (with an ``m / (m - 1)`` correction).
        decay: Decay rate of the moving averages.

    Returns:
        Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.random.RandomState(0).normal(size=(100, 4)).astype(np.float32)
        >>> y = F.decorrelated_batch_normalization(x, groups=1).array
        >>> bool(np.allclose(y.T @ y / 100, np.eye(4), atol=1e-3))
        True

    See: `Decorrelated Batch Normalization <https://arxiv.org/abs/1804.08450>`_.
    """
    return DecorrelatedBatchNormalization(groups, eps, running_mean, running_projection,
                                          decay).apply((x,))[0]


def fixed_decorrelated_batch_normalization(x: Any, mean: Any, projection: Any,
                                           groups: int = 16) -> Variable:
    """Decorrelated batch normalization with given statistics (inference mode).

    Computes ``y = projection[k] @ (x_k - mean[k])`` for each channel group ``k``, with ``x_k``
    the group's channels over all batch and spatial positions. Differentiable with respect to
    all three arguments, to any order.

    Args:
        x: Float Variable or array of shape ``(b, c, ...)`` with ``c`` divisible by ``groups``.
        mean: Group means, shape ``(groups, C)`` with ``C = c // groups`` (cast to ``x``'s
            dtype if it differs).
        projection: Whitening matrices, shape ``(groups, C, C)`` (cast likewise).
        groups: Number of channel groups.

    Returns:
        Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
        >>> mean = np.array([[2.0, 3.0]], np.float32)
        >>> projection = np.array([[[2.0, 0.0], [0.0, 1.0]]], np.float32)
        >>> F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=1).array
        array([[-2., -1.],
               [ 2.,  1.]], dtype=float32)
    """
    func = 'fixed_decorrelated_batch_normalization'
    xa = getattr(x, 'array', x)
    _check_groups(func, xa, groups)
    C = xa.shape[1] // groups
    type_check.argument(func, 'mean', getattr(mean, 'array', mean), kind='f',
                        shape=(groups, C))
    type_check.argument(func, 'projection', getattr(projection, 'array', projection),
                        kind='f', shape=(groups, C, C))
    # Statistics kept in another float dtype (e.g. float32 running averages applied to a
    # float64 input) are cast, differentiably, so that the output keeps x's dtype.
    if mean.dtype != xa.dtype:
        mean = cast(mean, xa.dtype)
    if projection.dtype != xa.dtype:
        projection = cast(projection, xa.dtype)
    shape = xa.shape
    perm = (1, 0) + tuple(range(2, len(shape)))
    xh = reshape(transpose(x, perm), (groups, C, -1))
    xc = xh - broadcast_to(reshape(mean, (groups, C, 1)), xh.shape)
    y = matmul(projection, xc)
    return transpose(reshape(y, (shape[1], shape[0]) + tuple(shape[2:])), perm)
