"""Every distribution against SciPy's, through ``testing.distribution_unittest``.

This exercises chainlet's copy of Chainer's distribution test base at the same time: each class
lists the quantities SciPy can check, per batch shape, sample shape and parameter kind.
"""
import numpy
import pytest

from chainlet import distributions as D
from chainlet import testing

stats = pytest.importorskip('scipy.stats')

_AXES = testing.product({
    'shape': [(2, 3), ()],
    'is_variable': [True, False],
    'sample_shape': [(3, 2), ()],
})

_CONTINUOUS = {'batch_shape', 'event_shape', 'entropy', 'log_prob', 'prob', 'mean',
               'variance', 'stddev', 'sample', 'support'}
_CDFS = {'cdf', 'log_cdf', 'survival', 'log_survival', 'icdf'}


def _f32(x):
    return numpy.asarray(x, numpy.float32)


@testing.parameterize(*testing.product({
    'shape': [(2, 3), ()], 'is_variable': [True, False], 'sample_shape': [(3, 2), ()],
    'log_scale_option': [True, False]}))
@testing.fix_random()
class TestNormal(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Normal, stats.norm
        self.test_targets = _CONTINUOUS | _CDFS
        loc = _f32(numpy.random.uniform(-1, 1, self.shape))
        log_scale = _f32(numpy.random.uniform(-1, 1, self.shape))
        scale = _f32(numpy.exp(log_scale))
        key = 'log_scale' if self.log_scale_option else 'scale'
        self.params = {'loc': loc, key: log_scale if self.log_scale_option else scale}
        self.scipy_params = {'loc': loc, 'scale': scale}

    def sample_for_test(self):
        return _f32(numpy.random.normal(size=self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestUniform(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Uniform, stats.uniform
        self.test_targets = _CONTINUOUS | {'cdf', 'icdf'}
        low = _f32(numpy.random.uniform(-10, 0, self.shape))
        high = _f32(numpy.random.uniform(low + 0.5, low + 5, self.shape))
        self.params = {'low': low, 'high': high}
        self.scipy_params = {'loc': low, 'scale': high - low}
        self.support = '[low, high]'

    def sample_for_test(self):
        return _f32(numpy.random.uniform(-10, 5, self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestExponential(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Exponential, stats.expon
        self.test_targets = _CONTINUOUS | _CDFS
        lam = _f32(numpy.exp(numpy.random.uniform(-1, 1, self.shape)))
        self.params = {'lam': lam}
        self.scipy_params = {'scale': 1 / lam}
        self.support = 'positive'

    def sample_for_test(self):
        return _f32(numpy.random.uniform(-1, 5, self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestLaplace(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Laplace, stats.laplace
        self.test_targets = _CONTINUOUS | _CDFS
        loc = _f32(numpy.random.uniform(-1, 1, self.shape))
        scale = _f32(numpy.exp(numpy.random.uniform(-1, 1, self.shape)))
        self.params = {'loc': loc, 'scale': scale}
        self.scipy_params = {'loc': loc, 'scale': scale}

    def sample_for_test(self):
        return _f32(numpy.random.laplace(size=self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestCauchy(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Cauchy, stats.cauchy
        self.test_targets = {'batch_shape', 'event_shape', 'entropy', 'log_prob', 'prob',
                             'support'} | _CDFS
        loc = _f32(numpy.random.uniform(-1, 1, self.shape))
        scale = _f32(numpy.exp(numpy.random.uniform(-1, 1, self.shape)))
        self.params = {'loc': loc, 'scale': scale}
        self.scipy_params = {'loc': loc, 'scale': scale}

    def sample_for_test(self):
        return _f32(numpy.random.standard_cauchy(self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestGumbel(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Gumbel, stats.gumbel_r
        self.test_targets = _CONTINUOUS
        loc = _f32(numpy.random.uniform(-1, 1, self.shape))
        scale = _f32(numpy.exp(numpy.random.uniform(-1, 1, self.shape)))
        self.params = {'loc': loc, 'scale': scale}
        self.scipy_params = {'loc': loc, 'scale': scale}

    def sample_for_test(self):
        return _f32(numpy.random.gumbel(size=self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestLogNormal(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.LogNormal, stats.lognorm
        self.test_targets = _CONTINUOUS
        mu = _f32(numpy.random.uniform(-1, 1, self.shape))
        sigma = _f32(numpy.exp(numpy.random.uniform(-1, 0, self.shape)))
        self.params = {'mu': mu, 'sigma': sigma}
        self.scipy_params = {'s': sigma, 'scale': numpy.exp(mu)}
        self.support = 'positive'

    def sample_for_test(self):
        return _f32(numpy.random.lognormal(size=self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestGamma(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Gamma, stats.gamma
        self.test_targets = _CONTINUOUS
        k = _f32(numpy.random.uniform(1, 5, self.shape))
        theta = _f32(numpy.random.uniform(0.5, 2, self.shape))
        self.params = {'k': k, 'theta': theta}
        self.scipy_params = {'a': k, 'scale': theta}
        self.support = 'positive'

    def sample_for_test(self):
        return _f32(numpy.random.uniform(-1, 10, self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestChisquare(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Chisquare, stats.chi2
        self.test_targets = _CONTINUOUS
        k = _f32(numpy.random.uniform(1, 5, self.shape))
        self.params = {'k': k}
        self.scipy_params = {'df': k}
        self.support = 'positive'

    def sample_for_test(self):
        return _f32(numpy.random.uniform(0.1, 10, self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestBeta(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Beta, stats.beta
        self.test_targets = _CONTINUOUS
        a = _f32(numpy.random.uniform(1, 5, self.shape))
        b = _f32(numpy.random.uniform(1, 5, self.shape))
        self.params = {'a': a, 'b': b}
        self.scipy_params = {'a': a, 'b': b}
        self.support = '[0, 1]'

    def sample_for_test(self):
        return _f32(numpy.random.uniform(-0.5, 1.5, self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestPareto(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Pareto, stats.pareto
        self.test_targets = _CONTINUOUS - {'sample'}
        scale = _f32(numpy.exp(numpy.random.uniform(0.5, 1, self.shape)))
        alpha = _f32(numpy.exp(numpy.random.uniform(-1, 1, self.shape)))  # inf moments too
        self.params = {'scale': scale, 'alpha': alpha}
        self.scipy_params = {'b': alpha, 'scale': scale}
        self.support = '[scale, inf]'

    def sample_for_test(self):
        return _f32(numpy.random.uniform(1, 10, self.sample_shape + self.shape))


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestPoisson(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Poisson, stats.poisson
        self.test_targets = _CONTINUOUS - {'entropy'}
        lam = _f32(numpy.random.uniform(5, 10, self.shape))
        self.params = {'lam': lam}
        self.scipy_params = {'mu': lam}
        self.continuous = False
        self.support = 'non negative integer'

    def sample_for_test(self):
        return numpy.random.randint(0, 15, self.sample_shape + self.shape).astype(numpy.int32)


@testing.parameterize(*_AXES)
@testing.fix_random()
class TestGeometric(testing.distribution_unittest):
    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Geometric, stats.geom
        self.test_targets = _CONTINUOUS - {'entropy'}
        p = _f32(numpy.random.uniform(0.2, 1, self.shape))
        self.params = {'p': p}
        self.scipy_params = {'p': p}
        self.continuous = False
        self.support = 'positive integer'

    def sample_for_test(self):
        return numpy.random.randint(0, 10, self.sample_shape + self.shape).astype(numpy.int32)


@testing.parameterize(*testing.product({
    'shape': [(2, 3), (1,)], 'is_variable': [True, False], 'sample_shape': [(3, 2), ()],
    'extreme_values': [True, False]}))
@testing.fix_random()
class TestBernoulli(testing.distribution_unittest):
    scipy_onebyone = True

    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Bernoulli, stats.bernoulli
        self.test_targets = _CONTINUOUS - {'event_shape'}
        if self.extreme_values:
            p = _f32(numpy.random.randint(0, 2, self.shape))
        else:
            p = _f32(numpy.random.uniform(0, 1, self.shape))
        self.params = {'p': p}
        self.scipy_params = {'p': p}
        self.continuous = False
        self.support = '{0, 1}'
        self._err = numpy.seterr(divide='ignore', invalid='ignore')

    def tearDown(self):
        numpy.seterr(**self._err)

    def sample_for_test(self):
        return _f32(numpy.random.randint(2, size=self.sample_shape + self.shape))


@testing.parameterize(*testing.product({
    'shape': [(2, 3), (1,)], 'is_variable': [True, False], 'sample_shape': [(3, 2), ()]}))
@testing.fix_random()
class TestDirichlet(testing.distribution_unittest):
    scipy_onebyone = True

    def setUp_configure(self):
        self.dist, self.scipy_dist = D.Dirichlet, stats.dirichlet
        self.event_shape = (3,)
        # SciPy's dirichlet.logpdf takes the event on the first axis: log_prob is checked
        # by check_log_prob below instead of the per-element comparison of the base class.
        self.test_targets = {'batch_shape', 'event_shape', 'entropy', 'log_prob', 'mean',
                             'variance', 'sample', 'support'}
        alpha = _f32(numpy.random.uniform(0.5, 10, self.shape + (3,)))
        self.params = {'alpha': alpha}
        self.scipy_params = {'alpha': alpha}
        self.support = '[0, 1]'

    def sample_for_test(self):
        x = numpy.random.uniform(0.1, 1, self.sample_shape + self.shape + (3,))
        return _f32(x / x.sum(axis=-1, keepdims=True))

    def check_log_prob(self, is_gpu):
        smp = self.sample_for_test()
        actual = self.cpu_dist.log_prob(smp).array
        alpha = self.scipy_params['alpha']
        expected = numpy.empty(self.sample_shape + self.shape)
        for s in numpy.ndindex(self.sample_shape):
            for b in numpy.ndindex(self.shape):
                x = smp[s + b].astype(numpy.float64)
                expected[s + b] = self.scipy_dist.logpdf(x / x.sum(), alpha[b])
        testing.assert_allclose(actual, expected, atol=1e-4, rtol=1e-4)


@testing.parameterize(*testing.product({
    'shape': [(2, 3), (1,)], 'is_variable': [True, False], 'sample_shape': [(3, 2), ()]}))
@testing.fix_random()
class TestMultivariateNormal(testing.distribution_unittest):
    scipy_onebyone = True

    def setUp_configure(self):
        self.dist, self.scipy_dist = D.MultivariateNormal, stats.multivariate_normal
        self.event_shape = (3,)
        self.test_targets = {'batch_shape', 'event_shape', 'entropy', 'log_prob', 'sample',
                             'support'}
        loc = _f32(numpy.random.uniform(-1, 1, self.shape + (3,)))
        a = numpy.random.normal(size=self.shape + (3, 3))
        cov = a @ numpy.swapaxes(a, -1, -2) + numpy.eye(3)
        self.params = {'loc': loc, 'scale_tril': _f32(numpy.linalg.cholesky(cov))}
        self.scipy_params = {'mean': loc, 'cov': cov}

    def sample_for_test(self):
        return _f32(numpy.random.normal(size=self.sample_shape + self.shape + (3,)))
