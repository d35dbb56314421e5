import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import gradient_check


def test_forget_matches_direct_call_and_gradients():
    x, y = np.random.uniform(-1, 1, (2, 3, 4))
    gz = np.random.uniform(-1, 1, (2, 3, 4))

    def f(a, b):
        return a * b + a, F.tanh(a - b)

    gradient_check.check_backward(lambda a, b: F.forget(f, a, b), (x, y), tuple(gz))
    z = F.forget(f, x, y)
    np.testing.assert_allclose(z[0].array, x * y + x)
    np.testing.assert_allclose(z[1].array, np.tanh(x - y))


def test_forget_keeps_no_intermediate_graph():
    x = chainlet.Variable(np.ones(3))
    z = F.forget(lambda a: F.exp(F.sin(a)), x)
    assert z.creator_node.inputs[0] is x.node  # the only node between x and z is forget's


def test_forget_sets_in_recomputing_only_in_backward():
    seen = []

    def f(a):
        seen.append(chainlet.config.in_recomputing)
        return a * 2

    x = chainlet.Variable(np.ones(2))
    F.sum(F.forget(f, x)).backward()
    assert seen == [False, True]
    np.testing.assert_array_equal(x.grad, [2.0, 2.0])


def test_forget_reaches_parameters_the_function_closes_over():
    link = L.Linear(3, 2)
    link.cleargrads()
    x = np.random.uniform(-1, 1, (4, 3)).astype(np.float32)
    F.sum(F.forget(link, x)).backward()
    expected_W = np.ones((4, 2), np.float32).T @ x
    np.testing.assert_allclose(link.W.grad, expected_W, rtol=1e-6)
    np.testing.assert_allclose(link.b.grad, [4.0, 4.0])


def test_forget_errors():
    v = chainlet.Variable(np.zeros(1))
    with pytest.raises(TypeError, match='callable'):
        F.forget(1)
    with pytest.raises(RuntimeError, match='int'):
        F.forget(lambda: 1)
    with pytest.raises(RuntimeError, match='2nd element.*int'):
        F.forget(lambda: (v, 1))
    with pytest.raises(RuntimeError, match='11th element.*int'):
        F.forget(lambda: (v,) * 10 + (1,))
    with pytest.raises(RuntimeError, match='22nd element.*int'):
        F.forget(lambda: (v,) * 21 + (1,))
    y = F.forget(lambda a: a * 3, v)
    y.grad = np.ones(1)
    with pytest.raises(RuntimeError, match='double backpropagation'):
        y.backward(enable_double_backprop=True)


def _norm_link(name):
    if name == 'bn':
        return L.BatchNormalization(3)
    if name == 'brn':  # rmax, dmax large enough that r and d depend on the running statistics
        return L.BatchRenormalization(3, rmax=2.0, dmax=1.0)
    return L.DecorrelatedBatchNormalization(3, groups=3)


@pytest.mark.parametrize('finetune', [False, True])
@pytest.mark.parametrize('name', ['bn', 'brn', 'dbn'])
def test_forget_replay_leaves_normalization_statistics_alone(name, finetune):
    # The replay in backward (in_recomputing) must neither update the running statistics nor
    # count a fine-tuning batch again; BatchRenormalization's replay must also see the
    # statistics the first run started from, or its gradient changes.
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    gy = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    direct, forgotten = _norm_link(name), _norm_link(name)
    results = []
    for link, use_forget in ((direct, False), (forgotten, True)):
        xv = chainlet.Variable(x)
        if use_forget:
            y = F.forget(lambda v: link(v, finetune=finetune), xv)
        else:
            y = link(xv, finetune=finetune)
        y.grad = gy
        y.backward()
        results.append(xv.grad)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-6)
    for attr in ('avg_mean', 'avg_var', 'avg_projection'):
        if hasattr(direct, attr):
            np.testing.assert_allclose(getattr(direct, attr), getattr(forgotten, attr),
                                       rtol=1e-6, atol=1e-7)
    assert direct.N == forgotten.N == (1 if finetune else 0)
    with chainlet.using_config('train', False):
        np.testing.assert_allclose(direct(x).array, forgotten(x).array, rtol=1e-5, atol=1e-6)
