"""``DecorrelatedBatchNormalization``: whitens groups of channels with ZCA (Huang et al.,
2018) and keeps running statistics for inference.

As in Chainer 7, each of the ``groups`` channel groups is whitened with its own statistics:
the persistent ``avg_mean`` is ``(groups, C)`` and ``avg_projection`` ``(groups, C, C)`` with
``C = size // groups``. Training calls :func:`chainlet.functions.decorrelated_batch_normalization`
(which updates them), test mode :func:`chainlet.functions.fixed_decorrelated_batch_normalization`.
The link has no learned parameters.

Chainer before v7 shared one set of statistics among the groups (``(C,)`` and ``(C, C)``), which
the paper does not do (Chainer issue #7706). Such a saved model still loads: the old arrays are
repeated for every group (:func:`fix_avg_mean`, :func:`fix_avg_projection`), with a warning when
``groups > 1`` since the old model was trained with the other algorithm.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy

from chainlet import _config
from chainlet import backend
from chainlet.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization, fixed_decorrelated_batch_normalization)
from chainlet.link import Link
from chainlet.links import _util
from chainlet.serializers._base import Deserializer
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
        avg_mean: Running mean of each group's channels, ``(groups, size // groups)``.
        avg_projection: Running whitening matrix of each group,
            ``(groups, size // groups, size // groups)``.
        N: Batches seen in fine-tuning mode.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> dbn = L.DecorrelatedBatchNormalization(4, groups=2)
        >>> y = dbn(np.random.RandomState(0).randn(8, 4).astype(np.float32))
        >>> y.shape, dbn.avg_projection.shape
        ((8, 4), (2, 2, 2))
    """

    avg_mean: Any  # persistent values (add_persistent), declared for mypy
    avg_projection: Any

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
        self.add_persistent('avg_mean', numpy.zeros((self.groups, C), dtype=dtype))
        self.add_persistent('avg_projection',
                            numpy.tile(numpy.eye(C, dtype=dtype), (self.groups, 1, 1)))
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
        mean, projection = self.avg_mean, self.avg_projection
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
            return decorrelated_batch_normalization(
                x, groups=self.groups, eps=self.eps, running_mean=mean,
                running_projection=projection, decay=decay)
        return fixed_decorrelated_batch_normalization(x, mean, projection, groups=self.groups)

    def serialize(self, serializer: Any) -> None:
        if isinstance(serializer, Deserializer):
            serializer = _PatchedDeserializer(serializer, {
                'avg_mean': lambda a: fix_avg_mean(a, self.groups),
                'avg_projection': lambda a: fix_avg_projection(a, self.groups)})
        super().serialize(serializer)

    def start_finetuning(self) -> None:
        """Restart the count of fine-tuning batches."""
        self.N = 0


class _PatchedDeserializer(Deserializer):
    """A deserializer that converts some loaded arrays before they are copied into the link."""

    def __init__(self, base: Any, patches: dict[str, Callable[[Any], Any]]) -> None:
        self.base = base
        self.patches = patches

    def __getitem__(self, key: str) -> Any:
        return self.base[key]

    def __call__(self, key: str, value: Any) -> Any:
        if key not in self.patches:
            return self.base(key, value)
        array = self.patches[key](self.base(key, None))
        if value is None:
            return array
        backend.copyto(value, array)
        return value


def _warn_old_model() -> None:
    warnings.warn('DecorrelatedBatchNormalization: the file holds moving statistics of the '
                  'model of Chainer < 7, whose groups shared one whitening (not the algorithm '
                  'of the paper); they are used for every group', stacklevel=4)


def fix_avg_mean(avg_mean: Any, groups: int) -> Any:
    """``avg_mean`` in the ``(groups, C)`` layout: an old ``(C,)`` one repeated per group.

    Raises:
        ValueError: ``avg_mean`` is neither 1-D nor 2-D.
    """
    if avg_mean.ndim == 2:
        return avg_mean
    if avg_mean.ndim == 1:
        if groups != 1:
            _warn_old_model()
        return backend.get_array_module(avg_mean).broadcast_to(
            avg_mean, (groups,) + avg_mean.shape)
    raise ValueError(f'DecorrelatedBatchNormalization: unexpected shape of avg_mean: '
                     f'{avg_mean.shape}')


def fix_avg_projection(avg_projection: Any, groups: int) -> Any:
    """``avg_projection`` in the ``(groups, C, C)`` layout: an old ``(C, C)`` one repeated.

    Raises:
        ValueError: ``avg_projection`` is neither 2-D nor 3-D.
    """
    if avg_projection.ndim == 3:
        return avg_projection
    if avg_projection.ndim == 2:
        if groups != 1:
            _warn_old_model()
        return backend.get_array_module(avg_projection).broadcast_to(
            avg_projection, (groups,) + avg_projection.shape)
    raise ValueError(f'DecorrelatedBatchNormalization: unexpected shape of avg_projection: '
                     f'{avg_projection.shape}')
