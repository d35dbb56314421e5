"""``distribution_unittest``: Chainer's base test case for probability distributions.

A Chainer distribution test subclasses :class:`distribution_unittest`, and in
``setUp_configure`` sets ``self.dist`` (the class), ``self.params`` (constructor arguments),
``self.scipy_dist`` / ``self.scipy_params`` (the SciPy reference), ``self.test_targets`` (which
quantities to compare), ``self.sample_for_test`` and optionally ``support``, ``event_shape``,
``continuous`` (``False`` compares with ``logpmf``/``pmf``) and ``options`` (extra keyword
arguments). Class attributes ``shape``, ``sample_shape`` and ``is_variable`` come from
``testing.parameterize``; ``scipy_onebyone = True`` evaluates SciPy per batch element for
distributions whose SciPy version does not broadcast.

Every target becomes ``test_<target>_cpu`` and ``test_<target>_gpu`` (marked ``gpu``); a target
not listed in ``test_targets`` is skipped. The methods are generated from one table of checks
(:data:`_CHECKS`); each test calls ``check_<target>(is_gpu)``, which a test class may
override as Chainer's tests do.

Example:
    >>> from chainlet.testing import distribution_unittest
    >>> sorted(t for t in dir(distribution_unittest) if t.endswith('_cpu'))[:3]
    ['test_batch_shape_cpu', 'test_cdf_cpu', 'test_entropy_cpu']
"""
from __future__ import annotations

import unittest
from typing import Any, Callable, Dict, Iterator, Tuple

import numpy

import chainlet
from chainlet import backend
from chainlet.testing import array as _array
from chainlet.testing import attr

_TARGETS = frozenset({
    'batch_shape', 'cdf', 'entropy', 'event_shape', 'icdf', 'log_cdf', 'log_prob',
    'log_survival', 'mean', 'prob', 'sample', 'stddev', 'support', 'survival', 'variance'})


def _to_cpu(x: Any) -> Any:
    if isinstance(x, chainlet.Variable):
        x = x.array
    return backend.CpuDevice().send(x)


def _size(shape: Any) -> int:
    return int(numpy.prod(shape, dtype=numpy.int64))


class distribution_unittest(unittest.TestCase):
    """Base class of Chainer-style distribution tests (see the module docstring)."""

    scipy_onebyone = False

    # Declared for the type checker only (no value, so no class attribute is created):
    # ``shape``, ``sample_shape`` and ``is_variable`` come from ``testing.parameterize``, the
    # others from ``setUp_configure`` (or ``setUp``); ``hasattr(self, 'event_shape')`` below
    # relies on ``event_shape`` staying unset until a subclass sets it.
    shape: Tuple[int, ...]
    sample_shape: Tuple[int, ...]
    event_shape: Tuple[int, ...]
    is_variable: bool
    dist: Any
    params: Dict[str, Any]
    scipy_dist: Any
    scipy_params: Dict[str, Any]
    sample_for_test: Callable[[], Any]
    support: str
    continuous: bool

    def setUp(self) -> None:
        self.support = 'real'
        if not hasattr(self, 'event_shape'):
            self.event_shape = ()
        self.continuous = True
        self.test_targets: set = set()
        self.options: Dict[str, Any] = {}
        self.setUp_configure()
        unknown = set(self.test_targets) - _TARGETS
        if unknown:
            raise ValueError(f'distribution_unittest: invalid target(s): {sorted(unknown)}')
        if getattr(self, 'is_variable', False):
            self.params = {k: chainlet.Variable(v) for k, v in self.params.items()}

    def setUp_configure(self) -> None:
        """Set the distribution, its parameters and the SciPy reference (override)."""

    # Helpers -------------------------------------------------------------------------------
    def scipy_onebyone_params_iter(self) -> Iterator[Dict[str, Any]]:
        for index in numpy.ndindex(self.shape):
            yield {k: v[index] for k, v in self.scipy_params.items()}

    def _make_dist(self, on_gpu: bool) -> Any:
        params = dict(self.params)
        if on_gpu:
            from chainlet.backends import cuda
            moved = {}
            for k, v in params.items():
                if isinstance(v, chainlet.Variable):
                    moved[k] = chainlet.Variable(cuda.to_gpu(v.array))
                else:
                    moved[k] = cuda.to_gpu(v)
            params = moved
        params.update(self.options)
        return self.dist(**params)

    @property
    def cpu_dist(self) -> Any:
        return self._make_dist(False)

    @property
    def gpu_dist(self) -> Any:
        return self._make_dist(True)

    def _input(self, x: Any, on_gpu: bool) -> Any:
        if on_gpu:
            from chainlet.backends import cuda
            return cuda.to_gpu(x)
        return x

    def _scipy_per_element(self, method: str) -> Any:
        values = [getattr(self.scipy_dist, method)(**p)
                  for p in self.scipy_onebyone_params_iter()]
        return numpy.vstack(values).reshape(self.shape + tuple(self.cpu_dist.event_shape))

    # Checks (one per target) ---------------------------------------------------------------
    def _check_shape(self, name: str, on_gpu: bool) -> None:
        dist = self._make_dist(on_gpu)
        expected = self.shape if name == 'batch_shape' else self.event_shape
        self.assertEqual(getattr(dist, name), expected)

    def _check_support(self, on_gpu: bool) -> None:
        self.assertEqual(self._make_dist(on_gpu).support, self.support)

    def _check_function(self, method: str, scipy_method: str, on_gpu: bool) -> None:
        smp = self.sample_for_test()
        actual = _to_cpu(getattr(self._make_dist(on_gpu), method)(self._input(smp, on_gpu)))
        expected = getattr(self.scipy_dist, scipy_method)(smp, **self.scipy_params)
        _array.assert_allclose(actual, expected)

    def _check_icdf(self, on_gpu: bool) -> None:
        q = numpy.random.uniform(1e-5, 1 - 1e-5, self.sample_shape + self.shape)
        q = q.astype(numpy.float32)
        actual = _to_cpu(self._make_dist(on_gpu).icdf(self._input(q, on_gpu)))
        _array.assert_allclose(actual, self.scipy_dist.ppf(q, **self.scipy_params))

    def _check_log_prob(self, on_gpu: bool, log: bool) -> None:
        smp = self.sample_for_test()
        dist = self._make_dist(on_gpu)
        method = dist.log_prob if log else dist.prob
        actual = _to_cpu(method(self._input(smp, on_gpu)))
        kind = 'pdf' if self.continuous else 'pmf'
        scipy_func = getattr(self.scipy_dist, ('log' if log else '') + kind)
        if self.scipy_onebyone and log:
            sizes = [_size(s) for s in (self.sample_shape, self.shape, self.event_shape)]
            per_batch = numpy.swapaxes(smp.reshape(*sizes), 0, 1)
            per_batch = per_batch.reshape((-1,) + self.sample_shape + self.event_shape)
            values = [scipy_func(s, **p)
                      for p, s in zip(self.scipy_onebyone_params_iter(), per_batch)]
            expected = numpy.vstack(values).reshape(_size(self.shape), -1).T
            expected = expected.reshape(self.sample_shape + self.shape)
        else:
            expected = scipy_func(smp, **self.scipy_params)
        _array.assert_allclose(actual, expected)

    def _check_moment(self, name: str, scipy_method: str, on_gpu: bool) -> None:
        actual = _to_cpu(getattr(self._make_dist(on_gpu), name))
        if self.scipy_onebyone and name != 'stddev':
            expected = self._scipy_per_element(scipy_method)
        else:
            expected = getattr(self.scipy_dist, scipy_method)(**self.scipy_params)
        _array.assert_allclose(actual, expected)

    def _check_entropy(self, on_gpu: bool) -> None:
        actual = _to_cpu(self._make_dist(on_gpu).entropy)
        if self.scipy_onebyone:
            values = [self.scipy_dist.entropy(**p) for p in self.scipy_onebyone_params_iter()]
            expected = numpy.vstack(values).reshape(self.shape)
        else:
            expected = self.scipy_dist.entropy(**self.scipy_params)
        _array.assert_allclose(actual, expected)

    def _check_sample(self, on_gpu: bool) -> None:
        n = 100000
        dist = self._make_dist(on_gpu)
        smp1 = _to_cpu(dist.sample(sample_shape=(n,) + self.sample_shape))
        event_shape = tuple(self.cpu_dist.event_shape)
        if self.scipy_onebyone:
            draws = [self.scipy_dist.rvs(size=(n,) + self.sample_shape, **p)
                     for p in self.scipy_onebyone_params_iter()]
            smp2 = numpy.vstack(draws).reshape(
                (_size(self.shape), n) + self.sample_shape + event_shape)
            smp2 = numpy.rollaxis(smp2, 0, smp2.ndim - len(event_shape))
            smp2 = smp2.reshape((n,) + self.sample_shape + self.shape + event_shape)
        else:
            smp2 = self.scipy_dist.rvs(size=(n,) + self.sample_shape + self.shape,
                                       **self.scipy_params)
        _array.assert_allclose(smp1.mean(axis=0), smp2.mean(axis=0), atol=3e-2, rtol=3e-2)
        _array.assert_allclose(smp1.std(axis=0), smp2.std(axis=0), atol=3e-2, rtol=3e-2)


