import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import iterators, optimizers, training
from chainlet.datasets import TupleDataset
from chainlet.training import extensions


def test_statistics_values():
    ext = extensions.VariableStatisticsPlot(chainlet.Parameter(np.zeros(3, np.float32)),
                                            percentile_sigmas=(0, 50, 100))
    stats = ext.statistics(np.arange(11, dtype=np.float32))
    assert stats['mean'] == pytest.approx(5.0)
    assert stats['std'] == pytest.approx(np.arange(11).std())
    assert stats['percentile'] == pytest.approx([0.0, 5.0, 10.0])
    big = ext.statistics(np.arange(100_000, dtype=np.float32))  # sampled down to 1000
    assert 0 <= big['percentile'][0] and big['percentile'][-1] < 100_000


def test_arguments_are_checked():
    p = chainlet.Parameter(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match='nothing to plot'):
        extensions.VariableStatisticsPlot(p, report_data=False, report_grad=False)
    with pytest.raises(ValueError, match='max_sample_size'):
        extensions.VariableStatisticsPlot(p, max_sample_size=0)


def test_missing_matplotlib_is_reported_when_training_starts(monkeypatch):
    monkeypatch.setattr(extensions.VariableStatisticsPlot, 'available',
                        staticmethod(lambda: False))
    ext = extensions.VariableStatisticsPlot(chainlet.Parameter(np.zeros(2, np.float32)))
    with pytest.warns(UserWarning, match=r'pip install "chainlet-dl\[plot\]"'):
        ext.initialize(None)


def test_plot_is_written_during_training(tmp_path):
    pytest.importorskip('matplotlib')
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 3)).astype(np.float32)
    t = (x.sum(axis=1) > 0).astype(np.int32)
    model = L.Classifier(L.Linear(3, 2))
    opt = optimizers.SGD(lr=0.1)
    opt.setup(model)
    it = iterators.SerialIterator(TupleDataset(x, t), 10)
    trainer = training.Trainer(training.StandardUpdater(it, opt), (2, 'epoch'), out=str(tmp_path))
    ext = extensions.VariableStatisticsPlot(model, trigger=(2, 'iteration'))
    trainer.extend(ext)
    trainer.run()
    assert (tmp_path / 'statistics.png').stat().st_size > 1000
    assert len(ext._history['data']) == 4 and len(ext._history['grad']) == 4
    assert F is not None
