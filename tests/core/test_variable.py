import copy
import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import Variable
from chainlet.variable import VariableNode


def f32(*values):
    return np.array(values, np.float32)


@pytest.mark.parametrize('bad,name', [([1.0, 2.0], 'list'), (1.0, 'float'), (3, 'int'),
                                      (np.float64(1), 'float64'), ('a', 'str'), ((1,), 'tuple')])
def test_constructor_rejects_non_arrays(bad, name):
    with pytest.raises(TypeError, match=f'Variable: expected a numpy or cupy ndarray or None, '
                                        f'got {name}'):
        Variable(bad)


def test_constructor_and_properties():
    x = Variable(np.zeros((2, 3), np.float32), name='x')
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and len(x) == 2
    assert x.dtype == np.float32 and x.xp is np and x.device == '@numpy'
    assert x.array is x.data
    assert x.name == 'x' and x.node.name == 'x'
    assert x.creator is None and x.rank == 0 and x.requires_grad
    assert x.label == '(2, 3), float32'
    assert Variable().array is None
    assert Variable(np.zeros(1), requires_grad=False).requires_grad is False
    with pytest.raises(TypeError, match='len'):
        len(Variable(np.zeros((), np.float32)))


def test_data_setter_updates_node():
    x = Variable(np.zeros(2))
    x.array = np.zeros((3, 4), np.float32)
    assert x.node.shape == (3, 4) and x.node.dtype == np.float32
    with pytest.raises(TypeError, match='Variable.array'):
        x.array = [1]


def test_grad_setter_validates():
    x = Variable(f32(1, 2))
    x.grad = f32(3, 4)
    np.testing.assert_array_equal(x.grad, [3, 4])
    assert isinstance(x.grad_var, Variable)
    with pytest.raises(ValueError, match=r'expected shape \(2,\).*got \(3,\)'):
        x.grad = f32(1, 2, 3)
    with pytest.raises(TypeError, match='expected dtype float32.*got float64'):
        x.grad = np.zeros(2)
    with pytest.raises(TypeError):
        x.grad = [1.0, 2.0]
    x.cleargrad()
    assert x.grad is None
    with pytest.warns(DeprecationWarning, match='Variable.zerograd is deprecated'):
        x.zerograd()
    np.testing.assert_array_equal(x.grad, [0, 0])


@pytest.mark.parametrize('op,ref', [
    (lambda a, b: a + b, np.add), (lambda a, b: a - b, np.subtract),
    (lambda a, b: a * b, np.multiply), (lambda a, b: a / b, np.divide),
    (lambda a, b: a ** b, np.power)])
def test_binary_operators_broadcast_and_reflect(op, ref):
    a = np.random.uniform(0.5, 1.5, (3, 1)).astype(np.float32)
    b = np.random.uniform(0.5, 1.5, (4,)).astype(np.float32)
    expected = ref(a, b)
    for lhs, rhs in [(Variable(a), Variable(b)), (Variable(a), b), (a, Variable(b))]:
        y = op(lhs, rhs)
        assert isinstance(y, Variable)
        assert y.dtype == np.float32
        np.testing.assert_allclose(y.array, expected, rtol=1e-6)


@pytest.mark.parametrize('op', [
    lambda x: x * 2.0, lambda x: 2.0 * x, lambda x: x + np.float64(1), lambda x: np.float64(1) + x,
    lambda x: x / 10, lambda x: 10 / x, lambda x: x - 1, lambda x: 1 - x, lambda x: x ** 2,
    lambda x: 2 ** x, lambda x: x ** np.float64(0.5), lambda x: -x, lambda x: abs(x),
    lambda x: x * np.int64(3), lambda x: x @ x])
@pytest.mark.parametrize('dtype', [np.float16, np.float32])
def test_scalars_never_promote(op, dtype):
    x = Variable(np.array([1.5, 2.0], dtype))
    assert op(x).dtype == dtype


def test_operator_values():
    x = Variable(f32(1, 2, 4))
    np.testing.assert_allclose((10 / x).array, [10, 5, 2.5])
    np.testing.assert_allclose((1 - x).array, [0, -1, -3])
    np.testing.assert_allclose((2 ** x).array, [2, 4, 16])
    np.testing.assert_allclose((x ** 0.5).array, [1, 2 ** 0.5, 2], rtol=1e-6)
    np.testing.assert_allclose((-x).array, [-1, -2, -4])
    np.testing.assert_allclose(abs(Variable(f32(-1, 2))).array, [1, 2])
    assert (+x) is x


