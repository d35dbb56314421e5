"""ParameterStatistics: values, keys, triggers, NaN handling, errors and use in a Trainer."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet import reporter as reporter_module
from chainlet import serializers
from chainlet.training import extensions

SIGMAS = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)
DEFAULT_NAMES = ('mean', 'std', 'min', 'max', 'zeros')


class MLP(chainlet.Chain):
    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(0)
        with self.init_scope():
            self.l1 = L.Linear(4, 3, initialW=rng.normal(size=(3, 4)).astype(np.float32))
            self.l2 = L.Linear(3, 2, initialW=rng.normal(size=(2, 3)).astype(np.float32))
        self.l1.W.array[0, :2] = 0  # a few exact zeros for the 'zeros' statistic

    def set_grads(self, seed=1):
        rng = np.random.RandomState(seed)
        for p in self.params():
            p.grad = rng.normal(size=p.shape).astype(p.dtype)


def numpy_statistics(x):
    x = np.asarray(x, np.float64).ravel()
    stats = {'mean': x.mean(), 'std': x.std(), 'min': x.min(), 'max': x.max(),
             'zeros': np.count_nonzero(x == 0)}
    for i, p in enumerate(np.percentile(x, SIGMAS)):
        stats[f'percentile/{i}'] = p
    return stats


def observe(ext, trainer=None):
    """Call the extension inside a reporter scope; return what it reported."""
    observation = {}
    with reporter_module.Reporter().scope(observation):
        ext(trainer)
    return observation


def test_values_equal_numpy_statistics_and_keys_follow_chainer():
    model = MLP()
    model.set_grads()
    stats = extensions.ParameterStatistics(model, prefix='main').compute_statistics()
    expected = {}
    for path, param in model.namedparams():
        for attr, array in (('data', param.array), ('grad', param.grad)):
            for name, value in numpy_statistics(array).items():
                expected[f'main/None{path}/{attr}/{name}'] = value
    assert set(stats) == set(expected)
    assert 'main/None/l1/W/data/mean' in stats and 'main/None/l2/b/grad/percentile/6' in stats
    assert len(stats) == 4 * 2 * 12  # 4 parameters, data and grad, 5 + 7 values
    for key, value in expected.items():
        assert float(stats[key]) == pytest.approx(value, rel=1e-5, abs=1e-6), key
    assert stats['main/None/l1/W/data/zeros'] == 2


def test_link_names_and_prefix():
    model = MLP()
    # An unnamed (root) link is written 'None', as in Chainer; a named child link adds its name.
    assert 'None/l1/W/data/mean' in extensions.ParameterStatistics(model).compute_statistics()
    stats = extensions.ParameterStatistics([model.l1, model.l2], prefix='p',
                                           report_grads=False).compute_statistics()
    params = {k.rsplit('/data/', 1)[0] for k in stats}
    assert params == {'p/l1/W', 'p/l1/b', 'p/l2/W', 'p/l2/b'}
    assert 'None/W/data/max' in extensions.ParameterStatistics(
        L.Linear(2, 2), statistics={'max': np.max}).compute_statistics()


@pytest.mark.parametrize('report_params, report_grads, default_count, min_count', [
    (True, True, 48, 4), (True, False, 24, 2), (False, True, 24, 2), (False, False, 0, 0)])
def test_report_params_and_grads_select_what_is_reported(report_params, report_grads,
                                                         default_count, min_count):
    model = L.Linear(3, 2)
    model.W.grad = np.ones((2, 3), np.float32)
    model.b.grad = np.ones(2, np.float32)
    kwargs = dict(report_params=report_params, report_grads=report_grads, prefix='test',
                  trigger=(1, 'iteration'))
    default = extensions.ParameterStatistics(model, **kwargs).compute_statistics()
    only_min = extensions.ParameterStatistics(model, statistics={'min': np.min}, **kwargs)
    assert len(default) == default_count
    assert len(only_min.compute_statistics()) == min_count
    attrs = {attr for attr, on in (('data', report_params), ('grad', report_grads)) if on}
    for key in default:
        prefix, link, param, attr = key.split('/')[:4]  # e.g. test/None/W/data/percentile/0
        assert prefix == 'test' and link == 'None' and param in ('W', 'b') and attr in attrs


def test_missing_gradients_and_lazy_parameters_are_skipped():
    model = chainlet.Chain()
    with model.init_scope():
        model.l1 = L.Linear(3, 2)
        model.lazy = L.Linear(None, 2)
    model.cleargrads()  # fresh parameters start with NaN gradients, as in Chainer
    stats = extensions.ParameterStatistics(model).compute_statistics()
    assert {k.split('/data/')[0] for k in stats} == {'None/l1/W', 'None/l1/b', 'None/lazy/b'}
    assert not any('/grad/' in k for k in stats)


def test_trigger_decides_when_the_interval_means_are_reported(fake_trainer):
    trainer = fake_trainer(iters_per_epoch=4)
    link = chainlet.Link()
    with link.init_scope():
        link.w = chainlet.Parameter(np.zeros(3, np.float32))
    ext = extensions.ParameterStatistics(link, statistics={'mean': np.mean},
                                         report_grads=False, trigger=(3, 'iteration'))
    assert ext.trigger == (1, 'iteration')  # called every iteration, reports every third
    reported = []
    for it in range(1, 8):
        trainer.updater.step()
        link.w.array[...] = it
        reported.append(observe(ext, trainer))
    assert reported[2] == {'None/w/data/mean': pytest.approx(2.0)}  # mean of 1, 2, 3
    assert reported[5] == {'None/w/data/mean': pytest.approx(5.0)}  # mean of 4, 5, 6
    assert [bool(r) for r in reported] == [False, False, True, False, False, True, False]
    # The default trigger is one epoch.
    ext = extensions.ParameterStatistics(link)
    trainer = fake_trainer(iters_per_epoch=4)
    fired = []
    for _ in range(8):
        trainer.updater.step()
        fired.append(bool(observe(ext, trainer)))
    assert fired == [False, False, False, True] * 2


def test_skip_nan_params():
    link = chainlet.Link()
    with link.init_scope():
        link.bad = chainlet.Parameter(np.array([1.0, np.nan, 2.0], np.float32))
        link.good = chainlet.Parameter(np.array([1.0, 3.0], np.float32))
    stats = extensions.ParameterStatistics(link, report_grads=False,
                                           skip_nan_params=True).compute_statistics()
    bad = {k: v for k, v in stats.items() if k.startswith('None/bad/')}
    # As in Chainer: one NaN per statistic, the percentiles under their key without index.
    assert sorted(bad) == sorted(f'None/bad/data/{n}' for n in DEFAULT_NAMES + ('percentile',))
    assert all(np.isnan(v) for v in bad.values())
    assert float(stats['None/good/data/mean']) == 2.0 and 'None/good/data/percentile/6' in stats
    stats = extensions.ParameterStatistics(link, report_grads=False).compute_statistics()
    assert np.isnan(stats['None/bad/data/mean']) and 'None/bad/data/percentile/0' in stats


def test_custom_statistics():
    link = L.Linear(3, 2)
    ext = extensions.ParameterStatistics(link, statistics=None, report_grads=False)
    assert ext.compute_statistics() == {}
    ext.register_statistics('one', lambda x: 1.0)
    ext.register_statistics('pair', lambda x: (x.min(), x.max()))
    ext.register_statistics('sizes', lambda x: np.array([x.size]))
    stats = ext.compute_statistics()
    assert stats['None/W/data/one'] == 1.0 and stats['None/b/data/one'] == 1.0
    assert stats['None/W/data/pair/0'] == link.W.array.min()
    assert stats['None/W/data/pair/1'] == link.W.array.max()
    assert stats['None/W/data/sizes'] == 6  # one value: no index
    # register_statistics does not change the defaults of other instances.
    assert 'one' not in extensions.ParameterStatistics.default_statistics
    assert set(extensions.ParameterStatistics.default_statistics) == set(DEFAULT_NAMES) | {
        'percentile'}
    only_custom = extensions.ParameterStatistics(link, statistics={'one': lambda x: 1.0})
    only_custom.register_statistics('two', lambda x: 2.0)
    assert 'two' not in extensions.ParameterStatistics(link).compute_statistics()


def test_float16_parameters():
    link = chainlet.Link()
    with link.init_scope():
        link.w = chainlet.Parameter(np.array([0.5, 1.5, 0.0, -2.0], np.float16))
    stats = extensions.ParameterStatistics(link, report_grads=False).compute_statistics()
    for name, value in numpy_statistics(link.w.array).items():
        assert float(stats[f'None/w/data/{name}']) == pytest.approx(value, rel=1e-3)


@pytest.mark.parametrize('kwargs, error, words', [
    (dict(links='model'), TypeError, 'ParameterStatistics: argument links: expected a Link'),
    (dict(links=[]), ValueError, 'argument links: .*non-empty.*got an empty sequence'),
    (dict(links=[L.Linear(2, 2), 3]), TypeError, 'argument links: expected Links, got int'),
    (dict(statistics='mean'), ValueError, "argument statistics: expected 'default'.*'mean'"),
    (dict(statistics=[np.mean]), TypeError, 'argument statistics: .*got list'),
    (dict(statistics={'mean': 1}), TypeError, "statistic 'mean': expected a callable, got int"),
    (dict(statistics={1: np.mean}), TypeError, 'name of a statistic, got int'),
    (dict(report_grads='yes'), TypeError, 'argument report_grads: expected a bool, got str'),
    (dict(prefix=1), TypeError, 'argument prefix: expected a str or None, got int'),
    (dict(trigger='epoch'), TypeError, 'trigger'),
])
def test_bad_arguments(kwargs, error, words):
    kwargs.setdefault('links', L.Linear(2, 2))
    with pytest.raises(error, match=words):
        extensions.ParameterStatistics(**kwargs)


def test_bad_register_statistics():
    ext = extensions.ParameterStatistics(L.Linear(2, 2))
    with pytest.raises(TypeError, match='ParameterStatistics.register_statistics: .*callable'):
        ext.register_statistics('x', 'not a function')


def test_in_a_trainer_with_log_report(setup_factory):
    s = setup_factory(stop=(2, 'epoch'))  # 40 examples, batch 8: 5 iterations per epoch
    ext = extensions.ParameterStatistics(s.model, prefix='main')
    s.trainer.extend(ext)
    log = extensions.LogReport()
    s.trainer.extend(log)
    weights = []
    s.trainer.extend(lambda tr: weights.append(s.model.predictor.W.array.copy()),
                     name='record')
    s.trainer.run()
    assert s.trainer.get_extension('parameter_statistics') is ext
    assert len(log.log) == 2
    for epoch, entry in enumerate(log.log):
        assert {'main/None/predictor/W/data/mean', 'main/None/predictor/W/grad/std',
                'main/None/predictor/b/data/percentile/6', 'main/loss'} <= set(entry)
        per_iteration = weights[5 * epoch:5 * epoch + 5]
        assert entry['main/None/predictor/W/data/mean'] == pytest.approx(
            np.mean([w.mean() for w in per_iteration]), rel=1e-5)
        assert entry['main/None/predictor/W/data/max'] == pytest.approx(
            np.mean([w.max() for w in per_iteration]), rel=1e-5)


def test_serialize_keeps_the_running_interval(tmp_path, fake_trainer):
    link = chainlet.Link()
    with link.init_scope():
        link.w = chainlet.Parameter(np.zeros(2, np.float32))

    def make():
        return extensions.ParameterStatistics(link, statistics={'mean': np.mean},
                                              report_grads=False, trigger=(3, 'iteration'))

    trainer = fake_trainer(iters_per_epoch=10)
    ext = make()
    for it in (1, 2):
        trainer.updater.step()
        link.w.array[...] = it
        observe(ext, trainer)
    serializers.save_npz(str(tmp_path / 'ext.npz'), ext)
    resumed = make()
    serializers.load_npz(str(tmp_path / 'ext.npz'), resumed)
    trainer.updater.step()
    link.w.array[...] = 3
    assert observe(resumed, trainer) == {'None/w/data/mean': pytest.approx(2.0)}
