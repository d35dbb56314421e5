"""``LSTM`` (stateful) and ``StatelessLSTM``: fully connected LSTM layers."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import initializers
from chainlet.functions.array.concat import concat
from chainlet.functions.array.split_axis import split_axis
from chainlet.functions.rnn.lstm import lstm
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.linear import Linear
from chainlet.variable import Variable, as_variable


class _GateBias(initializers.Initializer):
    """Fill the interleaved gate biases ``(a, i, f, o)``: ``forget`` on ``f``, ``bias`` on the
    others."""

    def __init__(self, bias: Any, forget: Any, dtype: Any) -> None:
        super().__init__(dtype)
        self.bias = bias
        self.forget = forget

    def __call__(self, array: Any) -> None:
        gates = array.reshape(-1, 4)  # unit n, gate g is element 4 n + g (see F.lstm)
        for g in range(4):
            (self.forget if g == 2 else self.bias)(gates[:, g])


class LSTMBase(Chain):
    """Holds the ``upward`` (input to gates) and ``lateral`` (output to gates) Linear links.

    The gate pre-activations are laid out as :func:`chainlet.functions.lstm` expects them;
    ``upward.W`` and ``lateral.W`` are initialized one ``(out_size, ·)`` block at a time (so that
    fan-based initializers see one gate's shape), alternating between them block by block as
    Chainer does, so a seeded random state gives Chainer's initial weights. When ``in_size`` is
    inferred, all of them are drawn at the first call, again as in Chainer.
    """

    def __init__(self, in_size: Optional[int], out_size: Optional[int] = None,
                 lateral_init: Any = None, upward_init: Any = None, bias_init: Any = None,
                 forget_bias_init: Any = None) -> None:
        super().__init__()
        name = type(self).__name__
        if out_size is None:
            in_size, out_size = None, in_size
        in_size = _util.check_size(name, 'in_size', in_size, allow_none=True)
        self.state_size = _util.check_size(name, 'out_size', out_size)
        dtype = _util.resolve_dtype(lateral_init, upward_init, bias_init, forget_bias_init)
        lecun = initializers.LeCunNormal()

        def get(init: Any, default: Any, arg: str) -> Any:
            return _util.get_initializer(init, default, dtype, name, arg)

        units = self.state_size
        self._lateral_init = get(lateral_init, lecun, 'lateral_init')
        self._upward_init = get(upward_init, lecun, 'upward_init')
        zero = initializers.Zero(dtype)
        with self.init_scope():
            self.upward = Linear(
                in_size, 4 * units, initialW=zero,
                initial_bias=_GateBias(get(bias_init, 0, 'bias_init'),
                                       get(forget_bias_init, 1, 'forget_bias_init'), dtype))
            self.lateral = Linear(units, 4 * units, nobias=True, initialW=zero)
        if in_size is not None:
            self._initialize_params()

    def _initialize_params(self) -> None:
        """Draw ``lateral.W`` and ``upward.W``, one gate block of each in turn (Chainer's
        order of the random draws)."""
        n = self.state_size
        for start in range(0, 4 * n, n):
            self._lateral_init(self.lateral.W.array[start:start + n])
            self._upward_init(self.upward.W.array[start:start + n])

    def _initialize_lazily(self, x: Any) -> None:
        if self.upward.W.array is None:
            self.upward._initialize_params(_util.size_of_shape(x.shape[1:]))
            self._initialize_params()

    def _repr_args(self) -> dict:
        return {'in_size': self.upward.in_size, 'out_size': self.state_size}


class StatelessLSTM(LSTMBase):
    """Fully connected LSTM layer that keeps no state: ``forward(c, h, x)`` returns
    ``(c_new, h_new)``.

    Args:
        in_size: Input size, or ``None`` to infer it (``StatelessLSTM(out_size)`` also works).
        out_size: Number of units.
        lateral_init, upward_init, bias_init, forget_bias_init: As in :class:`LSTM`.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> cell = L.StatelessLSTM(3, 2)
        >>> c, h = cell(None, None, np.ones((4, 3), np.float32))
        >>> c.shape, h.shape
        ((4, 2), (4, 2))
    """

    def forward(self, c: Any, h: Any, x: Any) -> tuple[Variable, Variable]:
        """One step from cell state ``c`` and output ``h`` (``None``: zeros) and input ``x``."""
        name = type(self).__name__
        _util.check_batch(name, 'x', x)
        for arg, state in (('c', c), ('h', h)):
            if state is not None:
                _util.check_batch(name, arg, state, '(batch, out_size)')
        self._initialize_lazily(x)
        lstm_in = self.upward(x)
        if h is not None:
            lstm_in = lstm_in + self.lateral(h)
        if c is None:
            c = self.xp.zeros((x.shape[0], self.state_size), lstm_in.dtype)
        return lstm(c, lstm_in)


class LSTM(LSTMBase):
    """Fully connected LSTM layer that keeps its cell state ``c`` and output ``h``.

    Each call computes ``upward(x) + lateral(h)`` (gate pre-activations, see
    :func:`chainlet.functions.lstm`), updates ``c`` and ``h`` and returns the new ``h``. A batch
    smaller than the previous one updates only the first rows of the state (sort sequences by
    decreasing length); :meth:`reset_state` forgets the state.

    Args:
        in_size: Input size, or ``None`` to infer it from the first input; ``LSTM(out_size)``
            also works.
        out_size: Number of units.
        lateral_init: Initializer of each gate block of ``lateral.W``; default
            ``LeCunNormal``.
        upward_init: Initializer of each gate block of ``upward.W``; default ``LeCunNormal``.
        bias_init: Initializer of the biases of the cell input, input and output gates;
            default 0.
        forget_bias_init: Initializer of the forget gate biases; default 1.

    Attributes:
        upward: :class:`Linear` from the input to the ``4 * out_size`` gate pre-activations.
        lateral: :class:`Linear` (no bias) from the previous output.
        c: Cell state Variable, or ``None`` before the first call.
        h: Output of the previous step, or ``None``.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> rnn = L.LSTM(3, 2)
        >>> rnn(np.ones((4, 3), np.float32)).shape
        (4, 2)
        >>> rnn.h.shape, rnn.c.shape
        ((4, 2), (4, 2))
        >>> rnn.reset_state()
        >>> rnn.h is None
        True
    """

    c: Any  # the state Variable, None before the first step
    h: Any  # the state Variable, None before the first step

    def __init__(self, in_size: Optional[int], out_size: Optional[int] = None,
                 lateral_init: Any = None, upward_init: Any = None, bias_init: Any = None,
                 forget_bias_init: Any = None) -> None:
        super().__init__(in_size, out_size, lateral_init, upward_init, bias_init,
                         forget_bias_init)
        self.reset_state()

    def reset_state(self) -> None:
        """Forget the state: ``c`` and ``h`` become ``None``."""
        self.c = None
        self.h = None

    def set_state(self, c: Any, h: Any) -> None:
        """Set the cell state ``c`` and previous output ``h`` (Variables or arrays of shape
        ``(batch, out_size)``), moved to this link's device."""
        c, h = as_variable(c), as_variable(h)
        # Only the rank is checked: as in Chainer, a state of another width is accepted here
        # and fails in the next forward (code that parks foreign states relies on that).
        for name, v in (('c', c), ('h', h)):
            if v.ndim != 2:
                raise ValueError(f'LSTM.set_state: argument {name}: expected shape (batch, '
                                 f'units), got {v.shape}')
        self.c = c.to_device(self.device)
        self.h = h.to_device(self.device)

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)  # the state moves with the parameters
        if self.c is not None:
            visitor.visit_variable(self.c)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def forward(self, x: Any) -> Variable:
        """Advance one step with input ``x`` of shape ``(batch, in_size)``; return ``h``."""
        _util.check_batch(type(self).__name__, 'x', x)
        batch = x.shape[0]
        self._initialize_lazily(x)
        lstm_in = self.upward(x)
        h_rest = None
        if self.h is not None:
            h_size = self.h.shape[0]
            if batch > h_size:
                # TypeError, as Chainer: a batch that grows is a wrong input type for the cell
                raise TypeError(f'LSTM: argument x: expected a batch of at most {h_size} (the '
                                f'batch of the state h), got {batch}')
            if batch == 0:
                h_rest = self.h
            elif batch < h_size:
                h_update, h_rest = split_axis(self.h, [batch], axis=0)
                lstm_in = lstm_in + self.lateral(h_update)
            else:
                lstm_in = lstm_in + self.lateral(self.h)
        if self.c is None:
            self.c = Variable(self.xp.zeros((batch, self.state_size), lstm_in.dtype))
        self.c, y = lstm(self.c, lstm_in)
        if h_rest is None:
            self.h = y
        elif batch == 0:
            self.h = h_rest
        else:
            self.h = concat([y, h_rest], axis=0)
        return y


__all__ = ['LSTM', 'LSTMBase', 'StatelessLSTM']
