"""Walker's alias method: draw from a fixed discrete distribution in O(1) per sample.

The table is built once in O(n): every outcome ``i`` gets a bucket holding itself with
probability ``threshold[i]`` and one other outcome (its *alias*) otherwise, so that each bucket
carries mass ``1/n`` and the buckets together reproduce the distribution (Vose's construction).
A sample picks a bucket uniformly and then self or alias with one comparison, all vectorized,
so it runs the same way on NumPy and CuPy. ``values`` stores the pair of bucket ``i`` at
``2i`` (self) and ``2i + 1`` (alias), as Chainer lays it out.

Example:
    >>> import numpy as np
    >>> np.random.seed(0)
    >>> sampler = WalkerAlias([0.0, 3.0, 1.0])
    >>> draws = sampler.sample((10000,))
    >>> sorted(set(draws.tolist()))
    [1, 2]
    >>> round(float((draws == 1).mean()), 1)
    0.8
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet import backend
from chainlet.device_resident import DeviceResident


class WalkerAlias(DeviceResident):
    """Sampler of outcomes ``0 .. n-1`` with probabilities proportional to ``probs``.

    A :class:`~chainlet.device_resident.DeviceResident`: ``to_device('@cupy:0')`` moves the
    tables, and sampling then runs on that GPU.

    Args:
        probs: Non-negative weights of the outcomes (normalized by their sum).

    Attributes:
        threshold: ``float32`` array ``(n,)``: probability that bucket ``i`` yields ``i``.
        values: ``int32`` array ``(2n,)``: the outcome and the alias of each bucket.

    Raises:
        ValueError: ``probs`` is empty, not 1-d, negative somewhere or sums to zero.
    """

    def __init__(self, probs: Any) -> None:  # a sequence or array of probabilities
        weights = numpy.asarray(probs, dtype=numpy.float64)
        if weights.ndim != 1 or weights.size == 0:
            raise ValueError(f'WalkerAlias: argument probs: expected a non-empty 1-d sequence, '
                             f'got shape {weights.shape}')
        total = weights.sum()
        if (weights < 0).any() or not total > 0:
            raise ValueError('WalkerAlias: argument probs: expected non-negative weights with a '
                             'positive sum')
        n = weights.size
        scaled = weights * (n / total)  # mass of each outcome in units of one bucket
        threshold = numpy.ones(n, dtype=numpy.float64)
        values = numpy.repeat(numpy.arange(n, dtype=numpy.int32), 2)
        small = [i for i in range(n) if scaled[i] < 1.0]
        large = [i for i in range(n) if scaled[i] >= 1.0]
        while small and large:
            s, g = small.pop(), large[-1]
            threshold[s] = scaled[s]
            values[2 * s + 1] = g
            scaled[g] -= 1.0 - scaled[s]  # g fills the rest of bucket s
            if scaled[g] < 1.0:
                small.append(large.pop())
        # What is left has mass 1 up to rounding: such a bucket always yields itself.
        self.threshold = threshold.astype(numpy.float32)
        self.values = values

    @property
    def use_gpu(self) -> bool:
        """True when the tables are on a GPU."""
        return self.device.xp is not numpy

    def device_resident_accept(self, visitor: Any) -> None:
        """Show a device visitor (``to_device``) the two tables, so that they move too."""
        super().device_resident_accept(visitor)
        self.threshold = visitor.visit_array(self.threshold)
        self.values = visitor.visit_array(self.values)

    # -- sampling --

    def sample(self, shape: Sequence[int] | int) -> Any:
        """Draw outcomes.

        Args:
            shape: Shape of the result.

        Returns:
            An ``int32`` array of that shape on the sampler's device (NumPy's global random
            state, or CuPy's, supplies the randomness).
        """
        with backend.using_device(self.device):
            return self.sample_xp(self.device.xp, shape)

    def sample_xp(self, xp: Any, shape: Sequence[int] | int) -> Any:
        """Draw outcomes with the array module ``xp`` (``numpy`` or ``cupy``)."""
        n = len(self.threshold)
        u = xp.random.uniform(0, n, shape)
        # uniform(0, n) can round up to n itself; that draw belongs to the last bucket.
        bucket = xp.minimum(u.astype(numpy.int32), n - 1)
        use_alias = self.threshold[bucket] < (u - bucket).astype(numpy.float32)
        return self.values[2 * bucket + use_alias.astype(numpy.int32)]

    def sample_gpu(self, shape: Sequence[int] | int) -> Any:
        """Draw outcomes with CuPy (the tables must be on the GPU)."""
        return self.sample_xp(backend.import_cupy(), shape)
