"""Shared pytest configuration: tests marked ``gpu`` are skipped, with the reason, when CuPy or
a CUDA device is missing (the marker is declared in setup.cfg)."""
from __future__ import annotations

import pytest

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
