"""Test attributes as pytest marks: ``gpu``, ``multi_gpu(n)``, ``cudnn``, ``ideep``,
``chainerx``, ``slow``.

A CPU-only run deselects them as Chainer's CI does (``-m "not gpu and not slow"``).
``multi_gpu(n)`` also skips the test when the environment variable ``CHAINER_TEST_GPU_LIMIT``
(or ``CHAINLET_TEST_GPU_LIMIT``) is at least 0 and smaller than ``n``.

Example:
    >>> from chainlet.testing import attr
    >>> @attr.slow
    ... def test_big():
    ...     pass
    >>> [m.name for m in test_big.pytestmark]
    ['slow']
"""
from __future__ import annotations

import os
import unittest
from typing import Any, Callable

try:
    import pytest
    _error: Exception | None = None
except ImportError as e:  # pragma: no cover - pytest is a test-time dependency
    pytest = None  # type: ignore[assignment]
    _error = e


def is_available() -> bool:
    """Whether pytest (which the marks need) can be imported."""
    return _error is None


def check_available() -> None:
    """Raise ``RuntimeError`` when pytest is missing."""
    if _error is not None:
        raise RuntimeError(f'{__name__} is not available.\n\n'
                           f'Reason: {type(_error).__name__}: {_error}')


def get_error() -> Exception | None:
    """The error met importing pytest, or ``None``."""
    return _error


def _gpu_limit() -> int:
    value = os.getenv('CHAINLET_TEST_GPU_LIMIT', os.getenv('CHAINER_TEST_GPU_LIMIT', '-1'))
    return int(value)


def _mark(name: str) -> Callable[..., Any]:
    def mark(*args: Any, **kwargs: Any) -> Any:
        check_available()
        return getattr(pytest.mark, name)(*args, **kwargs)
    mark.__name__ = name
    mark.__doc__ = f'Mark a test (or a class) with ``pytest.mark.{name}``.'
    return mark


chainerx = _mark('chainerx')
cudnn = _mark('cudnn')
ideep = _mark('ideep')
slow = _mark('slow')


def multi_gpu(gpu_num: int) -> Callable[[Any], Any]:
    """Mark a test as needing ``gpu_num`` GPUs (a ``gpu`` mark, skipped over the limit)."""
    check_available()

    def deco(f: Any) -> Any:
        limit = _gpu_limit()
        return unittest.skipIf(0 <= limit < gpu_num,
                               reason=f'{gpu_num} GPUs required')(pytest.mark.gpu(f))

    return deco


def gpu(f: Any) -> Any:
    """Mark a test as needing one GPU."""
    return multi_gpu(1)(f)
