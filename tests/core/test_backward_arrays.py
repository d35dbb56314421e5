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
