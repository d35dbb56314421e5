"""Constructor checks, shapes, the base class's derived quantities and the module layout."""
import unittest

import numpy
import pytest

import chainlet
from chainlet import distributions as D
from chainlet import testing
from chainlet import type_check

F32 = numpy.float32


def test_module_layout_matches_chainer():
    assert chainlet.Distribution is D.Distribution
    assert chainlet.kl_divergence is D.kl_divergence
    assert chainlet.distribution.register_kl is D.register_kl
    assert chainlet.cross_entropy is D.cross_entropy
    for name in ['Bernoulli', 'Beta', 'Categorical', 'Cauchy', 'Chisquare', 'Dirichlet',
                 'Exponential', 'Gamma', 'Geometric', 'Gumbel', 'Independent', 'Laplace',
                 'LogNormal', 'MultivariateNormal', 'Normal', 'OneHotCategorical', 'Pareto',
                 'Poisson', 'Uniform']:
        assert issubclass(getattr(D, name), D.Distribution)


@pytest.mark.parametrize('make', [
    lambda: D.Normal(F32([0])),
    lambda: D.Normal(F32([0]), F32([1]), log_scale=F32([0])),
    lambda: D.Bernoulli(),
    lambda: D.Bernoulli(p=F32([0.5]), logit=F32([0])),
    lambda: D.Categorical(),
    lambda: D.Categorical(p=numpy.array(0.5, F32)),
    lambda: D.OneHotCategorical(numpy.array(0.5, F32)),
    lambda: D.Dirichlet(numpy.array(1.0, F32)),
    lambda: D.MultivariateNormal(F32([0, 0])),
    lambda: D.MultivariateNormal(F32([0, 0]), scale_tril=numpy.eye(3, dtype=F32)),
    lambda: D.Uniform(low=F32([0])),
    lambda: D.Uniform(low=F32([0]), high=F32([1]), scale=F32([1])),
    lambda: D.Independent(D.Normal(F32([0]), F32([1])), 2),
    lambda: D.Independent(D.Normal(F32([0]), F32([1])), -1),
])
def test_bad_arguments_raise_value_error(make):
    with pytest.raises(ValueError):
        make()


def test_unknown_keyword_raises_type_error():
    with pytest.raises(TypeError, match='unexpected'):
        D.Normal(F32([0]), scale=F32([1]), scael=F32([1]))
    with pytest.raises(TypeError, match='unexpected'):
        D.Uniform(low=F32([0]), high=F32([1]), width=F32([1]))


def test_triangular_inv_checks_its_input():
    with pytest.raises(type_check.InvalidType):
        D.multivariate_normal._triangular_inv(numpy.ones((2, 3), F32))
    with pytest.raises(type_check.InvalidType):
        D.multivariate_normal._triangular_inv(numpy.ones((2, 2), numpy.int32))


@pytest.mark.parametrize('sample_shape,expected', [
    ((), (2, 3)), (4, (4, 2, 3)), ((4, 5), (4, 5, 2, 3)), ((0,), (0, 2, 3))])
def test_sample_shapes(sample_shape, expected):
    d = D.Normal(numpy.zeros((2, 3), F32), numpy.ones((2, 3), F32))
    s = d.sample(sample_shape)
    assert s.shape == expected and s.dtype == F32


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_dtype_is_kept(dtype):
    d = D.Normal(numpy.zeros(3, dtype), numpy.ones(3, dtype))
    assert d.log_prob(numpy.zeros(3, dtype)).dtype == dtype
    assert d.sample(2).dtype == dtype
    assert d.entropy.dtype == dtype
    g = D.Gamma(numpy.ones(3, dtype), numpy.ones(3, dtype))
    assert g.log_prob(numpy.ones(3, dtype)).dtype == dtype


def test_zero_dim_and_empty_batches():
    d = D.Exponential(numpy.array(2.0, F32))
    assert d.batch_shape == () and d.log_prob(numpy.array(1.0, F32)).shape == ()
    e = D.Normal(numpy.zeros((0, 3), F32), numpy.ones((0, 3), F32))
    assert e.log_prob(numpy.zeros((0, 3), F32)).shape == (0, 3)
    assert e.sample(2).shape == (2, 0, 3)


def test_log_prob_broadcasts_values_against_parameters():
    d = D.Normal(numpy.zeros((2, 3), F32), numpy.ones((2, 3), F32))
    assert d.log_prob(numpy.zeros(3, F32)).shape == (2, 3)
    assert d.log_prob(numpy.zeros((5, 2, 3), F32)).shape == (5, 2, 3)


