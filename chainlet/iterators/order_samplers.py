"""Order samplers: how an iterator orders the examples of each epoch.

An order sampler is a callable ``sampler(current_order, current_position)`` returning the
order (an integer array) of the next epoch; iterators call it once at the start and at
every epoch boundary.
"""
from __future__ import annotations

import json

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

    def serialize(self, serializer: Any) -> None:
        """Save or load the state of this sampler's own random generator.

        A resumed run then shuffles later epochs exactly as an uninterrupted one. A sampler that
        draws from NumPy's global state saves nothing (as in Chainer).
        """
        rs = self._random
        if rs is None:
            return
        from chainlet.serializers import Deserializer
        if not isinstance(serializer, Deserializer):
            state = rs.get_state(legacy=False) if isinstance(rs, numpy.random.RandomState) \
                else rs.bit_generator.state
            serializer('random_state', json.dumps(_to_json(state)))
            return
        text = serializer('random_state', '')
        if not text:
            return
        state = _from_json(json.loads(str(text)))
        if isinstance(rs, numpy.random.RandomState):
            rs.set_state(state)
        else:
            rs.bit_generator.state = state


def _to_json(value: Any) -> Any:
    if isinstance(value, numpy.ndarray):
        return {'__ndarray__': value.tolist(), 'dtype': str(value.dtype)}
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, numpy.generic):
        return value.item()
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, dict):
        if '__ndarray__' in value:
            return numpy.asarray(value['__ndarray__'], dtype=value['dtype'])
        return {k: _from_json(v) for k, v in value.items()}
    return value
