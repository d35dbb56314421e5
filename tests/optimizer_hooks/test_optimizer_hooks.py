"""Optimizer hooks against NumPy references, as optimizer hooks and as update-rule hooks."""
import numpy as np
import pytest

import chainlet
from chainlet import optimizer_hooks, optimizers


class TwoParams(chainlet.Link):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        with self.init_scope():
            self.w = chainlet.Parameter(rng.normal(size=(3, 4)).astype(np.float32))
            self.b = chainlet.Parameter(rng.normal(size=(5,)).astype(np.float64))


def _grads(seed=1):
    rng = np.random.default_rng(seed)
    return {'w': rng.normal(size=(3, 4)).astype(np.float32),
            'b': rng.normal(size=(5,)).astype(np.float64)}


def _run_sgd(hook, as_rule_hook=False, grads=None):
    """One SGD(lr=1) step with ``hook``; returns (start, grads, new params)."""
    model = TwoParams()
    opt = optimizers.SGD(lr=1.0).setup(model)
    if as_rule_hook:
        for p in model.params():
            p.update_rule.add_hook(hook)
    else:
        opt.add_hook(hook)
    start = {'w': model.w.array.astype(np.float64), 'b': model.b.array.copy()}
    grads = grads or _grads()
    model.w.grad = grads['w'].copy()
    model.b.grad = grads['b'].copy()
    opt.update()
    assert model.w.array.dtype == np.float32 and model.w.grad.dtype == np.float32
    return start, {k: v.astype(np.float64) for k, v in grads.items()}, \
        {'w': model.w.array, 'b': model.b.array}


