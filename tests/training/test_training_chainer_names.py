"""Chainer's training names added for the inventory: unchain_variables, the console progress-bar
base, VariableStatisticsPlot's Reservoir and Statistician, the graphviz probes, module paths."""
import io
import sys

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import training
from chainlet.training import extensions
from chainlet.training.extensions import computational_graph as cg_ext
from chainlet.training.extensions import util as ext_util
from chainlet.training.extensions import variable_statistics_plot as vsp


def test_interval_trigger_at_package_level():
    assert training.IntervalTrigger is training.triggers.IntervalTrigger


@pytest.mark.parametrize('module, name', [('inverse_shift', 'InverseShift'),
                                          ('multistep_shift', 'MultistepShift'),
                                          ('polynomial_shift', 'PolynomialShift'),
                                          ('variable_unchain', 'unchain_variables')])
def test_extension_module_paths(module, name):
    import importlib
    mod = importlib.import_module(f'chainlet.training.extensions.{module}')
    assert getattr(mod, name) is getattr(extensions, name)


class _Trainer:
    def __init__(self, observation):
        self.observation = observation


def test_unchain_variables_fires_after_an_iteration_that_kept_graphs():
    x = chainlet.Variable(np.ones(3, np.float32))
    loss = F.sum(x * x)
    other = F.sum(x)
    trainer = _Trainer({'main/loss': loss, 'main/other': other, 'lr': 0.1})
    ext = extensions.unchain_variables()
    assert ext.priority == 0
    ext.initialize(trainer)                   # flag off at start
    assert ext.trigger(trainer) is False
    with chainlet.using_config('keep_graph_on_report', True):
        assert ext.trigger(trainer) is False  # reports the flag seen at the previous call
    assert ext.trigger(trainer) is True       # the iteration with the flag on has ended
    assert loss.creator is not None
    ext(trainer)
    assert loss.creator is None and other.creator is None
    assert ext.trigger(trainer) is False


def test_unchain_variables_in_a_trainer(tmp_path):
    model = chainlet.links.Classifier(chainlet.links.Linear(3, 2))
    opt = chainlet.optimizers.SGD().setup(model)
    data = chainlet.datasets.TupleDataset(np.random.rand(4, 3).astype(np.float32),
                                          np.array([0, 1, 0, 1], np.int32))
    it = chainlet.iterators.SerialIterator(data, 2, shuffle=False)
    updater = training.updaters.StandardUpdater(it, opt)
    trainer = training.Trainer(updater, (2, 'iteration'), out=str(tmp_path))
    seen = []

    @training.make_extension(trigger=(1, 'iteration'), priority=100)
    def record(tr):
        seen.append(tr.observation['main/loss'])
    trainer.extend(record)
    trainer.extend(extensions.unchain_variables())
    with chainlet.using_config('keep_graph_on_report', True):
        trainer.run()
    assert len(seen) == 2
    assert seen[0].creator is None  # unchained after the first iteration's extensions


class _Lines(ext_util.ProgressBar):
    def __init__(self, out):
        super().__init__(out=out)
        self.lines = ['a\n', 'b\n']

    def get_lines(self):
        return self.lines


def test_progress_bar_base_draws_in_place():
    out = io.StringIO()
    bar = _Lines(out)
    bar.update()
    assert out.getvalue() == '\x1b[Ja\nb\n\x1b[2A'
    bar.close()
    assert out.getvalue().endswith('\x1b[2A\x1b[J')
    assert bar.update_speed(0, 0.0) == (float('inf'), float('inf'))
    t, e = bar.update_speed(10, 1.0)
    assert t > 0 and e > 0
    with pytest.raises(TypeError):
        ext_util.ProgressBar()  # get_lines is abstract


def test_progress_bar_defaults_to_stdout():
    bar = _Lines(None)
    assert bar._out is sys.stdout and bar._bar_length == 50


def test_reservoir_keeps_a_uniform_sample():
    np.random.seed(0)
    counts = np.zeros(20)
    for _ in range(300):
        r = vsp.Reservoir(5, (2,), dtype=np.float64)
        for i in range(20):
            r.add(np.full(2, i))
        idxs, data = r.get_data()
        assert list(idxs) == sorted(idxs) and len(idxs) == 5
        np.testing.assert_array_equal(data[:, 0], idxs)
        counts[idxs] += 1
    # each of the 20 items is kept with probability 1/4: 75 of 300 on average
    assert counts.min() > 40 and counts.max() < 115
    few = vsp.Reservoir(5, (), dtype=np.int32)
    few.add(7, idx=3)
    idxs, data = few.get_data()
    assert idxs.tolist() == [3] and data.tolist() == [7]


def test_statistician():
    x = np.random.rand(4, 5)
    stats = vsp.Statistician(True, True, (0, 50, 100))(x, axis=0)
    np.testing.assert_allclose(stats['mean'], x.mean(axis=0))
    np.testing.assert_allclose(stats['std'], x.std(axis=0))
    np.testing.assert_allclose(stats['percentile'], np.percentile(x, (0, 50, 100), axis=0))
    all_axes = vsp.Statistician(False, False, (50,))(x, axis=None)
    assert set(all_axes) == {'percentile'}
    np.testing.assert_allclose(all_axes['percentile'], [np.median(x)])
    assert vsp.Statistician(True, False, ())(x, axis=(0, 1)).keys() == {'mean'}


def test_graphviz_probes():
    assert cg_ext.is_return_code_zero([sys.executable, '-c', 'pass'])
    assert not cg_ext.is_return_code_zero([sys.executable, '-c', 'raise SystemExit(3)'])
    assert not cg_ext.is_return_code_zero(['/nonexistent/command'])
    assert isinstance(cg_ext.is_graphviz_available(), bool)
