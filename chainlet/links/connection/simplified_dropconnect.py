"""``SimplifiedDropconnect``: a fully connected layer that drops weight entries at random
during training (Wan et al., 2013, in the simplified form of Chainer).

The layer holds ``W`` ``(out_size, in_size)`` and ``b`` like :class:`Linear` and calls
:func:`chainlet.functions.simplified_dropconnect`; at test time it is a plain linear layer.
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet import initializers
from chainlet.functions.noise.simplified_dropconnect import simplified_dropconnect
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class SimplifiedDropconnect(Link):
    """Fully connected layer with simplified DropConnect.

    Args:
        in_size: Input size, or ``None`` to infer it on the first call (from all the axes
            after the batch axis). With one size only, it is ``out_size``.
        out_size: Output size.
        ratio: Probability to drop each weight entry during training.
        nobias: Do not use a bias.
        initialW: Initializer of ``W``; default ``LeCunNormal``.
        initial_bias: Initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, chainlet, chainlet.links as L
        >>> layer = L.SimplifiedDropconnect(3, 2, ratio=0.5)
        >>> layer(np.ones((4, 3), np.float32)).shape
        (4, 2)
        >>> y = layer(np.ones((1, 3), np.float32), train=False)   # no dropping
        >>> np.allclose(y.array, layer.W.array.sum(axis=1) + layer.b.array)
        True
    """

    def __init__(self, in_size: Optional[int], out_size: Optional[int] = None,
                 ratio: float = .5, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        name = 'SimplifiedDropconnect'
        self.in_size = _util.check_size(name, 'in_size', in_size, allow_none=True)
        self.out_size = _util.check_size(name, 'out_size', out_size)
        self.ratio = ratio
        dtype = _util.resolve_dtype(initialW, None if nobias else initial_bias)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(
                initialW, initializers.LeCunNormal(), dtype, name, 'initialW'))
            if self.in_size is not None:
                self.W.initialize((self.out_size, self.in_size))
            if nobias:
                self.b = None
            else:
                self.b = Parameter(_util.get_initializer(
                    initial_bias, 0, dtype, name, 'initial_bias'), (self.out_size,))

    def forward(self, x: Any, train: bool = True, mask: Any = None,
                use_batchwise_mask: bool = True) -> Variable:
        """Apply the layer.

        Args:
            x: Input of shape ``(batch, ...)``; the axes after the first are flattened.
            train: Drop weights. As in Chainer this argument (default ``True``), not
                ``chainlet.config.train``, decides: pass ``train=False`` at test time.
            mask: A mask to reuse (``(batch, out, in)`` batchwise, else ``(out, in)``), as
                kept on ``y.creator.mask`` by a previous call.
            use_batchwise_mask: Draw one mask per sample.

        Returns:
            Variable of shape ``(batch, out_size)``.
        """
        if self.W.array is None:
            self.in_size = _util.size_of_shape(x.shape[1:])
            self.W.initialize((self.out_size, self.in_size))
        return simplified_dropconnect(x, self.W, self.b, self.ratio, train, mask,
                                      use_batchwise_mask)

    def _repr_args(self) -> dict:
        return {'in_size': self.in_size, 'out_size': self.out_size, 'ratio': self.ratio}
