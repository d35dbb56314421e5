"""Optimizer core behaviours taken from Chainer 7: loss scaling, reallocated gradients, user
rules on uninitialized parameters, float16 intermediates, state deserialization, pickling."""
import pickle

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import optimizer, optimizers


def _link(*arrays):
    link = chainlet.Link()
    with link.init_scope():
        for i, a in enumerate(arrays):
            setattr(link, f'p{i}', chainlet.Parameter(a))
    return link


def test_setup_refuses_non_links_with_chainers_words():
    with pytest.raises(TypeError, match='optimization target must be a link'):
        optimizers.SGD().setup('model')


@pytest.mark.parametrize('kwargs, words', [({'interval': 0}, 'argument interval'),
                                           ({'scale': -1}, 'argument scale'),
                                           ({'scale': 0}, 'argument scale')])
def test_loss_scaling_arguments(kwargs, words):
    opt = optimizers.SGD().setup(_link(np.zeros(2, np.float32)))
    with pytest.raises(ValueError, match=words):
        opt.loss_scaling(**kwargs)


def test_static_loss_scale_gives_the_unscaled_update():
    w = np.array([1.0, 2.0], np.float32)
    plain, scaled = _link(w.copy()), _link(w.copy())
    x = np.array([3.0, -1.0], np.float32)
    for link, scale in ((plain, None), (scaled, 128.0)):
        opt = optimizers.SGD(lr=0.1).setup(link)
        if scale is not None:
            opt.set_loss_scale(scale)
        opt.update(lambda: F.sum(link.p0 * x))
    np.testing.assert_allclose(scaled.p0.array, plain.p0.array, rtol=1e-6)
    np.testing.assert_allclose(plain.p0.array, w - 0.1 * x, rtol=1e-6)


def test_dynamic_loss_scale_skips_overflowing_steps_and_adapts():
    link = _link(np.array([1.0], np.float32))
    opt = optimizers.SGD(lr=1.0).setup(link)
    opt.loss_scaling(interval=2)
    opt.update(lambda: F.sum(link.p0 * 2.0))
    assert opt._loss_scale == 2.0  # doubled after a clean step
    np.testing.assert_allclose(link.p0.array, [-1.0])
    link.p0.grad = np.array([np.inf], np.float32)
    with pytest.warns(UserWarning, match='Non finite number'):
        opt.update()
    np.testing.assert_allclose(link.p0.array, [-1.0])  # the step was skipped
    assert opt._loss_scale == 1.0  # halved
    link.p0.grad = np.array([0.0], np.float32)
    opt.update()
    assert opt._loss_scale == pytest.approx(2 ** 0.5)  # grows slowly after an overflow


def test_hooks_see_zero_gradients_after_cleargrad():
    link = _link(np.ones(3, np.float32))
    opt = optimizers.SGD().setup(link)
    seen = []

    def clear(opt):
        for p in opt.target.params():
            p.cleargrad()
    clear.name = 'clear'

    def look(opt):
        seen.append(opt.target.p0.grad.copy())
    look.name = 'look'
    opt.add_hook(clear)
    opt.add_hook(look)
    opt.update()
    np.testing.assert_array_equal(seen[0], np.zeros(3, np.float32))


def test_user_rule_runs_on_uninitialized_parameters():
    calls = []

    class Rule(optimizer.UpdateRule):
        def update_core_cpu(self, param):
            calls.append(param.array is None)

    class Opt(optimizer.GradientMethod):
        def create_update_rule(self):
            return Rule()

    link = chainlet.Link()
    with link.init_scope():
        link.lazy = chainlet.Parameter()
        link.w = chainlet.Parameter(np.ones(2, np.float32))
    Opt().setup(link).update()
    assert calls == [True, False]  # visited sorted by name, as in Chainer


def test_instance_update_core_override_is_used():
    rule = optimizers.SGDRule(lr=1.0)
    called = []
    rule.update_core = called.append
    var = chainlet.Variable(np.ones(2, np.float32))
    var.grad = np.ones(2, np.float32)
    rule.update(var)
    assert called == [var] and rule.t == 1


@pytest.mark.parametrize('make', [lambda: optimizers.Adam(alpha=0.01),
                                  lambda: optimizers.AdaGrad(lr=0.01),
                                  lambda: optimizers.RMSprop(lr=0.01)])
def test_float16_parameters_update_through_float32(make):
    w16 = np.array([1.0, -1.0, 0.5], np.float16)
    g = np.array([0.5, -0.25, 0.0], np.float32)  # squares stay normal in float16
    link16, link32 = _link(w16.copy()), _link(w16.astype(np.float32))
    for link, dtype in ((link16, np.float16), (link32, np.float32)):
        opt = make().setup(link)
        for _ in range(3):
            link.p0.grad = g.astype(dtype)
            opt.update()
    assert link16.p0.array.dtype == np.float16
    assert all(v.dtype == np.float16 for v in link16.p0.update_rule.state.values())
    np.testing.assert_allclose(link16.p0.array, link32.p0.array, atol=5e-3)
    assert np.isfinite(link16.p0.array).all()


def test_deserializing_state_keys_from_an_init_state_writing_to_self_state():
    class Rule(optimizer.UpdateRule):
        def init_state(self, param):
            self.state['a'] = 0
            self.state['b'] = np.zeros(3, np.float32)

    class Loader(chainlet.serializers.Deserializer):
        def __init__(self, target):
            self.target = target

        def __getitem__(self, key):
            raise KeyError(key)

        def __call__(self, key, value):
            return self.target[key] if value is None else type(value)(self.target[key])

    rule = Rule()
    rule.serialize(Loader({'t': 5, 'a': 1, 'b': np.arange(3.0)}))
    assert rule.t == 5 and rule.state['a'] == 1
    np.testing.assert_array_equal(rule.state['b'], np.arange(3.0))
    missing = Rule()
    with pytest.raises(KeyError):
        missing.serialize(Loader({'t': 1, 'a': 1}))
    assert missing.state is None


def test_pickled_optimizer_resumes_with_its_rules():
    link = _link(np.array([1.0, 2.0], np.float32))
    opt = optimizers.MomentumSGD(lr=0.1).setup(link)
    link.p0.grad = np.ones(2, np.float32)
    opt.update()
    clone = pickle.loads(pickle.dumps(opt))
    for o in (opt, clone):
        o.target.p0.grad = np.ones(2, np.float32)
        o.update()
    np.testing.assert_array_equal(clone.target.p0.array, opt.target.p0.array)
    assert clone.target.p0.update_rule.t == 2


def test_update_core_chainerx_is_unavailable():
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        optimizers.SGDRule().update_core_chainerx(None)
