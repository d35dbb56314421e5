"""GRU layers: ``StatelessGRU`` (state in, state out), ``StatefulGRU`` and ``GRU`` (the link
keeps the state ``h`` between calls).

All hold six :class:`Linear` children with Chainer's names: ``W_r``, ``W_z``, ``W`` act on the
input and ``U_r``, ``U_z``, ``U`` on the previous state; every child has a bias. One step is

.. code-block:: none

    r = sigmoid(W_r x + U_r h)        reset gate
    z = sigmoid(W_z x + U_z h)        update gate
    h_bar = tanh(W x + U (r * h))
    h_new = z * h_bar + (1 - z) * h
"""
from __future__ import annotations

from typing import Any, Optional, cast

from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.math.linear_interpolate import linear_interpolate
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.linear import Linear
from chainlet.variable import Variable, as_variable


class GRUBase(Chain):
    """The six Linear links shared by the GRU variants.

    Args:
        in_size: Input size, or ``None`` to infer it on the first call.
        out_size: Size of the state (and output).
        init: Initializer of ``W_r.W``, ``W_z.W`` and ``W.W``; default ``LeCunNormal``.
        inner_init: Initializer of ``U_r.W``, ``U_z.W`` and ``U.W``; default ``LeCunNormal``.
        bias_init: Initializer of all six biases; default 0.
    """

    def __init__(self, in_size: Optional[int], out_size: int, init: Any = None,
                 inner_init: Any = None, bias_init: Any = None) -> None:
        super().__init__()
        self.out_size = out_size
        with self.init_scope():
            self.W_r = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_r = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)
            self.W_z = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_z = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)
            self.W = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)

    def _repr_args(self) -> dict:
        return {'in_size': self.W.in_size, 'out_size': self.out_size}


class StatelessGRU(GRUBase):
    """GRU cell that takes the previous state and returns the new one: ``h = gru(h, x)``.

    See :class:`GRUBase` for the arguments.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> cell = L.StatelessGRU(3, 4)
        >>> h = np.zeros((2, 4), np.float32)
        >>> cell(h, np.ones((2, 3), np.float32)).shape
        (2, 4)
    """

    def forward(self, h: Any, x: Any) -> Variable:
        """One step from state ``h`` ``(batch, out_size)`` and input ``x`` ``(batch, in)``."""
        _util.check_batch(type(self).__name__, 'h', h, '(batch, out_size)')
        _util.check_batch(type(self).__name__, 'x', x)
        r = sigmoid(self.W_r(x) + self.U_r(h))
        z = sigmoid(self.W_z(x) + self.U_z(h))
        h_bar = tanh(self.W(x) + self.U(r * h))
        return linear_interpolate(z, h_bar, h)


class StatefulGRU(GRUBase):
    """GRU layer that keeps its state: ``y = gru(x)`` updates and returns ``gru.h``.

    Before the first call (or after :meth:`reset_state`) the state is ``None`` and the step
    uses ``h = 0``. :meth:`set_state` sets it.

    Args:
        in_size: Input size (``None``: inferred).
        out_size: State size.
        init, inner_init, bias_init: As in :class:`GRUBase` (``bias_init`` default 0).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> gru = L.StatefulGRU(3, 4)
        >>> y = gru(np.ones((2, 3), np.float32))
        >>> gru.h is y, y.shape
        (True, (2, 4))
    """

    h: Any  # the state Variable, None before the first step

    def __init__(self, in_size: Optional[int], out_size: int, init: Any = None,
                 inner_init: Any = None, bias_init: Any = 0) -> None:
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.reset_state()

    def reset_state(self) -> None:
        """Forget the state (``h`` becomes ``None``)."""
        self.h = None

    def set_state(self, h: Any) -> None:
        """Set the state ``h`` (a Variable or an array of shape ``(batch, out_size)``), moved to
        this link's device."""
        self.h = as_variable(h).to_device(self.device)

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)  # the state moves with the parameters
        if self.h is not None:
            visitor.visit_variable(self.h)

    def forward(self, x: Any) -> Variable:
        """Advance one step with input ``x`` of shape ``(batch, in_size)``; return ``h``."""
        _util.check_batch(type(self).__name__, 'x', x)
        z = self.W_z(x)
        h_bar = self.W(x)
        if self.h is not None:
            r = sigmoid(self.W_r(x) + self.U_r(self.h))
            z = z + self.U_z(self.h)
            h_bar = h_bar + self.U(r * self.h)
        z = sigmoid(z)
        h_bar = tanh(h_bar)
        h_new = z * h_bar if self.h is None else linear_interpolate(z, h_bar, self.h)
        self.h = h_new
        return h_new


class GRU(StatefulGRU):
    """Stateful GRU layer, called with the input only (``GRU(out_size)`` infers ``in_size``).

    Same as :class:`StatefulGRU`; a call with other than one argument raises ``ValueError``
    (Chainer v1's stateless ``gru(h, x)`` became :class:`StatelessGRU`).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> L.GRU(4)(np.ones((2, 3), np.float32)).shape
        (2, 4)
    """

    def __init__(self, in_size: Optional[int], out_size: Optional[int] = None, init: Any = None,
                 inner_init: Any = None, bias_init: Any = 0) -> None:
        if out_size is None:
            in_size, out_size = None, in_size
        super().__init__(in_size, cast(int, out_size), init, inner_init, bias_init)

    def __call__(self, *args: Any, **kwargs: Any) -> Variable:
        if len(args) != 1:
            hint = (' GRU is stateful: call it with x only, or use StatelessGRU for '
                    'gru(h, x).' if len(args) == 2 else '')
            raise ValueError(f'GRU: expected 1 argument (x), got {len(args)}.{hint}')
        return super().__call__(*args, **kwargs)
