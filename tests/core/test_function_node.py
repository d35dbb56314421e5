import gc
import sys
import weakref

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import FunctionNode, Variable
from chainlet.function_hooks import FunctionHook


class Square(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] * inputs[0],

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2.0 * x * grad_outputs[0],


class ExpNode(FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        return np.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return y * grad_outputs[0],


def test_apply_links_graph():
    x = Variable(np.array([3.0]))
    f = Square()
    y, = f.apply((x,))
    assert y.creator is f and f.inputs == (x.node,)
    assert f.outputs[0]() is y.node
    assert f.rank == 0 and y.rank == 1
    assert f.label == 'Square'
    y2, = Square().apply((y,))
    assert y2.rank == 2 and y2.creator.rank == 1


def test_apply_twice_gives_each_graph_its_own_node():
    # Chainer allows it (and rewires the first graph); here the second call applies a copy.
    f = Square()
    a, b = Variable(np.array([2.0])), Variable(np.array([3.0]))
    ya, = f.apply((a,))
    yb, = f.apply((b,))
    assert ya.creator is f and yb.creator is not f and type(yb.creator) is Square
    ya.backward()
    yb.backward()
    assert a.grad.item() == 4.0 and b.grad.item() == 6.0
    assert f.inputs[0] is a.node


def test_outputs_are_weak_and_nothing_retained_by_default():
    x = Variable(np.ones(3))
    f = F.math.basic_math.AddConstant(1.0)
    y, = f.apply((x,))
    ref = weakref.ref(y.node)
    assert f.get_retained_inputs() == () and f.get_retained_outputs() == ()
    assert x.node.data is None
    del y
    gc.collect()
    assert ref() is None


def test_retained_input_on_node_and_rebuilt_variable():
    x = Variable(np.array([3.0]))
    f = Square()
    f.apply((x,))
    assert x.node.data is x.array
    xv, = f.get_retained_inputs()
    assert xv is x


def test_retained_output_survives_dropping_the_variable():
    x = Variable(np.array([0.0, 1.0]))
    f = ExpNode()
    y, = f.apply((x,))
    data = y.array
    del y
    gc.collect()
    yv, = f.get_retained_outputs()
    assert yv.array is data
    assert yv.creator is f
    # The rebuilt output is part of the graph: differentiate through it.
    gx, = chainlet.grad([F.sum(yv)], [x])
    np.testing.assert_allclose(gx.array, np.exp([0.0, 1.0]))


def test_nothing_retained_in_no_backprop_mode():
    x = Variable(np.array([1.0]))
    f = Square()
    with chainlet.no_backprop_mode():
        y, = f.apply((x,))
    assert y.creator is None and f.inputs is None
    assert x.node.data is None and f.get_retained_inputs() == ()
    assert y.requires_grad  # follows the inputs, as in Chainer


def test_constant_inputs_link_a_graph_that_needs_no_gradient():
    # As in Chainer: y.creator is there to inspect, but nothing requires a gradient.
    y = F.tanh(np.ones(2))
    assert y.creator is not None and not y.requires_grad
    x = Variable(np.ones(2))
    z = F.sum(x * y)
    z.backward()
    np.testing.assert_allclose(x.grad, np.tanh(np.ones(2)))
    with chainlet.no_backprop_mode():
        assert F.tanh(np.ones(2)).creator is None


def test_forward_cpu_dispatch():
    class Twice(FunctionNode):
        def forward_cpu(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * 2.0,
    y, = Twice().apply((np.array([1.0]),))
    np.testing.assert_array_equal(y.array, [2.0])


def test_forward_must_return_tuple_of_arrays():
    class Bad(FunctionNode):
        def forward(self, inputs):
            return inputs[0]

    class Bad2(FunctionNode):
        def forward(self, inputs):
            return [1.0],
    with pytest.raises(TypeError, match='Bad: forward output must be a tuple of ndarrays, '
                                        'got ndarray'):
        Bad().apply((np.ones(1),))
    with pytest.raises(TypeError, match='Bad2: forward output must be a tuple of ndarrays; '
                                        'output 0 is list'):
        Bad2().apply((np.ones(1),))


def test_numpy_scalar_outputs_become_0d_arrays():
    class ScalarOut(FunctionNode):
        def forward(self, inputs):
            return np.float32(2.0),
    y, = ScalarOut().apply((np.ones(1, np.float32),))
    assert type(y.array) is np.ndarray and y.array.shape == () and y.dtype == np.float32


def test_check_type_forward_called_and_skippable():
    calls = []

    class Checked(FunctionNode):
        def check_type_forward(self, in_data):
            calls.append(len(in_data))

        def forward(self, inputs):
            return inputs[0],
    Checked().apply((np.ones(1),))
    with chainlet.using_config('type_check', False):
        Checked().apply((np.ones(1),))
    assert calls == [1]
    with chainlet.using_config('type_check', False):
        F.tanh(np.ones(1, np.int32) * 0.5)  # float: fine either way


class Recorder(FunctionHook):
    name = 'Recorder'

    def __init__(self):
        self.events = []

    def forward_preprocess(self, function, in_data):
        self.events.append(('fpre', function.label))

    def forward_postprocess(self, function, in_data):
        self.events.append(('fpost', function.label))

    def backward_preprocess(self, function, in_data, out_grad):
        self.events.append(('bpre', function.label))

    def backward_postprocess(self, function, in_data, out_grad):
        self.events.append(('bpost', function.label))


def test_global_hook_sees_forward_and_backward():
    x = Variable(np.array([0.5]))
    with Recorder() as hook:
        y = F.tanh(x)
        y.backward()
    assert hook.events == [('fpre', 'Tanh'), ('fpost', 'Tanh'), ('bpre', 'Tanh'),
                           ('fpre', 'TanhGrad'), ('fpost', 'TanhGrad'), ('bpost', 'Tanh')]
    F.tanh(x)
    assert len(hook.events) == 6  # unregistered on exit


def test_hook_names_unique_per_thread():
    with Recorder():
        with pytest.raises(KeyError, match='already registered'):
            with Recorder():
                pass


def test_local_hook():
    x = Variable(np.array([0.5]))
    y = F.tanh(x)
    hook = Recorder()
    y.creator.add_hook(hook)
    assert 'Recorder' in y.creator.local_function_hooks
    y.backward()
    assert [e for e in hook.events if e[1] == 'Tanh'] == [('bpre', 'Tanh'), ('bpost', 'Tanh')]
    y.creator.delete_hook('Recorder')
    with pytest.raises(KeyError):
        y.creator.delete_hook('Recorder')


def test_stack_only_in_debug_mode():
    y = F.tanh(Variable(np.ones(1)))
    assert y.creator.stack is None
    with chainlet.using_config('debug', True):
        y = F.tanh(Variable(np.ones(1)))
    assert any('test_stack_only_in_debug_mode' in frame.name for frame in y.creator.stack)


def test_function_unchain():
    x = Variable(np.ones(2))
    y = F.tanh(x)
    f = y.creator
    f.unchain()
    assert y.creator is None and f.inputs is None


def test_backward_accumulate_override_is_used():
    class AccumulatingScale(FunctionNode):
        used = []

        def forward(self, inputs):
            return inputs[0] * 3,

        def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
            self.used.append(grad_inputs[0] is not None)
            g = grad_outputs[0] * 3.0
            return (g if grad_inputs[0] is None else g + grad_inputs[0]),
    x = Variable(np.array([1.0]))
    h = x * 1.0
    y = AccumulatingScale().apply((h,))[0] + h * 2.0
    y.backward()
    np.testing.assert_array_equal(x.grad, [5.0])
    assert AccumulatingScale.used == [True]


def test_calling_a_node_like_a_function_points_to_apply():
    with pytest.raises(TypeError, match=r'Square: a FunctionNode is applied, not called: use '
                                        r'Square\(...\).apply'):
        Square()(np.ones(1))


def test_default_backward_passes_no_gradient_and_impl_name():
    class NoBackward(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,
    x = Variable(np.ones(2))
    y, = NoBackward().apply((x,))
    y.grad = np.ones(2)
    y.backward()
    assert x.grad is None
    assert NoBackward()._impl_name == 'NoBackward'
    from chainlet.variable import Parameter  # Chainer's import path
    assert Parameter is chainlet.Parameter


def test_apply_takes_any_iterable_of_inputs_as_chainer_does():
    from chainlet.functions.math.basic_math import Add
    a = chainlet.Variable(np.array([1.0, 2.0]))
    b = chainlet.Variable(np.array([3.0, 4.0]))
    y, = Add().apply(v for v in (a, b))
    assert y.creator.inputs == (a.node, b.node)
    y.grad = np.ones(2)
    y.backward()
    np.testing.assert_array_equal(a.grad, [1.0, 1.0])
    np.testing.assert_array_equal(b.grad, [1.0, 1.0])


def test_a_node_may_have_its_own_forward_helper_named_like_the_engine_s():
    # User FunctionNodes written for Chainer may define helpers with any private name; the
    # engine's own methods must not be hidden by them (debug mode and hooks take that path).
    class Twice(FunctionNode):
        def _forward(self, x):
            return x * 2

        def forward(self, inputs):
            return self._forward(inputs[0]),

    x = np.arange(3.0)
    with chainlet.using_config('debug', True):
        y, = Twice().apply((x,))
    np.testing.assert_array_equal(y.array, x * 2)


@pytest.mark.skipif(sys.version_info < (3, 11), reason='no specializing interpreter to feed')
def test_each_function_class_runs_its_own_copy_of_the_hot_methods():
    # One copy of apply's code per class keeps CPython's inline caches on one type; the copies
    # must still be FunctionNode's methods in every way a user can see.
    from chainlet.function_node import _HOT_METHODS

    class Sub(Square):  # a subclass of a concrete function gets a copy of its own too
        pass

    class OwnApply(FunctionNode):
        def apply(self, inputs):
            return super().apply(inputs)

        def forward(self, inputs):
            return inputs[0] * 2,

    class UnderOwnApply(OwnApply):
        pass

    for name in _HOT_METHODS:
        base = FunctionNode.__dict__[name]
        copies = [Square.__dict__[name], Sub.__dict__[name]]
        for copy_ in copies:
            assert copy_ is not base and copy_.__code__ is not base.__code__
            assert copy_.__code__.co_code == base.__code__.co_code
            assert (copy_.__qualname__, copy_.__doc__, copy_.__module__) == \
                (base.__qualname__, base.__doc__, base.__module__)
        assert copies[0] is not copies[1]
    assert UnderOwnApply.apply is OwnApply.__dict__['apply']  # an override stays
    x = Variable(np.array([1.5, -2.0]))
    y, = Sub().apply((x,))
    y.grad = np.ones(2)
    y.backward()
    np.testing.assert_array_equal(x.grad, 2 * x.array)
    z, = UnderOwnApply().apply((x,))
    assert z.creator.inputs[0] is x.node
