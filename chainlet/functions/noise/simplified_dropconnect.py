"""Linear layer with simplified DropConnect: drop weight entries at random during training.

The mask is boolean; with ``use_batchwise_mask`` each sample gets its own ``(M, N)`` mask, so
the product is a batched matrix-vector product ``y_i = (W * scale * mask_i) x_i``. The mask is
kept on the node (``y.creator.mask``) and can be passed back in to replay a step. Backward is
written with chainlet functions, so the layer can be differentiated twice.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.cast import cast
from chainlet.functions.math.matmul import matmul
from chainlet.functions.math.sum import sum as _sum
from chainlet.variable import Variable


class SimplifiedDropconnect(FunctionNode):
    """``y = x (W * scale * mask)^T + b``, per sample when the mask is batchwise.

    ``x`` and ``W`` may have different float dtypes (as in Chainer): ``y`` has ``x``'s dtype and
    the gradient of ``W`` has ``W``'s.
    """

    def __init__(self, ratio: float, mask: Any = None, use_batchwise_mask: bool = True) -> None:
        self.ratio = ratio
        self.mask = mask.array if isinstance(mask, Variable) else mask
        self.use_batchwise_mask = use_batchwise_mask

    def _check_arrays(self, in_data):
        f = 'simplified_dropconnect'
        type_check.count(f, in_data, (2, 3))
        x, W = in_data[:2]
        type_check.argument(f, 'x', x, kind='f', min_ndim=2)
        type_check.argument(f, 'W', W, kind='f', ndim=2)
        n_in = int(numpy.prod(x.shape[1:]))
        if n_in != W.shape[1]:
            raise type_check.fail(f, 'W', f'shape (*, {n_in}) (x has {n_in} features)',
                                  str(W.shape))
        if len(in_data) == 3:
            type_check.argument(f, 'b', in_data[2], dtype=x.dtype, shape=(W.shape[0],))
        if self.mask is not None:
            want = ((x.shape[0],) + W.shape) if self.mask.ndim == 3 else W.shape
            type_check.argument(f, 'mask', self.mask, shape=want)

    def _scaled_mask(self, dtype: Any) -> Any:
        return self.mask * numpy.dtype(dtype).type(1. / (1 - self.ratio))

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        if self.mask is None:
            shape = ((x.shape[0],) + W.shape) if self.use_batchwise_mask else W.shape
            self.mask = xp.random.rand(*shape) >= self.ratio
        x2 = x.reshape(len(x), W.shape[1])  # not -1: that cannot be inferred for a batch of 0
        Wm = W * self._scaled_mask(W.dtype)
        if Wm.ndim == 3:
            y = xp.matmul(Wm, x2[:, :, None])[:, :, 0]
        else:
            y = x2.dot(Wm.T)
        y = y.astype(x.dtype, copy=False)
        if len(inputs) == 3:
            y = y + inputs[2]
        return y,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        x2 = x.reshape(len(x), W.shape[1])
        mask = self._scaled_mask(W.dtype)
        Wm = W * mask
        ret = []
        if 0 in indexes:
            if Wm.ndim == 3:
                gx = matmul(gy[:, None, :], cast(Wm, gy.dtype))[:, 0]
            else:
                gx = matmul(gy, cast(Wm, gy.dtype))
            ret.append(cast(gx, x.dtype).reshape(x.shape))
        if 1 in indexes:
            gy_w = cast(gy, W.dtype)
            x_w = cast(x2, W.dtype)
            if mask.ndim == 3:
                outer = broadcast_to(gy_w[:, :, None], mask.shape) * \
                    broadcast_to(x_w[:, None, :], mask.shape)
                gW = _sum(outer * mask, axis=0)
            else:
                gW = matmul(gy_w, x_w, transa=True) * mask
            ret.append(gW)
        if 2 in indexes:
            ret.append(_sum(gy, axis=0))
        return tuple(ret)


def simplified_dropconnect(x: Any, W: Any, b: Any = None, ratio: float = .5,
                           train: bool = True, mask: Any = None,
                           use_batchwise_mask: bool = True) -> Variable:
    """Linear layer regularized by simplified DropConnect, :math:`y = x (W \\odot M)^T s + b`.

    Each entry of ``W`` is dropped with probability ``ratio`` (``M`` is a random boolean mask)
    and the kept ones are scaled by :math:`s = 1 / (1 - ratio)`. With ``train=False`` the ratio
    is taken as 0 and this is a plain linear layer (a mask of ones is still drawn and kept).
    The mask is drawn from the global random state of ``x``'s array module and is available as
    ``y.creator.mask``.

    Args:
        x: Input of shape ``(n, ...)``; the trailing axes are flattened to ``N`` features.
        W: Weight of shape ``(M, N)`` (any float dtype).
        b: Optional bias of shape ``(M,)``, ``x``'s dtype.
        ratio: Drop probability, in ``[0, 1)``.
        train: Whether to drop weights.
        mask: A boolean (or 0/1) mask of shape ``(n, M, N)`` or ``(M, N)`` to use instead of a
            random one; ``use_batchwise_mask`` is then ignored.
        use_batchwise_mask: Draw an independent mask for each sample.

    Returns:
        Variable of shape ``(n, M)`` and ``x``'s dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.ones((1, 2), np.float32)
        >>> W = np.array([[1.0, 2.0]], np.float32)
        >>> mask = np.array([[[True, False]]])
        >>> F.simplified_dropconnect(x, W, ratio=0.5, mask=mask).array
        array([[2.]], dtype=float32)
    """
    if not 0.0 <= ratio < 1.0:
        raise ValueError(f'simplified_dropconnect: argument ratio: expected a value in [0, 1), '
                         f'got {ratio}')
    if not train:
        ratio = 0
    func = SimplifiedDropconnect(ratio, mask, use_batchwise_mask)
    args = (x, W) if b is None else (x, W, b)
    return func.apply(args)[0]
