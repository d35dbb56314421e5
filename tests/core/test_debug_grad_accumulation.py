"""Debug mode warns where backward adds to a gradient nobody cleared (issue 32).

Gradients accumulate into ``.grad`` until ``cleargrads()``, as in Chainer: a second backward
doubles them, a forgotten ``cleargrads()`` keeps applying a stale gradient, and a new link's
NaN-filled gradients turn the weights into NaN. Outside debug mode nothing changes.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import optimizers


@pytest.fixture
def debug():
    with chainlet.using_config('debug', True):
        yield


def _loss(model):
    return F.sum(model(np.ones((4, 3), np.float32)))


def _model():
    np.random.seed(0)
    model = L.Linear(3, 2)
    return model, optimizers.SGD(lr=0.1).setup(model)


def test_a_new_links_nan_gradient_is_named(debug):
    model, _ = _model()
    match = (r'gradients of <variable W>, <variable b> are added to the NaN gradient a new '
             r'parameter starts with.*cleargrads\(\)')
    with pytest.warns(RuntimeWarning, match=match) as record:
        _loss(model).backward()
    assert {w.filename for w in record} == {__file__}  # points at the user's backward line


def test_a_second_backward_without_cleargrads_warns(debug):
    model, _ = _model()
    model.cleargrads()
    _loss(model).backward()
    with pytest.warns(RuntimeWarning, match=r'<variable W>, <variable b> are added to the '
                                            r'ones a previous backward left'):
        _loss(model).backward()
    np.testing.assert_allclose(model.b.grad, [8.0, 8.0])  # still Chainer's sum


def test_a_stale_gradient_after_an_update_is_named(debug):
    model, opt = _model()
    model.cleargrads()
    _loss(model).backward()
    opt.update()
    with pytest.warns(RuntimeWarning, match=r'an optimizer has already applied \(1 update'):
        _loss(model).backward()


def test_the_chainer_loop_is_silent(debug):
    model, opt = _model()
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for _ in range(3):
            model.cleargrads()
            _loss(model).backward()
            opt.update()
        opt.update(lambda: _loss(model))  # update(lossfun) clears the gradients itself
        opt.update(lambda: _loss(model))


def test_an_assigned_or_zeroed_gradient_is_not_warned_about(debug):
    model, _ = _model()
    model.cleargrads()
    model.W.grad = np.ones((2, 3), np.float32)
    model.b.grad = np.ones(2, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        _loss(model).backward()
        with pytest.warns(DeprecationWarning):
            model.W.zerograd()
        model.b.grad = np.zeros(2, np.float32)
        _loss(model).backward()
    np.testing.assert_allclose(model.b.grad, [4.0, 4.0])


def test_chainlet_backward_of_several_outputs_warns_too(debug):
    x = chainlet.Variable(np.ones(2, np.float32))
    chainlet.backward([x * 2], [np.ones(2, np.float32)])
    with pytest.warns(RuntimeWarning, match='previous backward'):
        chainlet.backward([x * 3], [np.ones(2, np.float32)])
    np.testing.assert_allclose(x.grad, [5.0, 5.0])


def test_outside_debug_mode_nothing_is_said():
    model, opt = _model()
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        _loss(model).backward()
        _loss(model).backward()
        opt.update()
        _loss(model).backward()
    assert np.isnan(model.W.array).all()  # Chainer's behaviour, unchanged
