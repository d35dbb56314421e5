import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import FunctionNode, Variable


def v(*values, dtype=np.float64):
    return Variable(np.array(values, dtype))


def test_diamond_graph_accumulates_once():
    x = v(0.3, -0.7)
    a = F.tanh(x)
    b = a * a
    c = F.exp(a)
    y = F.sum(b + c)
    y.backward()
    t = np.tanh(x.array)
    expected = (2 * t + np.exp(t)) * (1 - t ** 2)
    np.testing.assert_allclose(x.grad, expected)


def test_each_backward_runs_once_after_all_output_grads(monkeypatch):
    calls = []

    class Tracked(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            calls.append(grad_outputs[0].array.copy())
            return grad_outputs[0],
    x = v(1.0)
    h = Tracked().apply((x,))[0]
    y = h * 2.0 + h * 3.0 + F.tanh(h * 0.0)
    y.backward()
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0], [5.0])


def test_rank_order_with_tie_break_is_deterministic():
    order = []

    class Named(FunctionNode):
        def __init__(self, name):
            self.name = name

        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            order.append(self.name)
            return grad_outputs[0],
    x = v(1.0)
    a = Named('a').apply((x,))[0]
    b = Named('b').apply((x,))[0]
    y = Named('top').apply((a + b,))[0]
    for _ in range(2):
        order.clear()
        x.cleargrad()
        y.backward()
        assert order[0] == 'top' and sorted(order[1:]) == ['a', 'b']
        first = list(order)
    order.clear()
    y.backward()
    assert order == first


def test_leaf_grad_accumulates_until_cleargrad():
    x = v(2.0)
    y = x * x
    y.backward()
    y.backward()
    np.testing.assert_allclose(x.grad, [8.0])
    x.cleargrad()
    y.backward()
    np.testing.assert_allclose(x.grad, [4.0])


def test_intermediate_grads_freed_unless_retained():
    x = v(1.0, 2.0)
    h = F.tanh(x)
    y = F.sum(h * 2.0)
    y.backward()
    assert h.grad is None
    y.backward(retain_grad=True)
    np.testing.assert_allclose(h.grad, [2.0, 2.0])
    assert y.grad is not None  # the output keeps its initial gradient


