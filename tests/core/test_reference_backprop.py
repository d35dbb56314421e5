"""The engine's gradients equal a plain recursive reference's on random graphs (hypothesis).

Hypothesis writes small programs over a pool of (2, 3) float64 values: each step applies an op to
values drawn from the pool (so a value feeds several functions, and a function may take the same
value twice), and the results join the pool. The ops retain inputs (mul, pow, linear, matmul),
outputs (tanh, exp, sigmoid, relu, softmax) or nothing (add, sum, broadcast_to, reshape, getitem),
have several outputs (split_axis) or end in a loss (softmax_cross_entropy); a ``drop`` step lets a
value's Variable go, so a function rebuilds its retained output. The engine
(``chainlet.grad``, ``chainlet.backward``, and double backprop: a function of the gradients,
differentiated again) must give what :mod:`_reference_backprop` gives: the same bits where no
value adds up more than two gradients (the same operations in the same order), else equal to a
few ulps.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import chainlet
import chainlet.functions as F
from _reference_backprop import reference_grad

_S = (2, 3)
_LABELS = np.array([0, 2], np.int32)


def _tame(a):
    # Keeps exp, powers and products of products finite: big values go through tanh first.
    return F.tanh(a) if np.abs(a.array).max() > 3 else a


_OPS = {
    'tanh': lambda a, b, p: F.tanh(a),
    'exp': lambda a, b, p: F.exp(_tame(a)),
    'sigmoid': lambda a, b, p: F.sigmoid(a),
    'relu': lambda a, b, p: F.relu(a),
    'neg': lambda a, b, p: -a,
    'add_const': lambda a, b, p: a + 1.5,
    'rsub_const': lambda a, b, p: 0.5 - a,
    'mul_const': lambda a, b, p: a * 0.7,
    'pow2': lambda a, b, p: _tame(a) ** 2,
    'pow3': lambda a, b, p: _tame(a) ** 3,
    'add': lambda a, b, p: a + b,
    'sub': lambda a, b, p: a - b,
    'mul': lambda a, b, p: _tame(a) * _tame(b),
    'add_broadcast': lambda a, b, p: a + F.sum(b, axis=0),
    'mul_broadcast': lambda a, b, p: _tame(a) * F.tanh(F.sum(b, axis=1, keepdims=True)),
    'linear': lambda a, b, p: F.linear(_tame(a), p['W'], p['b']),
    'matmul': lambda a, b, p: F.matmul(_tame(a), p['W']),
    'sum_axis': lambda a, b, p: F.broadcast_to(F.sum(a, axis=0, keepdims=True), _S),
    'sum_to': lambda a, b, p: F.sum_to(F.broadcast_to(a, (2,) + _S), _S),
    'mean': lambda a, b, p: F.broadcast_to(F.mean(a), _S),
    'reshape': lambda a, b, p: F.reshape(F.tanh(F.reshape(a, (3, 2))), _S),
    'getitem': lambda a, b, p: a[:, ::-1],
    'getitem_repeat': lambda a, b, p: a[np.array([1, 1])],  # the gradients of row 1 add up
    'softmax': lambda a, b, p: F.softmax(a),
    'sce': lambda a, b, p: F.broadcast_to(F.softmax_cross_entropy(a, _LABELS), _S),
    'split': lambda a, b, p: tuple(F.split_axis(F.concat((a, b), axis=0), 2, axis=0)),
    'drop': None,  # let a computed value's Variable go (its node lives on in its consumers)
}


def _build(n_leaves, steps, picks, seed):
    rng = np.random.default_rng(seed)
    leaves = [chainlet.Variable(rng.uniform(-1.5, 1.5, _S)) for _ in range(n_leaves)]
    params = {'W': chainlet.Variable(rng.uniform(-1, 1, (3, 3))),
              'b': chainlet.Variable(rng.uniform(-1, 1, (3,)))}
    pool = list(leaves)
    for name, i, j in steps:
        if name == 'drop':
            if len(pool) > n_leaves:
                del pool[n_leaves + i % (len(pool) - n_leaves)]
            continue
        made = _OPS[name](pool[i % len(pool)], pool[j % len(pool)], params)
        pool.extend(made if isinstance(made, tuple) else (made,))
    computed = pool[n_leaves:] or [F.tanh(leaves[0])]
    outputs = []
    for k in picks:
        y = computed[k % len(computed)]
        if all(y is not o for o in outputs):
            outputs.append(y)
    grads = [rng.uniform(-1, 1, y.shape) for y in outputs]
    return leaves + [params['W'], params['b']], outputs, grads


def _assert_same(engine, reference, exact, what):
    assert len(engine) == len(reference)
    for k, (e, r) in enumerate(zip(engine, reference)):
        assert (e is None) == (r is None), f'{what}, input {k}: engine {e}, reference {r}'
        if e is None:
            continue
        e = e.array if isinstance(e, chainlet.Variable) else e
        r = r.array
        assert e.dtype == r.dtype and e.shape == r.shape, f'{what}, input {k}'
        if exact:
            np.testing.assert_array_equal(e, r, err_msg=f'{what}, input {k}')
        else:
            np.testing.assert_allclose(e, r, rtol=1e-12, atol=1e-13, err_msg=f'{what}, input {k}')


@settings(max_examples=60, deadline=None)
@given(n_leaves=st.integers(1, 3),
       steps=st.lists(st.tuples(st.sampled_from(sorted(_OPS)), st.integers(0, 63),
                                st.integers(0, 63)), min_size=1, max_size=10),
       picks=st.lists(st.integers(0, 63), min_size=1, max_size=3),
       double=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_engine_gradients_equal_the_reference(n_leaves, steps, picks, double, seed):
    xs, ys, gys = _build(n_leaves, steps, picks, seed)
    ref = reference_grad(ys, xs, gys)
    exact = ref.terms <= 2
    _assert_same(chainlet.grad(ys, xs, gys), ref.grads, exact, 'grad')

    chainlet.backward(ys, [chainlet.Variable(g) for g in gys])  # into the leaves' .grad
    _assert_same([x.grad_var for x in xs], ref.grads, exact, 'backward')
    for x in xs:
        x.cleargrad()

    if not double:
        return
    gxs = chainlet.grad(ys, xs, gys, enable_double_backprop=True)
    ref1 = reference_grad(ys, xs, gys, enable_double_backprop=True)
    _assert_same(gxs, ref1.grads, exact, 'grad with a graph')
    terms = [g for g in gxs if g is not None]
    if not terms:
        return
    # A function of the gradients (each used twice: fan-out in the gradient's graph too).
    z = sum(F.sum(F.tanh(g) * g) for g in terms)
    z_ref = sum(F.sum(F.tanh(g) * g) for g in ref1.grads if g is not None)
    ref2 = reference_grad([z_ref], xs, [np.ones(())])
    _assert_same(chainlet.grad([z], xs), ref2.grads, exact and ref2.terms <= 2, 'double')


def test_the_reference_agrees_with_calculus():
    # The reference itself, on a graph with fan-out, reuse and a retained output: by hand.
    x = chainlet.Variable(np.array([0.3, -0.7]))
    t = F.tanh(x)
    y = t * t + F.exp(x) * x
    del t  # Tanh rebuilds its retained output
    ref = reference_grad([y], [x], [np.ones(2)])
    a = x.array
    th = np.tanh(a)
    np.testing.assert_allclose(ref.grads[0].array,
                               2 * th * (1 - th ** 2) + np.exp(a) * (1 + a), rtol=1e-14)
    assert ref.terms == 3  # x feeds tanh, exp and the product
