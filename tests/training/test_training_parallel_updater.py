from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import backend, iterators, optimizers, reporter, serializers, training
from chainlet.training import extensions
from chainlet.training.updaters import ParallelUpdater, StandardUpdater

CPU2 = {'main': '@numpy', 'second': '@numpy'}


class Regressor(chainlet.Chain):
    """float64 linear regression; the loss is the mean squared error over the batch."""

    def __init__(self, n_in=3, seed=0):
        super().__init__()
        w = np.random.RandomState(seed).normal(0, 0.5, (2, n_in))
        with self.init_scope():
            self.fc = L.Linear(n_in, 2, initialW=w, initial_bias=0.1)

    def forward(self, x, t):
        loss = F.mean_squared_error(self.fc(x), t)
        chainlet.reporter.report({'loss': loss}, self)
        return loss


def regression_data(n=8, n_in=3, seed=1):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, n_in))
    t = rng.normal(size=(n, 2))
    return list(zip(x, t))


def build(updater_cls=ParallelUpdater, lr=0.1, n=8, batch_size=8, model=None, **kwargs):
    model = Regressor() if model is None else model
    optimizer = optimizers.SGD(lr=lr).setup(model)
    it = iterators.SerialIterator(regression_data(n), batch_size, shuffle=False)
    if updater_cls is ParallelUpdater:
        kwargs.setdefault('devices', CPU2)
    return model, optimizer, updater_cls(it, optimizer, **kwargs)


def params(model):
    return {name: backend.to_cpu(p.array).copy() for name, p in model.namedparams()}


def mean_grads(model, part):
    """Gradients of the part's mean loss, on a throwaway copy of ``model``."""
    model = copy.deepcopy(model)
    model.cleargrads()
    model(*chainlet.dataset.concat_examples(part)).backward()
    return {name: p.grad.copy() for name, p in model.namedparams()}


def test_gradient_is_the_sum_of_the_part_means():
    model, _, updater = build()
    before = copy.deepcopy(model)
    batch = regression_data(8)
    # Model i gets examples i, i + 2, ... (as in Chainer); each part's loss is its own mean,
    # and the main model receives the sum of the two parts' gradients.
    even, odd = mean_grads(before, batch[0::2]), mean_grads(before, batch[1::2])
    updater.update()
    for name, p in model.namedparams():
        np.testing.assert_allclose(p.grad, even[name] + odd[name], rtol=1e-12)
        np.testing.assert_allclose(p.array, params(before)[name] - 0.1 * p.grad, rtol=1e-12)


def test_one_update_equals_a_standard_update_with_twice_the_rate():
    # Two equal halves: the sum of the half-batch mean gradients is twice the gradient of
    # the whole batch's mean loss, so SGD(lr) here equals SGD(2 * lr) on the whole batch.
    par_model, par_opt, par = build(lr=0.1)
    std_model, _, std = build(StandardUpdater, lr=0.2)
    for _ in range(3):
        par.update()
        std.update()
    for name, value in params(std_model).items():
        np.testing.assert_allclose(params(par_model)[name], value, rtol=1e-10, atol=1e-12)
    assert par.iteration == 3 and par_opt.t == 3


def test_copies_are_deep_and_equal_after_update():
    model, _, updater = build()
    second = updater._models['second']
    assert second is not model and second.fc.W is not model.fc.W
    assert list(updater._models) == ['main', 'second']
    updater.update()
    for name, value in params(model).items():
        np.testing.assert_array_equal(params(second)[name], value)


def test_reports_of_every_model():
    model, _, updater = build()
    rep = reporter.Reporter()
    rep.add_observer('main', model)
    rep.add_observer('second', updater._models['second'])
    observation = {}
    batch = regression_data(8)
    with rep.scope(observation):
        with chainlet.no_backprop_mode():  # the updater forces backprop mode itself
            updater.update()
    assert set(observation) == {'main/loss', 'second/loss'}
    # Each model reports the loss of its own part (evaluated before the update).
    fresh = Regressor()
    for key, part in (('main/loss', batch[0::2]), ('second/loss', batch[1::2])):
        expected = fresh(*chainlet.dataset.concat_examples(part)).array
        np.testing.assert_allclose(observation[key].array, expected, rtol=1e-12)


