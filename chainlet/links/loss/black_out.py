"""``BlackOut``: the BlackOut loss (Ji et al., 2016) with a learned output embedding.

Negative samples are drawn from the word frequencies by a :class:`~chainlet.utils.WalkerAlias`
sampler (which moves with the link between devices). Setting :attr:`BlackOut.sample_data`
fixes the samples (for tests and for replaying a step).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import initializers
from chainlet.functions.loss.black_out import black_out
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.utils.walker_alias import WalkerAlias
from chainlet.variable import Variable


class BlackOut(Link):
    """BlackOut loss layer.

    Args:
        in_size: Dimension of the input vectors.
        counts: Frequency of each word (the vocabulary size is ``len(counts)``).
        sample_size: Number of negative samples per example.

    Attributes:
        W: Output embedding ``(len(counts), in_size)``; ``LeCunNormal`` at the start
            (Chainer leaves it NaN until the user fills it).
        sampler: The :class:`~chainlet.utils.WalkerAlias` over ``counts``.
        sample_data: ``None`` (draw new samples at each call) or a ``(batch, sample_size)``
            int32 array used instead.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> bo = L.BlackOut(3, [3, 2, 1], sample_size=4)
        >>> bo(np.ones((2, 3), np.float32), np.array([0, 2], np.int32)).shape
        ()
    """

    sample_data: Optional[Any] = None

    def __init__(self, in_size: int, counts: Sequence[float], sample_size: int) -> None:
        super().__init__()
        name = 'BlackOut'
        in_size = _util.check_size(name, 'in_size', in_size)
        self.sample_size = _util.check_size(name, 'sample_size', sample_size)
        self.sampler = WalkerAlias(numpy.asarray(counts, dtype=numpy.float32))
        dtype = _util.resolve_dtype()
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(
                None, initializers.LeCunNormal(), dtype, name, 'W'), (len(counts), in_size))

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)  # the sampling tables move too

    def forward(self, x: Any, t: Any) -> Variable:
        """The mean BlackOut loss of inputs ``x`` ``(batch, in_size)`` for targets ``t``."""
        if self.sample_data is not None:
            samples = self.sample_data
        else:
            samples = self.sampler.sample((x.shape[0], self.sample_size))
        return black_out(x, t, self.W, Variable(samples, requires_grad=False))
