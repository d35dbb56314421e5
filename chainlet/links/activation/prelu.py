"""``PReLU``: the parametric ReLU with a learned slope."""
from __future__ import annotations

from typing import Any, Sequence, Union

from chainlet.functions.activation.prelu import prelu
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class PReLU(Link):
    """Parametric ReLU ``y = max(x, 0) + W * min(x, 0)`` with a learned slope ``W``.

    Args:
        shape: Shape of ``W``: ``()`` for one slope, ``(C,)`` for one per channel (axis 1),
            and so on (see :func:`chainlet.functions.prelu`).
        init: Initializer of ``W``; default 0.25.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> L.PReLU()(np.array([-2.0, 3.0], np.float32)).array
        array([-0.5,  3. ], dtype=float32)
    """

    def __init__(self, shape: Union[int, Sequence[int]] = (), init: Any = 0.25) -> None:
        super().__init__()
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        dtype = _util.resolve_dtype(init)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(init, 0.25, dtype, 'PReLU', 'init'), shape)

    def forward(self, x: Any) -> Variable:
        """Apply the activation to ``x``."""
        return prelu(x, self.W)

    def _repr_args(self) -> dict:
        return {'shape': self.W.shape}
