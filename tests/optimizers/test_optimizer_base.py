"""Optimizer, GradientMethod, UpdateRule and Hyperparameter behaviour."""
import copy
import pickle

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import initializers, optimizers
from chainlet.optimizer import (GradientMethod, Hyperparameter, HyperparameterProxy, Optimizer,
                                UpdateRule)


class Affine(chainlet.Link):
    def __init__(self, n_in, n_out, dtype=np.float32):
        super().__init__()
        rng = np.random.default_rng(n_in * 10 + n_out)
        with self.init_scope():
            self.W = chainlet.Parameter(rng.normal(size=(n_in, n_out)).astype(dtype))
            self.b = chainlet.Parameter(np.zeros(n_out, dtype))

    def forward(self, x):
        return x @ self.W + self.b


class Net(chainlet.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Affine(3, 4)
            self.l2 = Affine(4, 2)

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


def _set_grads(model, value=1.0):
    for p in model.params():
        p.grad = np.full(p.shape, value, p.dtype)


def _snapshot(model):
    return {name: p.array.copy() for name, p in model.namedparams()}


# -- Hyperparameter --

def test_hyperparameter_fallback_and_get_dict():
    parent = Hyperparameter()
    parent.lr, parent.momentum = 0.1, 0.9
    child = Hyperparameter(parent)
    child.lr = 0.5
    assert child.momentum == 0.9 and child.lr == 0.5 and child.parent is parent
    assert child.get_dict() == {'lr': 0.5, 'momentum': 0.9}
    assert repr(child) == 'Hyperparameter(lr=0.5, momentum=0.9)'
    with pytest.raises(AttributeError):
        child.nothing
    clone = pickle.loads(pickle.dumps(child))
    assert clone.lr == 0.5 and clone.momentum == 0.9
    assert copy.deepcopy(child).get_dict() == child.get_dict()


def test_hyperparameter_proxy():
    opt = optimizers.MomentumSGD(lr=0.2)
    assert isinstance(optimizers.MomentumSGD.lr, HyperparameterProxy)
    assert opt.lr == 0.2 and opt.hyperparam.lr == 0.2
    opt.momentum = 0.5
    assert opt.hyperparam.momentum == 0.5


def test_optimizer_lr_change_reaches_rules_but_not_overrides():
    model = Net()
    opt = optimizers.SGD(lr=0.1).setup(model)
    model.l2.W.update_rule.hyperparam.lr = 0.0  # per-rule override
    opt.lr = 0.5  # after setup: every rule without an override follows
    before = _snapshot(model)
    _set_grads(model)
    opt.update()
    after = _snapshot(model)
    np.testing.assert_allclose(after['/l1/W'], before['/l1/W'] - 0.5, rtol=1e-6)
    np.testing.assert_array_equal(after['/l2/W'], before['/l2/W'])
    assert model.l1.W.update_rule.hyperparam.lr == 0.5


def test_rule_keyword_override():
    rule = optimizers.MomentumSGDRule(lr=0.3)
    assert rule.hyperparam.lr == 0.3 and rule.hyperparam.momentum == 0.9
    assert optimizers.AdamRule(alpha=0.5, amsgrad=True).hyperparam.get_dict()['amsgrad']


# -- setup and update --

def test_setup_creates_one_rule_per_parameter_and_returns_self():
    model = Net()
    opt = optimizers.Adam()
    assert opt.setup(model) is opt
    rules = [p.update_rule for p in model.params()]
    assert len(rules) == 4 and len({id(r) for r in rules}) == 4
    assert all(isinstance(r, optimizers.AdamRule) for r in rules)
    assert all(r.state is None for r in rules)  # created lazily
    assert all(r.hyperparam.parent is opt.hyperparam for r in rules)
    with pytest.raises(TypeError, match='Link'):
        optimizers.SGD().setup(object())


def test_update_before_setup_raises():
    with pytest.raises(RuntimeError, match='setup'):
        optimizers.SGD().update()
    with pytest.raises(RuntimeError, match='setup'):
        optimizers.SGD().add_hook(lambda opt: None)


def test_parameter_without_grad_gets_a_zero_gradient():
    # As in Chainer (reallocate_cleared_grads), a cleared gradient becomes zeros: the rule runs,
    # counts the step and creates its state, and Adam's step on a zero gradient is zero.
    model = Net()
    opt = optimizers.Adam().setup(model)
    before = _snapshot(model)
    model.l1.W.grad = np.ones((3, 4), np.float32)
    opt.update()
    after = _snapshot(model)
    assert not np.allclose(after['/l1/W'], before['/l1/W'])
    for name in ('/l1/b', '/l2/W', '/l2/b'):
        np.testing.assert_array_equal(after[name], before[name])
    np.testing.assert_array_equal(model.l1.b.grad, 0)
    assert model.l1.b.update_rule.state is not None and model.l1.b.update_rule.t == 1
    assert model.l1.W.update_rule.t == 1 and opt.t == 1


def test_uninitialized_parameter_is_left_alone():
    model = chainlet.Link()
    with model.init_scope():
        model.p = chainlet.Parameter()
    opt = optimizers.MomentumSGD().setup(model)
    opt.update()
    assert model.p.array is None and model.p.update_rule.state is None


def test_update_with_lossfun_clears_grads_and_backprops():
    model = Net()
    opt = optimizers.SGD(lr=0.1).setup(model)
    x = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    _set_grads(model, 100.0)  # stale gradients must be cleared, not accumulated

    def lossfun(x, scale=1.0, net=model):
        return F.sum(net(x)) * scale

    ref = copy.deepcopy(model)
    ref.cleargrads()
    lossfun(x, scale=2.0, net=ref).backward()
    expected = {n: p.array - 0.1 * p.grad for n, p in ref.namedparams()}
    opt.update(lossfun, x, scale=2.0)
    for name, p in model.namedparams():
        np.testing.assert_allclose(p.array, expected[name], rtol=1e-5, atol=1e-6)
    assert opt.t == 1


def test_lazy_parameter_gets_state_on_first_grad():
    link = chainlet.Link()
    with link.init_scope():
        link.p = chainlet.Parameter(initializers.Constant(1.0))  # uninitialized
    opt = optimizers.MomentumSGD(lr=0.5, momentum=0.5).setup(link)
    assert link.p.update_rule is not None
    opt.update()  # no data, no grad: nothing happens
    assert link.p.update_rule.state is None
    link.p.initialize((2,))
    link.p.grad = np.ones(2, np.float32)
    opt.update()
    assert link.p.update_rule.state['v'].shape == (2,)
    np.testing.assert_allclose(link.p.array, [0.5, 0.5])


def test_disable_update_before_setup():
    model = Net()
    model.l1.disable_update()
    opt = optimizers.SGD(lr=1.0).setup(model)
    assert not model.l1.W.update_rule.enabled and model.l2.W.update_rule.enabled
    before = _snapshot(model)
    _set_grads(model)
    opt.update()
    after = _snapshot(model)
    np.testing.assert_array_equal(after['/l1/W'], before['/l1/W'])
    np.testing.assert_allclose(after['/l2/W'], before['/l2/W'] - 1.0)


def test_disable_update_after_setup_and_enable_again():
    model = Net()
    opt = optimizers.SGD(lr=1.0).setup(model)
    model.disable_update()
    before = _snapshot(model)
    _set_grads(model)
    opt.update()
    for name, value in _snapshot(model).items():
        np.testing.assert_array_equal(value, before[name])
    model.l2.enable_update()
    opt.update()
    after = _snapshot(model)
    np.testing.assert_array_equal(after['/l1/b'], before['/l1/b'])
    np.testing.assert_allclose(after['/l2/b'], before['/l2/b'] - 1.0)


def test_shared_parameter_updated_once():
    shared = Affine(2, 2)
    model = chainlet.Chain()
    with model.init_scope():
        model.a = shared
        model.b = copy.copy(shared)  # a different link object holding the same parameters
    opt = optimizers.SGD(lr=1.0).setup(model)
    before = shared.W.array.copy()
    _set_grads(model)
    opt.update()
    np.testing.assert_allclose(shared.W.array, before - 1.0)


def test_new_epoch():
    opt = optimizers.SGD().setup(Net())
    opt.new_epoch()
    opt.new_epoch()
    assert opt.epoch == 2
    with pytest.raises(RuntimeError, match='use_auto_new_epoch'):
        opt.new_epoch(auto=True)
    opt.use_auto_new_epoch = True
    opt.new_epoch(auto=True)
    assert opt.epoch == 3
    with pytest.raises(RuntimeError, match='updater'):
        opt.new_epoch()
    opt.setup(Net())
    assert opt.epoch == 0 and opt.t == 0


def test_float32_state_stays_float32_with_numpy_float64_hyperparameters():
    link = chainlet.Link()
    with link.init_scope():
        link.p = chainlet.Parameter(np.ones(3, np.float32))
    opt = optimizers.Adam(alpha=np.float64(0.1), beta1=np.float64(0.9)).setup(link)
    opt.weight_decay_rate = np.float64(0.01)
    for _ in range(2):
        link.p.grad = np.ones(3, np.float32)
        opt.update()
    assert link.p.array.dtype == np.float32
    assert all(v.dtype == np.float32 for v in link.p.update_rule.state.values())


def test_update_is_in_place():
    model = Net()
    opt = optimizers.RMSpropGraves().setup(model)
    arrays = [p.array for p in model.params()]
    _set_grads(model)
    opt.update()
    state = dict(model.l1.W.update_rule.state)
    opt.update()
    assert all(p.array is a for p, a in zip(model.params(), arrays))
    assert all(model.l1.W.update_rule.state[k] is v for k, v in state.items())


# -- hooks --

def test_optimizer_hooks_pre_post_order_and_removal():
    model = Net()
    opt = optimizers.SGD(lr=1.0).setup(model)
    log = []

    def pre(o):
        log.append(('pre', o.t, float(model.l1.b.array[0])))

    def post(o):
        log.append(('post', o.t, float(model.l1.b.array[0])))

    opt.add_hook(pre)
    opt.add_hook(post, timing='post')
    _set_grads(model)
    opt.update()
    assert log == [('pre', 0, 0.0), ('post', 1, -1.0)]
    with pytest.raises(KeyError, match='pre'):
        opt.add_hook(pre)
    with pytest.raises(ValueError, match='timing'):
        opt.add_hook(pre, name='other', timing='later')
    with pytest.raises(TypeError, match='callable'):
        opt.add_hook(3)
    opt.remove_hook('pre')
    opt.remove_hook('post')
    with pytest.raises(KeyError):
        opt.remove_hook('pre')
    opt.update()
    assert len(log) == 2
    with pytest.raises(ValueError, match='timing'):
        opt.call_hooks('middle')


def test_per_param_optimizer_hook_gets_rule_and_param():
    model = Net()
    opt = optimizers.SGD().setup(model)
    seen = []

    class Hook:
        name = 'Spy'
        call_for_each_param = True
        timing = 'post'

        def __call__(self, rule, param):
            seen.append((rule is param.update_rule, param.name))

    opt.add_hook(Hook())
    _set_grads(model)
    opt.update()
    assert seen == [(True, 'W'), (True, 'b'), (True, 'W'), (True, 'b')]


def test_update_rule_hooks():
    link = chainlet.Link()
    with link.init_scope():
        link.p = chainlet.Parameter(np.zeros(2, np.float32))
    optimizers.SGD(lr=1.0).setup(link)
    rule = link.p.update_rule
    calls = []

    def double(rule, param):
        calls.append(('pre', rule.t))
        param.grad *= 2

    def after(rule, param):
        calls.append(('post', float(param.array[0])))

    rule.add_hook(double)
    rule.add_hook(after, timing='post')
    with pytest.raises(ValueError, match='double'):
        rule.add_hook(double)
    link.p.grad = np.ones(2, np.float32)
    link.p.update()
    assert calls == [('pre', 1), ('post', -2.0)]
    rule.remove_hook('double')
    rule.remove_hook('after')
    with pytest.raises(KeyError):
        rule.remove_hook('after')


# -- serialization --

class DictSerializer:
    """Chainer's serializer protocol over a flat dict, saving side."""

    def __init__(self, target, path=''):
        self.target, self.path = target, path

    def __getitem__(self, key):
        return type(self)(self.target, self.path + key.strip('/') + '/')

    def __call__(self, key, value):
        self.target[self.path + key] = np.array(value, copy=True)
        return value


class Deserializer:
    pass


class DictDeserializer(Deserializer):
    def __init__(self, target, path=''):
        self.target, self.path = target, path

    def __getitem__(self, key):
        return type(self)(self.target, self.path + key.strip('/') + '/')

    def __call__(self, key, value):
        stored = self.target[self.path + key]  # KeyError when missing, as Chainer's npz
        if value is None:
            return stored.copy()
        if isinstance(value, np.ndarray):
            np.copyto(value, stored)
            return value
        return type(value)(stored)


def _train(model, opt, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        for p in model.params():
            p.grad = rng.normal(size=p.shape).astype(p.dtype)
        opt.update()


def test_serialization_round_trip_continues_identically():
    model = Net()
    opt = optimizers.Adam(alpha=0.01, amsgrad=True).setup(model)
    _train(model, opt, 2, seed=0)
    opt.new_epoch()
    store = {}
    opt.serialize(DictSerializer(store))
    assert {'t', 'epoch', 'l1/W/t', 'l1/W/m', 'l1/W/v', 'l1/W/vhat', 'l2/b/m'} <= set(store)
    assert int(store['t']) == 2 and int(store['epoch']) == 1

    model2 = copy.deepcopy(model)
    opt2 = optimizers.Adam(alpha=0.01, amsgrad=True).setup(model2)
    opt2.serialize(DictDeserializer(store))
    assert opt2.t == 2 and opt2.epoch == 1 and model2.l1.W.update_rule.t == 2
    np.testing.assert_array_equal(model2.l1.W.update_rule.state['m'],
                                  model.l1.W.update_rule.state['m'])
    _train(model, opt, 2, seed=5)
    _train(model2, opt2, 2, seed=5)
    for (name, p), p2 in zip(model.namedparams(), model2.params()):
        np.testing.assert_array_equal(p.array, p2.array, err_msg=name)

    # Loading into an optimizer that already has state overwrites it in place.
    m = opt.target.l1.W.update_rule.state['m']
    opt.serialize(DictDeserializer(store))
    assert opt.target.l1.W.update_rule.state['m'] is m
    np.testing.assert_array_equal(m, store['l1/W/m'])


def test_deserialize_missing_state_of_disabled_rule_leaves_it_lazy():
    model = Net()
    opt = optimizers.MomentumSGD().setup(model)
    model.l1.W.grad = np.ones((3, 4), np.float32)
    opt.update()
    store = {}
    opt.serialize(DictSerializer(store))
    del store['l1/b/v']  # a snapshot taken before l1/b had state
    model2 = Net()
    model2.disable_update()
    opt2 = optimizers.MomentumSGD().setup(model2)
    model2.l1.W.update_rule.enabled = True
    opt2.serialize(DictDeserializer(store))
    assert model2.l1.W.update_rule.state is not None
    assert model2.l1.b.update_rule.state is None  # its snapshot had no 'v'
    with pytest.raises(KeyError):  # an enabled rule whose state is missing is an error
        optimizers.MomentumSGD().setup(Net()).serialize(DictDeserializer(store))


def test_stateless_rule_serializes_only_t():
    model = Net()
    opt = optimizers.SGD().setup(model)
    _train(model, opt, 1, seed=0)
    store = {}
    opt.serialize(DictSerializer(store))
    assert sorted(k for k in store if k.startswith('l1/W')) == ['l1/W/t']


def test_deepcopy_and_pickle_of_optimizer():
    model = Net()
    opt = optimizers.Adam().setup(model)
    _train(model, opt, 1, seed=0)
    clone = copy.deepcopy(opt)
    assert clone.t == 1 and clone.alpha == opt.alpha
    restored = pickle.loads(pickle.dumps(opt))
    assert restored.hyperparam.beta1 == 0.9


# -- custom optimizers built on the base classes --

def test_custom_rule_with_update_core_override():
    class SignRule(UpdateRule):
        def update_core(self, param):
            param.array -= self.hyperparam.lr * np.sign(param.grad)

    class SignSGD(GradientMethod):
        lr = HyperparameterProxy('lr')

        def __init__(self, lr=0.1):
            super().__init__()
            self.hyperparam.lr = lr

        def create_update_rule(self):
            return SignRule(self.hyperparam)

    link = chainlet.Link()
    with link.init_scope():
        link.p = chainlet.Parameter(np.zeros(2, np.float32))
    opt = SignSGD(lr=0.25).setup(link)
    link.p.grad = np.array([3.0, -0.5], np.float32)
    opt.update()
    np.testing.assert_allclose(link.p.array, [-0.25, 0.25])
    with pytest.raises(NotImplementedError):
        GradientMethod().create_update_rule()
    with pytest.raises(NotImplementedError):
        Optimizer().update()


def test_loaded_state_is_cast_to_parameter_dtype_on_next_update():
    link = chainlet.Link()
    with link.init_scope():
        link.p = chainlet.Parameter(np.zeros(2, np.float32))
    opt = optimizers.MomentumSGD(lr=1.0, momentum=0.5).setup(link)
    store = {'t': np.array(3), 'epoch': np.array(0), 'p/t': np.array(3),
             'p/v': np.array([2.0, -2.0])}  # float64, e.g. written by another tool
    opt.serialize(DictDeserializer(store))
    assert link.p.update_rule.t == 3 and link.p.update_rule.state['v'].dtype == np.float64
    link.p.grad = np.ones(2, np.float32)
    opt.update()
    state = link.p.update_rule.state['v']
    assert state.dtype == np.float32
    np.testing.assert_allclose(state, [0.0, -2.0])
    np.testing.assert_allclose(link.p.array, [0.0, -2.0])
    assert link.p.update_rule.t == 4


def test_use_fp32_update_keeps_small_steps_in_a_float32_master():
    link = chainlet.Link()
    with link.init_scope():
        link.p = chainlet.Parameter(np.ones(2, np.float16))
    opt = optimizers.SGD(lr=1e-4).setup(link)
    opt.use_fp32_update()
    array = link.p.array
    for _ in range(10):
        link.p.grad = np.ones(2, np.float16)
        opt.update()
    # Each step (1e-4) is below float16's resolution at 1.0 (~1e-3); the master sums them.
    master = link.p.update_rule._fp32_param.array
    assert master.dtype == np.float32
    np.testing.assert_allclose(master, 1 - 1e-3, rtol=1e-6)
    assert link.p.array is array and link.p.array.dtype == np.float16
    np.testing.assert_allclose(link.p.array, np.float16(1 - 1e-3))
    # Without it, every step rounds back to 1.
    plain = chainlet.Link()
    with plain.init_scope():
        plain.p = chainlet.Parameter(np.ones(2, np.float16))
    opt = optimizers.SGD(lr=1e-4).setup(plain)
    for _ in range(10):
        plain.p.grad = np.ones(2, np.float16)
        opt.update()
    np.testing.assert_array_equal(plain.p.array, 1.0)


def test_deprecated_aliases_warn():
    from chainlet import optimizer, optimizer_hooks
    with pytest.warns(DeprecationWarning, match='optimizer_hooks.WeightDecay'):
        hook = optimizer.WeightDecay(0.1)
    assert isinstance(hook, optimizer_hooks.WeightDecay) and hook.rate == 0.1
    with pytest.raises(AttributeError):
        optimizer.NoSuchHook
    opt = optimizers.SGD(lr=1.0).setup(Net())
    with pytest.warns(DeprecationWarning):
        opt.use_cleargrads(False)
    model = opt.target
    x = np.ones((2, 3), np.float32)
    _set_grads(model, 0.0)
    with pytest.warns(DeprecationWarning, match='zerograds'):
        opt.update(lambda: F.sum(model(x)))  # zerograds: still correct with zero grads
    assert opt.t == 1
