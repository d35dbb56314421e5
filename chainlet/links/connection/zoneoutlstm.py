"""``StatefulZoneoutLSTM``: an LSTM whose units randomly keep their previous values (zoneout,
Krueger et al., 2016).

The gates are computed as in :class:`~chainlet.links.StatefulPeepholeLSTM` without the
peepholes (children ``upward`` and ``lateral``, gates interleaved ``a, i, f, o``); then each
unit of the cell and of the output keeps its previous value with probability ``c_ratio`` /
``h_ratio`` through :func:`chainlet.functions.zoneout` (whose node keeps the masks as
``flag_h``/``flag_x``, so ``lstm.c.creator`` and ``lstm.h.creator`` tell which units zoned
out).
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.array.reshape import reshape
from chainlet.functions.noise.zoneout import zoneout
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.linear import Linear
from chainlet.utils import argument
from chainlet.variable import Variable, as_variable


class StatefulZoneoutLSTM(Chain):
    """Fully connected LSTM layer with zoneout, keeping its state.

    Args:
        in_size: Input size (``None``: inferred on the first call).
        out_size: Size of the cell and the output.
        c_ratio: Probability that a cell unit keeps its previous value.
        h_ratio: Probability that an output unit keeps its previous value.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> lstm = L.StatefulZoneoutLSTM(3, 4, c_ratio=0.0, h_ratio=0.0)   # plain LSTM
        >>> lstm(np.ones((2, 3), np.float32)).shape
        (2, 4)
    """

    c: Any  # the state Variable, None before the first step
    h: Any  # the state Variable, None before the first step

    def __init__(self, in_size: Optional[int], out_size: int, c_ratio: float = 0.5,
                 h_ratio: float = 0.5, **kwargs: Any) -> None:
        argument.check_unexpected_kwargs(
            kwargs, train="StatefulZoneoutLSTM: the train argument is not supported anymore; "
                          "use chainlet.using_config('train', ...)")
        argument.assert_kwargs_empty(kwargs)
        super().__init__()
        self.state_size = out_size
        self.c_ratio = c_ratio
        self.h_ratio = h_ratio
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)
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
        batch = lstm_in.shape[0]
        zeros = self.xp.zeros((batch, self.state_size), lstm_in.dtype)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        h = self.h if self.h is not None else Variable(zeros)
        c = self.c if self.c is not None else Variable(zeros.copy())
        gates = reshape(lstm_in, (batch, self.state_size, 4))
        a, i, f, o = (reshape(gates[:, :, g], (batch, self.state_size)) for g in range(4))
        c_tmp = tanh(a) * sigmoid(i) + sigmoid(f) * c
        self.c = zoneout(c, c_tmp, self.c_ratio)
        self.h = zoneout(h, sigmoid(o) * tanh(c_tmp), self.h_ratio)
        return self.h
