"""KL divergences against Monte Carlo estimates, and the ``register_kl`` registry."""
import numpy
import pytest

import chainlet
from chainlet import distributions as D
from chainlet import testing

SHAPE = (2, 3)


@pytest.fixture(autouse=True)
def _seed():
    numpy.random.seed(0)


def _u(low, high, shape=SHAPE):
    return numpy.random.uniform(low, high, shape).astype(numpy.float32)


def _make(name):
    if name == 'bernoulli':
        return D.Bernoulli(p=_u(0.05, 0.95))
    if name == 'beta':
        return D.Beta(_u(1, 10), _u(1, 10))
    if name == 'categorical':
        p = _u(0.1, 1, SHAPE + (3,))
        return D.Categorical(p / p.sum(-1, keepdims=True))
    if name == 'one_hot_categorical':
        p = _u(0.1, 1, SHAPE + (3,))
        return D.OneHotCategorical(p / p.sum(-1, keepdims=True))
    if name == 'dirichlet':
        return D.Dirichlet(_u(1, 10, SHAPE + (3,)))
    if name == 'exponential':
        return D.Exponential(numpy.exp(_u(0, 0.5)))
    if name == 'gamma':
        return D.Gamma(_u(1, 5), _u(0.5, 2))
    if name == 'geometric':
        return D.Geometric(_u(0.2, 0.9))
    if name == 'gumbel':
        return D.Gumbel(_u(-1, 1), numpy.exp(_u(0, 1)))
    if name == 'laplace':
        return D.Laplace(_u(-1, 1), numpy.exp(_u(-1, 1)))
    if name == 'log_normal':
        return D.LogNormal(_u(-1, 1), numpy.exp(_u(-1, 0)))
    if name == 'normal':
        return D.Normal(_u(-1, 1), numpy.exp(_u(-1, 1)))
    if name == 'normal_log_scale':
        return D.Normal(_u(-1, 1), log_scale=_u(-1, 1))
    if name == 'multivariate_normal':
        a = numpy.random.normal(size=SHAPE + (3, 3))
        cov = a @ numpy.swapaxes(a, -1, -2) + numpy.eye(3)
        return D.MultivariateNormal(_u(-1, 1, SHAPE + (3,)),
                                    scale_tril=numpy.linalg.cholesky(cov).astype(numpy.float32))
    if name == 'pareto':
        return D.Pareto(numpy.exp(_u(0.5, 1)), numpy.exp(_u(1, 2)))
    if name == 'poisson':
        return D.Poisson(_u(5, 10))
    if name == 'uniform':
        low = _u(-3, 0)
        return D.Uniform(low=low, high=low + _u(1, 5))
    if name == 'independent':
        return D.Independent(D.Normal(_u(-1, 1), numpy.exp(_u(-1, 1))), 1)
    raise AssertionError(name)


NAMES = ['bernoulli', 'beta', 'categorical', 'one_hot_categorical', 'dirichlet', 'exponential',
         'gamma', 'geometric', 'gumbel', 'laplace', 'log_normal', 'normal', 'normal_log_scale',
         'multivariate_normal', 'pareto', 'poisson', 'uniform', 'independent']


@pytest.mark.parametrize('name', NAMES)
def test_kl_matches_monte_carlo(name):
    p, q = _make(name), _make(name)
    if name == 'uniform':  # q must cover p's support for a finite KL
        q = D.Uniform(low=p.low.array - 1, high=p.high.array + 1)
    if name == 'pareto':
        q = D.Pareto(p.scale.array * 0.9, q.alpha.array)
    kl = D.kl_divergence(p, q)
    assert kl.shape == p.batch_shape
    x = p.sample(200000)
    mc = (p.log_prob(x) - q.log_prob(x)).array.mean(axis=0)
    testing.assert_allclose(kl.array, mc, atol=3e-2, rtol=3e-2)


def test_kl_of_a_distribution_with_itself_is_zero():
    for name in NAMES:
        p = _make(name)
        testing.assert_allclose(D.kl_divergence(p, p).array, 0, atol=1e-5)


def test_uniform_kl_outside_support_is_inf():
    p = D.Uniform(low=numpy.float32(0), high=numpy.float32(2))
    q = D.Uniform(low=numpy.float32(1), high=numpy.float32(3))
    assert numpy.isinf(D.kl_divergence(p, q).array)


def test_kl_is_differentiable():
    loc = chainlet.Variable(numpy.float32([0.5]))
    p = D.Normal(loc, numpy.float32([1.0]))
    q = D.Normal(numpy.float32([0.0]), numpy.float32([1.0]))
    D.kl_divergence(p, q).backward()
    testing.assert_allclose(loc.grad, [0.5])


def test_cross_entropy_is_entropy_plus_kl():
    p, q = _make('normal'), _make('normal')
    testing.assert_allclose(D.cross_entropy(p, q).array,
                            p.entropy.array + D.kl_divergence(p, q).array, rtol=1e-5)


def test_unregistered_pair_raises():
    with pytest.raises(NotImplementedError, match='Normal.*Beta'):
        D.kl_divergence(_make('normal'), _make('beta'))


def test_register_kl_and_subclass_lookup():
    class MyNormal(D.Normal):
        pass

    p = MyNormal(numpy.float32(0), numpy.float32(1))
    q = D.Normal(numpy.float32(1), numpy.float32(1))
    testing.assert_allclose(D.kl_divergence(p, q).array, 0.5)  # inherited (Normal, Normal)

    @D.register_kl(MyNormal, D.Normal)
    def _kl(a, b):
        return chainlet.Variable(numpy.array(42, numpy.float32))
    try:
        assert float(D.kl_divergence(p, q).array) == 42
    finally:
        del chainlet.distribution._KLDIVERGENCE[MyNormal, D.Normal]
