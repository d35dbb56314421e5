"""Shared pieces of :func:`cross_covariance` and :func:`decov`: batch centering and the
``reduce`` option."""
from __future__ import annotations

from typing import Any

from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.math.sum import mean

REDUCE_OPTIONS = ('half_squared_sum', 'no')


def check_reduce(func: str, reduce: Any) -> None:
    if reduce not in REDUCE_OPTIONS:
        raise ValueError(f"{func}: argument reduce: expected 'half_squared_sum' or 'no', "
                         f'got {reduce!r}')


def center(xp: Any, x: Any) -> Any:
    """Array ``x`` minus its mean over the batch axis 0."""
    return x - x.mean(axis=0, keepdims=True)


def center_var(x: Any) -> Any:
    """Variable ``x`` minus its mean over axis 0, differentiably."""
    return x - broadcast_to(mean(x, axis=0, keepdims=True), x.shape)