def test_in_a_trainer_with_log_report(tmp_path):
    model, optimizer, updater = build(n=16, batch_size=4)
    trainer = training.Trainer(updater, (6, 'iteration'), out=str(tmp_path))
    trainer.extend(extensions.LogReport(trigger=(2, 'iteration')))
    trainer.run()
    log = json.loads((tmp_path / 'log').read_text())
    assert [entry['iteration'] for entry in log] == [2, 4, 6]
    assert {'main/loss', 'second/loss', 'epoch', 'elapsed_time'} <= set(log[-1])
    assert updater.iteration == 6 and optimizer.t == 6
    assert optimizer.epoch == 1  # auto_new_epoch: 4 updates of 4 examples finish epoch 0
    assert log[-1]['main/loss'] < log[0]['main/loss']
    for name, value in params(model).items():
        np.testing.assert_array_equal(params(updater._models['second'])[name], value)


def test_explicit_models_match_devices():
    ref_model, _, ref = build()
    model = Regressor()
    other = copy.deepcopy(model)
    _, _, updater = build(model=model, models={'main': model, 'second': other})
    assert updater._devices == {'main': '@numpy', 'second': '@numpy'}  # taken from the models
    for _ in range(2):
        ref.update()
        updater.update()
    for name, value in params(ref_model).items():
        np.testing.assert_allclose(params(model)[name], value, rtol=1e-12)
        np.testing.assert_array_equal(params(other)[name], params(model)[name])


def test_three_devices_deal_the_batch_round_robin():
    model, _, updater = build(devices={'main': '@numpy', 'b': '@numpy', 'c': '@numpy'},
                              n=9, batch_size=9)
    before = copy.deepcopy(model)
    batch = regression_data(9)
    parts = [mean_grads(before, batch[i::3]) for i in range(3)]
    updater.update()
    for name, p in model.namedparams():
        np.testing.assert_allclose(p.grad, sum(g[name] for g in parts), rtol=1e-12)


