"""``condition``, ``fix_random``, ``with_requires``, ``assert_warns``, ``patch``,
``assert_allclose``, ``_as_noncontiguous_array``, ``generate_matrix``, training and serializer
helpers, ``attr``."""
from __future__ import annotations

import random
import unittest
import warnings

import numpy as np
import pytest

import chainlet.links as L
from chainlet import testing
from chainlet.testing import attr, condition, matrix


class _Counted(unittest.TestCase):
    calls = 0
    setups = 0

    def setUp(self):
        _Counted.setups += 1

    def runTest(self):
        pass


def _run_decorated(decorator, body):
    _Counted.calls = _Counted.setups = 0

    def method(self):
        _Counted.calls += 1
        body(_Counted.calls)
    return decorator(method)(_Counted())


def test_retry_passes_after_a_failure_with_fresh_setup():
    def body(n):
        assert n >= 2
    _run_decorated(condition.retry(3), body)
    assert _Counted.calls == 2 and _Counted.setups == 2


def test_repeat_fails_with_the_first_error():
    def body(n):
        assert n != 2, 'second trial fails'
    with pytest.raises(AssertionError, match=r'(?s)Fail: 1, Success: 1.*first error message'
                                             r'.*second trial fails'):
        _run_decorated(condition.repeat(3), body)


def test_repeat_with_success_at_least_stops_early():
    _run_decorated(condition.repeat_with_success_at_least(10, 3), lambda n: None)
    assert _Counted.calls == 3
    with pytest.raises(AssertionError):
        condition.repeat_with_success_at_least(2, 3)


@pytest.mark.parametrize('skip', [lambda: pytest.skip('why'),
                                  lambda: (_ for _ in ()).throw(unittest.SkipTest('why'))])
def test_a_skipped_trial_skips_the_test(skip):
    with pytest.raises(unittest.SkipTest, match='why'):
        _run_decorated(condition.retry(5), lambda n: skip())
    assert _Counted.calls == 1


def test_fix_random_on_method_is_reproducible_and_restores_state():
    class T(unittest.TestCase):
        @testing.fix_random()
        def test_draw(self):
            self.values = (np.random.rand(), testing.generate_seed())

    np.random.seed(7)
    random.seed(7)
    expected_next = np.random.rand()
    np.random.seed(7)
    a, b = T('test_draw'), T('test_draw')
    a.test_draw()
    b.test_draw()
    assert a.values == b.values
    assert np.random.rand() == expected_next


def test_fix_random_on_class_wraps_setup_and_teardown(scratch):
    seen = []

    def test_x(self):
        seen.append(np.random.rand())
    base = scratch.case('TestR', {'test_x': test_x})
    testing.parameterize({'p': 1}, {'p': 2})(testing.fix_random()(base))
    for cls in scratch.generated().values():
        assert scratch.run(cls).wasSuccessful()
    assert len(seen) == 2 and seen[0] == seen[1]
    with pytest.raises(AssertionError):
        testing.random.generate_seed()  # only inside a fixed test


def test_with_and_without_requires():
    assert getattr(testing.with_requires('numpy>=1.0')(lambda: None),
                   '__unittest_skip__', False) is False
    skipped = testing.with_requires('numpy<1.0')(lambda: None)
    assert skipped.__unittest_skip__ and 'numpy<1.0' in skipped.__unittest_skip_why__
    assert testing.with_requires('no-such-distribution-xyz')(lambda: None).__unittest_skip__
    assert testing.without_requires('numpy>=1.0')(lambda: None).__unittest_skip__
    assert not getattr(testing.without_requires('numpy<1.0')(lambda: None),
                       '__unittest_skip__', False)


def test_simple_version_specifiers_without_packaging():
    from chainlet.testing import helper
    assert helper._simple_spec_satisfied('>=1.2,<2', '1.10.0')
    assert not helper._simple_spec_satisfied('>=1.2,<2', '2.0')
    assert helper._simple_spec_satisfied('==1.2', '1.2.0')


def test_assert_warns():
    with testing.assert_warns(DeprecationWarning):
        warnings.warn('old', DeprecationWarning)
    with pytest.raises(AssertionError, match='UserWarning not triggerred'):
        with testing.assert_warns(UserWarning):
            pass