def test_variable_parameters_receive_gradients():
    loc = chainlet.Variable(numpy.zeros(3, F32))
    d = D.Normal(loc, numpy.ones(3, F32))
    assert d.loc is loc
    chainlet.functions.sum(d.log_prob(numpy.ones(3, F32))).backward()
    testing.assert_allclose(loc.grad, numpy.ones(3))


def test_normal_scale_and_log_scale_are_consistent():
    d = D.Normal(F32([0.0]), log_scale=F32([numpy.log(2.0)]))
    testing.assert_allclose(d.scale.array, [2.0], rtol=1e-6)
    assert d.params.keys() == {'loc', 'scale'}


def test_base_class_derives_and_names_what_is_missing():
    class Half(D.Distribution):
        """Only a CDF: the base class derives the survival function and its log."""

        @property
        def batch_shape(self):
            return ()

        def cdf(self, x):
            return chainlet.Variable(numpy.full(numpy.shape(x), 0.25, F32))

    h = Half()
    testing.assert_allclose(h.survival_function(F32(1)).array, 0.75)
    testing.assert_allclose(h.log_cdf(F32(1)).array, numpy.log(0.25), rtol=1e-6)
    with pytest.raises(NotImplementedError, match='Half does not define log_prob'):
        h.log_prob(F32(0))
    with pytest.raises(NotImplementedError, match='Half does not define entropy'):
        h.entropy


def test_cauchy_undefined_moments_warn():
    d = D.Cauchy(F32([0.0]), F32([1.0]))
    with pytest.warns(RuntimeWarning):
        assert numpy.isnan(d.mean.array).all()
    with pytest.warns(RuntimeWarning):
        assert numpy.isnan(d.variance.array).all()


def test_bernoulli_binary_check():
    x = F32([0.5])
    assert numpy.isfinite(D.Bernoulli(F32([0.3])).log_prob(x).array).all()
    assert D.Bernoulli(F32([0.3]), binary_check=True).prob(x).array[0] == 0
    # p exactly 0 or 1: the limits, no NaN.
    lp = D.Bernoulli(F32([0.0, 1.0])).log_prob(F32([0.0, 1.0])).array
    testing.assert_allclose(lp, [0.0, 0.0])


def test_bernoulli_params_are_the_logit_whichever_was_given():
    # As Chainer 7.8.1: ``params`` is ``{'logit': ...}`` also when ``p`` was given, so
    # ``Bernoulli(**d.params)`` rebuilds the same distribution.
    p = F32([0.25, 0.5, 0.9])
    from_p = D.Bernoulli(p=p)
    assert from_p.params.keys() == {'logit'}
    testing.assert_allclose(from_p.params['logit'].array, numpy.log(p / (1 - p)), rtol=1e-6)
    logit = chainlet.Variable(F32([0.0, 2.0]))
    from_logit = D.Bernoulli(logit=logit)
    assert from_logit.params == {'logit': logit}
    rebuilt = D.Bernoulli(**from_p.params)
    testing.assert_allclose(rebuilt.p.array, p, rtol=1e-6)
    assert from_p.xp is numpy and from_p.batch_shape == (3,)
    kl = D.kl_divergence(from_p, D.Bernoulli(**from_p.params))
    testing.assert_allclose(kl.array, numpy.zeros(3), atol=1e-6)


def test_one_hot_categorical_log_prob():
    p = numpy.array([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]], F32)
    d = D.OneHotCategorical(p)
    x = numpy.eye(3, dtype=F32)[[2, 1]]
    testing.assert_allclose(d.log_prob(x).array, numpy.log([0.5, 0.5]))
    testing.assert_allclose(d.entropy.array,
                            [-(p[0] * numpy.log(p[0])).sum(), numpy.log(2)], rtol=1e-6)
    s = d.sample(20000).array
    assert s.shape == (20000, 2, 3) and (s.sum(-1) == 1).all()
    testing.assert_allclose(s.mean(0), p, atol=2e-2)


def test_distribution_unittest_rejects_unknown_targets():
    class TestBad(testing.distribution_unittest):
        def setUp_configure(self):
            self.test_targets = {'log_prob', 'median'}

        def runTest(self):
            pass

    with pytest.raises(ValueError, match='median'):
        TestBad().setUp()


def test_distribution_unittest_skips_untargeted_checks():
    class TestOnlyShape(testing.distribution_unittest):
        shape = (2,)

        def setUp_configure(self):
            self.dist = D.Normal
            self.params = {'loc': numpy.zeros(2, F32), 'scale': numpy.ones(2, F32)}
            self.test_targets = {'batch_shape'}

    result = unittest.TestResult()
    for name in ['test_batch_shape_cpu', 'test_cdf_cpu']:
        TestOnlyShape(name).run(result)
    assert result.testsRun == 2 and not result.failures and not result.errors
    assert len(result.skipped) == 1 and 'cdf' in result.skipped[0][1]
