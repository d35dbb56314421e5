"""Shared pytest configuration: tests marked ``gpu`` are skipped, with the reason, when CuPy or
a CUDA device is missing (the marker is declared in setup.cfg).

With ``CHAINLET_EMULATE_CUPY=1`` the CPU stand-in for CuPy in ``tools/cupy_emulator`` is
installed first, so that the ``gpu`` tests run on a machine without a GPU.
"""
from __future__ import annotations

import os
import sys

import pytest

if os.environ.get('CHAINLET_EMULATE_CUPY'):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import tools.cupy_emulator
    tools.cupy_emulator.install()

from chainlet.testing import gpu_skip_reason


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    gpu_items = [item for item in items if item.get_closest_marker('gpu') is not None]
    if not gpu_items:
        return
    reason = gpu_skip_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f'needs a GPU: {reason}')
    for item in gpu_items:
        item.add_marker(skip)
