"""``EmbedID``: a table of learned vectors looked up by integer ids."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import initializers
from chainlet.functions.connection.embed_id import embed_id
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class EmbedID(Link):
    """Embedding layer: maps each id in ``[0, in_size)`` to a row of ``W``.

    Args:
        in_size: Number of ids (the vocabulary size).
        out_size: Size of each vector.
        initialW: Initializer of ``W`` (shape ``(in_size, out_size)``); default ``Normal(1.0)``.
        ignore_label: An id that maps to the zero vector and gets no gradient.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> embed = L.EmbedID(5, 2, initialW=np.arange(10.0).reshape(5, 2), ignore_label=-1)
        >>> embed(np.array([4, -1, 0], np.int32)).array
        array([[8., 9.],
               [0., 0.],
               [0., 1.]])
    """

    # A class default, so that an instance pickled before the attribute existed still works.
    ignore_label: Optional[int] = None

    def __init__(self, in_size: int, out_size: int, initialW: Any = None,
                 ignore_label: Optional[int] = None) -> None:
        super().__init__()
        self.in_size = _util.check_size('EmbedID', 'in_size', in_size)
        self.out_size = _util.check_size('EmbedID', 'out_size', out_size)
        self.ignore_label = ignore_label
        dtype = _util.resolve_dtype(initialW)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(
                initialW, initializers.Normal(1.0), dtype, 'EmbedID', 'initialW'),
                (self.in_size, self.out_size))

    @classmethod
    def from_params(cls, W: Any, ignore_label: Optional[int] = None) -> 'EmbedID':
        """An ``EmbedID`` whose table starts as a copy of ``W`` ``(in_size, out_size)``.

        Example:
            >>> import numpy as np, chainlet.links as L
            >>> L.EmbedID.from_params(np.zeros((5, 2), np.float32))
            EmbedID(in_size=5, out_size=2, ignore_label=None)
        """
        W = _util.as_array(W)
        if W is None or W.ndim != 2:
            raise ValueError(f'EmbedID.from_params: argument W: expected a 2-d array, got '
                             f'{None if W is None else W.shape}')
        in_size, out_size = W.shape
        return cls(in_size, out_size, initialW=W, ignore_label=ignore_label)

    def forward(self, x: Any) -> Variable:
        """Look up the vectors of the ids ``x`` (signed integers); shape ``x.shape + (out,)``."""
        return embed_id(x, self.W, ignore_label=self.ignore_label)

    def _repr_args(self) -> dict:
        return {'in_size': self.in_size, 'out_size': self.out_size,
                'ignore_label': self.ignore_label}