def test_binary_dtype_mismatch_is_a_clear_error():
    with pytest.raises(TypeError, match='add: argument rhs: expected dtype float32 '
                                        r'\(the dtype of lhs\), got float64'):
        Variable(f32(1)) + Variable(np.ones(1))


def test_plain_array_operand_takes_the_variable_dtype():
    # As in Chainer, an array next to a Variable is a constant of the Variable's dtype.
    assert (Variable(f32(1)) + np.ones(1)).dtype == np.float32


def test_broadcast_error_names_shapes():
    with pytest.raises(TypeError, match=r'mul: arguments cannot be broadcast together: '
                                        r'lhs \(2,\), rhs \(3,\)'):
        Variable(f32(1, 2)) * f32(1, 2, 3)


def test_unsupported_operand():
    with pytest.raises(TypeError, match='add: unsupported operand of type str'):
        Variable(f32(1)) + 'a'


def test_zero_dim_outputs_are_arrays():
    x = Variable(np.array(2.0, np.float32))
    for y in [x * 2.0, x + x, F.tanh(x), F.exp(x), x.sum(), Variable(f32(1, 2)).sum(),
              Variable(f32(1, 2))[0]]:
        assert type(y.array) is np.ndarray
        assert y.array.ndim == 0


def test_comparisons_return_arrays():
    x = Variable(f32(1, 2, 3))
    np.testing.assert_array_equal(x > 1.5, [False, True, True])
    np.testing.assert_array_equal(x <= Variable(f32(1, 1, 1)), [True, False, False])
    np.testing.assert_array_equal(x == 2, [False, True, False])
    np.testing.assert_array_equal(x != 2, [True, False, True])
    np.testing.assert_array_equal(x >= 2, [False, True, True])
    np.testing.assert_array_equal(x < 2, [True, False, False])


def test_variables_are_hashable_by_identity():
    a, b = Variable(f32(1)), Variable(f32(1))
    assert len({a, b}) == 2
    assert {a: 1}[a] == 1


def test_getitem_basic_and_advanced_with_accumulation():
    x = Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
    y = x[1:, ::2]
    np.testing.assert_array_equal(y.array, [[4, 6], [8, 10]])
    z = x[[0, 0, 2], [1, 1, 3]]
    (y.sum() + z.sum()).backward()
    expected = np.zeros((3, 4), np.float32)
    expected[1:, ::2] += 1
    expected[0, 1] += 2
    expected[2, 3] += 1
    np.testing.assert_array_equal(x.grad, expected)
    x.cleargrad()
    x[x.array > 5].sum().backward()
    np.testing.assert_array_equal(x.grad, (x.array > 5).astype(np.float32))


def test_shortcuts():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = Variable(a)
    np.testing.assert_array_equal(x.T.array, a.T)
    np.testing.assert_array_equal(x.reshape(3, 2).array, a.reshape(3, 2))
    np.testing.assert_array_equal(x.reshape((6,)).array, a.reshape(6))
    np.testing.assert_array_equal(x.transpose(1, 0).array, a.T)
    np.testing.assert_array_equal(x.transpose().array, a.T)
    np.testing.assert_array_equal(x.sum(axis=1).array, a.sum(axis=1))
    np.testing.assert_allclose(x.mean(axis=0, keepdims=True).array, a.mean(0, keepdims=True))
    assert x.sum().item() == 15.0


def test_repr_and_str():
    # Chainer's format: no dtype, str prefixed too, the shape of an empty array shown in repr.
    x = Variable(f32(1, 2))
    assert repr(x) == 'variable([1., 2.])'
    assert str(x) == 'variable([1. 2.])'
    assert repr(Variable(np.array([1.0, 2.0]))) == 'variable([1., 2.])'
    assert repr(Variable()) == 'variable(None)' == str(Variable())
    assert repr(Variable(np.zeros((0, 3), np.float32))) == 'variable([], shape=(0, 3))'
    assert str(Variable(np.zeros((0, 3), np.float32), name='e')) == 'variable e([])'
    assert repr(Variable(np.zeros(0, np.float32))) == 'variable([])'
    assert repr(Variable(np.array(0, np.float16))) == 'variable(0.)'
    assert str(Variable(np.arange(4.0).reshape(2, 2), name='x')) == \
        'variable x([[0. 1.]\n            [2. 3.]])'