_CHECKS: Dict[str, Callable[[Any, bool], None]] = {
    'batch_shape': lambda self, g: self._check_shape('batch_shape', g),
    'event_shape': lambda self, g: self._check_shape('event_shape', g),
    'support': lambda self, g: self._check_support(g),
    'cdf': lambda self, g: self._check_function('cdf', 'cdf', g),
    'log_cdf': lambda self, g: self._check_function('log_cdf', 'logcdf', g),
    'survival': lambda self, g: self._check_function('survival_function', 'sf', g),
    'log_survival': lambda self, g: self._check_function('log_survival_function', 'logsf', g),
    'icdf': lambda self, g: self._check_icdf(g),
    'log_prob': lambda self, g: self._check_log_prob(g, True),
    'prob': lambda self, g: self._check_log_prob(g, False),
    'mean': lambda self, g: self._check_moment('mean', 'mean', g),
    'variance': lambda self, g: self._check_moment('variance', 'var', g),
    'stddev': lambda self, g: self._check_moment('stddev', 'std', g),
    'entropy': lambda self, g: self._check_entropy(g),
    'sample': lambda self, g: self._check_sample(g),
}


def _make_check(target: str) -> Callable[[Any, bool], None]:
    check = _CHECKS[target]

    def method(self: Any, is_gpu: bool) -> None:
        check(self, is_gpu)
    method.__name__ = f'check_{target}'
    return method


def _make_test(target: str, on_gpu: bool) -> Callable[[Any], None]:
    def test(self: Any) -> None:
        if target not in self.test_targets:
            self.skipTest(f"'{target}' does not exist in test_targets.")
        # Through the ``check_<target>`` method, which a Chainer test may override.
        getattr(self, f'check_{target}')(on_gpu)
    test.__name__ = f'test_{target}_{"gpu" if on_gpu else "cpu"}'
    return attr.gpu(test) if on_gpu else test


for _target in sorted(_CHECKS):
    setattr(distribution_unittest, f'check_{_target}', _make_check(_target))
    setattr(distribution_unittest, f'test_{_target}_cpu', _make_test(_target, False))
    setattr(distribution_unittest, f'test_{_target}_gpu', _make_test(_target, True))
del _target
