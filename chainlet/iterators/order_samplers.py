"""Order samplers: how an iterator orders the examples of each epoch.

An order sampler is a callable ``sampler(current_order, current_position)`` returning the
order (an integer array) of the next epoch; iterators call it once at the start and at
every epoch boundary.
"""
from __future__ import annotations

from typing import Any

import numpy


class OrderSampler:
    """Base class of order samplers: ``__call__(current_order, current_position)``."""

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        raise NotImplementedError


class ShuffleOrderSampler(OrderSampler):
    """Draw a fresh random permutation for every epoch.

    Args:
        random_state: A ``numpy.random.RandomState`` or ``numpy.random.Generator``; ``None``
            uses NumPy's global random state (so ``numpy.random.seed`` makes it
            reproducible).

    Example:
        >>> import numpy as np
        >>> from chainlet.iterators import ShuffleOrderSampler
        >>> sampler = ShuffleOrderSampler(np.random.RandomState(0))
        >>> sorted(sampler(np.arange(5), 0).tolist())
        [0, 1, 2, 3, 4]
    """

    def __init__(self, random_state: Any = None) -> None:
        if random_state is not None and not hasattr(random_state, 'permutation'):
            raise TypeError(f'ShuffleOrderSampler: random_state must be a numpy RandomState or '
                            f'Generator, got {type(random_state).__name__}')
        self._random = random_state

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        random = numpy.random if self._random is None else self._random
        return random.permutation(len(current_order))