def test_repr_shows_the_name_and_summary_as_in_chainer():
    x = Variable(np.arange(4.0).reshape(2, 2), name='W')
    assert repr(x) == 'variable W([[0., 1.],\n            [2., 3.]])'
    assert repr(Variable(np.arange(4.0).reshape(2, 2))) == \
        'variable([[0., 1.],\n          [2., 3.]])'
    assert repr(Variable(name='h')) == 'variable h(None)'
    assert x.summary() == '<variable W>'
    assert Variable().summary().startswith('<variable at 0x')
    x.grad = np.ones((2, 2))
    text = x.debug_print()
    assert text.startswith('<variable W>\n- device: CPU\n') and '- shape: (2, 2)' in text
    assert "- backend: <class 'numpy.ndarray'>" in text
    assert '- grad: mean=1.00000000, std=0.00000000' in text
    x.grad = np.zeros((2, 2))
    assert x.debug_print().endswith('- grad: 0')
    assert Variable(name='e').debug_print() == (
        '<variable e>\n- device: None\n- backend: None\n- shape: None\n- dtype: None\n'
        '- statistics: None\n- grad: None')


def test_unchain_and_unchain_backward():
    x = Variable(f32(1, 2))
    h = F.tanh(x)
    y = h * 2.0
    h.unchain()
    assert h.creator is None
    y.sum().backward()
    assert x.grad is None and h.grad is not None
    z = F.exp(F.tanh(x))
    w = z * 3.0
    w.unchain_backward()
    assert w.creator is None and z.creator is None


def test_requires_grad_false_gets_no_grad():
    x = Variable(f32(1, 2), requires_grad=False)
    w = Variable(f32(3, 4))
    (x * w).sum().backward()
    assert x.grad is None
    np.testing.assert_array_equal(w.grad, [1, 2])


def test_to_device_cpu_is_noop_and_gpu_needs_cupy(monkeypatch):
    import sys
    x = Variable(f32(1, 2))
    assert x.to_device('@numpy') is x and x.to_cpu() is x
    monkeypatch.setitem(sys.modules, 'cupy', None)
    with pytest.raises(RuntimeError, match='CuPy is not installed'):
        x.to_device('@cupy:0')


def test_copydata_and_addgrad():
    x, y = Variable(f32(1, 2)), Variable(f32(5, 6))
    x.copydata(y)
    np.testing.assert_array_equal(x.array, [5, 6])
    y.grad = f32(1, 1)
    x.addgrad(y)
    x.addgrad(y)
    np.testing.assert_array_equal(x.grad, [2, 2])
    np.testing.assert_array_equal(y.grad, [1, 1])


def test_as_variable_and_as_array():
    a = np.zeros(2)
    v = chainlet.as_variable(a)
    assert v.array is a and not v.requires_grad
    assert chainlet.as_variable(v) is v
    assert chainlet.as_array(v) is a and chainlet.as_array(a) is a


def test_addgrad_rejects_mismatched_gradients_instead_of_broadcasting():
    # ``+=`` used to broadcast a (1,) gradient over (3,) and cast float64 into float32 silently.
    x = Variable(f32(0, 0, 0))
    x.grad = f32(1, 1, 1)
    one = Variable(f32(0))
    one.grad = f32(5)
    with pytest.raises(ValueError, match=r'Variable.addgrad: expected shape \(3,\)'):
        x.addgrad(one)
    wide = Variable(np.zeros(3))
    wide.grad = np.ones(3)
    with pytest.raises(TypeError, match='Variable.addgrad: expected dtype float32'):
        x.addgrad(wide)
    np.testing.assert_array_equal(x.grad, [1, 1, 1])


def test_copydata_initializes_an_empty_destination():
    # copydata into Variable(None) (or a lazy Parameter) used to fail with a CuPy error.
    src = Variable(f32(1, 2))
    dst = Variable()
    dst.copydata(src)
    np.testing.assert_array_equal(dst.array, [1, 2])
    assert dst.array is not src.array and dst.shape == (2,)
    p = chainlet.Parameter()
    p.copydata(src)
    np.testing.assert_array_equal(p.array, [1, 2])
    q = chainlet.Parameter(0.0)
    dst.copydata(q)  # an uninitialized source parameter is initialized with dst's shape
    np.testing.assert_array_equal(dst.array, [0, 0])
    with pytest.raises(ValueError, match='the source variable has no data'):
        dst.copydata(Variable())


