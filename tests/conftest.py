"""Shared pytest configuration: tests marked ``gpu`` are skipped, with the reason, when CuPy or
a CUDA device is missing (the marker is declared in setup.cfg).

With ``CHAINLET_EMULATE_CUPY=1`` the CPU stand-in for CuPy in ``tools/cupy_emulator`` is
installed first, so that the ``gpu`` tests run on a machine without a GPU.
"""
from __future__ import annotations

import ctypes
import gc
import os
import sys
from typing import Any

import pytest

if os.environ.get('CHAINLET_EMULATE_CUPY'):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import tools.cupy_emulator
    tools.cupy_emulator.install()

from chainlet.testing import gpu_skip_reason

_PAGE = os.sysconf('SC_PAGE_SIZE') if hasattr(os, 'sysconf') else 4096


def _rss_bytes() -> int:
    try:
        with open('/proc/self/statm', 'rb') as f:
            return int(f.read().split()[1]) * _PAGE
    except OSError:  # not Linux: no cheap reading of the resident size; never collect
        return 0


_LIBC: list = []  # glibc's malloc_trim, looked up once


def _malloc_trim() -> None:
    """Give the C heap's free pages back to the system (glibc): NumPy arrays freed by the
    collection stay resident otherwise, where glibc had raised its mmap threshold."""
    if not _LIBC:
        try:
            _LIBC.append(ctypes.CDLL('libc.so.6').malloc_trim)
        except (OSError, AttributeError):  # not glibc
            _LIBC.append(lambda pad: 0)
    _LIBC[0](0)


_GROWTH = 64 * 2**20  # a test (or a test module) that grew the process this much: collect
_PILE = 128 * 2**20  # growth since the last collection that triggers one anyway
_rss_marks = {'collected': 0, 'module': 0}
_module_of_last_item = [None]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Any:
    """Free the reference cycles a test left behind when it grew the process by much.

    Models are reference cycles (Keras layers and their nodes, links and their parents), freed
    only when the garbage collector runs, and it runs by counts of objects, not by bytes: the
    1 GB of a VGG19 built by one test waited for a collection several tests later, so the
    suite's peak was the sum of several models (issue 32: 4.96 GB). Reading the resident size
    costs microseconds; a collection runs after a test that grew it by 64 MB or more, after the
    last test of a module that did (its module-scoped fixtures, a model shared by its tests,
    are dropped in that test's teardown, which this wraps) or that ends 64 MB above the last
    collection, and whenever the process grew by 128 MB since the last collection (many
    smaller models piling up). So the next module starts with little garbage, whatever it
    builds on top.
    """
    module = getattr(item, 'module', None)
    before = _rss_bytes()
    if module is not _module_of_last_item[0]:
        _module_of_last_item[0] = module
        _rss_marks['module'] = before
    yield
    after = _rss_bytes()
    module_ends = nextitem is None or getattr(nextitem, 'module', None) is not module
    since_collection = after - _rss_marks['collected']
    if (after - before >= _GROWTH or since_collection >= _PILE
            or (module_ends and max(since_collection,
                                    after - _rss_marks['module']) >= _GROWTH)):
        gc.collect()
        _malloc_trim()
        _rss_marks['collected'] = _rss_bytes()


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
