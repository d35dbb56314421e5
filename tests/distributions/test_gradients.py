"""Gradients: log-densities in their parameters, reparameterized samples, helpers."""
import numpy
import pytest

import chainlet
from chainlet import distributions as D
from chainlet import gradient_check
from chainlet import testing
from chainlet.distributions import utils

SHAPE = (2, 3)


@pytest.fixture(autouse=True)
def _seed():
    numpy.random.seed(0)


_RNG = numpy.random.RandomState(0)


def _u(low, high, shape=SHAPE, dtype=numpy.float64):
    return _RNG.uniform(low, high, shape).astype(dtype)


CASES = {
    'normal': (lambda a, b: D.Normal(a, b), (_u(-1, 1), _u(0.5, 2)), lambda: _u(-2, 2)),
    'normal_log_scale': (lambda a, b: D.Normal(a, log_scale=b), (_u(-1, 1), _u(-1, 1)),
                         lambda: _u(-2, 2)),
    'laplace': (lambda a, b: D.Laplace(a, b), (_u(-1, 1), _u(0.5, 2)), lambda: _u(1.5, 3)),
    'cauchy': (lambda a, b: D.Cauchy(a, b), (_u(-1, 1), _u(0.5, 2)), lambda: _u(-2, 2)),
    'gumbel': (lambda a, b: D.Gumbel(a, b), (_u(-1, 1), _u(0.5, 2)), lambda: _u(-2, 2)),
    'log_normal': (lambda a, b: D.LogNormal(a, b), (_u(-1, 1), _u(0.5, 2)),
                   lambda: _u(0.5, 3)),
    'gamma': (lambda a, b: D.Gamma(a, b), (_u(1, 3), _u(0.5, 2)), lambda: _u(0.5, 3)),
    'beta': (lambda a, b: D.Beta(a, b), (_u(1, 3), _u(1, 3)), lambda: _u(0.1, 0.9)),
    'pareto': (lambda a, b: D.Pareto(a, b), (_u(0.5, 1), _u(1, 3)), lambda: _u(1.5, 3)),
    'uniform': (lambda a, b: D.Uniform(low=a, high=b), (_u(-2, -1), _u(1, 2)),
                lambda: _u(-0.5, 0.5)),
    'exponential': (lambda a: D.Exponential(a), (_u(0.5, 2),), lambda: _u(0.5, 3)),
    'chisquare': (lambda a: D.Chisquare(a), (_u(1, 4),), lambda: _u(0.5, 3)),
    'poisson': (lambda a: D.Poisson(a), (_u(1, 4),),
                lambda: _RNG.randint(0, 5, SHAPE).astype(numpy.float64)),
    'geometric': (lambda a: D.Geometric(a), (_u(0.2, 0.8),),
                  lambda: _RNG.randint(1, 5, SHAPE).astype(numpy.float64)),
    'bernoulli': (lambda a: D.Bernoulli(logit=a), (_u(-2, 2),),
                  lambda: _RNG.randint(0, 2, SHAPE).astype(numpy.float64)),
    'dirichlet': (lambda a: D.Dirichlet(a), (_u(1, 3),),
                  lambda: _RNG.dirichlet(numpy.ones(3), 2)),
    'categorical': (lambda a: D.Categorical(logit=a), (_u(-1, 1),),
                    lambda: numpy.array([0, 2], numpy.int32)),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_log_prob_backward(name):
    make, params, sample = CASES[name]
    x = sample()
    out_shape = make(*params).log_prob(x).shape
    gy = numpy.random.normal(size=out_shape)
    gradient_check.check_backward(lambda *p: make(*p).log_prob(x), params, gy,
                                  atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('name', ['normal', 'gamma', 'beta', 'dirichlet', 'bernoulli'])
def test_entropy_backward(name):
    make, params, _ = CASES[name]
    gy = numpy.random.normal(size=make(*params).entropy.shape)
    gradient_check.check_backward(lambda *p: make(*p).entropy, params, gy,
                                  atol=1e-4, rtol=1e-4)


def test_normal_log_prob_double_backward():
    loc, scale, x = _u(-1, 1), _u(0.5, 2), _u(-2, 2)
    gy, ggl, ggs = (numpy.random.normal(size=SHAPE) for _ in range(3))
    gradient_check.check_double_backward(lambda a, b: D.Normal(a, b).log_prob(x),
                                         (loc, scale), gy, (ggl, ggs), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('name', ['normal', 'laplace', 'gumbel', 'cauchy', 'log_normal',
                                  'uniform', 'exponential', 'pareto'])
def test_sample_is_reparameterized(name):
    make, params, _ = CASES[name]
    variables = [chainlet.Variable(p.astype(numpy.float32)) for p in params]
    chainlet.functions.sum(make(*variables).sample(4)).backward()
    for v in variables:
        assert v.grad is not None and numpy.isfinite(v.grad).all()


def test_log_prob_outside_support_has_no_nan_gradient():
    k = chainlet.Variable(numpy.float32([2.0, 2.0]))
    lp = D.Gamma(k, numpy.float32([1.0, 1.0])).log_prob(numpy.float32([-1.0, 1.0]))
    assert lp.array[0] == -numpy.inf
    chainlet.functions.sum(lp[1:]).backward()
    assert numpy.isfinite(k.grad).all() and k.grad[0] == 0


def test_triangular_inv_backward():
    x = numpy.tril(numpy.random.normal(size=(3, 3))) + 3 * numpy.eye(3)
    testing.assert_allclose(D.multivariate_normal._triangular_inv(x).array,
                            numpy.linalg.inv(x), rtol=1e-6)
    gy, ggx = numpy.random.normal(size=(3, 3)), numpy.random.normal(size=(3, 3))
    f = D.multivariate_normal._triangular_inv
    gradient_check.check_backward(f, x, gy, atol=1e-4, rtol=1e-4)
    gradient_check.check_double_backward(f, x, gy, ggx, atol=1e-4, rtol=1e-4)


def test_modified_xlogx():
    x = numpy.array([0.0, 0.5, 2.0])
    testing.assert_allclose(utils._modified_xlogx(x).array, [0.0, 0.5 * numpy.log(0.5),
                                                             2 * numpy.log(2.0)])
    v = chainlet.Variable(x)
    with pytest.warns(RuntimeWarning):
        chainlet.functions.sum(utils._modified_xlogx(v)).backward()
    testing.assert_allclose(v.grad, [-numpy.inf, numpy.log(0.5) + 1, numpy.log(2.0) + 1])
    gradient_check.check_backward(utils._modified_xlogx, numpy.array([0.3, 1.5]),
                                  numpy.array([1.0, -1.0]), atol=1e-5)
