"""Dropout: randomly zero elements during training."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import _config
from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.variable import as_variable


def _check_ratio(ratio: Any) -> None:
    # A str would fail NumPy's comparison with a bare message; a bool would be read as 0 or 1.
    if isinstance(ratio, (str, bytes, bool)) or not hasattr(ratio, '__float__'):
        raise TypeError(f'dropout: argument ratio: expected a float in [0, 1), got '
                        f'{ratio!r} ({type(ratio).__name__})')
    if not 0.0 <= ratio < 1.0:
        raise ValueError(f'dropout: argument ratio: expected a value in [0, 1), got {ratio}')


class Dropout(FunctionNode):
    """``y = x * mask``, where ``mask`` is 0 with probability ``ratio`` and ``1 / (1 - ratio)``
    otherwise. The mask (not differentiable) is kept for backward."""

    def __init__(self, dropout_ratio: float, mask: Any = None, return_mask: bool = False,
                 rng: Optional[numpy.random.Generator] = None) -> None:
        # The ratio is checked here, where it is applied (as Chainer): ``dropout`` in test
        # mode builds no node and returns ``x`` whatever the ratio.
        _check_ratio(dropout_ratio)
        self.dropout_ratio = dropout_ratio
        self.mask = mask
        # Chainer's third argument (it rules out cuDNN, which keeps no mask); the mask is
        # always kept here, so it is only recorded.
        self.return_mask = return_mask
        self.rng = rng

    def _check_arrays(self, in_data):
        x, = in_data
        type_check.float_input('dropout', 'x', x)
        if self.mask is not None:
            type_check.argument('dropout', 'mask', self.mask, shape=x.shape)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        if self.mask is None:
            ratio = self.dropout_ratio
            if self.rng is not None and xp is numpy:
                u = self.rng.random(x.shape)
            else:
                u = xp.random.rand(*x.shape)
            # rand() of a 0-d shape is a Python float: asarray keeps the mask an array.
            self.mask = xp.asarray(u >= ratio).astype(x.dtype)
            self.mask *= x.dtype.type(1.0 / (1.0 - ratio))
        else:
            self.mask = xp.asarray(self.mask).astype(x.dtype, copy=False)
        return x * self.mask,

    def forward_gpu(self, inputs):
        x, = inputs
        if self.mask is not None:
            self.mask = backend.get_array_module(x).asarray(self.mask).astype(x.dtype,
                                                                              copy=False)
            return x * self.mask,
        # Uniform draws from CuPy's generator; thresholding, scaling and the product in one
        # kernel that also writes the mask for backward.
        ratio = self.dropout_ratio
        u = backend.import_cupy().random.random_sample(x.shape, dtype=numpy.float32)
        y, self.mask = _cuda_kernels.dropout(x, u, ratio, x.dtype.type(1.0 / (1.0 - ratio)))
        return y,

    def backward(self, indexes, grad_outputs):
        return DropoutGrad(self.mask).apply(grad_outputs)


class DropoutGrad(FunctionNode):
    """``gx = gy * mask``: linear in ``gy``, so its backward is itself."""

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs):
        return inputs[0] * self.mask,

    def backward(self, indexes, grad_outputs):
        return DropoutGrad(self.mask).apply(grad_outputs)


def dropout(x: Any, ratio: float = 0.5, *, mask: Any = None, return_mask: bool = False,
            rng: Optional[numpy.random.Generator] = None) -> Any:
    """Randomly zero elements of ``x`` with probability ``ratio``, scaling the rest by
    ``1 / (1 - ratio)`` so that the expectation is unchanged.

    Only active when ``chainlet.config.train`` is true; in test mode ``x`` itself is returned
    (as a Variable). The mask is drawn from NumPy's global random state (``numpy.random.seed``
    makes it reproducible) unless ``rng`` or ``mask`` is given.

    Args:
        x: Variable or array of floats, any shape.
        ratio: Probability of dropping an element, in ``[0, 1)``; checked in training only
            (as Chainer), also when ``mask`` is given.
        mask: Optional mask to use instead of a random one, of ``x``'s shape, already scaled
            (values ``0`` or ``1 / (1 - ratio)``, as ``return_mask`` gives); ``ratio`` is then
            not used.
        return_mask: Also return the mask used (``None`` in test mode).
        rng: Optional ``numpy.random.Generator`` to draw the mask from (chainlet extension).

    Returns:
        The output Variable of ``x``'s shape and dtype, or ``(output, mask)`` when
        ``return_mask`` is true.

    Example:
        >>> import numpy as np, chainlet, chainlet.functions as F
        >>> x = np.ones((2, 3), np.float32)
        >>> mask = np.array([[2, 0, 2], [0, 2, 2]], np.float32)
        >>> F.dropout(x, mask=mask).array
        array([[2., 0., 2.],
               [0., 2., 2.]], dtype=float32)
        >>> with chainlet.using_config('train', False):
        ...     F.dropout(x).array
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    if _config.config.train:
        func = Dropout(ratio, mask, return_mask, rng=rng)
        out, = func.apply((x,))
        mask = func.mask
    else:
        out = as_variable(x)
        mask = None
    if return_mask:
        return out, mask
    return out
