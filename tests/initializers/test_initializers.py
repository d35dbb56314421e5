"""Initializers: Chainer's constructors (rng as RandomState or Generator), statistics, Orthogonal
modes and degenerate shapes, sampling filters, generate_array's dtype rules."""
import math

import numpy as np
import pytest

import chainlet
from chainlet import initializer, initializers

FAN_INITS = [
    (initializers.LeCunNormal, 'normal', lambda fi, fo: math.sqrt(1 / fi)),
    (initializers.GlorotNormal, 'normal', lambda fi, fo: math.sqrt(2 / (fi + fo))),
    (initializers.HeNormal, 'normal', lambda fi, fo: math.sqrt(2 / fi)),
    (initializers.LeCunUniform, 'uniform', lambda fi, fo: math.sqrt(3 / fi)),
    (initializers.GlorotUniform, 'uniform', lambda fi, fo: math.sqrt(6 / (fi + fo))),
    (initializers.HeUniform, 'uniform', lambda fi, fo: math.sqrt(6 / fi)),
]


@pytest.mark.parametrize('cls,kind,width', FAN_INITS)
@pytest.mark.parametrize('rng', [None, np.random.RandomState(0), np.random.default_rng(0)])
def test_fan_initializers_statistics(cls, kind, width, rng):
    np.random.seed(0)
    w = np.empty((400, 30, 3), np.float64)
    cls(scale=2.0, rng=rng)(w)
    expected = 2.0 * width(90, 1200)
    if kind == 'normal':
        assert abs(w.std() - expected) < 0.03 * expected
    else:
        assert abs(w).max() <= expected
        assert abs(w).max() > 0.95 * expected


def test_he_normal_fan_out():
    w = np.empty((300, 20), np.float64)
    initializers.HeNormal(fan_option='fan_out', rng=np.random.RandomState(1))(w)
    assert abs(w.std() - math.sqrt(2 / 300)) < 0.03 * math.sqrt(2 / 300)
    with pytest.raises(ValueError, match='fan_option'):
        initializers.HeNormal(fan_option='fan_avg')


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_random_initializers_keep_dtype_and_seed(dtype):
    for cls in (initializers.Normal, initializers.Uniform, initializers.GlorotUniform):
        a = initializers.generate_array(cls(dtype=dtype, rng=np.random.RandomState(3)), (4, 3), np)
        b = initializers.generate_array(cls(dtype=dtype, rng=np.random.RandomState(3)), (4, 3), np)
        assert a.dtype == dtype and np.array_equal(a, b)


def test_bad_rng_and_dtype_mismatch():
    with pytest.raises(TypeError, match='argument rng'):
        initializers.Normal(rng=3)
    with pytest.raises(ValueError, match='has dtype float32'):
        initializers.Normal(dtype=np.float64)(np.empty(3, np.float32))


def test_get_fans():
    assert initializer.get_fans((2, 1)) == (1, 2)
    assert initializer.get_fans((2, 3, 4, 5)) == (60, 40)
    for shape in [(), (2,)]:
        with pytest.raises(ValueError, match='at least 2 axes'):
            initializer.get_fans(shape)


@pytest.mark.parametrize('shape', [(4, 3), (3, 4), (6, 2, 3), (3, 4, 5)])
@pytest.mark.parametrize('rng', [None, np.random.RandomState(0), np.random.default_rng(0)])
def test_orthogonal_shapes(shape, rng):
    w = np.empty(shape, np.float64)
    initializers.Orthogonal(scale=2.0, rng=rng)(w)
    flat = w.reshape(shape[0], -1)
    small = min(flat.shape)
    dots = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(dots, 4.0 * np.eye(small), atol=1e-10)


def test_orthogonal_degenerate_shapes():
    w = np.empty((), np.float32)
    initializers.Orthogonal(scale=3.0)(w)
    assert abs(float(w)) == 3.0
    v = np.empty((4,), np.float64)  # a column: 4 outputs of one input
    initializers.Orthogonal(scale=1.0)(v)
    np.testing.assert_allclose(v @ v, 1.0)
    with pytest.raises(ValueError, match='empty'):
        initializers.Orthogonal()(np.empty(0, np.float32))


