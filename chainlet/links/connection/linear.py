"""``Linear``: the fully connected layer."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import initializers
from chainlet.functions.connection.linear import linear
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class Linear(Link):
    """Fully connected layer ``y = x W^T + b`` holding ``W`` of shape ``(out_size, in_size)``.

    ``Linear(out_size)`` (one size) or ``Linear(None, out_size)`` leaves ``in_size`` open: ``W``
    is created on the first call from the number of features of the input.

    Args:
        in_size: Input size, or ``None`` to infer it on the first call. When ``out_size`` is
            omitted, this argument is the output size.
        out_size: Output size.
        nobias: Do not use a bias (``b`` is then ``None``).
        initialW: Initializer of ``W`` (an Initializer, a scalar or an array of shape
            ``(out_size, in_size)``); default ``LeCunNormal``.
        initial_bias: Initializer of ``b``; default 0.

    Attributes:
        W: Weight :class:`~chainlet.Parameter`, shape ``(out_size, in_size)``.
        b: Bias :class:`~chainlet.Parameter` of shape ``(out_size,)``, or ``None``.

    The parameters take the dtype of ``initialW``/``initial_bias`` when these are float arrays
    or initializers with a dtype, else ``chainlet.config.dtype`` (float32 by default).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> layer = L.Linear(3, 2, initialW=np.ones((2, 3), np.float32))
        >>> layer
        Linear(in_size=3, out_size=2, nobias=False)
        >>> layer(np.array([[1.0, 2.0, 3.0]], np.float32)).array
        array([[6., 6.]], dtype=float32)
        >>> lazy = L.Linear(4)
        >>> lazy.W.array is None
        True
        >>> lazy(np.zeros((5, 2, 3), np.float32)).shape
        (5, 4)
        >>> lazy.W.shape
        (4, 6)
    """

    def __init__(self, in_size: Optional[int], out_size: Optional[int] = None,
                 nobias: bool = False, initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.in_size = _util.check_size('Linear', 'in_size', in_size, allow_none=True)
        self.out_size = _util.check_size('Linear', 'out_size', out_size)
        self.nobias = bool(nobias)
        dtype = _util.resolve_dtype(initialW, None if nobias else initial_bias)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(
                initialW, initializers.LeCunNormal(), dtype, 'Linear', 'initialW'))
            if self.in_size is not None:
                self._initialize_params(self.in_size)
            if self.nobias:
                self.b = None
            else:
                self.b = Parameter(_util.get_initializer(
                    initial_bias, 0, dtype, 'Linear', 'initial_bias'), (self.out_size,))

    @classmethod
    def from_params(cls, W: Any, b: Any = None, nobias: bool = False) -> 'Linear':
        """A ``Linear`` whose parameters start as copies of ``W`` (and ``b``).

        Args:
            W: Weight array or Variable of shape ``(out_size, in_size)``.
            b: Bias array or Variable of shape ``(out_size,)``, or ``None`` (bias 0).
            nobias: Build the link without a bias.

        Returns:
            A new link; its sizes are read from ``W``.

        Example:
            >>> import numpy as np, chainlet.links as L
            >>> L.Linear.from_params(np.ones((2, 3), np.float32))
            Linear(in_size=3, out_size=2, nobias=False)
        """
        W = _util.as_array(W)
        if W.ndim != 2:
            raise ValueError(f'Linear.from_params: argument W: expected a 2-d array, got shape '
                             f'{W.shape}')
        out_size, in_size = W.shape
        b = _util.as_array(b)
        if b is not None and b.size != out_size:
            raise ValueError(f'Linear.from_params: `out_size` does not match the size of `b`: '
                             f'{out_size} != {b.size}')
        return cls(in_size, out_size, nobias, initialW=W, initial_bias=b)

    def _initialize_params(self, in_size: int) -> None:
        self.in_size = in_size
        self.W.initialize((self.out_size, in_size))

    def forward(self, x: Any, n_batch_axes: int = 1) -> Variable:
        """Apply the layer.

        Args:
            x: Input of shape ``(B_1, ..., B_k, ...)``; the axes after the ``n_batch_axes``
                leading ones are flattened into ``in_size`` features.
            n_batch_axes: Number of leading batch axes.

        Returns:
            Variable of shape ``(B_1, ..., B_k, out_size)``.
        """
        if self.W.array is None:
            self._initialize_params(_util.size_of_shape(x.shape[n_batch_axes:]))
        return linear(x, self.W, self.b, n_batch_axes=n_batch_axes)

    def _repr_args(self) -> dict:
        return {'in_size': self.in_size, 'out_size': self.out_size, 'nobias': self.nobias}
