"""chainlet.utils.cache.cached_property: one value per backprop mode and per instance."""
import numpy as np
import pytest

import chainlet
from chainlet.utils import cache


class Model:
    def __init__(self, x):
        self.x = x
        self.calls = 0

    @cache.cached_property
    def h(self):
        self.calls += 1
        return self.x * 2


def test_name_and_class_access():
    assert Model.h.__name__ == 'h'
    assert isinstance(Model.h, cache.cached_property)


def test_cached_once():
    m = Model(chainlet.Variable(np.array([1.0])))
    assert m.h is m.h
    assert m.calls == 1
    np.testing.assert_allclose(m.h.array, [2.0])


def test_one_value_per_backprop_mode():
    m = Model(chainlet.Variable(np.array([1.0])))
    with_graph = m.h
    with chainlet.no_backprop_mode():
        without = m.h
        assert m.h is without
    assert m.h is with_graph
    assert without is not with_graph
    assert with_graph.creator is not None and without.creator is None
    assert m.calls == 2


def test_instances_do_not_share():
    a, b = Model(chainlet.Variable(np.array([1.0]))), Model(chainlet.Variable(np.array([10.0])))
    assert float(a.h.array[0]) == 2.0 and float(b.h.array[0]) == 20.0


def test_read_only():
    m = Model(chainlet.Variable(np.array([1.0])))
    with pytest.raises(AttributeError, match="'h' of Model is read-only"):
        m.h = 3
