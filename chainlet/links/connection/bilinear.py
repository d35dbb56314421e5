"""``Bilinear``: a layer of two inputs with a bilinear and two linear terms."""
from __future__ import annotations

from typing import Any

from chainlet import initializers
from chainlet.functions.connection.bilinear import bilinear
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class Bilinear(Link):
    """Bilinear layer ``y_l = sum_jk e1_j e2_k W_jkl + sum_j e1_j V1_jl + sum_k e2_k V2_kl +
    b_l``.

    Args:
        left_size: Size ``J`` of the left input ``e1``.
        right_size: Size ``K`` of the right input ``e2``.
        out_size: Size ``L`` of the output.
        nobias: Keep only the bilinear term (no ``V1``, ``V2``, ``b``).
        initialW: Initializer of ``W`` (shape ``(J, K, L)``); default ``LeCunNormal``.
        initial_bias: ``None`` (``V1``, ``V2`` with ``LeCunNormal``, ``b`` with 0) or a
            tuple of three initializers ``(V1, V2, b)``.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> layer = L.Bilinear(2, 3, 4)
        >>> sorted(name for name, _ in layer.namedparams())
        ['/V1', '/V2', '/W', '/b']
        >>> layer(np.ones((5, 2), np.float32), np.ones((5, 3), np.float32)).shape
        (5, 4)
    """

    V1: Any  # registered with setattr in __init__ unless nobias; declared for mypy
    V2: Any
    b: Any

    def __init__(self, left_size: int, right_size: int, out_size: int, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        name = 'Bilinear'
        self.in_sizes = (_util.check_size(name, 'left_size', left_size),
                         _util.check_size(name, 'right_size', right_size))
        self.out_size = _util.check_size(name, 'out_size', out_size)
        self.nobias = bool(nobias)
        if initial_bias is None:
            inits_bias = (None, None, 0)
        elif isinstance(initial_bias, tuple) and len(initial_bias) == 3:
            inits_bias = initial_bias
        else:
            raise TypeError(f'{name}: argument initial_bias: expected None or a tuple of three '
                            f'initializers (V1, V2, b), got {type(initial_bias).__name__}')
        left, right = self.in_sizes
        dtype = _util.resolve_dtype(initialW, *(() if nobias else inits_bias))
        lecun = initializers.LeCunNormal()
        shapes = ((left, self.out_size), (right, self.out_size), (self.out_size,))
        _util.check_initial_array(name, 'initialW', initialW, (left, right, self.out_size))
        if not self.nobias:
            for pname, init, shape in zip(('V1', 'V2', 'b'), inits_bias, shapes):
                _util.check_initial_array(name, f'initial_bias ({pname})', init, shape)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(initialW, lecun, dtype, name, 'initialW'),
                               (left, right, self.out_size))
            if not self.nobias:
                for pname, init, shape in zip(('V1', 'V2', 'b'), inits_bias, shapes):
                    setattr(self, pname, Parameter(_util.get_initializer(
                        init, lecun if pname != 'b' else 0, dtype, name, 'initial_bias'),
                        shape))

    def forward(self, e1: Any, e2: Any) -> Variable:
        """Apply the layer to ``e1`` of shape ``(N, J)`` and ``e2`` of shape ``(N, K)``."""
        if self.nobias:
            return bilinear(e1, e2, self.W)
        return bilinear(e1, e2, self.W, self.V1, self.V2, self.b)

    def _repr_args(self) -> dict:
        return {'left_size': self.in_sizes[0], 'right_size': self.in_sizes[1],
                'out_size': self.out_size, 'nobias': self.nobias}