def _check(result, expected, rtol64=1e-12):
    np.testing.assert_allclose(result['w'], expected['w'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result['b'], expected['b'], rtol=rtol64, atol=1e-14)


@pytest.mark.parametrize('as_rule_hook', [False, True])
def test_weight_decay(as_rule_hook):
    start, g, result = _run_sgd(optimizer_hooks.WeightDecay(0.3), as_rule_hook)
    _check(result, {k: start[k] - (g[k] + 0.3 * start[k]) for k in start})


@pytest.mark.parametrize('as_rule_hook', [False, True])
def test_lasso(as_rule_hook):
    start, g, result = _run_sgd(optimizer_hooks.Lasso(0.3), as_rule_hook)
    _check(result, {k: start[k] - (g[k] + 0.3 * np.sign(start[k])) for k in start})


@pytest.mark.parametrize('as_rule_hook', [False, True])
def test_gradient_hard_clipping(as_rule_hook):
    start, g, result = _run_sgd(optimizer_hooks.GradientHardClipping(-0.2, 0.5), as_rule_hook)
    _check(result, {k: start[k] - np.clip(g[k], -0.2, 0.5) for k in start})
    with pytest.raises(ValueError, match='lower_bound'):
        optimizer_hooks.GradientHardClipping(1.0, 0.0)


@pytest.mark.parametrize('threshold', [0.5, 100.0])
def test_gradient_clipping_uses_global_norm(threshold):
    start, g, result = _run_sgd(optimizer_hooks.GradientClipping(threshold))
    norm = np.sqrt(sum(np.sum(v ** 2) for v in g.values()))
    rate = min(1.0, threshold / norm)
    assert (rate < 1) == (threshold == 0.5)
    # The float32 gradient's squared norm is summed in float32 (a BLAS dot, as Chainer).
    _check(result, {k: start[k] - rate * g[k] for k in start}, rtol64=1e-6)


def test_gradient_clipping_ignores_missing_grads_and_is_not_a_rule_hook():
    model = TwoParams()
    opt = optimizers.SGD(lr=1.0).setup(model)
    opt.add_hook(optimizer_hooks.GradientClipping(1.0))
    model.b.grad = np.full(5, 2.0)
    before = model.b.array.copy()
    opt.update()
    np.testing.assert_allclose(model.b.array, before - 2.0 / np.sqrt(20.0))
    assert not getattr(optimizer_hooks.GradientClipping, 'call_for_each_param', False)


@pytest.mark.parametrize('as_rule_hook', [False, True])
@pytest.mark.parametrize('weight_decay, threshold', [(0.0, 1e-2), (0.1, 1e-2), (0.1, 1e3)])
def test_gradient_lars(as_rule_hook, weight_decay, threshold):
    hook = optimizer_hooks.GradientLARS(threshold=threshold, weight_decay=weight_decay,
                                        eps=1e-9)
    start, g, result = _run_sgd(hook, as_rule_hook)
    expected = {}
    for k in start:
        p_norm, g_norm = np.linalg.norm(start[k]), np.linalg.norm(g[k])
        rate = p_norm / (1e-9 + g_norm + weight_decay * p_norm) if p_norm > threshold else 1.0
        expected[k] = start[k] - rate * (g[k] + weight_decay * start[k])
    _check(result, expected)


def test_gradient_lars_defaults():
    hook = optimizer_hooks.GradientLARS()
    assert (hook.threshold, hook.weight_decay, hook.eps) == (1e-2, 0.0, 1e-9)


@pytest.mark.parametrize('as_rule_hook', [False, True])
def test_gradient_noise_default_function(as_rule_hook):
    np.random.seed(3)
    start, g, result = _run_sgd(optimizer_hooks.GradientNoise(0.05), as_rule_hook)
    # As an optimizer hook it runs before the rule counts the step (t = 0); as a rule hook,
    # after (t = 1), as in Chainer.
    t = 1 if as_rule_hook else 0
    std = np.sqrt(0.05 / (1 + t) ** 0.55)
    np.random.seed(3)
    noise_b = np.random.normal(0, std, (5,))  # parameters are visited sorted by name
    noise_w = np.random.normal(0, std, (3, 4)).astype(np.float32)
    _check(result, {'w': start['w'] - (g['w'] + noise_w), 'b': start['b'] - (g['b'] + noise_b)})


def test_gradient_noise_custom_function():
    calls = []

    def constant(xp, shape, dtype, hook, rule):
        calls.append((shape, dtype, hook.eta, rule.t))
        return xp.full(shape, 0.25, dtype)

    start, g, result = _run_sgd(optimizer_hooks.GradientNoise(2.0, noise_func=constant))
    _check(result, {k: start[k] - (g[k] + 0.25) for k in start})
    assert calls == [((5,), np.float64, 2.0, 0), ((3, 4), np.float32, 2.0, 0)]


def test_hooks_skip_uninitialized_parameters():
    model = TwoParams()
    with model.init_scope():
        model.lazy = chainlet.Parameter()
    opt = optimizers.SGD(lr=1.0).setup(model)
    for hook in (optimizer_hooks.WeightDecay(0.1), optimizer_hooks.Lasso(0.1),
                 optimizer_hooks.GradientHardClipping(-1, 1), optimizer_hooks.GradientNoise(1),
                 optimizer_hooks.GradientLARS(), optimizer_hooks.GradientClipping(1.0)):
        opt.add_hook(hook)
    opt.update()
    assert model.lazy.array is None


def test_cleared_gradients_become_zeros_for_the_hooks():
    # As in Chainer: a missing gradient is zeros, so weight decay still shrinks the weight.
    model = TwoParams()
    opt = optimizers.SGD(lr=1.0).setup(model)
    opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    before = model.w.array.copy()
    opt.update()
    np.testing.assert_allclose(model.w.array, 0.9 * before, rtol=1e-6)


def test_hook_names_and_timing():
    for cls, args in [(optimizer_hooks.WeightDecay, (1,)), (optimizer_hooks.Lasso, (1,)),
                      (optimizer_hooks.GradientClipping, (1,)),
                      (optimizer_hooks.GradientHardClipping, (-1, 1)),
                      (optimizer_hooks.GradientNoise, (1,)), (optimizer_hooks.GradientLARS, ())]:
        hook = cls(*args)
        assert hook.name == cls.__name__ and hook.timing == 'pre'


def test_weight_decay_after_update_with_post_timing():
    model = TwoParams()
    opt = optimizers.SGD(lr=1.0).setup(model)
    opt.add_hook(optimizer_hooks.WeightDecay(0.5), timing='post')
    grads = _grads()
    model.b.grad = grads['b'].copy()
    start = model.b.array.copy()
    opt.update()
    np.testing.assert_allclose(model.b.array, start - grads['b'])
    # It changed the gradient after the update, for the next one.
    np.testing.assert_allclose(model.b.grad, grads['b'] + 0.5 * model.b.array)


def test_sum_sqnorm_helper_of_gradient_clipping():
    from chainlet.optimizer_hooks import gradient_clipping
    x = np.linspace(-1.0, 1.5, num=6).astype(np.float32).reshape(2, 3)
    assert gradient_clipping._sum_sqnorm([x]) == pytest.approx(4.75)
    assert gradient_clipping._sum_sqnorm([np.array(2.0)]) == pytest.approx(4.0)
    assert gradient_clipping._sum_sqnorm(x) == pytest.approx(4.75)  # rows of one array
    assert isinstance(gradient_clipping._sum_sqnorm([x, np.array(2.0)]), float)
