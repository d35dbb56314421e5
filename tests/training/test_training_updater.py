from __future__ import annotations

import numpy as np
import pytest

import chainlet
from chainlet import iterators, optimizers, reporter, training
from chainlet.training.updaters import StandardUpdater


def build(model_factory, data_factory, batch_size, accumulate=1, loss_scale=None, opt='sgd',
          n=32):
    model = model_factory(0)
    optimizer = (optimizers.SGD(lr=0.5) if opt == 'sgd' else optimizers.Adam()).setup(model)
    it = iterators.SerialIterator(data_factory(n), batch_size, shuffle=False)
    updater = StandardUpdater(it, optimizer, accumulate=accumulate, loss_scale=loss_scale)
    return model, optimizer, updater


def params(model):
    return {name: p.array.copy() for name, p in model.namedparams()}


def test_update_counts_and_progress(model_factory, data_factory):
    model, optimizer, updater = build(model_factory, data_factory, 8)
    assert updater.previous_epoch_detail is None
    for _ in range(4):
        updater.update()
    assert updater.iteration == 4 and optimizer.t == 4
    assert updater.epoch == 1 and updater.is_new_epoch
    assert updater.epoch_detail == 1.0 and updater.previous_epoch_detail == 0.75
    assert optimizer.epoch == 1  # auto_new_epoch
    assert updater.get_optimizer('main') is optimizer
    assert updater.get_all_optimizers() == {'main': optimizer}
    assert updater.get_iterator('main') is updater._iterators['main']
    with pytest.raises(KeyError, match='no optimizer named'):
        updater.get_optimizer('other')


@pytest.mark.parametrize('opt', ['sgd', 'adam'])
def test_accumulate_matches_one_big_batch(model_factory, data_factory, opt):
    big_model, _, big = build(model_factory, data_factory, 8, opt=opt)
    acc_model, acc_opt, acc = build(model_factory, data_factory, 2, accumulate=4, opt=opt)
    obs_big, obs_acc = {}, {}
    for updater, model, obs in ((big, big_model, obs_big), (acc, acc_model, obs_acc)):
        rep = reporter.Reporter()
        rep.add_observer('main', model)
        for _ in range(3):
            with rep.scope(obs):
                updater.update()
    for name, value in params(big_model).items():
        np.testing.assert_allclose(params(acc_model)[name], value, rtol=0, atol=1e-6)
    assert acc.iteration == 3 and acc_opt.t == 3
    assert acc.epoch_detail == big.epoch_detail == 0.75
    assert acc.previous_epoch_detail == 0.5
    # The reported loss is the mean over the micro-batches = the big batch's loss.
    np.testing.assert_allclose(obs_acc['main/loss'], float(obs_big['main/loss'].array),
                               rtol=1e-5)


def test_accumulate_tracks_epoch_crossing(model_factory, data_factory):
    _, optimizer, updater = build(model_factory, data_factory, 4, accumulate=3, n=20)
    updater.update()  # positions 0..12 of 20
    assert not updater.is_new_epoch and optimizer.epoch == 0
    updater.update()  # crosses 20 in the second micro-batch, ends at 4/20 of epoch 1
    assert updater.is_new_epoch and optimizer.epoch == 1
    assert updater.epoch_detail == pytest.approx(1.2)
    assert updater.previous_epoch_detail == pytest.approx(0.6)


def test_loss_scale_gives_the_same_update(model_factory, data_factory):
    ref_model, _, ref = build(model_factory, data_factory, 8)
    sc_model, _, sc = build(model_factory, data_factory, 8, loss_scale=128.0)
    for _ in range(2):
        ref.update()
        sc.update()
    for name, value in params(ref_model).items():
        np.testing.assert_allclose(params(sc_model)[name], value, rtol=1e-6, atol=1e-7)


def test_dict_batches_and_loss_func(model_factory):
    model = model_factory(0)
    optimizer = optimizers.SGD(lr=0.1).setup(model)
    rng = np.random.RandomState(0)
    data = [{'x': rng.rand(4).astype(np.float32), 't': np.int32(i % 3)} for i in range(6)]
    received = []

    def loss_func(x, t):
        received.append((x.shape, t.shape))
        return model(x, t)
    updater = StandardUpdater(iterators.SerialIterator(data, 3, shuffle=False), optimizer,
                              loss_func=loss_func)
    updater.update()
    assert received == [((3, 4), (3,))]


def test_multiple_optimizers_and_serialize_keys(model_factory, data_factory):
    m1, m2 = model_factory(0), model_factory(1)
    o1, o2 = optimizers.SGD().setup(m1), optimizers.SGD().setup(m2)
    it = iterators.SerialIterator(data_factory(8), 4, shuffle=False)
    updater = StandardUpdater({'main': it}, {'main': o1, 'second': o2})
    assert set(updater.get_all_optimizers()) == {'main', 'second'}
    s = chainlet.serializers.DictionarySerializer()
    updater.serialize(s)
    keys = set(s.target)
    assert 'iteration' in keys and 'iterator:main/current_position' in keys
    assert any(k.startswith('model:second/') for k in keys)
    assert 'optimizer:main/t' in keys


def test_constructor_errors(model_factory, data_factory):
    model = model_factory(0)
    opt = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(data_factory(8), 4)
    with pytest.raises(ValueError, match="'main'"):
        StandardUpdater({'train': it}, opt)
    with pytest.raises(ValueError, match='accumulate'):
        StandardUpdater(it, opt, accumulate=0)
    with pytest.raises(ValueError, match='loss_scale'):
        StandardUpdater(it, opt, loss_scale=0)
    with pytest.raises(RuntimeError, match='setup'):
        StandardUpdater(it, optimizers.SGD())
    with pytest.raises(TypeError, match='converter'):
        StandardUpdater(it, opt, converter=3)


def test_updater_base_class_is_exported():
    assert issubclass(StandardUpdater, training.Updater)
    assert training.updater.StandardUpdater is StandardUpdater


def test_named_optimizers_without_main_for_custom_update_core(model_factory, data_factory):
    # DCGAN-style: optimizers named 'gen' and 'dis', update_core overridden (Chainer accepts
    # any names; only the default update_core needs 'main').
    gen, dis = model_factory(0), model_factory(1)
    opt_gen, opt_dis = optimizers.SGD().setup(gen), optimizers.SGD().setup(dis)

    class GANUpdater(StandardUpdater):
        def update_core(self):
            batch = self.get_iterator('main').next()
            x, t = self.converter(batch, self.device)
            self.get_optimizer('dis').update(dis, x, t)
            self.get_optimizer('gen').update(gen, x, t)

    it = iterators.SerialIterator(data_factory(8), 4, shuffle=False)
    updater = GANUpdater(it, {'gen': opt_gen, 'dis': opt_dis})
    updater.update()
    assert opt_gen.t == opt_dis.t == 1 and updater.iteration == 1
    plain = StandardUpdater(it, {'gen': opt_gen})
    with pytest.raises(KeyError, match="'main'"):
        plain.update()
