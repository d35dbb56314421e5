"""``DecorrelatedBatchNormalization``: whitens groups of channels with ZCA (Huang et al.,
2018) and keeps running statistics for inference.

As in Chainer, the ``groups`` channel groups share one set of statistics: the input
``(b, size, ...)`` is seen as ``(b * groups, size // groups, ...)`` and whitened as one group,
so the persistent ``avg_mean`` is ``(C,)`` and ``avg_projection`` ``(C, C)`` with ``C = size //
groups``. Training calls :func:`chainlet.functions.decorrelated_batch_normalization` (which
updates them), test mode :func:`chainlet.functions.fixed_decorrelated_batch_normalization`.
The link has no learned parameters.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import _config
from chainlet.functions.array.reshape import reshape
from chainlet.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization, fixed_decorrelated_batch_normalization)
from chainlet.link import Link
from chainlet.links import _util
from chainlet.utils import argument
from chainlet.variable import Variable


class DecorrelatedBatchNormalization(Link):
    """Decorrelated batch normalization layer.

    Args:
        size: Number of channels (axis 1 of the input).
        groups: Number of channel groups, each whitened on its own; must divide ``size``.
        decay: Decay rate of the running statistics.
        eps: Added to the diagonal of the covariance.
        dtype: dtype of the statistics (float32 by default, as in Chainer).

    Attributes:
        avg_mean: Running mean per channel of a group, ``(size // groups,)``.
        avg_projection: Running whitening matrix, ``(size // groups, size // groups)``.
        N: Batches seen in fine-tuning mode.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> dbn = L.DecorrelatedBatchNormalization(4, groups=2)
        >>> y = dbn(np.random.RandomState(0).randn(8, 4).astype(np.float32))
        >>> y.shape, dbn.avg_projection.shape
        ((8, 4), (2, 2))
    """

    def __init__(self, size: int, groups: int = 16, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = numpy.float32) -> None:
        super().__init__()
        name = 'DecorrelatedBatchNormalization'
        size = _util.check_size(name, 'size', size)
        self.groups = _util.check_size(name, 'groups', groups)
        if size % self.groups:
            raise ValueError(f'{name}: argument groups: expected a divisor of size = {size}, '
                             f'got {self.groups}')
        self.decay = decay
        self.eps = eps
        C = size // self.groups
        dtype = numpy.dtype(dtype)
        self.add_persistent('avg_mean', numpy.zeros(C, dtype=dtype))
        self.add_persistent('avg_projection', numpy.eye(C, dtype=dtype))
        self.add_persistent('N', 0)

    def forward(self, x: Any, **kwargs: Any) -> Variable:
        """forward(x, finetune=False)

        Whiten ``x`` of shape ``(N, size, ...)``.

        Args:
            x: The input.
            finetune: In training mode, make the running statistics the exact average over
                the batches since :meth:`start_finetuning`.

        Returns:
            Variable of the shape and dtype of ``x``.
        """
        finetune, = argument.parse_kwargs(
            kwargs, ('finetune', False),
            test='DecorrelatedBatchNormalization: the test argument is not supported '
                 "anymore; use chainlet.using_config('train', False)")
        shape = tuple(x.shape)
        if len(shape) < 2 or shape[1] % self.groups:
            raise ValueError(f'DecorrelatedBatchNormalization: argument x: expected shape '
                             f'(batch, channels, ...) with channels divisible by groups = '
                             f'{self.groups}, got {shape}')
        # The groups share statistics: fold them into the batch axis and whiten one group.
        pooled = reshape(x, (shape[0] * self.groups, shape[1] // self.groups) + shape[2:])
        # The functions keep one statistic per group: views with a leading axis of 1, so the
        # in-place running updates land in the persistents.
        mean, projection = self.avg_mean[None], self.avg_projection[None]
        if _config.config.train:
            if _config.config.in_recomputing:
                # F.forget replays this forward in backward: the statistics (and N) were
                # already updated by the first run.
                mean = projection = None
                decay = self.decay
            elif finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            y = decorrelated_batch_normalization(
                pooled, groups=1, eps=self.eps, running_mean=mean,
                running_projection=projection, decay=decay)
        else:
            y = fixed_decorrelated_batch_normalization(pooled, mean, projection, groups=1)
        return reshape(y, shape)

    def start_finetuning(self) -> None:
        """Restart the count of fine-tuning batches."""
        self.N = 0
