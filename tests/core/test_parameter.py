import copy
import pickle

import numpy as np
import pytest

import chainlet
from chainlet import Parameter, initializers


def test_eager_and_lazy_initialization():
    p = Parameter(initializers.Constant(2.0), (2, 3))
    assert p.is_initialized and p.shape == (2, 3) and p.dtype == np.float32
    np.testing.assert_array_equal(p.array, np.full((2, 3), 2.0, np.float32))
    q = Parameter(initializers.Normal(dtype=np.float64))
    assert not q.is_initialized and q.array is None and q.dtype == np.float64
    q.initialize((4,))
    assert q.shape == (4,) and q.dtype == np.float64 and q.node.shape == (4,)


def test_int_shape_is_accepted():
    # Chainer: shape is an int or a tuple of ints (Parameter, initialize, Link.add_param).
    assert Parameter(initializers.Zero(), 3).shape == (3,)
    q = Parameter(initializers.One())
    q.initialize(np.int64(2))
    assert q.shape == (2,)
    link = chainlet.Link()
    link.add_param('b', 4)
    assert link.b.shape == (4,)


def test_array_and_scalar_and_none_initializers():
    a = np.arange(3.0)
    p = Parameter(a)
    assert p.array is a
    assert Parameter(0.5, (2,)).array.tolist() == [0.5, 0.5]
    assert np.isnan(Parameter(None, (2,)).array).all()


def test_parameter_is_a_variable_in_graphs():
    p = Parameter(initializers.One(), (3,))
    p.cleargrad()  # the gradient starts NaN-filled, as in Chainer
    y = (p * 2.0).sum()
    y.backward()
    np.testing.assert_array_equal(p.grad, [2, 2, 2])
    p.cleargrad()
    assert p.grad is None


def test_update_calls_rule_and_skips_without_one():
    p = Parameter(initializers.One(), (2,))
    p.update()  # no rule: nothing happens
    calls = []

    class Rule:
        def update(self, param):
            calls.append(param)
    p.update_rule = Rule()
    p.update()
    assert calls == [p]


def test_copy_and_pickle():
    p = Parameter(initializers.Normal(), (2, 2), name='W')
    p.grad = np.ones((2, 2), np.float32)
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert isinstance(q, Parameter) and q.name == 'W'
        np.testing.assert_array_equal(q.array, p.array)
        np.testing.assert_array_equal(q.grad, p.grad)
        assert q.array is not p.array
    v = chainlet.Variable(np.ones(2), name='v')
    w = pickle.loads(pickle.dumps(v * 2.0))
    assert w.creator is None and w.array.tolist() == [2.0, 2.0]


def test_repr():
    assert repr(Parameter(initializers.Zero(), name='b')) == "parameter(uninitialized, name='b')"
    assert repr(Parameter(np.zeros(2))) == 'parameter([0., 0.])'


@pytest.mark.parametrize('init,check', [
    (initializers.Zero(), lambda a: (a == 0).all()),
    (initializers.One(), lambda a: (a == 1).all()),
    (initializers.Constant(np.array([1.0, 2.0])), lambda a: (a[:, 1] == 2).all()),
    (initializers.Identity(2.0), lambda a: np.array_equal(a, 2 * np.eye(a.shape[0]))),
])
def test_constant_initializers(init, check):
    shape = (3, 3) if isinstance(init, initializers.Identity) else (3, 2)
    a = initializers.generate_array(init, shape, np)
    assert a.dtype == np.float32 and check(a)


@pytest.mark.parametrize('cls,std', [
    (initializers.LeCunNormal, lambda fi, fo: np.sqrt(1 / fi)),
    (initializers.GlorotNormal, lambda fi, fo: np.sqrt(2 / (fi + fo))),
    (initializers.HeNormal, lambda fi, fo: np.sqrt(2 / fi)),
    (initializers.LeCunUniform, lambda fi, fo: np.sqrt(3 / fi) / np.sqrt(3)),
    (initializers.GlorotUniform, lambda fi, fo: np.sqrt(6 / (fi + fo)) / np.sqrt(3)),
    (initializers.HeUniform, lambda fi, fo: np.sqrt(6 / fi) / np.sqrt(3)),
])
def test_fan_initializers_scale(cls, std):
    shape = (200, 50, 3, 3)
    a = initializers.generate_array(cls(rng=np.random.default_rng(0)), shape, np)
    fan_in, fan_out = 50 * 9, 200 * 9
    assert abs(a.std() / std(fan_in, fan_out) - 1) < 0.02


def test_he_normal_fan_option():
    # Chainer 7: HeNormal(scale=1.0, dtype=None, fan_option='fan_in')
    shape = (200, 50, 3, 3)
    init = initializers.HeNormal(fan_option='fan_out', rng=np.random.default_rng(0))
    a = initializers.generate_array(init, shape, np)
    assert abs(a.std() / np.sqrt(2 / (200 * 9)) - 1) < 0.02
    with pytest.raises(ValueError, match='fan_option'):
        initializers.HeNormal(fan_option='fan_avg')


