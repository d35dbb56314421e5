"""Chainer's type-check language (chainlet.utils.type_check) and how FunctionNode runs it."""
import pickle

import numpy
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check as fast_checks
from chainlet.utils import type_check as T


def test_expressions_print_as_written_with_minimal_parentheses():
    x, y = T.Variable(1, 'x'), T.Variable(2, 'y')
    assert str(x + y * x) == 'x + y * x'
    assert str((x + y) * x) == '(x + y) * x'
    assert str(x - (y - x)) == 'x - (y - x)'
    assert str(x ** y ** x) == 'x ** y ** x'
    assert str((x ** y) ** x) == '(x ** y) ** x'
    assert str(-x ** y) == '-x ** y'
    assert str(1 + x) == '1 + x'
    assert str(x[1:2, ...]) == 'x[1:2, ...]'
    assert str(x.shape[0]) == 'x.shape[0]'
    assert str(T.prod([])) == 'prod([])'
    assert (x + y * x).eval() == 3
    assert (x / y).eval() == 0.5


def test_expr_refuses_bool():
    x = T.Variable(1, 'x')
    with pytest.raises(RuntimeError, match='eval'):
        bool(x == 1)
    with pytest.raises(RuntimeError):
        (x == 1) and (x == 2)


def test_types_of_arrays():
    ts = T.get_types((numpy.zeros((2, 3), numpy.float32),), 'in_types', False)
    t, = ts
    assert t.shape[1].eval() == 3 and t.ndim.eval() == 2 and t.dtype.eval() == numpy.float32
    assert ts.size().eval() == 1 and str(ts.size()) == 'in_types.size'
    with pytest.raises(AssertionError):
        T.get_types([numpy.zeros(1)], 'x', False)
    none_type, = T.get_types((None,), 'gy', True)
    assert none_type.eval().dtype is None


def test_expect_reports_condition_and_values():
    t, = T.get_types((numpy.zeros((3,), numpy.int32),), 'in_types', False)
    with pytest.raises(T.InvalidType) as e:
        T.expect(t.ndim == 1, t.dtype.kind == 'f')
    assert e.value.expect == 'in_types[0].dtype.kind == f'  # str(), as Chainer prints it
    assert e.value.actual == "i != f"
    assert isinstance(e.value, TypeError)


def test_argname_renames_and_counts():
    ts = T.get_types((numpy.zeros(1), numpy.zeros(2)), 'in_types', False)
    T.argname(ts, ('x', 'W'))
    assert str(ts[1].shape) == 'W.shape'
    with pytest.raises(T.InvalidType, match='Invalid number of arguments'):
        T.argname(ts, ('x',))


def test_light_mode_works_on_the_arrays():
    arrays = (numpy.zeros((2, 3)),)
    with T.light_mode:
        assert T.in_light_mode()
        x_type, = T.get_light_types(arrays)
        assert T.eval(x_type.shape) == (2, 3)
        assert T.prod(x_type.shape) == 6
        T.expect(x_type.ndim == 2)
        with pytest.raises(T.InvalidType):
            T.expect(x_type.ndim == 3)
    assert not T.in_light_mode()


def test_invalid_type_pickles_and_is_the_one_error_class():
    e = T.InvalidType('foo', 'bar', 'baz')
    new = pickle.loads(pickle.dumps(e))
    assert new.args == e.args and new.expect == 'foo' and new.actual == 'bar'
    assert fast_checks.InvalidType is T.InvalidType


def test_broadcast_shapes_and_same_types():
    T.expect_broadcast_shapes((2, 1), (1, 3))
    with pytest.raises(T.InvalidType, match='cannot broadcast'):
        T.expect_broadcast_shapes((2, 3), (4,))
    assert T.same_types(numpy.zeros(1), numpy.zeros(2))
    assert not T.same_types(numpy.zeros(1), [1])


def test_builtin_functions_do_not_run_the_language(monkeypatch):
    def fail(*args):
        raise AssertionError('the DSL ran for a built-in function')
    monkeypatch.setattr(T, 'check_with_dsl', fail)
    F.tanh(numpy.zeros(2, numpy.float32))
    with pytest.raises(T.InvalidType, match='tanh: argument x'):
        F.tanh(numpy.zeros(2, numpy.int32))


def test_light_pass_first_then_symbolic_for_the_message():
    seen = []

    class Node(chainlet.FunctionNode):
        def check_type_forward(self, in_types):
            seen.append(type(in_types).__name__)
            x_type, = in_types
            T.expect(x_type.ndim == 2)

        def forward(self, inputs):
            return inputs

    Node().apply((numpy.zeros((1, 1)),))
    assert seen == ['LightTypeInfoTuple']
    with pytest.raises(T.InvalidType, match='Invalid operation is performed in: Node'):
        Node().apply((numpy.zeros(1),))
    assert seen[1:] == ['LightTypeInfoTuple', 'TypeInfoTuple']


def test_subclass_of_builtin_adding_checks_runs_both():
    from chainlet.functions.activation.tanh import Tanh

    class PositiveOnlyTanh(Tanh):
        def check_type_forward(self, in_types):
            T.expect(in_types[0].shape[0] == 2)

    PositiveOnlyTanh().apply((numpy.zeros(2, numpy.float32),))
    with pytest.raises(T.InvalidType, match='in_types\\[0\\].shape\\[0\\] == 2'):
        PositiveOnlyTanh().apply((numpy.zeros(3, numpy.float32),))
    with pytest.raises(T.InvalidType, match='floating-point'):
        PositiveOnlyTanh().apply((numpy.zeros(2, numpy.int32),))


def test_instance_level_check_is_honoured():
    calls = []
    f = chainlet.FunctionNode()
    f.check_type_forward = lambda in_types: calls.append(len(in_types))
    f.forward = lambda inputs: inputs
    f.apply((numpy.zeros(1),))
    assert calls == [1]