def test_size_one_output_gets_ones_and_large_output_needs_grad():
    x = v(1.0, 2.0)
    y = x * 3.0
    called = []

    class Spy(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            called.append(1)
            return grad_outputs[0],
    z = Spy().apply((y,))[0]
    with pytest.raises(ValueError, match=r'backward: the output has shape \(2,\); set its .grad'):
        z.backward()
    assert called == []
    z.grad = np.ones(2)
    z.backward()
    np.testing.assert_allclose(x.grad, [3.0, 3.0])
    s = v(5.0)
    (s * 2.0).backward()
    np.testing.assert_allclose(s.grad, [2.0])


def test_only_requested_input_gradients_are_computed():
    seen = []

    class Two(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * inputs[1],

        def backward(self, indexes, grad_outputs):
            seen.append(indexes)
            return tuple(grad_outputs[0] for _ in indexes)
    x = v(1.0)
    c = Variable(np.array([2.0]), requires_grad=False)
    Two().apply((x, c))[0].backward()
    assert seen == [(0,)]
    seen.clear()
    w = v(3.0)
    y = Two().apply((x, w))[0]
    chainlet.grad([y], [x])
    assert seen == [(0,)]


def test_wrong_gradients_are_reported_with_the_node_name():
    class WrongShape(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            return Variable(np.zeros(3)),

    class WrongDtype(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            return Variable(np.zeros(1, np.float32)),

    class WrongCount(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0], grad_outputs[0]

    class WrongType(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            return [1.0],
    with pytest.raises(ValueError, match=r'WrongShape: shape of gradients returned from '
                                         r'backward is incorrect: gradient of input 0 has shape '
                                         r'\(3,\), expected \(1,\)'):
        WrongShape().apply((v(1.0),))[0].backward()
    with pytest.raises(TypeError, match='WrongDtype: dtype of gradients returned from backward '
                                        'is incorrect: gradient of input 0 has dtype '
                                        'float32, expected float64'):
        WrongDtype().apply((v(1.0),))[0].backward()
    with pytest.raises(ValueError, match=r'WrongCount: number of gradients returned from '
                                         r'backward is incorrect: 2 gradients; expected 1'):
        WrongCount().apply((v(1.0),))[0].backward()
    with pytest.raises(TypeError, match='WrongType.backward: gradient of input 0 must be a '
                                        'Variable, an ndarray or None, got list'):
        WrongType().apply((v(1.0),))[0].backward()


def test_backward_may_return_arrays_but_then_is_not_differentiable():
    class ArrayGrad(FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return inputs[0] ** 2,

        def backward(self, indexes, grad_outputs):
            x, = self.get_retained_inputs()
            return 2 * x.array * grad_outputs[0].array,
    x = v(3.0)
    y = ArrayGrad().apply((x,))[0]
    gx, = chainlet.grad([y], [x])
    np.testing.assert_allclose(gx.array, [6.0])
    y = ArrayGrad().apply((x,))[0]
    gx, = chainlet.grad([y], [x], enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='ArrayGrad: its backward is not differentiable'):
        chainlet.grad([gx], [x])


def test_deep_chain_of_one_million_nodes_is_iterative():
    x = Variable(np.array([1.0], np.float32))
    y = x
    c = np.float32(1.0)
    for _ in range(1_000_000):
        y = y * c
    y.backward()
    np.testing.assert_array_equal(x.grad, [1.0])
    del y


def test_leaf_grads_are_not_aliased():
    x, y = v(1.0, 2.0), v(3.0, 4.0)
    (x + y).sum().backward()
    assert x.grad is not y.grad
    x.grad += 1
    np.testing.assert_array_equal(y.grad, [1.0, 1.0])


def test_loss_scale():
    x = v(2.0)
    (x * 3.0).backward(loss_scale=4.0)
    np.testing.assert_allclose(x.grad, [12.0])


def test_backward_on_leaf_is_a_no_op():
    x = v(1.0)
    x.backward()
    assert x.grad is None


# -- chainlet.grad --

def test_grad_basic_and_does_not_touch_grad():
    x = v(1.0, 2.0)
    w = v(3.0, 4.0)
    y = F.sum(x * w)
    gx, gw = chainlet.grad([y], [x, w])
    np.testing.assert_allclose(gx.array, [3.0, 4.0])
    np.testing.assert_allclose(gw.array, [1.0, 2.0])
    assert x.grad is None and w.grad is None


def test_grad_unreachable_and_no_grad_inputs_give_none():
    x, z = v(1.0), v(5.0)
    c = Variable(np.array([2.0]), requires_grad=False)
    y = x * c
    gx, gz, gc = chainlet.grad([y], [x, z, c])
    assert gz is None and gc is None
    np.testing.assert_allclose(gx.array, [2.0])


def test_grad_of_intermediate_input():
    x = v(0.5)
    h = F.tanh(x)
    y = h * 3.0
    gh, = chainlet.grad([y], [h])
    np.testing.assert_allclose(gh.array, [3.0])


def test_grad_outputs_and_grad_inputs_and_set_grad():
    x = v(1.0, 2.0)
    y = x * 2.0
    gx, = chainlet.grad([y], [x], grad_outputs=[np.array([1.0, 10.0])],
                        grad_inputs=[np.array([100.0, 100.0])], set_grad=True)
    np.testing.assert_allclose(gx.array, [102.0, 120.0])
    assert x.grad_var is gx


def test_grad_output_that_is_an_input():
    x = v(3.0)
    gx, = chainlet.grad([x], [x])
    np.testing.assert_allclose(gx.array, [1.0])


def test_grad_retain_grad():
    x = v(1.0)
    h = x * 2.0
    y = h * 3.0
    chainlet.grad([y], [x], retain_grad=True)
    np.testing.assert_allclose(h.grad, [3.0])


def test_grad_validates_arguments():
    x = v(1.0, 2.0)
    y = x * 2.0
    with pytest.raises(TypeError, match=r'grad: outputs\[0\] must be a Variable, got ndarray'):
        chainlet.grad([np.ones(1)], [x])
    with pytest.raises(TypeError, match='grad: inputs must be a list or tuple of Variables'):
        chainlet.grad([y], 'x')
    with pytest.raises(TypeError, match='grad: outputs must be a list or tuple'):  # Chainer's rule
        chainlet.grad(y, [x])
    with pytest.raises(TypeError, match='grad: grad_outputs must be a list or tuple'):
        chainlet.grad([y], [x], np.ones(2))
    with pytest.raises(ValueError, match='grad: grad_outputs has 2 entries but outputs has 1'):
        chainlet.grad([y], [x], grad_outputs=[np.ones(2), np.ones(2)])
    with pytest.raises(ValueError, match=r'grad: grad_outputs\[0\] has shape \(3,\), expected '
                                         r'\(2,\)'):
        chainlet.grad([y], [x], grad_outputs=[np.ones(3)])
    with pytest.raises(TypeError, match=r'grad: grad_inputs\[0\] has dtype float32'):
        chainlet.grad([y], [x], grad_outputs=[np.ones(2)], grad_inputs=[np.ones(2, np.float32)])
    # As in Chainer, a missing output gradient is ones of the output's shape.
    gx, = chainlet.grad([y], [x])
    np.testing.assert_array_equal(gx.array, chainlet.grad([y], [x], [np.ones(2)])[0].array)


def test_grad_of_a_gradient_without_double_backprop_names_the_flag():
    x = v(2.0)
    gx, = chainlet.grad([x ** 3], [x])
    with pytest.raises(RuntimeError, match='enable_double_backprop=True'):
        chainlet.grad([gx], [x])


def test_higher_order_derivatives():
    x = v(2.0)
    y = x ** 4
    g1, = chainlet.grad([y], [x], enable_double_backprop=True)
    g2, = chainlet.grad([g1], [x], enable_double_backprop=True)
    g3, = chainlet.grad([g2], [x], enable_double_backprop=True)
    g4, = chainlet.grad([g3], [x])
    np.testing.assert_allclose([g1.item(), g2.item(), g3.item(), g4.item()], [32, 48, 48, 24])


def test_double_backprop_through_backward():
    x = v(0.5, -0.3)
    y = F.sum(F.tanh(x) ** 3)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    assert gx.creator is not None
    x.cleargrad()
    F.sum(gx).backward()
    t = np.tanh(x.array)
    d = 1 - t ** 2
    np.testing.assert_allclose(x.grad, 6 * t * d * d - 6 * t ** 3 * d, rtol=1e-10)


def test_gradients_without_double_backprop_carry_no_graph():
    x = v(0.5)
    y = F.tanh(x) * x
    gx, = chainlet.grad([y], [x])
    assert gx.creator is None


def test_backward_consumes_the_output_grad_and_leaf_views_of_it_are_not_shared():
    # As in Chainer 7, backward clears the output's gradient unless retain_grad=True. A leaf
    # gradient that is a view of it (here through reshape) must be its own array, or an
    # in-place update of x.grad would change y.grad and the next backward.
    x = Variable(np.zeros((2, 3), np.float32))
    y = x.reshape(6)
    y.grad = np.ones(6, np.float32)
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(y.grad, np.ones(6))
    assert not np.may_share_memory(x.grad, y.grad)
    x.grad += 1.0
    np.testing.assert_array_equal(y.grad, np.ones(6))
    y.backward()
    np.testing.assert_array_equal(x.grad, np.full((2, 3), 3.0))
    assert y.grad is None
    s = F.sum(x * 2.0)
    s.backward(loss_scale=4.0)
    np.testing.assert_array_equal(x.grad, np.full((2, 3), 11.0))


def test_debug_mode_backward_errors_show_where_the_function_was_applied():
    class WrongShape(chainlet.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            return Variable(np.ones(5)),
    x = Variable(np.ones(2))
    with chainlet.using_config('debug', True):
        y = WrongShape().apply((x,))[0]  # this line appears in the message
        with pytest.raises(ValueError, match='shape of gradients') as info:
            F.sum(y).backward()
    assert 'Stacktrace of WrongShape' in str(info.value)
    assert 'WrongShape().apply((x,))' in str(info.value)


def test_grad_of_an_old_style_gradient_names_the_cause():
    class Ident(chainlet.Function):
        def forward(self, inputs):
            return inputs[0].copy(),

        def backward(self, inputs, grad_outputs):
            return grad_outputs[0],
    x = Variable(np.array(2.0))
    y = Ident()(x)
    y.backward(enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='Ident.*cannot be differentiated again'):
        chainlet.grad([x.grad_var], [y.grad_var])  # y.grad_var is None: it was consumed


@pytest.mark.parametrize('accumulate', [False, True])
def test_backward_returning_a_bare_variable_or_none_is_reported_with_the_node_name(accumulate):
    # A single Variable used to be iterated element by element (a misleading shape error) and
    # None raised a bare "object of type 'NoneType' has no len()".
    for result in ('variable', None):
        class Bare(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * inputs[1],

            def backward(self, indexes, grad_outputs):
                return grad_outputs[0] if result else None

        if accumulate:
            Bare.backward_accumulate = lambda self, i, gy, gx: FunctionNode.backward_accumulate(
                self, i, gy, gx)
            Bare._has_backward_accumulate = True
        y, = Bare().apply((v(1.0, 2.0), v(3.0, 4.0)))
        kind = 'Variable' if result else 'NoneType'
        with pytest.raises(TypeError, match=f'Bare.backward must return a tuple of gradients '
                                            rf'\(Variables, arrays or None\), got {kind}'):
            F.sum(y).backward()


def test_grad_inputs_flow_on_to_inputs_upstream():
    # x2 = 2 * x1: a gradient given for x2 reaches x1 through x2's creator (Chainer's rule).
    x1 = Variable(np.array(1.0))
    x2 = x1 * 2.0
    y = x2 * 3.0
    g1, g2 = chainlet.grad([y], [x1, x2], grad_inputs=[np.array(1000.0), np.array(100.0)])
    assert g2.item() == 3.0 + 100.0
    assert g1.item() == 6.0 + 1000.0 + 200.0


def test_grad_loss_scale_scales_the_output_gradients_not_the_given_input_gradients():
    # y = 3 * x: with loss_scale 4 the output's gradient is 4, so dy/dx contributes 12; the
    # given gradient of x (grad_inputs) is added as it is.
    x = v(1.0, 2.0)
    y = x * 3.0
    gx, = chainlet.grad([y], [x], grad_inputs=[np.array([100.0, 100.0])], loss_scale=4.0)
    np.testing.assert_allclose(gx.array, [112.0, 112.0])
    # an output with no graph of its own (it is the input) is scaled too
    gx, = chainlet.grad([x], [x], loss_scale=4.0)
    np.testing.assert_allclose(gx.array, [4.0, 4.0])


def test_grad_loss_scale_is_recorded_for_double_backprop():
    x = v(2.0)
    y = x ** 3
    gx, = chainlet.grad([y], [x], enable_double_backprop=True, loss_scale=2.0)
    np.testing.assert_allclose(gx.array, [24.0])  # 2 * 3x^2
    ggx, = chainlet.grad([gx], [x])
    np.testing.assert_allclose(ggx.array, [24.0])  # 2 * 6x


@pytest.mark.parametrize('double', [False, True])
def test_backward_restores_the_configuration_even_when_a_backward_raises(double):
    class Failing(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2.0,

        def backward(self, indexes, grad_outputs):
            raise RuntimeError('backward failed')

    for debug in (False, True):
        with chainlet.using_config('debug', debug):
            y, = Failing().apply((v(1.0),))
            with pytest.raises(RuntimeError, match='backward failed'):
                chainlet.grad([y], [y.creator.inputs[0].get_variable()],
                              enable_double_backprop=double)
            with pytest.raises(RuntimeError, match='backward failed'):
                y.backward(enable_double_backprop=double)
            assert chainlet.config.enable_backprop is True
            assert chainlet.config.debug is debug
    assert 'debug' not in vars(chainlet.config) and 'enable_backprop' not in vars(chainlet.config)


def test_grad_in_debug_mode_records_the_double_backprop_graph():
    x = v(0.5, -1.0)
    with chainlet.using_config('debug', True):
        gx, = chainlet.grad([F.sum(F.tanh(x) ** 3)], [x], enable_double_backprop=True)
        assert chainlet.config.debug is True
    assert gx.creator is not None
    t = np.tanh(x.array)
    np.testing.assert_allclose(gx.array, 3 * t * t * (1 - t * t))


class TestMayShare:
    """The scheduler copies a leaf's new gradient when it may overlap an output gradient; the
    NumPy test compares the arrays' memory owners instead of calling may_share_memory."""

    def test_owner_rule_has_no_false_negatives(self):
        from chainlet._backprop import _may_share
        a = np.arange(10.0)
        view, view_of_view = a[2:], a[2:][1:]
        foreign = np.frombuffer(a)  # a view of a's memory through the buffer protocol
        pairs = [(a, view), (view, view_of_view), (a, a), (a, foreign), (foreign[1:], a),
                 (foreign[1:], view), (a.reshape(2, 5), a[:3])]
        for p, q in pairs:
            assert np.may_share_memory(p, q)
            assert _may_share(p, q) and _may_share(q, p)

    def test_distinct_arrays_do_not_share(self):
        from chainlet._backprop import _may_share
        a, b = np.arange(3.0), np.arange(3.0)
        assert not _may_share(a, b)
        assert not _may_share(a[1:], b)
        assert not _may_share(a[1:], b[:1])
        assert not _may_share(a, np.arange(3, dtype=np.float32))


@pytest.mark.parametrize('double', [False, True])
def test_an_accumulated_leaf_gradient_has_a_graph_only_under_double_backprop(double):
    x = v(1.0, 2.0)
    for _ in range(2):
        F.sum(x * x).backward(enable_double_backprop=double)
    np.testing.assert_allclose(x.grad, [4.0, 8.0])
    assert (x.grad_var.creator is not None) is double
    assert chainlet.config.enable_backprop is True
