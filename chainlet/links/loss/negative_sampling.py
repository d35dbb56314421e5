"""``NegativeSampling``: word2vec's negative-sampling loss with a learned output embedding.

The link holds ``W`` ``(vocab_size, in_size)`` (zero at the start, as in Chainer) and a
:class:`~chainlet.utils.WalkerAlias` sampler over ``counts ** power``; the sampler moves with
the link between devices. The function is looked up on its module at each call, so a test may
patch ``chainlet.functions.loss.negative_sampling.negative_sampling``.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet.functions.loss import negative_sampling as _negative_sampling
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.utils import argument
from chainlet.utils.walker_alias import WalkerAlias


class NegativeSampling(Link):
    """Negative sampling loss layer (Mikolov et al., 2013).

    Args:
        in_size: Dimension of the input vectors.
        counts: Frequency of each word (the vocabulary size is ``len(counts)``).
        sample_size: Number of negative samples per example.
        power: Exponent applied to the counts before sampling.
        dtype: dtype of ``W`` (default ``chainlet.config.dtype`` or float32).

    Attributes:
        W: Output embedding, shape ``(len(counts), in_size)``, initialized to 0.
        sampler: The :class:`~chainlet.utils.WalkerAlias` drawing the negative samples.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> ns = L.NegativeSampling(3, [10, 5, 2, 5, 2], sample_size=2)
        >>> x = np.ones((2, 3), np.float32)
        >>> t = np.array([0, 2], np.int32)
        >>> loss, samples = ns(x, t, return_samples=True)
        >>> float(loss.array), samples.shape                # W = 0: log(2) per term
        (4.158883..., (2, 3))
    """

    def __init__(self, in_size: int, counts: Sequence[float], sample_size: int,
                 power: float = 0.75, dtype: Any = None) -> None:
        super().__init__()
        name = 'NegativeSampling'
        in_size = _util.check_size(name, 'in_size', in_size)
        self.sample_size = _util.check_size(name, 'sample_size', sample_size)
        dtype = _util.resolve_dtype(dtype=dtype)
        p = numpy.power(numpy.asarray(counts, dtype=dtype), dtype.type(power))
        self.sampler = WalkerAlias(p)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(0, 0, dtype, name, 'W'),
                               (len(p), in_size))

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)  # the sampling tables move too

    def forward(self, x: Any, t: Any, reduce: str = 'sum', **kwargs: Any) -> Any:
        """forward(x, t, reduce='sum', *, return_samples=False)

        The loss of the inputs ``x`` ``(batch, in_size)`` for the targets ``t`` ``(batch,)``.

        Args:
            x: Input vectors.
            t: Target word ids (int32); ``-1`` is ignored.
            reduce: ``'sum'`` or ``'no'`` (one loss per example).
            return_samples: Also return the ``(batch, sample_size + 1)`` ids used (the
                first column is the target).

        Returns:
            The loss Variable, or ``(loss, samples)``.
        """
        return_samples, = argument.parse_kwargs(kwargs, ('return_samples', False))
        return _negative_sampling.negative_sampling(
            x, t, self.W, self.sampler.sample, self.sample_size, reduce=reduce,
            return_samples=return_samples)