def test_patch_wraps_the_original():
    with testing.patch('numpy.linalg.norm') as mock_norm:
        assert np.linalg.norm(np.array([3.0, 4.0])) == 5.0
    assert mock_norm.call_count == 1
    with pytest.raises(RuntimeError, match='Can.t import'):
        testing.patch('no_such_module_xyz.f')


def test_assert_allclose_chainer_semantics():
    testing.assert_allclose(np.zeros((2, 3), np.float32), 0.0)  # broadcasting, any dtype
    testing.assert_allclose([1.0, 2.0], np.array([1.0, 2.0 + 1e-6]))
    with np.errstate(divide='raise'):
        with pytest.raises(AssertionError, match=r'(?s)relative error\[i\]: inf'):
            testing.assert_allclose(np.float32([1]), np.float32([0]))
    with pytest.raises(AssertionError, match='dtype'):
        testing.assert_allclose(np.zeros(2, np.float32), np.zeros(2), check_dtype=True)
    with pytest.raises(AssertionError, match='expected an ndarray'):
        testing.assert_allclose(np.float32(0), np.zeros((), np.float32), check_dtype=True)


def test_as_noncontiguous_array():
    x = np.arange(12.0).reshape(3, 4)
    y = testing.array._as_noncontiguous_array(x)
    assert not y.flags.c_contiguous and (y == x).all() and y.dtype == x.dtype
    a, none, one = testing.array._as_noncontiguous_array((x, None, np.ones((1, 1))))
    assert not a.flags.c_contiguous and none is None and one.shape == (1, 1)


def test_generate_matrix():
    a = testing.generate_matrix((3, 2, 2), np.float64, singular_values=[[1.0, 3.0]])
    s = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(s, np.broadcast_to([3.0, 1.0], (3, 2)), rtol=1e-10)
    assert testing.generate_matrix((0, 2, 3), np.complex64,
                                   singular_values=np.ones((0, 2))).dtype == np.complex64
    for kwargs, error in [({}, TypeError), ({'singular_values': [1, -1]}, ValueError),
                          ({'singular_values': np.ones(3)}, ValueError),
                          ({'singular_values': 1j}, TypeError),
                          ({'singular_values': 1, 'seed': 0}, TypeError)]:
        with pytest.raises(error):
            testing.generate_matrix((2, 2), **kwargs)
    with pytest.raises(TypeError):
        testing.generate_matrix((2, 2), np.int32, singular_values=1)
    with pytest.raises(ValueError):
        testing.generate_matrix((2,), singular_values=1)
    assert matrix._broadcast_to(1, (2,)).shape == (2,)


@pytest.mark.parametrize('stop,iter_per_epoch,iterations', [
    ((5, 'iteration'), 2, 5), ((2, 'epoch'), 1.5, 3)])
def test_trainer_with_mock_updater(stop, iter_per_epoch, iterations):
    seen = []
    trainer = testing.get_trainer_with_mock_updater(stop, iter_per_epoch,
                                                    extensions=[lambda t: seen.append(1)])
    trainer.run()
    updater = trainer.updater
    assert updater.iteration == iterations == len(seen)
    assert updater.epoch_detail == iterations / iter_per_epoch
    assert updater.previous_epoch_detail == (iterations - 1) / iter_per_epoch
    assert updater.update_core.call_count == iterations


def test_save_and_load_npz():
    src, dst = L.Linear(2, 3), L.Linear(2, 3)
    testing.save_and_load_npz(src, dst)
    np.testing.assert_array_equal(src.W.array, dst.W.array)


def test_attr_marks_and_run_module():
    @attr.slow
    def test_a():
        pass

    @attr.multi_gpu(2)
    def test_b():
        pass
    assert [m.name for m in test_a.pytestmark] == ['slow']
    assert [m.name for m in test_b.pytestmark] == ['gpu']
    assert attr.is_available() and attr.get_error() is None
    assert testing.run_module('not_main', __file__) is None


def test_lazy_attributes():
    assert testing.serializer.save_and_load is testing.save_and_load
    with pytest.raises(AttributeError):
        testing.no_such_helper