def test_seeded_generator_is_reproducible_and_dtype_follows():
    a = initializers.generate_array(initializers.Normal(rng=np.random.default_rng(5)), (4,), np,
                                    np.float64)
    b = initializers.generate_array(initializers.Normal(rng=np.random.default_rng(5)), (4,), np,
                                    np.float64)
    assert a.dtype == np.float64 and np.array_equal(a, b)
    np.random.seed(1)
    c = initializers.generate_array(initializers.Uniform(), (4,), np)
    np.random.seed(1)
    d = initializers.generate_array(initializers.Uniform(), (4,), np)
    assert np.array_equal(c, d)


def test_orthogonal():
    a = initializers.generate_array(initializers.Orthogonal(1.0), (6, 3, 2), np, np.float64)
    flat = a.reshape(6, 6)
    np.testing.assert_allclose(flat @ flat.T, np.eye(6), atol=1e-10)
    b = initializers.generate_array(initializers.Orthogonal(1.0), (5, 2), np, np.float64)
    np.testing.assert_allclose(b.T @ b, np.eye(2), atol=1e-10)


def test_initializer_errors():
    with pytest.raises(ValueError, match='Identity: expected a square matrix'):
        initializers.generate_array(initializers.Identity(), (2, 3), np)
    with pytest.raises(ValueError, match='get_fans: argument shape: expected at least 2 axes'):
        initializers.generate_array(initializers.HeNormal(), (3,), np)
    with pytest.raises(ValueError, match="differs from the initializer's dtype float64"):
        initializers.generate_array(initializers.Zero(np.float64), (2,), np, np.float32)
    with pytest.raises(TypeError, match='expected an Initializer'):
        initializers.get_initializer('glorot')


def test_gradient_of_a_new_parameter_follows_chainer():
    # Created with a shape: NaN-filled gradient (a forgotten cleargrads() shows as NaN).
    p = Parameter(initializers.One(), (2,))
    assert np.isnan(p.grad).all() and p.grad.dtype == np.float32
    np.testing.assert_array_equal(p._grad, p.grad)
    # From an array: no gradient.
    assert Parameter(np.zeros(2, np.float32)).grad is None
    # Uninitialized: reading grad is an error until cleargrad/zerograd/initialize.
    q = Parameter()
    with pytest.raises(RuntimeError, match='cleargrad'):
        q.grad
    q.initialize((3,))
    assert np.isnan(q.grad).all() and np.isnan(q.array).all()
    r = Parameter(initializers.Zero(np.float64))
    r.cleargrad()
    assert r.grad is None
    r.initialize((2,))
    assert r.grad is None and r.dtype == np.float64
    s = Parameter(initializers.Zero(np.float16))
    with pytest.warns(DeprecationWarning, match='zerograd is deprecated'):
        s.zerograd()
    s.initialize((2,))
    assert s.grad.dtype == np.float16 and not s.grad.any()
    t = Parameter()
    t.grad = None
    assert t.grad is None


def test_dtype_comes_from_the_initializer_or_config():
    def fill_ones(array):
        array.fill(1.0)

    with pytest.raises(RuntimeError, match='dtype was not explicitly given'):
        Parameter(fill_ones).dtype
    p = Parameter(fill_ones)
    with chainlet.using_config('dtype', np.float16):
        p.initialize((2,))
    assert p.dtype == np.float16 and p.grad.dtype == np.float16
    assert Parameter(initializers.Zero(np.float64)).dtype == np.float64


def test_addgrad_initializes_an_uninitialized_parameter():
    x = Parameter()
    y = Parameter(np.ones((3, 2), np.float32))
    y.grad = np.full((3, 2), 2.0, np.float32)
    x.cleargrad()
    x.addgrad(y)
    assert x.shape == (3, 2)
    np.testing.assert_array_equal(x.grad, y.grad)


def test_pickle_keeps_the_gradient_state_of_an_uninitialized_parameter():
    p = pickle.loads(pickle.dumps(Parameter(initializers.One())))
    with pytest.raises(RuntimeError):
        p.grad
    q = Parameter(initializers.One())
    q.cleargrad()
    assert pickle.loads(pickle.dumps(q)).grad is None


def test_parameter_from_an_array_keeps_no_copy_of_it():
    # issue 32: a copy kept as the initializer doubled every model built from arrays (all
    # Keras weights: VGG19's 575 MB became 1.15 GB)
    import tracemalloc
    a = np.ones((1024, 1024), np.float32)
    tracemalloc.start()
    try:
        p = chainlet.Parameter(a)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert p.array is a and peak < a.nbytes // 4


def test_reinitializing_an_array_parameter_takes_its_current_values():
    # Chainer: the initializer of a parameter given an array is that array
    p = chainlet.Parameter(np.zeros(3, np.float32))
    p.array[...] = 5
    p.initialize((3,))
    np.testing.assert_array_equal(p.array, np.full(3, 5, np.float32))
