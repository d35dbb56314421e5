"""Conditions for Sphinx ``:skipif:`` options in documentation doctests.

Example:
    >>> from chainlet.testing import doctest_helper
    >>> doctest_helper.skipif_requires_satisfied('numpy>=1.0')
    True
    >>> doctest_helper.skipif_not_enough_cuda_devices(0)
    False
"""
from __future__ import annotations

import os

from chainlet.testing import helper


def skipif(condition: bool) -> bool:
    """``condition``, except on Read the Docs, where examples must never disappear."""
    if os.environ.get('READTHEDOCS') == 'True':
        return False
    return condition


def skipif_requires_satisfied(*requirements: str) -> bool:
    """Skip when every requirement (e.g. ``'numpy>=1.17'``) is installed."""
    return skipif(all(helper._satisfied(r) for r in requirements))


def skipif_not_enough_cuda_devices(device_count: int) -> bool:
    """Skip when ``CHAINER_TEST_GPU_LIMIT`` (or ``CHAINLET_...``) allows fewer devices."""
    limit = int(os.getenv('CHAINLET_TEST_GPU_LIMIT', os.getenv('CHAINER_TEST_GPU_LIMIT', '-1')))
    return skipif(0 <= limit < device_count)
