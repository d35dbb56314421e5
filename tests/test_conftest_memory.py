"""tests/conftest.py frees the reference cycles (models) that big tests leave behind (issue 32:
the suite peaked at 4.96 GB while unreachable models waited for a collection)."""
from __future__ import annotations

import gc
import sys
import types
import weakref

import numpy
import pytest

from tests import conftest

pytestmark = pytest.mark.skipif(not sys.platform.startswith('linux'),
                                reason='the resident size is read from /proc')


class _Cycle:
    def __init__(self, nbytes):
        self.me = self
        self.data = numpy.ones(nbytes // 8)  # touched: resident


def _protocol(item, nextitem, body):
    hook = conftest.pytest_runtest_protocol(item, nextitem)
    next(hook)
    body()
    with pytest.raises(StopIteration):
        next(hook)


@pytest.fixture
def no_automatic_gc():
    was = gc.isenabled()
    gc.disable()  # only the hook's collections free cycles
    yield
    if was:
        gc.enable()


def test_a_big_test_is_followed_by_a_collection(no_automatic_gc):
    module = types.SimpleNamespace()
    refs = []

    def body():
        refs.append(weakref.ref(_Cycle(128 * 2**20)))
    _protocol(types.SimpleNamespace(module=module), types.SimpleNamespace(module=module), body)
    assert refs[0]() is None


def test_a_module_that_grew_is_collected_at_its_end(no_automatic_gc):
    # a model built by the module's first test and dropped in its last test's teardown (as a
    # module-scoped fixture is): the last test itself does not grow the process
    module = types.SimpleNamespace()
    first, last = types.SimpleNamespace(module=module), types.SimpleNamespace(module=module)
    shared, refs = [], []

    def build():
        shared.append(_Cycle(128 * 2**20))
        refs.append(weakref.ref(shared[0]))
    _protocol(first, last, build)
    _protocol(last, None, shared.clear)
    assert refs[0]() is None
