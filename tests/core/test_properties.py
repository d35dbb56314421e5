"""Property-based tests of the engine's broadcasting and indexing rules (hypothesis)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import chainlet
import chainlet.functions as F

_settings = settings(max_examples=60, deadline=None)


@_settings
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3),
       op=st.sampled_from(['add', 'sub', 'mul', 'div']), seed=st.integers(0, 2 ** 16))
def test_broadcast_binary_gradients_sum_back_to_input_shapes(shapes, op, seed):
    rng = np.random.default_rng(seed)
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    a = rng.uniform(0.5, 1.5, sa)
    b = rng.uniform(0.5, 1.5, sb)
    fn = {'add': np.add, 'sub': np.subtract, 'mul': np.multiply, 'div': np.divide}[op]
    va, vb = chainlet.Variable(a), chainlet.Variable(b)
    y = {'add': va + vb, 'sub': va - vb, 'mul': va * vb, 'div': va / vb}[op]
    np.testing.assert_allclose(y.array, fn(a, b))
    gy = rng.standard_normal(out_shape)
    y.grad = gy
    y.backward()
    # reference: d/da and d/db elementwise, then summed over the broadcast axes
    da = {'add': 1.0, 'sub': 1.0, 'mul': b, 'div': 1 / b}[op] * gy
    db = {'add': 1.0, 'sub': -1.0, 'mul': a, 'div': -a / b ** 2}[op] * gy
    for v, d, shape in ((va, da, sa), (vb, db, sb)):
        expected = np.broadcast_to(d, out_shape)
        lead = len(out_shape) - len(shape)
        expected = expected.sum(axis=tuple(range(lead))) if lead else expected
        axes = tuple(i for i, s in enumerate(shape) if s == 1 and expected.shape[i] != 1)
        expected = expected.sum(axis=axes, keepdims=True) if axes else expected
        assert v.grad.shape == shape
        np.testing.assert_allclose(v.grad, expected.reshape(shape), rtol=1e-10, atol=1e-12)


@_settings
@given(n=st.integers(1, 6), index=st.lists(st.integers(0, 5), min_size=1, max_size=12),
       seed=st.integers(0, 2 ** 16))
def test_repeated_indices_accumulate(n, index, seed):
    index = [i % n for i in index]
    x = chainlet.Variable(np.random.default_rng(seed).standard_normal(n))
    F.sum(x[np.array(index)] * 2.0).backward()
    np.testing.assert_allclose(x.grad, 2.0 * np.bincount(index, minlength=n))


@_settings
@given(shape=hnp.array_shapes(min_dims=0, max_dims=4, max_side=3),
       dtype=st.sampled_from([np.float16, np.float32, np.float64]),
       scalar=st.one_of(st.floats(-4, 4), st.integers(-4, 4), st.just(np.float64(2.5))))
def test_scalar_operands_never_change_the_dtype(shape, dtype, scalar):
    x = chainlet.Variable(np.ones(shape, dtype))
    for y in (x + scalar, scalar - x, x * scalar, x / 3, 2 ** x, x ** 2):
        assert y.dtype == dtype
        assert type(y.array) is np.ndarray and y.shape == shape
