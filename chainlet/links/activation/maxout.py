"""``Maxout``: a linear layer followed by a maximum over groups of units."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import backend, initializers
from chainlet.functions.activation.maxout import maxout
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.linear import Linear
from chainlet.variable import Variable


class Maxout(Chain):
    """Maxout layer (Goodfellow et al., 2013): ``y_i = max_j (W_ij x + b_ij)`` over ``pool_size``
    pieces ``j`` of each output ``i``.

    The child ``linear`` (:class:`Linear` of ``out_size * pool_size`` outputs) holds the
    weights; output unit ``i`` pools its outputs ``i * pool_size ... (i + 1) * pool_size - 1``.

    Args:
        in_size: Input size, or ``None`` to infer it.
        out_size: Output size.
        pool_size: Number of pieces per output.
        initialW: Initializer of the weight; an array has shape ``(out_size, pool_size,
            in_size)``, and a plain callable ``f(array)`` receives an array of that shape.
            Default ``LeCunNormal``.
        initial_bias: Initializer of the bias (an array has shape ``(out_size, pool_size)``);
            default 0; ``None`` for no bias.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> layer = L.Maxout(3, 2, 4)
        >>> layer.linear.W.shape
        (8, 3)
        >>> layer(np.ones((5, 3), np.float32)).shape
        (5, 2)
    """

    def __init__(self, in_size: Optional[int], out_size: int, pool_size: int,
                 initialW: Any = None, initial_bias: Any = 0) -> None:
        super().__init__()
        name = 'Maxout'
        self.out_size = _util.check_size(name, 'out_size', out_size)
        self.pool_size = _util.check_size(name, 'pool_size', pool_size)
        linear_out = self.out_size * self.pool_size
        if backend.is_array(initialW):
            if initialW.ndim != 3:
                raise ValueError(f'{name}: argument initialW: expected an array of shape '
                                 f'(out_size, pool_size, in_size), got {initialW.shape}')
            initialW = initialW.reshape(linear_out, initialW.shape[2])
        if backend.is_array(initial_bias):
            if initial_bias.ndim != 2:
                raise ValueError(f'{name}: argument initial_bias: expected an array of shape '
                                 f'(out_size, pool_size), got {initial_bias.shape}')
            initial_bias = initial_bias.reshape(linear_out)
        initialW = self._piecewise(initialW, self.out_size, self.pool_size, -1)
        initial_bias = self._piecewise(initial_bias, self.out_size, self.pool_size)
        with self.init_scope():
            self.linear = Linear(in_size, linear_out, nobias=initial_bias is None,
                                 initialW=initialW, initial_bias=initial_bias)

    @staticmethod
    def _piecewise(init: Any, *shape: int) -> Any:
        """A plain callable initializer sees the parameter in Maxout's layout.

        ``f(array)`` is called on a view of shape ``(out_size, pool_size[, in_size])`` (as in
        Chainer), so it can fill piece by piece; Initializer objects, scalars and arrays are
        left as they are (they do not depend on the grouping, or were reshaped above).
        """
        if init is None or not callable(init) or isinstance(init, initializers.Initializer):
            return init

        def fill(array: Any) -> None:
            view = array.reshape(shape)
            init(view)
            if view.base is None:  # reshape copied (a non-contiguous array): write back
                array[...] = view.reshape(array.shape)

        return fill

    def forward(self, x: Any) -> Variable:
        """Apply the layer to ``x`` of shape ``(batch, in_size)``."""
        return maxout(self.linear(x), self.pool_size)

    def _repr_args(self) -> dict:
        return {'in_size': self.linear.in_size, 'out_size': self.out_size,
                'pool_size': self.pool_size}