def test_lazy_parameters_start_from_the_main_model():
    class Lazy(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.fc = L.Linear(None, 2)  # float32, initialized by the first forward

        def forward(self, x, t):
            y = self.fc(x.astype(np.float32))
            return F.mean_squared_error(y, t.astype(np.float32))

    par_model, _, par = build(model=Lazy())
    std_model, _, std = build(StandardUpdater, lr=0.2, model=Lazy())
    np.random.seed(0)  # the first forward pass draws the initial values
    par.update()
    np.random.seed(0)
    std.update()
    for name, value in params(std_model).items():
        np.testing.assert_allclose(params(par_model)[name], value, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(params(par._models['second'])[name],
                                      params(par_model)[name])


def test_loss_scale_gives_the_same_update():
    ref_model, _, ref = build()
    sc_model, _, sc = build(loss_scale=64.0)
    ref.update()
    sc.update()
    for name, value in params(ref_model).items():
        np.testing.assert_allclose(params(sc_model)[name], value, rtol=1e-12)


def test_resume_gives_the_copies_the_loaded_parameters(tmp_path):
    model, _, updater = build()
    updater.update()
    serializers.save_npz(str(tmp_path / 'snap.npz'), updater)
    fresh_model, _, fresh = build()
    serializers.load_npz(str(tmp_path / 'snap.npz'), fresh)
    assert fresh.iteration == 1
    for name, value in params(model).items():
        np.testing.assert_array_equal(params(fresh_model)[name], value)
    # The copies take the loaded values before the next update computes anything.
    updater.update()
    fresh.update()
    for name, value in params(model).items():
        np.testing.assert_array_equal(params(fresh_model)[name], value)
        np.testing.assert_array_equal(params(fresh._models['second'])[name], value)


def test_exports():
    assert training.ParallelUpdater is ParallelUpdater
    assert training.updater.ParallelUpdater is ParallelUpdater
    assert issubclass(ParallelUpdater, StandardUpdater)


@pytest.mark.parametrize('kwargs, error, match', [
    ({'devices': None}, ValueError, 'ParallelUpdater: give either models or devices'),
    ({'devices': ['@numpy', '@numpy']}, TypeError, 'ParallelUpdater: argument devices: '
                                                   'expected a dict'),
    ({'devices': {'a': '@numpy', 'b': '@numpy'}}, ValueError,
     "ParallelUpdater: argument devices: needs a 'main' entry"),
    ({'devices': {'main': '@numpy', 'second': '@tpu:0'}}, ValueError,
     "ParallelUpdater: argument devices: entry 'second'"),
    ({'devices': {'main': '@numpy', 'second': True}}, TypeError,
     "ParallelUpdater: argument devices: entry 'second'"),
    ({'devices': None, 'models': [1]}, TypeError, 'ParallelUpdater: argument models: '
                                                  'expected a dict'),
    ({'devices': None, 'models': {'second': Regressor()}}, ValueError,
     "ParallelUpdater: argument models: needs a 'main' entry"),
    ({'devices': None, 'models': {'main': Regressor()}}, ValueError,
     "ParallelUpdater: argument models: models\\['main'\\] must be"),
    ({'devices': None, 'models': {'main': None, 'second': lambda x: x}}, TypeError,
     'ParallelUpdater: argument models: expected Links'),
    ({'converter': 3}, TypeError, 'ParallelUpdater: argument converter'),
    ({'loss_scale': -1.0}, ValueError, 'ParallelUpdater: argument loss_scale'),
])
def test_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        build(**kwargs)


def test_device_keys_must_match_the_models():
    model = Regressor()
    with pytest.raises(ValueError, match='ParallelUpdater: argument devices: expected the keys'):
        build(model=model, models={'main': model, 'second': copy.deepcopy(model)},
              devices={'main': '@numpy', 'third': '@numpy'})


def test_optimizer_dict_needs_main():
    model = Regressor()
    optimizer = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(regression_data(8), 4)
    with pytest.raises(ValueError, match="ParallelUpdater: argument optimizer: .*'main'"):
        ParallelUpdater(it, {'gen': optimizer}, devices=CPU2)


def test_batch_smaller_than_the_devices():
    _, _, updater = build(n=3, batch_size=1)
    with pytest.raises(ValueError, match='batch has 1 examples, fewer than the 2 devices'):
        updater.update()


@pytest.mark.gpu
@pytest.mark.parametrize('devices', [
    {'main': '@cupy:0', 'second': '@cupy:1'},
    {'main': '@cupy:1', 'second': '@cupy:0'},
    {'main': '@cupy:0', 'second': '@numpy'},
    {'main': '@numpy', 'second': '@cupy:0'},
])
def test_gpu_matches_cpu(devices):
    needed = 1 + max(backend.parse_device_spec(d) for d in devices.values())
    if backend.device_count() < needed:
        pytest.skip(f'needs {needed} GPUs, found {backend.device_count()}')
    cpu_model, _, cpu = build(n=16, batch_size=8)
    gpu_model, gpu_opt, gpu = build(n=16, batch_size=8, devices=devices)
    assert gpu_model.device == devices['main']
    assert gpu._models['second'].device == devices['second']
    for _ in range(3):
        cpu.update()
        gpu.update()
    assert gpu_opt.t == 3
    for name, value in params(cpu_model).items():
        np.testing.assert_allclose(params(gpu_model)[name], value, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(params(gpu._models['second'])[name], value, rtol=1e-10,
                                   atol=1e-12)
    assert gpu._models['second'].fc.W.device == devices['second']
