"""``Swish``: the activation ``x * sigmoid(beta * x)`` with a learned ``beta``."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union, cast

from chainlet.functions.activation.swish import swish
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class Swish(Link):
    """Swish (Ramachandran et al., 2017): ``y = x * sigmoid(beta * x)``, ``beta`` learned.

    Args:
        beta_shape: Shape of ``beta``, aligned with the axes of ``x`` after the batch axis
            (``(C,)``: one per channel); ``None`` to take ``x.shape[1:]`` at the first call.
        beta_init: Initializer of ``beta``; default 1.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> act = L.Swish(None)
        >>> act(np.zeros((2, 3), np.float32)).shape, act.beta.shape
        ((2, 3), (3,))
    """

    def __init__(self, beta_shape: Union[int, Sequence[int], None],
                 beta_init: Any = 1.0) -> None:
        super().__init__()
        if isinstance(beta_shape, int) and not isinstance(beta_shape, bool):
            beta_shape = (beta_shape,)
        shape: Optional[tuple] = None if beta_shape is None else tuple(cast(Any, beta_shape))
        dtype = _util.resolve_dtype(beta_init)
        with self.init_scope():
            self.beta = Parameter(_util.get_initializer(
                beta_init, 1.0, dtype, 'Swish', 'beta_init'), shape)

    def forward(self, x: Any) -> Variable:
        """Apply the activation to ``x`` of shape ``(batch, *beta_shape, ...)``."""
        if self.beta.array is None:
            self.beta.initialize(tuple(x.shape[1:]))
        return swish(x, self.beta)

    def _repr_args(self) -> dict:
        return {'beta_shape': self.beta.shape}