@pytest.mark.parametrize('mode,ok,bad', [
    ('projection', [(3, 4)], [(4, 3), (3,)]),
    ('embedding', [(4, 3), (3,)], [(3, 4), (3, 4, 5)]),
    ('basis', [(3, 3), (6, 2, 3)], [(3, 4), (4, 3)]),
    ('auto', [(3, 4), (4, 3), (3,)], []),
])
def test_orthogonal_modes(mode, ok, bad):
    for shape in ok:
        initializers.Orthogonal(mode=mode)(np.empty(shape, np.float32))
    for shape in bad:
        with pytest.raises(ValueError, match=f"mode '{mode}'"):
            initializers.Orthogonal(mode=mode)(np.empty(shape, np.float32))
    with pytest.raises(ValueError, match='argument mode'):
        initializers.Orthogonal(mode='square')


@pytest.mark.parametrize('shape', [(5, 5, 3, 3), (5, 5, 6, 6), (5, 1, 3, 3), (5, 1, 4, 4)])
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_sampling_filters(shape, dtype):
    up = np.empty(shape, dtype)
    initializers.UpsamplingDeconvFilter(dtype=dtype)(up)
    factor = (shape[2] + 1) // 2
    assert up.sum(dtype=np.float64) == pytest.approx(shape[0] * factor ** 2, rel=1e-3)
    down = np.empty(shape, dtype)
    initializers.DownsamplingConvFilter()(down)
    assert down.sum(dtype=np.float64) == pytest.approx(shape[0], rel=1e-3)
    if shape[1] > 1:
        assert np.all(up[0, 1] == 0)


def test_sampling_filter_errors():
    with pytest.raises(ValueError, match='interpolation'):
        initializers.UpsamplingDeconvFilter(interpolation='cubic')
    with pytest.raises(ValueError, match='square'):
        initializers.DownsamplingConvFilter()(np.empty((2, 2, 3, 4)))
    with pytest.raises(ValueError, match='second axis'):
        initializers.DownsamplingConvFilter()(np.empty((2, 3, 3, 3)))


def test_generate_array_dtype_rules():
    assert initializers.generate_array(initializers.Zero(), (), np).dtype == np.float32
    with chainlet.using_config('dtype', np.float16):
        assert initializers.generate_array(initializers.Zero(), (2,), np).dtype == np.float16
        assert initializers.generate_array(initializers.Zero('d'), (2,), np).dtype == np.float64
    assert initializers.generate_array(initializers.One(), 3, np).shape == (3,)
    with pytest.raises(ValueError, match='differs'):
        initializers.generate_array(initializers.Zero('d'), (2,), np, np.float32)


def test_get_initializer_private_and_public():
    assert isinstance(initializers._get_initializer(None), initializers.LeCunNormal)
    x = np.empty((2, 3), np.int32)
    initializers._get_initializer(10)(x)
    assert (x == 10).all()
    initializers._get_initializer(np.array([1, 2, 3]))(x)
    assert (x == [1, 2, 3]).all()
    assert isinstance(initializers.get_initializer(None), initializers.NaN)
    with pytest.raises(TypeError, match='expected an Initializer'):
        initializers._get_initializer('normal')


def test_identity_and_constant():
    w = np.empty((2, 2), np.float32)
    initializers.Identity(scale=0.5)(w)
    np.testing.assert_array_equal(w, 0.5 * np.eye(2))
    for shape in [(2, 3), (2, 2, 4), (), (0,)]:
        with pytest.raises(ValueError):
            initializers.Identity()(np.empty(shape, np.float32))
    with pytest.raises(ValueError, match='cannot fill'):
        initializers.Constant(np.ones(3))(np.empty((2, 2)))
