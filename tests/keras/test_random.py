"""keras.random: distributions, Keras's seeding rules, dropout and shuffle."""
import numpy as np
import pytest

import chainlet
from chainlet import keras
from chainlet.keras import random


@pytest.mark.parametrize('fn, kwargs', [
    (random.normal, {}), (random.uniform, {}), (random.truncated_normal, {}),
    (random.randint, {'minval': 0, 'maxval': 10}), (random.gamma, {'alpha': 2.0}),
    (random.beta, {'alpha': 2.0, 'beta': 3.0}),
    (random.binomial, {'counts': 5, 'probabilities': 0.3}),
])
def test_int_seed_is_reproducible_and_generator_advances(fn, kwargs):
    a = fn((50,), seed=3, **kwargs)
    np.testing.assert_array_equal(a, fn((50,), seed=3, **kwargs))
    assert not np.array_equal(a, fn((50,), seed=4, **kwargs))
    gen = random.SeedGenerator(7)
    first, second = fn((50,), seed=gen, **kwargs), fn((50,), seed=gen, **kwargs)
    assert not np.array_equal(first, second)
    again = random.SeedGenerator(7)
    np.testing.assert_array_equal(fn((50,), seed=again, **kwargs), first)
    np.testing.assert_array_equal(fn((50,), seed=again, **kwargs), second)


def test_global_seed_makes_unseeded_calls_reproducible():
    keras.utils.set_random_seed(11)
    a = random.normal((5,))
    keras.utils.set_random_seed(11)
    np.testing.assert_array_equal(random.normal((5,)), a)


def test_distributions():
    n = random.normal((20000,), mean=2.0, stddev=3.0, seed=0)
    assert n.dtype == np.float32 and n.shape == (20000,)
    assert abs(n.mean() - 2.0) < 0.1 and abs(n.std() - 3.0) < 0.1
    u = random.uniform((2, 5000), minval=-1, maxval=3, dtype='float64', seed=0)
    assert u.dtype == np.float64 and u.min() >= -1 and u.max() < 3
    assert abs(u.mean() - 1.0) < 0.1
    t = random.truncated_normal((20000,), stddev=2.0, seed=0)
    assert np.abs(t).max() <= 4.0 and abs(t.std() - 2 * 0.8796) < 0.05
    r = random.randint((1000,), 3, 7, seed=0)
    assert r.dtype == np.int32 and set(np.unique(r)) == {3, 4, 5, 6}
    g = random.gamma((20000,), alpha=3.0, seed=0)
    assert abs(g.mean() - 3.0) < 0.1
    b = random.beta((20000,), alpha=2.0, beta=6.0, seed=0)
    assert abs(b.mean() - 0.25) < 0.01
    k = random.binomial((20000,), counts=10, probabilities=0.2, seed=0)
    assert k.dtype == np.float32 and abs(k.mean() - 2.0) < 0.1


def test_categorical():
    logits = np.log(np.array([[0.1, 0.9, 0.0], [1.0, 0.0, 0.0]], 'f') + 1e-12)
    s = random.categorical(logits, 4000, seed=0)
    assert s.shape == (2, 4000) and s.dtype == np.int32
    assert abs((s[0] == 1).mean() - 0.9) < 0.03 and (s[0] != 2).all() and (s[1] == 0).all()
    with pytest.raises(ValueError, match='2-D'):
        random.categorical(np.zeros(3), 2)


def test_dropout():
    x = np.ones((200, 50), 'f')
    y = random.dropout(x, 0.3, seed=0)
    assert isinstance(y, np.ndarray)
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    np.testing.assert_array_equal(y, random.dropout(x, 0.3, seed=0))
    shared = random.dropout(x, 0.5, noise_shape=(1, 50), seed=1)
    assert (shared == shared[:1]).all()
    v = chainlet.Variable(np.ones((4, 3), 'f'))
    out = random.dropout(v, 0.5, seed=2)
    chainlet.functions.sum(out).backward()
    np.testing.assert_allclose(v.grad, out.array)


def test_dropout_in_a_functional_model():
    inputs = keras.Input(shape=(6,))
    model = keras.Model(inputs, random.dropout(inputs, 0.5, seed=3))
    out = model(np.ones((2, 6), 'f'))
    assert out.shape == (2, 6) and set(np.unique(out.array)) <= {0.0, 2.0}


def test_shuffle():
    x = np.arange(20).reshape(10, 2)
    s = random.shuffle(x, seed=0)
    assert sorted(map(tuple, s)) == sorted(map(tuple, x)) and not np.array_equal(s, x)
    np.testing.assert_array_equal(random.shuffle(x, seed=0), s)
    cols = random.shuffle(np.arange(6.0).reshape(1, 6), axis=1, seed=1)
    assert sorted(cols[0]) == list(range(6))


def test_seed_generator_state_and_config():
    gen = random.SeedGenerator(5)
    np.testing.assert_array_equal(gen.next(), [5, 0])
    np.testing.assert_array_equal(gen.next(), [5, 1])
    assert random.SeedGenerator.from_config(gen.get_config()).initial_seed == 5
    assert isinstance(random.SeedGenerator().initial_seed, int)


@pytest.mark.parametrize('call, error, match', [
    (lambda: random.normal((2,), seed='a'), TypeError, 'seed'),
    (lambda: random.normal((2,), seed=-1), ValueError, 'non-negative'),
    (lambda: random.normal((2,), dtype='int32'), ValueError, 'float dtype'),
    (lambda: random.randint((2,), 0, 5, dtype='float32'), ValueError, 'integer dtype'),
    (lambda: random.randint((2,), 5, 5), ValueError, 'maxval'),
    (lambda: random.dropout(np.ones(2), 1.0), ValueError, 'rate'),
    (lambda: random.SeedGenerator(1.5), TypeError, 'seed'),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
