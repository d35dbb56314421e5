"""``LayerNormalization``: per-sample normalization with learned scale and shift."""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.normalization.layer_normalization import layer_normalization
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class LayerNormalization(Link):
    """Layer normalization (Ba et al., 2016): each row of ``x`` is standardized, then scaled
    by ``gamma`` and shifted by ``beta``.

    Args:
        size: Number of features, or ``None`` to take it from the first input.
        eps: Added to the variance before the square root.
        initial_gamma: Initializer of ``gamma``; default 1.
        initial_beta: Initializer of ``beta``; default 0.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> ln = L.LayerNormalization()
        >>> y = ln(np.array([[1.0, 3.0], [0.0, 4.0]], np.float32))
        >>> np.round(y.array, 3), ln.gamma.shape
        (array([[-1.,  1.],
               [-1.,  1.]], dtype=float32), (2,))
    """

    def __init__(self, size: Optional[int] = None, eps: float = 1e-6,
                 initial_gamma: Any = None, initial_beta: Any = None) -> None:
        super().__init__()
        name = 'LayerNormalization'
        self.eps = eps
        dtype = _util.resolve_dtype(initial_gamma, initial_beta)
        with self.init_scope():
            self.gamma = Parameter(_util.get_initializer(initial_gamma, 1, dtype, name,
                                                         'initial_gamma'))
            self.beta = Parameter(_util.get_initializer(initial_beta, 0, dtype, name,
                                                        'initial_beta'))
        checked = _util.check_size(name, 'size', size, allow_none=True)
        if checked is not None:
            self._initialize_params(checked)

    def _initialize_params(self, size: int) -> None:
        self.gamma.initialize((size,))
        self.beta.initialize((size,))

    def forward(self, x: Any) -> Variable:
        """Normalize ``x`` of shape ``(batch, size)``."""
        if self.gamma.array is None:
            self._initialize_params(_util.size_of_shape(x.shape[1:]))
        return layer_normalization(x, self.gamma, self.beta, self.eps)

    def _repr_args(self) -> dict:
        size = None if self.gamma.array is None else self.gamma.shape[0]
        return {'size': size, 'eps': self.eps}
