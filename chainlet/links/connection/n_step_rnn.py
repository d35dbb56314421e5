"""Stacked RNN links over variable-length sequences: the base class and the Elman RNNs.

``NStepRNNBase`` sorts the sequences by length, transposes them to time-major batches with
:func:`~chainlet.functions.transpose_sequence`, calls one of the ``n_step_*`` functions and
undoes both steps on the outputs. Subclasses set ``n_weights``, ``use_bi_direction``,
``n_cells`` (1, or 2 with a cell state) and ``rnn``.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet import initializers
from chainlet.functions.array.permutate import permutate
from chainlet.functions.array.transpose_sequence import transpose_sequence
from chainlet.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from chainlet.link import ChainList, Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


def argsort_list_descent(lst: Sequence[Any]) -> numpy.ndarray:
    """Indices that sort ``lst`` by decreasing length (ties keep their order)."""
    return numpy.argsort([-len(x) for x in lst], kind='stable').astype(numpy.int32)


def permutate_list(lst: Sequence[Any], indices: Any, inv: bool) -> list:
    """``[lst[i] for i in indices]``, or its inverse when ``inv``."""
    ret: list = [None] * len(lst)
    for i, ind in enumerate(indices):
        if inv:
            ret[ind] = lst[i]
        else:
            ret[i] = lst[ind]
    return ret


class NStepRNNBase(ChainList):
    """Base class of the stacked (bi-directional) RNN links.

    Each layer and direction is a child link (``'0'``, ``'1'``, ... in the order layer 0
    forward, [layer 0 backward,] layer 1 forward, ...) holding ``w0 ... w{n-1}`` of shape
    ``(out_size, in)`` and ``b0 ... b{n-1}`` of shape ``(out_size,)``: the first half of the
    weights act on the layer's input (``in_size`` for layer 0, ``out_size * directions``
    above), the second half on the previous hidden state.

    Args:
        n_layers: Number of layers.
        in_size: Size of the input vectors.
        out_size: Number of hidden units.
        dropout: Dropout ratio between layers (applied when ``chainlet.config.train``).
        initialW: Initializer of every weight; default ``Normal(sqrt(1 / in))`` with ``in``
            the weight's input size.
        initial_bias: Initializer of every bias; default 0.
    """

    n_weights = 2
    use_bi_direction = False
    n_cells = 1

    def __init__(self, n_layers: int, in_size: int, out_size: int, dropout: float, *,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        name = type(self).__name__
        self.n_layers = _util.check_size(name, 'n_layers', n_layers)
        self.in_size = _util.check_size(name, 'in_size', in_size)
        self.out_size = _util.check_size(name, 'out_size', out_size)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
            raise TypeError(f'{name}: argument dropout: expected a float, got '
                            f'{type(dropout).__name__}')
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f'{name}: argument dropout: expected a value in [0, 1), got '
                             f'{dropout}')
        self.dropout = float(dropout)
        self.direction = 2 if self.use_bi_direction else 1
        dtype = _util.resolve_dtype(initialW, initial_bias)
        half = self.n_weights // 2
        b_init = _util.get_initializer(initial_bias, 0, dtype, name, 'initial_bias')
        for layer in range(self.n_layers):
            for _ in range(self.direction):
                weight = Link()
                with weight.init_scope():
                    for j in range(self.n_weights):
                        if j >= half:
                            w_in = self.out_size
                        elif layer == 0:
                            w_in = self.in_size
                        else:
                            w_in = self.out_size * self.direction
                        w_init = _util.get_initializer(
                            initialW, initializers.Normal(float(numpy.sqrt(1.0 / w_in))), dtype,
                            name, 'initialW')
                        setattr(weight, f'w{j}', Parameter(w_init, (self.out_size, w_in)))
                        setattr(weight, f'b{j}', Parameter(b_init, (self.out_size,)))
                self.add_link(weight)

    @property
    def ws(self) -> list:
        """Weights as ``ws[k][j]`` (child ``k``, weight ``w{j}``), the layout of ``n_step_*``."""
        return [[getattr(child, f'w{j}') for j in range(self.n_weights)] for child in self]

    @property
    def bs(self) -> list:
        """Biases as ``bs[k][j]``."""
        return [[getattr(child, f'b{j}') for j in range(self.n_weights)] for child in self]

    def init_hx(self, xs: Sequence[Any]) -> Variable:
        """Zero initial states of shape ``(n_layers * directions, len(xs), out_size)``."""
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        return Variable(self.xp.zeros(shape, xs[0].dtype))

    def rnn(self, *args: Any) -> tuple:
        """Call the ``n_step_*`` function of this link (subclasses define it)."""
        raise NotImplementedError(f'{type(self).__name__} does not define rnn')

    def forward(self, hx: Any, xs: Sequence[Any]) -> tuple:
        """Run the RNN over the sequences ``xs``.

        Args:
            hx: Initial hidden states of shape ``(S, B, out_size)`` with ``S = n_layers *
                directions``, or ``None`` for zeros.
            xs: List of ``B`` Variables or arrays; ``xs[i]`` has shape ``(L_i, in_size)``, the
                lengths in any order.

        Returns:
            Tuple ``(hy, ys)``: the final hidden states (like ``hx``, for each sequence its
            state after its own last step) and the list of the last layer's outputs, ``ys[i]``
            of shape ``(L_i, out_size * directions)``.
        """
        (hy,), ys = self._call([hx], xs)
        return hy, ys

    def _call(self, hs: list, xs: Sequence[Any]) -> tuple:
        name = type(self).__name__
        if not isinstance(xs, (list, tuple)) or len(xs) == 0:
            raise TypeError(f'{name}: argument xs: expected a non-empty list of (L_i, '
                            f'{self.in_size}) arrays, got {type(xs).__name__}')
        for i, x in enumerate(xs):
            if len(x.shape) != 2 or x.shape[0] == 0:
                raise ValueError(f'{name}: argument xs[{i}]: expected shape (L, {self.in_size}) '
                                 f'with L >= 1, got {tuple(x.shape)}')
        indices = argsort_list_descent(xs)
        xs = permutate_list(xs, indices, inv=False)
        hxs = []
        for arg, hx in zip(('hx', 'cx'), hs):
            if hx is not None:
                _util.check_batch(name, arg, hx, '(n_layers * directions, batch, out_size)', 3)
        for hx in hs:
            if hx is None:
                hx = self.init_hx(xs)
            else:
                hx = permutate(hx, self.xp.asarray(indices), axis=1, inv=False)
            hxs.append(hx)
        trans_x = transpose_sequence(xs)
        result = self.rnn(self.n_layers, self.dropout, *hxs, self.ws, self.bs, trans_x)
        hys = [permutate(h, self.xp.asarray(indices), axis=1, inv=True) for h in result[:-1]]
        ys = permutate_list(list(transpose_sequence(result[-1])), indices, inv=True)
        return hys, ys

    def _repr_args(self) -> dict:
        return {'n_layers': self.n_layers, 'in_size': self.in_size, 'out_size': self.out_size,
                'dropout': self.dropout}

    def __repr__(self) -> str:
        # The children are plain weight holders; one line says more than n_layers blocks.
        args = ', '.join(f'{k}={v!r}' for k, v in self._repr_args().items())
        return f'{type(self).__name__}({args})'


class NStepRNNTanh(NStepRNNBase):
    """Stacked uni-directional Elman RNN with ``tanh`` (see :class:`NStepRNNBase`).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> rnn = L.NStepRNNTanh(2, 3, 4, 0.0)
        >>> hy, ys = rnn(None, [np.ones((5, 3), np.float32), np.ones((2, 3), np.float32)])
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(5, 4), (2, 4)])
    """

    def rnn(self, *args: Any) -> tuple:
        return n_step_rnn(*args, activation='tanh')  # type: ignore[misc]  # args: the six inputs


class NStepRNNReLU(NStepRNNBase):
    """Stacked uni-directional Elman RNN with ``relu`` (see :class:`NStepRNNBase`)."""

    def rnn(self, *args: Any) -> tuple:
        return n_step_rnn(*args, activation='relu')  # type: ignore[misc]  # args: the six inputs


class NStepBiRNNTanh(NStepRNNBase):
    """Stacked bi-directional Elman RNN with ``tanh``; outputs have ``2 * out_size`` units."""

    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        return n_step_birnn(*args, activation='tanh')  # type: ignore[misc]  # args: the six inputs


class NStepBiRNNReLU(NStepRNNBase):
    """Stacked bi-directional Elman RNN with ``relu``; outputs have ``2 * out_size`` units."""

    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        return n_step_birnn(*args, activation='relu')  # type: ignore[misc]  # args: the six inputs


__all__ = ['NStepBiRNNReLU', 'NStepBiRNNTanh', 'NStepRNNBase', 'NStepRNNReLU', 'NStepRNNTanh']
