"""Tree-structured LSTMs (Tai et al., 2015): ``ChildSumTreeLSTM`` and ``NaryTreeLSTM``.

A node combines its input ``x`` with the cells ``c_k`` and outputs ``h_k`` of its children:
``c, h = link(c_1, ..., c_n, h_1, ..., h_n, x)``. Gate pre-activations are laid out in
contiguous blocks of ``out_size`` columns (``a, i, o`` then the forget gates), with the
children keeping Chainer's names, so Chainer weights load unchanged:

* ``ChildSumTreeLSTM``: ``W_x`` (``in -> 4 out``: ``a, i, o, f``), ``W_h_aio`` (``out -> 3
  out``, on the sum of the children's ``h``) and ``W_h_f`` (``out -> out``, one forget gate per
  child); any number of children.
* ``NaryTreeLSTM``: ``W_x`` (``in -> (3 + n) out``) and ``W_h1 ... W_hn`` (``out -> (3 + n)
  out``, one per child position); exactly ``n_ary`` children, each with its own forget gate.

Then ``c = tanh(a) sigmoid(i) + sum_k sigmoid(f_k) c_k`` and ``h = sigmoid(o) tanh(c)``. A
child's ``c``/``h`` given as ``None`` is zero, and so is ``x`` given as ``None``; all of them
``None`` is a ``ValueError``.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.array.split_axis import split_axis
from chainlet.link import Chain
from chainlet.links import _util
from chainlet.links.connection.linear import Linear
from chainlet.variable import Variable


def _fill_none(owner: str, link: Chain, cs: Sequence[Any], hs: Sequence[Any], x: Any,
               in_size: Optional[int], out_size: int) -> tuple:
    """Replace the ``None`` among ``cs``, ``hs`` and ``x`` by zeros of the right shapes."""
    n = len(cs)
    for i, v in enumerate((*cs, *hs)):
        if v is not None:
            _util.check_batch(owner, f'{"ch"[i // n]}_{i % n + 1}', v, '(batch, out_size)')
    if x is not None:
        _util.check_batch(owner, 'x', x)
    given = [v for v in (*cs, *hs, x) if v is not None]
    if not given:
        raise ValueError(f'{owner}: at least one of the inputs (the children\'s c and h, and x) '
                         f'must not be None')
    batch = given[0].shape[0]
    dtype = given[0].dtype
    xp = link.xp

    def zeros(size: int) -> Variable:
        return Variable(xp.zeros((batch, size), dtype))

    cs = [zeros(out_size) if c is None else c for c in cs]
    hs = [zeros(out_size) if h is None else h for h in hs]
    if x is None:
        if in_size is None:
            raise ValueError(f'{owner}: x is None and in_size is not known yet')
        x = zeros(in_size)
    return cs, hs, x


def _cell(a: Any, i: Any, o: Any, fs: Sequence[Any], cs: Sequence[Any]) -> tuple:
    c = tanh(a) * sigmoid(i)
    for f, c_child in zip(fs, cs):
        c = c + sigmoid(f) * c_child
    return c, sigmoid(o) * tanh(c)


class ChildSumTreeLSTM(Chain):
    """Child-Sum Tree-LSTM unit: any number of unordered children.

    Args:
        in_size: Input size (``None``: inferred on the first call).
        out_size: Size of the cell and the output.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> node = L.ChildSumTreeLSTM(3, 4)
        >>> leaf_c, leaf_h = node(np.ones((2, 3), np.float32))          # no children
        >>> c, h = node(leaf_c, leaf_c, leaf_h, leaf_h, np.ones((2, 3), np.float32))
        >>> c.shape, h.shape
        ((2, 4), (2, 4))
    """

    def __init__(self, in_size: Optional[int], out_size: int) -> None:
        super().__init__()
        self.in_size = in_size
        self.state_size = _util.check_size('ChildSumTreeLSTM', 'out_size', out_size)
        with self.init_scope():
            self.W_x = Linear(in_size, 4 * out_size)
            self.W_h_aio = Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = Linear(out_size, out_size, nobias=True)

    def forward(self, *cshsx: Any) -> tuple:
        """``c, h = link(c_1, ..., c_n, h_1, ..., h_n, x)`` (``n`` may be 0)."""
        if len(cshsx) % 2 != 1:
            raise ValueError(f'ChildSumTreeLSTM: expected c_1..c_n, h_1..h_n, x (an odd number '
                             f'of inputs), got {len(cshsx)}')
        n = len(cshsx) // 2
        cs, hs, x = _fill_none('ChildSumTreeLSTM', self, cshsx[:n], cshsx[n:2 * n], cshsx[-1],
                               self.W_x.in_size, self.state_size)
        a, i, o, f_x = split_axis(self.W_x(x), 4, axis=1)
        if hs:
            h_sum = hs[0]
            for h in hs[1:]:
                h_sum = h_sum + h
            a_h, i_h, o_h = split_axis(self.W_h_aio(h_sum), 3, axis=1)
            a, i, o = a + a_h, i + i_h, o + o_h
        fs = [f_x + self.W_h_f(h) for h in hs]
        return _cell(a, i, o, fs, cs)


class NaryTreeLSTM(Chain):
    """N-ary Tree-LSTM unit: exactly ``n_ary`` ordered children.

    Args:
        in_size: Input size (``None``: inferred on the first call).
        out_size: Size of the cell and the output.
        n_ary: Number of children.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> node = L.NaryTreeLSTM(3, 4, n_ary=2)
        >>> c, h = node(None, None, None, None, np.ones((2, 3), np.float32))   # a leaf
        >>> [name for name, _ in node.namedlinks(skipself=True)]
        ['/W_h1', '/W_h2', '/W_x']
    """

    def __init__(self, in_size: Optional[int], out_size: int, n_ary: int = 2) -> None:
        super().__init__()
        self.in_size = in_size
        self.state_size = _util.check_size('NaryTreeLSTM', 'out_size', out_size)
        self.n_ary = _util.check_size('NaryTreeLSTM', 'n_ary', n_ary)
        with self.init_scope():
            self.W_x = Linear(in_size, (3 + n_ary) * out_size)
            for k in range(1, n_ary + 1):
                setattr(self, f'W_h{k}', Linear(out_size, (3 + n_ary) * out_size, nobias=True))

    def forward(self, *cshsx: Any) -> tuple:
        """``c, h = link(c_1, ..., c_n, h_1, ..., h_n, x)`` with ``n = n_ary``."""
        n = self.n_ary
        if len(cshsx) != 2 * n + 1:
            raise ValueError(f'NaryTreeLSTM: expected {2 * n + 1} inputs (c_1..c_{n}, '
                             f'h_1..h_{n}, x), got {len(cshsx)}')
        cs, hs, x = _fill_none('NaryTreeLSTM', self, cshsx[:n], cshsx[n:2 * n], cshsx[-1],
                               self.W_x.in_size, self.state_size)
        pre = self.W_x(x)
        for k, h in enumerate(hs, 1):
            pre = pre + getattr(self, f'W_h{k}')(h)
        a, i, o, *fs = split_axis(pre, 3 + n, axis=1)
        return _cell(a, i, o, fs, cs)
