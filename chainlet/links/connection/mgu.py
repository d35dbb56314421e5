"""Minimal gated units (Zhou et al., 2016): ``StatelessMGU`` and ``StatefulMGU``.

Two :class:`Linear` children act on the concatenation ``[h, x]``: ``W_f`` gives the forget
gate and ``W_h`` the candidate state. One step is

.. code-block:: none

    f = sigmoid(W_f [h, x])     h_bar = tanh(W_h [f * h, x])     h_new = f * h_bar + (1 - f) * h
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.array.concat import concat
from chainlet.functions.math.linear_interpolate import linear_interpolate
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.linear import Linear
from chainlet.variable import Variable, as_variable


class MGUBase(Chain):
    """The two Linear links of an MGU (``W_f`` and ``W_h``, each ``in + out -> out``).

    Args:
        n_inputs: Input size.
        n_units: State size.

    (Chainer's argument names; :class:`StatefulMGU` calls them ``in_size`` and ``out_size``.)
    """

    def __init__(self, n_inputs: int, n_units: int) -> None:
        super().__init__()
        self.out_size = n_units
        with self.init_scope():
            self.W_f = Linear(n_inputs + n_units, n_units)
            self.W_h = Linear(n_inputs + n_units, n_units)

    def _step(self, h: Any, x: Any) -> Variable:
        f = sigmoid(self.W_f(concat((h, x), axis=1)))
        h_bar = tanh(self.W_h(concat((f * h, x), axis=1)))
        return linear_interpolate(f, h_bar, h)


class StatelessMGU(MGUBase):
    """MGU cell that takes and returns the state: ``h = mgu(h, x)``.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> h, x = np.zeros((2, 4), np.float32), np.ones((2, 3), np.float32)
        >>> L.StatelessMGU(3, 4)(h, x).shape
        (2, 4)
    """

    def forward(self, h: Any, x: Any) -> Variable:
        """One step from state ``h`` ``(batch, out_size)`` and input ``x`` ``(batch, in)``."""
        _util.check_batch(type(self).__name__, 'h', h, '(batch, out_size)')
        _util.check_batch(type(self).__name__, 'x', x)
        return self._step(h, x)


class StatefulMGU(MGUBase):
    """MGU layer that keeps its state ``h`` (zero before the first call).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> mgu = L.StatefulMGU(3, 4)
        >>> mgu(np.ones((2, 3), np.float32)) is mgu.h
        True
    """

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__(in_size, out_size)
        self.h: Optional[Variable] = None

    def reset_state(self) -> None:
        """Forget the state (``h`` becomes ``None``)."""
        self.h = None

    def set_state(self, h: Any) -> None:
        """Set the state ``h``, moved to this link's device."""
        self.h = as_variable(h).to_device(self.device)

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)  # the state moves with the parameters
        if self.h is not None:
            visitor.visit_variable(self.h)

    def forward(self, x: Any) -> Variable:
        """Advance one step with ``x`` of shape ``(batch, in_size)``; return the new ``h``."""
        _util.check_batch(type(self).__name__, 'x', x)
        h = self.h
        if h is None:
            h = Variable(self.xp.zeros((x.shape[0], self.out_size), x.dtype))
        self.h = self._step(h, x)
        return self.h
