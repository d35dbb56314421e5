"""Patching ``FunctionNode.apply`` (a mock, a debug hook) reaches the built-in functions.

Each function class runs its own copy of ``apply`` (see ``_own_hot_code``); the metaclass
hands a replacement of the base method to every class that held a copy, and gives the
original back when the patch ends (docs/graph.md, "Patching apply").
"""
from unittest import mock

import numpy as np

import chainlet
import chainlet.functions as F
from chainlet import FunctionNode
from chainlet.functions.activation.relu import ReLU


def _origin(method):
    """The function a class's hot method is a copy of (Python 3.11+ gives each class its own
    copy; before 3.11 the class simply inherits the function itself)."""
    return getattr(method, '_hot_copy_of', method)


def _inputs():
    x = chainlet.Variable(np.array([[0.5, -1.0, 2.0]]))
    return x, chainlet.Variable(np.ones((1, 3))), chainlet.Variable(np.ones((2, 3)))


def _three_ops(x, y, W):
    F.relu(x)
    F.linear(x, W)
    return x + y


def test_mock_patch_object_with_a_wrapper_sees_built_in_functions():
    x, y, W = _inputs()
    original = FunctionNode.apply
    seen = []

    def wrapper(self, inputs):
        seen.append(type(self).__name__)
        return original(self, inputs)

    with mock.patch.object(chainlet.FunctionNode, 'apply', wrapper):
        z = _three_ops(x, y, W)
    assert seen == ['ReLU', 'LinearFunction', 'Add']
    np.testing.assert_array_equal(z.array, x.array + 1)
    _three_ops(x, y, W)
    assert len(seen) == 3  # the patch is gone from every class
    assert _origin(ReLU.apply) is original


def test_an_autospec_mock_records_the_calls_of_built_in_functions():
    x, y, W = _inputs()
    original = FunctionNode.apply
    with mock.patch.object(FunctionNode, 'apply', autospec=True, side_effect=original) as apply:
        _three_ops(x, y, W)
    assert [type(c.args[0]).__name__ for c in apply.call_args_list] == \
        ['ReLU', 'LinearFunction', 'Add']
    assert _origin(ReLU.apply) is original


def test_a_mock_on_one_class_survives_a_patch_of_the_base():
    x, y, W = _inputs()
    with mock.patch.object(ReLU, 'apply', return_value=(x,)) as relu_apply:
        with mock.patch.object(FunctionNode, 'apply', autospec=True,
                               side_effect=FunctionNode.apply) as apply:
            assert F.relu(x) is x  # the class's own mock, not the base's patch
            F.tanh(x)
        assert ReLU.__dict__['apply'] is relu_apply
        assert F.relu(x) is x
    assert relu_apply.call_count == 2
    assert [type(c.args[0]).__name__ for c in apply.call_args_list] == ['Tanh']
    assert F.relu(x) is not x and _origin(ReLU.apply) is FunctionNode.apply
