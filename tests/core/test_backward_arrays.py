"""The first-order fast path: ``_backward_arrays`` gives what ``backward`` gives."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.function_hooks import FunctionHook
from chainlet.functions.activation.tanh import Tanh

CASES = {
    'tanh': (lambda x, y: F.tanh(x), [(3, 2)]),
    'exp': (lambda x, y: F.exp(x), [(3, 2)]),
    'sum': (lambda x, y: F.sum(x), [(3, 2)]),
    'sum_axis': (lambda x, y: F.sum(x, axis=1), [(3, 2)]),
    'sum_keepdims': (lambda x, y: F.sum(x, axis=(0,), keepdims=True), [(3, 2)]),
    'neg': (lambda x, y: -x, [(3, 2)]),
    'add': (lambda x, y: x + y, [(3, 2), (3, 2)]),
    'add_broadcast': (lambda x, y: x + y, [(3, 2), (2,)]),
    'sub_broadcast': (lambda x, y: x - y, [(3, 1), (3, 2)]),
    'mul_broadcast': (lambda x, y: x * y, [(1, 2), (3, 2)]),
    'add_const': (lambda x, y: x + 2.5, [(3, 2)]),
    'rsub_const': (lambda x, y: 2.5 - x, [(3, 2)]),
    'mul_const': (lambda x, y: x * 2.5, [(3, 2)]),
    'mul_const_0d': (lambda x, y: x * 3.0, [()]),
    'chain': (lambda x, y: F.sum(F.exp(F.tanh(x * y) + 1.0) - y), [(4,), (4,)]),
    'relu': (lambda x, y: F.relu(x), [(3, 2)]),
    'reshape': (lambda x, y: F.reshape(x, (2, -1)) * 2.0, [(3, 2)]),
    'flatten_linear': (lambda x, w: F.linear(F.reshape(x, (4, -1)), w), [(4, 3, 2), (5, 6)]),
    'linear': (lambda x, w: F.linear(x, w), [(4, 3), (2, 3)]),
    'linear_bias': (lambda x, w, b: F.linear(x, w, b), [(4, 3), (2, 3), (2,)]),
    'sce': (lambda x, y: F.softmax_cross_entropy(x, np.array([0, 2, 1, -1])), [(4, 3)]),
    'sce_no_reduce': (lambda x, y: F.softmax_cross_entropy(x, np.array([0, 2, 1, 1]),
                                                           reduce='no'), [(4, 3)]),
    'sce_weighted': (lambda x, y: F.softmax_cross_entropy(
        x, np.array([0, 2, 1, 1]), class_weight=np.array([1.0, 2.0, 0.5], np.float32),
        normalize=False, cache_score=False), [(4, 3)]),
    'sce_nd': (lambda x, y: F.softmax_cross_entropy(x, np.array([[0, 2], [1, -1]])),
               [(2, 3, 2)]),
    'pow2': (lambda x, y: x ** 2, [(3, 2)]),
    'pow3': (lambda x, y: x ** 3, [(3, 2)]),
    'pow4': (lambda x, y: x ** 4, [(3, 2)]),
    'broadcast_to': (lambda x, y: F.broadcast_to(x, (4, 3, 2)), [(3, 1)]),
    'sum_to': (lambda x, y: F.sum_to(x, (1, 2)), [(3, 2)]),
    # The dbl workload: the graph of a gradient (TanhGrad, pow, broadcast_to), backpropagated.
    'double': (lambda x, y: chainlet.grad([F.sum(F.tanh(x) ** 3)], [x],
                                          enable_double_backprop=True)[0] * y, [(3, 2), (3, 2)]),
    'mlp': (lambda x, w, b: F.sum(F.relu(F.linear(F.relu(F.linear(x, w, b)), w.T[:2]))),
            [(4, 3), (2, 3), (2,)]),
}


class _Observer(FunctionHook):
    name = 'Observer'

    def __init__(self):
        self.labels = []

    def forward_preprocess(self, function, in_data):
        self.labels.append(function.label)


def _grads(case, dtype, hooked):
    f, shapes = CASES[case]
    rng = np.random.RandomState(0)
    xs = [chainlet.Variable(rng.uniform(-1, 1, s).astype(dtype)) for s in shapes]
    y = f(*xs, *[None] * (2 - len(xs)))
    y.grad = rng.uniform(-1, 1, y.shape).astype(dtype)
    hook = _Observer()
    if hooked:  # an active hook must see every function, so backward takes the Variable path
        with hook:
            y.backward()
    else:
        y.backward()
    return [x.grad for x in xs], hook.labels


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('case', sorted(CASES))
def test_same_gradients_as_the_variable_path(case, dtype):
    fast, _ = _grads(case, dtype, hooked=False)
    slow, labels = _grads(case, dtype, hooked=True)
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
        assert a.flags.writeable  # leaves own writable gradients
    if case in ('tanh', 'exp', 'mul_const'):
        assert labels  # the hooked run applied the gradient's functions, and the hook saw them


def test_leaves_do_not_share_one_gradient_array():
    x = chainlet.Variable(np.ones(3, np.float32))
    y = chainlet.Variable(np.ones(3, np.float32))
    z = x + y  # Add hands the same gradient array to both inputs
    z.grad = np.ones(3, np.float32)
    z.backward()
    assert not np.shares_memory(x.grad, y.grad) and not np.shares_memory(x.grad, z.grad)
    x.grad += 1
    np.testing.assert_array_equal(y.grad, [1, 1, 1])


def test_a_subclass_that_overrides_backward_is_not_bypassed():
    class Doubled(Tanh):
        def backward(self, indexes, grad_outputs):
            y, = self.get_retained_outputs()
            return 2.0 * (1.0 - y * y) * grad_outputs[0],

    x = chainlet.Variable(np.array([0.3, -0.2]))
    y, = Doubled().apply((x,))
    y.grad = np.ones(2)
    y.backward()
    np.testing.assert_allclose(x.grad, 2 * (1 - np.tanh(x.array) ** 2))
    assert not Doubled._use_backward_arrays and Tanh._use_backward_arrays


def test_double_backprop_still_builds_the_gradient_graph():
    x = chainlet.Variable(np.array([0.3, -0.2]))
    y = F.sum(F.tanh(x) * 2.0)
    gx, = chainlet.grad([y], [x], enable_double_backprop=True)
    assert gx.creator is not None
    ggx, = chainlet.grad([F.sum(gx)], [x])
    t = np.tanh(x.array)
    np.testing.assert_allclose(ggx.array, 2.0 * -2 * t * (1 - t * t))


class _Square(chainlet.FunctionNode):
    """A user function with only ``backward``: it must get Variables, whatever is around it."""

    def __init__(self):
        self.seen = []

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        self.seen.append(type(grad_outputs[0]))
        x, = self.get_retained_inputs()
        return 2.0 * x * grad_outputs[0],


class _AccumulatingExp(chainlet.FunctionNode):
    """Implements ``backward_accumulate``: it gets the pending gradients as Variables."""

    def __init__(self):
        self.seen = []

    def forward(self, inputs):
        self.retain_outputs((0,))
        return np.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,

    def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
        self.seen.append((type(grad_outputs[0]), type(grad_inputs[0])))
        gx, = self.backward(indexes, grad_outputs)
        return (gx if grad_inputs[0] is None else gx + grad_inputs[0]),


def test_the_table_of_arrays_gives_variables_to_whoever_needs_them():
    x = chainlet.Variable(np.array([0.3, -0.2, 0.5]))
    square, acc = _Square(), _AccumulatingExp()
    h, = square.apply((F.tanh(x) * 2.0,))  # Variable-only backward between array ones
    e, = acc.apply((F.tanh(h),))
    loss = F.sum(e * 3.0 + F.exp(e))  # e gets two gradients: their sum is an array
    loss.backward(retain_grad=True)
    assert square.seen == [chainlet.Variable]
    assert acc.seen[0][0] is chainlet.Variable
    assert type(h.grad_var) is chainlet.Variable and type(e.grad_var) is chainlet.Variable
    assert type(x.grad_var) is chainlet.Variable and x.grad.flags.writeable
    t = np.tanh(x.array)
    u = np.tanh((2 * t) ** 2)
    ge = 3 + np.exp(np.exp(u))
    expected = ge * np.exp(u) * (1 - u * u) * 2 * (2 * t) * 2 * (1 - t * t)
    np.testing.assert_allclose(x.grad, expected, rtol=1e-12)
    gx, = chainlet.grad([F.sum(F.exp(F.tanh(x)) + F.tanh(x))], [x])
    assert type(gx) is chainlet.Variable


def test_a_local_hook_in_the_middle_of_array_backward_sees_its_node():
    class Recorder(FunctionHook):
        name = 'Recorder'

        def __init__(self):
            self.grads = []

        def backward_preprocess(self, function, in_data, out_grad):
            self.grads.append(out_grad)

    x = chainlet.Variable(np.array([0.3, -0.2]))
    y = F.tanh(x * 2.0)
    hook = Recorder()
    y.creator.add_hook(hook)
    F.sum(F.exp(y)).backward()
    assert len(hook.grads) == 1 and type(hook.grads[0][0]) is np.ndarray
    t = np.tanh(2 * x.array)
    np.testing.assert_allclose(x.grad, np.exp(t) * (1 - t * t) * 2)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_cube_is_within_two_ulps_of_pow(dtype):
    x = np.random.RandomState(1).uniform(-3, 3, 1000).astype(dtype)
    y = (chainlet.Variable(x) ** 3).array
    assert y.dtype == dtype
    np.testing.assert_array_max_ulp(y, x ** dtype(3), maxulp=2)