def test_label_follows_chainer():
    assert Variable(np.zeros((2, 5), np.float32)).label == '(2, 5), float32'
    assert Variable(np.zeros(1, np.float32)).label == '(1), float32'
    assert Variable(np.array(0, np.float64)).label == 'float64'
    assert Variable().label == 'None'


def test_chainer_private_names():
    x = Variable(f32(1, 2))
    assert x._has_chainerx_array is False and x.layout is None and x.raw_array is x.array
    y = Variable._init_unchecked(f32(3), name='y', requires_grad=False)
    assert type(y) is Variable and y.name == 'y' and not y.requires_grad
    assert y.node.get_variable_or_none() is y
    z = Variable._init_unchecked(f32(4), node=y.node)
    assert z.node is y.node and y.node.get_variable_or_none() is z
    x.node._requires_grad = False
    assert x.requires_grad is False and x.node._requires_grad is False
    x.grad = f32(5, 6)
    np.testing.assert_array_equal(x._grad, [5, 6])
    assert x.node.grad is x.grad and x.node.grad_var is x.grad_var
    x._grad = None
    assert x.grad_var is None


def test_variable_node_refuses_grad_and_unknown_arguments():
    with pytest.raises(ValueError, match='pass the gradient to Variable instead'):
        VariableNode(Variable(), '', grad=None)
    with pytest.raises(TypeError, match="'spam'"):
        VariableNode(Variable(), '', spam=1)
    with pytest.raises(ValueError, match='volatile argument is not supported'):
        Variable(f32(1), volatile='on')
    with pytest.raises(TypeError, match="'spam'"):
        Variable(f32(1), spam=1)


def test_grad_set_from_an_array_is_a_leaf_that_requires_grad():
    x = Variable(f32(1, 2), requires_grad=False)
    x.grad = f32(3, 4)
    assert x.grad_var.requires_grad is True and x.requires_grad is False


def test_zerograd_fills_in_place_and_cuts_the_gradient_graph():
    x = Variable(f32(1, 2))
    x.grad_var = F.tanh(Variable(f32(1, 1)))
    g = x.grad_var
    with pytest.warns(DeprecationWarning):
        x.zerograd()
    assert x.grad_var is g and g.creator is None
    np.testing.assert_array_equal(x.grad, [0, 0])
    empty = Variable()
    with pytest.warns(DeprecationWarning):
        empty.zerograd()
    assert empty.grad is None


def test_set_creator_and_set_creator_node_take_the_rank():
    x = Variable(f32(1, 2))
    y = F.tanh(F.tanh(x))
    node = y.creator_node
    v = Variable(f32(0, 0))
    v.set_creator_node(node)
    assert v.creator_node is node and v.rank == node.rank + 1 == 2
    w = Variable(f32(0, 0))
    w.set_creator(node)
    assert w.creator is node and w.rank == 2
    w.node.set_creator_node(None)
    assert w.creator_node is None and w.rank == 2


def test_bool_raises_as_in_chainer():
    with pytest.raises(TypeError, match='cannot be evaluated as Python bool'):
        bool(Variable(f32(1)))


def test_backward_consumes_the_output_gradient_unless_retained():
    # Chainer 7: backward uses up the output's gradient; retain_grad keeps every gradient.
    x = Variable(f32(1, 2))
    y = x * 3.0
    y.grad = f32(1, 1)
    y.backward()
    assert y.grad_var is None
    np.testing.assert_array_equal(x.grad, [3, 3])
    z = x * 2.0
    gz = Variable(f32(1, 1))
    z.grad_var = gz
    z.backward(retain_grad=True)
    assert z.grad_var is gz
    s = F.sum(x)
    s.backward(loss_scale=2.0)
    assert s.grad is None
    np.testing.assert_array_equal(x.grad, [7, 7])


def test_backward_from_a_one_element_non_scalar_warns():
    x = Variable(f32(2))
    y = x * 3.0
    with pytest.warns(DeprecationWarning, match='only one element as a scalar'):
        y.backward()
    np.testing.assert_array_equal(x.grad, [3])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        (x.sum() * 1.0).backward()  # 0-d: no warning


def test_retain_data_keeps_the_array_on_the_node():
    x = Variable(f32(1, 2))
    x.retain_data()
    assert x.node.data is x.array


