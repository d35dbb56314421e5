"""The shuffle-and-split shared by the housing datasets."""
from __future__ import annotations

import numpy


def split(x: numpy.ndarray, y: numpy.ndarray, test_split: float, seed: int) -> tuple:
    indices = numpy.arange(len(x))
    numpy.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    n = int(len(x) * (1 - test_split))
    return (numpy.array(x[:n]), numpy.array(y[:n])), (numpy.array(x[n:]), numpy.array(y[n:]))


def check_split(test_split: float, where: str) -> None:
    if isinstance(test_split, bool) or not isinstance(test_split, (int, float)) or \
            not 0 <= test_split < 1:
        raise ValueError(f'{where}: argument test_split: expected a float in [0, 1), got '
                         f'{test_split!r}')
