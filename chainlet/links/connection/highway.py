"""``Highway``: a gated residual layer of two Linear links."""
from __future__ import annotations

from typing import Any, Callable

from chainlet.functions.activation.relu import relu
from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.linear import Linear
from chainlet.variable import Variable


class Highway(Chain):
    """Highway layer ``y = h(x) * t(x) + x * (1 - t(x))`` (Srivastava et al., 2015).

    ``h(x) = activate(plain(x))`` and ``t(x) = sigmoid(transform(x))``, with ``plain`` and
    ``transform`` two square :class:`Linear` children. The negative default bias of
    ``transform`` starts the layer close to the identity.

    Args:
        in_out_size: Size of the input and the output.
        nobias: Linear children without biases.
        activate: Activation of the plain path.
        init_Wh, init_bh: Initializers of ``plain``'s weight and bias.
        init_Wt, init_bt: Initializers of ``transform``'s weight and bias (bias default -1).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> layer = L.Highway(3)
        >>> sorted(name for name, _ in layer.namedparams())
        ['/plain/W', '/plain/b', '/transform/W', '/transform/b']
        >>> layer(np.zeros((2, 3), np.float32)).shape
        (2, 3)
    """

    def __init__(self, in_out_size: int, nobias: bool = False,
                 activate: Callable[[Any], Variable] = relu, init_Wh: Any = None,
                 init_Wt: Any = None, init_bh: Any = None, init_bt: Any = -1) -> None:
        super().__init__()
        self.in_out_size = _util.check_size('Highway', 'in_out_size', in_out_size)
        self.nobias = bool(nobias)
        self.activate = activate
        with self.init_scope():
            self.plain = Linear(self.in_out_size, self.in_out_size, nobias=nobias,
                                initialW=init_Wh, initial_bias=init_bh)
            self.transform = Linear(self.in_out_size, self.in_out_size, nobias=nobias,
                                    initialW=init_Wt, initial_bias=init_bt)

    def forward(self, x: Any) -> Variable:
        """Apply the layer to ``x`` of shape ``(N, in_out_size)``."""
        out_plain = self.activate(self.plain(x))
        gate = sigmoid(self.transform(x))
        return out_plain * gate + x * (1 - gate)

    def _repr_args(self) -> dict:
        return {'in_out_size': self.in_out_size, 'nobias': self.nobias}
