"""``StatefulPeepholeLSTM``: an LSTM whose gates also look at the cell state (Gers and
Schmidhuber, 2000).

Children keep Chainer's names: ``upward`` (input to the four gates), ``lateral`` (previous
output to the gates, no bias) and ``peep_i``, ``peep_f``, ``peep_o`` (cell to the input,
forget and output gates, no bias). The gate pre-activations are interleaved as in
:func:`chainlet.functions.lstm`: unit ``n`` of gate ``g`` (``a, i, f, o``) is column
``4 n + g``. One step is

.. code-block:: none

    a = tanh(A)            i = sigmoid(I + peep_i(c))       f = sigmoid(F + peep_f(c))
    c_new = a * i + f * c  o = sigmoid(O + peep_o(c_new))   h_new = o * tanh(c_new)
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.array.reshape import reshape
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.linear import Linear
from chainlet.variable import Variable, as_variable


class StatefulPeepholeLSTM(Chain):
    """Fully connected LSTM layer with peephole connections, keeping its state.

    Args:
        in_size: Input size (``None``: inferred on the first call).
        out_size: Size of the cell and the output.

    Attributes:
        c, h: The cell state and the last output (``None`` before the first call).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> lstm = L.StatefulPeepholeLSTM(3, 4)
        >>> y = lstm(np.ones((2, 3), np.float32))
        >>> y.shape, lstm.c.shape
        ((2, 4), (2, 4))
    """

    c: Any  # the state Variable, None before the first step
    h: Any  # the state Variable, None before the first step

    def __init__(self, in_size: Optional[int], out_size: int) -> None:
        super().__init__()
        self.state_size = out_size
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = Linear(out_size, out_size, nobias=True)
            self.peep_f = Linear(out_size, out_size, nobias=True)
            self.peep_o = Linear(out_size, out_size, nobias=True)
        self.reset_state()

    def reset_state(self) -> None:
        """Forget the state (``c`` and ``h`` become ``None``)."""
        self.c = None
        self.h = None

    def set_state(self, c: Any, h: Any) -> None:
        """Set the cell state and the last output, moved to this link's device."""
        self.c = as_variable(c).to_device(self.device)
        self.h = as_variable(h).to_device(self.device)

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)  # the state moves with the parameters
        for state in (self.c, self.h):
            if state is not None:
                visitor.visit_variable(state)

    def forward(self, x: Any) -> Variable:
        """Advance one step with ``x`` of shape ``(batch, in_size)``; return ``h``."""
        _util.check_batch(type(self).__name__, 'x', x)
        lstm_in = self.upward(x)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        batch = lstm_in.shape[0]
        if self.c is None:
            self.c = Variable(self.xp.zeros((batch, self.state_size), lstm_in.dtype))
        gates = reshape(lstm_in, (batch, self.state_size, 4))
        a, i, f, o = (reshape(gates[:, :, g], (batch, self.state_size)) for g in range(4))
        a = tanh(a)
        i = sigmoid(i + self.peep_i(self.c))
        f = sigmoid(f + self.peep_f(self.c))
        self.c = a * i + f * self.c
        o = sigmoid(o + self.peep_o(self.c))
        self.h = o * tanh(self.c)
        return self.h
