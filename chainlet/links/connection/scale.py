"""``Scale``: multiplies by a learned (or given) scale broadcast along some axes, and
optionally adds a learned bias.

With ``W_shape`` the link owns ``W`` and is called with one input; without, it is called
with ``(x, W)``. ``bias_term=True`` adds a child :class:`~chainlet.links.Bias` named ``bias``.
``W`` and ``bias`` exist as attributes only when used (Chainer's convention).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from chainlet.functions.math.scale import scale
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.bias import Bias, as_shape, check_count
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class Scale(Chain):
    """Broadcasted multiplication ``y = x * W (+ b)`` with ``W`` aligned to ``x`` from ``axis``.

    Args:
        axis: First axis of ``x`` along which ``W`` (and ``b``) apply.
        W_shape: Shape of the learned ``W``; ``None`` to pass ``W`` at each call instead.
        bias_term: Add a learned bias (a child ``Bias`` link named ``bias``).
        bias_shape: Shape of the bias; required when ``bias_term`` is true and ``W_shape``
            is ``None`` (else it is ``W_shape``).
        initialW: Initializer of ``W``; default 1.
        initial_bias: Initializer of the bias; default 0.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> layer = L.Scale(axis=1, W_shape=(2,), bias_term=True)
        >>> layer.W.array[...] = [2.0, 3.0]
        >>> layer(np.ones((1, 2), np.float32)).array
        array([[2., 3.]], dtype=float32)
    """

    def __init__(self, axis: int = 1, W_shape: Union[int, Sequence[int], None] = None,
                 bias_term: bool = False, bias_shape: Union[int, Sequence[int], None] = None,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        self.axis = axis
        with self.init_scope():
            if W_shape is not None:
                W_shape = as_shape('Scale', 'W_shape', W_shape)
                dtype = _util.resolve_dtype(initialW)
                self.W = Parameter(_util.get_initializer(
                    initialW, 1, dtype, 'Scale', 'initialW'), W_shape)
            if bias_term:
                shape: Optional[Any] = W_shape if W_shape is not None else bias_shape
                if shape is None:
                    raise ValueError('Scale: bias_shape should be given if W is not learnt '
                                     'parameter or bias_term is False')
                self.bias = Bias(axis, shape, initial_bias)

    def forward(self, *xs: Any) -> Variable:
        """``forward(x)`` with the learned ``W``, or ``forward(x, W)`` without one."""
        if hasattr(self, 'W'):
            check_count('Scale', xs, 1, 'the link owns W')
            y = scale(xs[0], self.W, self.axis)
        else:
            check_count('Scale', xs, 2, 'x and W: the link was built without W_shape')
            y = scale(xs[0], xs[1], self.axis)
        if hasattr(self, 'bias'):
            y = self.bias(y)
        return y

    def _repr_args(self) -> dict:
        return {'axis': self.axis, 'W_shape': self.W.shape if hasattr(self, 'W') else None,
                'bias_term': hasattr(self, 'bias')}