def test_chainerx_and_ideep_moves_report_that_they_are_unavailable():
    x = Variable(f32(1, 2))
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        x.to_chx()
    with pytest.raises(RuntimeError, match='iDeep is not available'):
        x.to_intel64()
    with pytest.raises(ValueError, match='chx_array'):
        x.chx_array
    assert x.from_chx() is None and isinstance(x.array, np.ndarray)


class TestGradientOnTheNode:
    """A function's output node keeps no reference to its Variable; its gradient lives on the
    node, so every way of reaching it agrees. A leaf keeps its own, as in Chainer."""

    def test_node_and_variable_share_the_gradient(self):
        x = Variable(np.array([1.0, 2.0], np.float32))
        y = x * 3.0
        y.grad = np.ones(2, np.float32)
        np.testing.assert_array_equal(y.node.grad, np.ones(2, np.float32))
        assert y.node.grad_var is y.grad_var
        y.cleargrad()
        assert y.node.grad is None

    def test_retain_grad_reaches_outputs_the_user_holds(self):
        x = Variable(np.array([1.0, 2.0], np.float32))
        h = x * 3.0
        y = F.sum(h * h)
        y.backward(retain_grad=True)
        np.testing.assert_allclose(h.grad, 2 * h.array)
        np.testing.assert_allclose(x.grad, 3 * 2 * h.array)

    def test_an_output_made_without_backprop_is_a_leaf_that_gets_its_gradient(self):
        x = Variable(np.array([1.0, 2.0], np.float32))
        with chainlet.no_backprop_mode():
            h = x * 3.0
        y = F.sum(h * h)
        y.backward()
        np.testing.assert_allclose(h.grad, 2 * h.array)
        assert x.grad is None

    def test_an_unchained_output_gets_its_gradient_as_a_leaf(self):
        x = Variable(np.array([1.0, 2.0], np.float32))
        h = x * 3.0
        h.unchain()
        F.sum(h * h).backward()
        np.testing.assert_allclose(h.grad, 2 * h.array)
        assert x.grad is None

    def test_a_variable_rebuilt_for_a_node_sees_the_same_gradient(self):
        x = Variable(np.array([1.0, 2.0], np.float32))
        y = x * 3.0
        y.grad = np.ones(2, np.float32)
        y.node.data = y.array
        again = y.node.get_variable()
        assert again.node is y.node
        assert again.grad_var is y.grad_var

    def test_retain_grad_after_a_backward_asked_for_retained_inputs(self):
        # A backward that asks for its retained inputs makes Variables for their nodes; the
        # output Variable the user holds must still get its gradient.
        x = Variable(np.array([1.0, 2.0], np.float32))
        h = x * 3.0
        y = F.sum(h * h)  # Mul retains both inputs
        y.backward(retain_grad=True)
        y2 = F.sum(h * h)
        y2.backward(retain_grad=True)
        np.testing.assert_allclose(h.grad, 2 * h.array)  # replaced, as in Chainer

    def test_a_leafs_node_reaches_the_gradient_of_its_variable(self):
        x = Variable(np.array([1.0, 2.0], np.float32), grad=np.ones(2, np.float32))
        assert x.node.grad_var is x.grad_var
        node = x.node
        del x
        assert node.grad is None  # the Variable is gone, as in Chainer

    def test_a_shallow_copy_has_its_own_gradient(self):
        x = Variable(np.array([1.0, 2.0], np.float32), grad=np.ones(2, np.float32))
        c = copy.copy(x)
        c.grad = None
        np.testing.assert_array_equal(x.grad, np.ones(2, np.float32))

    def test_node_retain_data_on_a_function_output_says_what_to_do(self):
        y = Variable(np.ones(2, np.float32)) * 2.0
        with pytest.raises(RuntimeError, match='call retain_data'):
            y.node.retain_data()
        y.retain_data()
        np.testing.assert_array_equal(y.node.data, y.array)


def test_converts_to_numpy_and_python_scalars():
    # Unlike Chainer, as a Keras eager tensor (issue 31); bool still raises (above).
    import operator
    v = Variable(np.zeros((2, 3), np.float32))
    assert np.asarray(v) is v.array
    assert int(Variable(np.array([2.5]))) == 2
    assert float(Variable(np.ones(1, np.float32))) == 1.0
    assert operator.index(Variable(np.array(4))) == 4
    with pytest.raises(TypeError, match='one element'):
        float(v)
