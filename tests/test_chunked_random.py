"""Random initializers draw a chunk at a time (issue 32: the suite's peak memory): the values
are those of the old one-shot float64 draw, bit for bit, and no float64 copy of the weight is
made."""
from __future__ import annotations

import math
import tracemalloc

import numpy
import pytest

from chainlet import _chunked_random
from chainlet import initializers as C
from chainlet.keras import initializers as K


def _truncated_reference(random, stddev, shape):
    # the one-shot version that the chunked one replaced
    values = random.normal(0.0, stddev, size=shape)
    bad = numpy.abs(values) > 2 * stddev
    while bad.any():
        values[bad] = random.normal(0.0, stddev, size=int(bad.sum()))
        bad = numpy.abs(values) > 2 * stddev
    return values


def _sources(seed):
    return [numpy.random.RandomState(seed), numpy.random.default_rng(seed)]


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(_chunked_random, 'CHUNK', 7)  # many chunks, a partial last one


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64, numpy.float16])
@pytest.mark.parametrize('shape', [(5, 9), (3, 4, 5), (0, 3), ()])
def test_fill_matches_one_draw(small_chunks, dtype, shape):
    for make in (lambda: numpy.random.RandomState(3), lambda: numpy.random.default_rng(3)):
        a = numpy.empty(shape, dtype)
        _chunked_random.fill(a, make(), 'normal', loc=0.5, scale=2.0)
        numpy.testing.assert_array_equal(a, make().normal(0.5, 2.0, size=shape).astype(dtype))
        _chunked_random.fill(a, make(), 'uniform', low=-1.0, high=3.0)
        numpy.testing.assert_array_equal(a, make().uniform(-1.0, 3.0, size=shape).astype(dtype))


def test_fill_global_state_and_legacy_gauss_cache(small_chunks):
    # an odd count leaves the legacy Gaussian's second value cached between chunks
    numpy.random.seed(11)
    expected = numpy.random.normal(0.0, 1.0, size=(5, 5)).astype(numpy.float32)
    numpy.random.seed(11)
    a = numpy.empty((5, 5), numpy.float32)
    _chunked_random.fill(a, numpy.random, 'normal', loc=0.0, scale=1.0)
    numpy.testing.assert_array_equal(a, expected)


def test_fill_non_contiguous_target(small_chunks):
    base = numpy.zeros((6, 10), numpy.float32)
    view = base[:, ::2]
    _chunked_random.fill(view, numpy.random.RandomState(0), 'uniform', low=0.0, high=1.0)
    expected = numpy.random.RandomState(0).uniform(0.0, 1.0, (6, 5)).astype(numpy.float32)
    numpy.testing.assert_array_equal(base[:, ::2], expected)
    assert not base[:, 1::2].any()


@pytest.mark.parametrize('mean', [None, 0.25])
def test_truncated_normal_matches_one_draw(small_chunks, mean):
    for source, twin in zip(_sources(5), _sources(5)):
        a = numpy.empty((13, 11), numpy.float32)
        _chunked_random.fill_truncated_normal(a, source, 0.3, mean=mean)
        expected = _truncated_reference(twin, 0.3, (13, 11))
        if mean is not None:
            expected = mean + expected
        numpy.testing.assert_array_equal(a, expected.astype(numpy.float32))


