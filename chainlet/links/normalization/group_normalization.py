"""``GroupNormalization``: normalization over groups of channels of each sample."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import _config
from chainlet.functions.normalization.group_normalization import group_normalization
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class GroupNormalization(Link):
    """Group normalization (Wu and He, 2018) with per-channel scale and shift.

    Args:
        groups: Number of channel groups; must divide the number of channels.
        size: Number of channels, or ``None`` to take it from the first input.
        eps: Added to the variance before the square root.
        initial_gamma: Initializer of ``gamma``; default 1.
        initial_beta: Initializer of ``beta``; default 0.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> gn = L.GroupNormalization(2)
        >>> gn(np.arange(16.0, dtype=np.float32).reshape(1, 4, 2, 2)).shape
        (1, 4, 2, 2)
        >>> gn.gamma.shape
        (4,)
    """

    def __init__(self, groups: int, size: Optional[int] = None, eps: float = 1e-5,
                 initial_gamma: Any = None, initial_beta: Any = None) -> None:
        super().__init__()
        name = 'GroupNormalization'
        # Checked at the first call, as Chainer does (its tests build the link with a bad
        # ``groups`` and expect the TypeError from the call).
        self.groups = groups
        self.eps = eps
        # Under config.dtype == mixed16 the scale and shift stay float32, as in Chainer (the
        # function computes in x's dtype and returns their gradients in float32).
        dtype = _util.resolve_dtype(initial_gamma, initial_beta,
                                    dtype=self._mixed16_dtype())
        with self.init_scope():
            self.gamma = Parameter(_util.get_initializer(initial_gamma, 1, dtype, name,
                                                         'initial_gamma'))
            self.beta = Parameter(_util.get_initializer(initial_beta, 0, dtype, name,
                                                        'initial_beta'))
        checked = _util.check_size(name, 'size', size, allow_none=True)
        if checked is not None:
            self._initialize_params(checked)

    @staticmethod
    def _mixed16_dtype() -> Optional[numpy.dtype]:
        if _config.config.dtype is _config.mixed16:
            return numpy.dtype(numpy.float32)
        return None

    def _initialize_params(self, size: int) -> None:
        self.gamma.initialize((size,))
        self.beta.initialize((size,))

    def forward(self, x: Any) -> Variable:
        """Normalize ``x`` of shape ``(batch, channels, ...)`` (at least 2 axes)."""
        if len(x.shape) <= 1:
            raise ValueError(f'GroupNormalization: argument x: expected ndim >= 2 (batch, '
                             f'channels, ...), got shape {tuple(x.shape)}')
        _util.check_size('GroupNormalization', 'groups', self.groups)
        if self.gamma.array is None:
            self._initialize_params(int(x.shape[1]))
        return group_normalization(x, self.groups, self.gamma, self.beta, self.eps)

    def _repr_args(self) -> dict:
        size = None if self.gamma.array is None else self.gamma.shape[0]
        return {'groups': self.groups, 'size': size, 'eps': self.eps}