def test_keras_initializers_values_unchanged(small_chunks):
    shape = (6, 4, 3, 5)
    fan_in, fan_out = K.compute_fans(shape)
    cases = [
        (lambda: K.RandomNormal(0.1, 0.2, seed=1),
         lambda r: r.normal(0.1, 0.2, size=shape)),
        (lambda: K.RandomUniform(-0.3, 0.4, seed=1),
         lambda r: r.uniform(-0.3, 0.4, size=shape)),
        (lambda: K.TruncatedNormal(0.1, 0.2, seed=1),
         lambda r: 0.1 + _truncated_reference(r, 0.2, shape)),
        (lambda: K.GlorotUniform(seed=1),
         lambda r: r.uniform(-math.sqrt(6 / (fan_in + fan_out)),
                             math.sqrt(6 / (fan_in + fan_out)), size=shape)),
        (lambda: K.HeNormal(seed=1),
         lambda r: _truncated_reference(r, math.sqrt(2 / fan_in) / 0.87962566103423978, shape)),
        (lambda: K.VarianceScaling(2.0, 'fan_out', 'untruncated_normal', seed=1),
         lambda r: r.normal(0.0, math.sqrt(2 / fan_out), size=shape)),
    ]
    for make, reference in cases:  # a seeded initializer's generator advances: a new one each
        expected = reference(numpy.random.default_rng(1))
        numpy.testing.assert_array_equal(make()(shape, dtype='float32'),
                                         expected.astype(numpy.float32))
        numpy.testing.assert_array_equal(make().generate(shape), expected)
        a = numpy.empty(shape, numpy.float64)
        make()(a)
        numpy.testing.assert_array_equal(a, expected)


def test_keras_unseeded_uses_global_state(small_chunks):
    numpy.random.seed(4)
    expected = _truncated_reference(numpy.random, 0.05, (9, 7)).astype(numpy.float32)
    numpy.random.seed(4)
    numpy.testing.assert_array_equal(K.TruncatedNormal(stddev=0.05)((9, 7), dtype='float32'),
                                     expected)


def test_keras_subclass_with_own_generate_is_used():
    class Halves(K.RandomNormal):
        def generate(self, shape):
            return numpy.full(shape, 0.5)

    numpy.testing.assert_array_equal(Halves()((2, 2)), numpy.full((2, 2), 0.5, numpy.float32))


def test_keras_constants():
    a = numpy.empty((2, 3), numpy.float32)
    for init, value in [(K.Zeros(), 0.0), (K.Ones(), 1.0), (K.Constant(0.1), 0.1)]:
        init(a)
        numpy.testing.assert_array_equal(a, numpy.full((2, 3), value).astype(numpy.float32))


def test_chainer_initializers_values_unchanged(small_chunks):
    shape = (6, 4, 3, 5)
    fan_in, fan_out = 4 * 15, 6 * 15
    cases = [
        (lambda r: C.Normal(0.2, rng=r), lambda r: r.normal(0.0, 0.2, size=shape)),
        (lambda r: C.HeNormal(rng=r), lambda r: r.normal(0.0, math.sqrt(2 / fan_in), size=shape)),
        (lambda r: C.Uniform(0.3, rng=r), lambda r: r.uniform(-0.3, 0.3, size=shape)),
        (lambda r: C.GlorotUniform(rng=r),
         lambda r: r.uniform(-math.sqrt(6 / (fan_in + fan_out)),
                             math.sqrt(6 / (fan_in + fan_out)), size=shape)),
    ]
    for make_init, reference in cases:
        for source, twin in zip(_sources(2), _sources(2)):
            a = numpy.empty(shape, numpy.float32)
            make_init(source)(a)
            numpy.testing.assert_array_equal(a, reference(twin).astype(numpy.float32))


@pytest.mark.parametrize('make', [
    lambda: K.GlorotUniform(seed=0), lambda: K.TruncatedNormal(seed=0),
    lambda: K.RandomNormal(seed=0), lambda: K.HeNormal(),
    lambda: C.Normal(), lambda: C.LeCunNormal(), lambda: C.GlorotUniform()])
def test_no_float64_copy_of_a_big_weight(make):
    init = make()
    a = numpy.empty((4096, 2048), numpy.float32)  # 32 MiB; its float64 draw would be 64 MiB
    tracemalloc.start()
    try:
        init(a)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < a.nbytes // 2, peak  # one-shot: a 64 MiB float64 draw
    assert numpy.isfinite(a).all() and a.std() > 0
