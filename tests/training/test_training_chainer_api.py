"""Chainer's spellings and call conventions of the training loop's pieces."""
from __future__ import annotations

import json
import os

import pytest

import chainlet
from chainlet import serializers, training
from chainlet.training import extensions


def test_trigger_module_alias():
    assert training.trigger.IntervalTrigger is training.triggers.IntervalTrigger
    assert isinstance(training.trigger.get_trigger((1, 'epoch')), training.trigger.IntervalTrigger)
    assert training.extension.Extension is training.Extension


def test_is_before_training_is_iteration_zero_as_chainer(setup_factory):
    s = setup_factory(stop=(2, 'iteration'))
    seen = []
    s.trainer.extend(lambda tr: seen.append((tr.updater.iteration, tr.is_before_training)),
                     name='probe', call_before_training=True)
    assert s.trainer.is_before_training is True  # Chainer: updater.iteration == 0
    s.trainer.run()
    assert seen == [(0, True), (1, False), (2, False)]
    assert s.trainer.is_before_training is False


def test_call_before_training_is_skipped_on_a_resumed_run(setup_factory, tmp_path):
    first = setup_factory(stop=(2, 'iteration'))
    before = []
    first.trainer.extend(lambda tr: before.append(tr.updater.iteration), name='probe',
                         call_before_training=True)
    first.trainer.run()
    assert before == [0, 1, 2]
    path = str(tmp_path / 'snap.npz')
    serializers.save_npz(path, first.trainer)
    resumed = setup_factory(stop=(4, 'iteration'), out=tmp_path / 'again')
    seen = []
    resumed.trainer.extend(lambda tr: seen.append(tr.updater.iteration), name='probe',
                           call_before_training=True)
    serializers.load_npz(path, resumed.trainer)
    resumed.trainer.run()
    assert seen == [3, 4]


@pytest.mark.parametrize('period, iters_per_epoch, unit', [
    (2, 5, 'iteration'), (3, 1, 'epoch'), (1.5, 2, 'epoch'), (1, 2.5, 'epoch')])
def test_interval_trigger_counts_from_its_own_previous_call_as_chainer(
        fake_trainer, period, iters_per_epoch, unit):
    # Chainer 7.8.1's rule: a new trigger remembers position 0, so on an updater that already
    # advanced (its state not loaded) it fires at its first call when a boundary was passed
    # since 0; with its state loaded it continues as in an uninterrupted run.
    whole = fake_trainer(iters_per_epoch)
    trigger = training.triggers.IntervalTrigger(period, unit)
    expected = []
    for _ in range(8):
        whole.updater.step()
        expected.append(trigger(whole))
    resumed = fake_trainer(iters_per_epoch)
    for _ in range(4):
        resumed.updater.step()
    fresh = training.triggers.IntervalTrigger(period, unit)
    resumed.updater.step()
    assert fresh(resumed) is True
    restored = training.triggers.IntervalTrigger(period, unit)
    restored._previous_iteration = 4
    restored._previous_epoch_detail = 4 / iters_per_epoch
    got = []
    for _ in range(4):
        got.append(restored(resumed))
        resumed.updater.step()
    assert got == expected[4:]
    assert any(expected)


def test_interval_trigger_does_not_fire_before_the_first_update(fake_trainer):
    trainer = fake_trainer(2)
    assert training.triggers.IntervalTrigger(1, 'iteration')(trainer) is False
    assert training.triggers.IntervalTrigger(1, 'epoch')(trainer) is False


def test_log_report_write_trigger_writes_less_often(setup_factory, monkeypatch):
    s = setup_factory(stop=(10, 'iteration'))
    calls = []
    report = extensions.LogReport(trigger=(2, 'iteration'), write_trigger=(5, 'iteration'))
    original = report._write

    def spy(entry, out):
        calls.append((entry['iteration'], out))
        original(entry, out)

    monkeypatch.setattr(report, '_write', spy)
    s.trainer.extend(report)
    s.trainer.run()
    assert [e['iteration'] for e in report.log] == [2, 4, 6, 8, 10]
    assert calls == [(4, s.trainer.out), (10, s.trainer.out)]
    with open(os.path.join(s.trainer.out, 'log')) as f:
        assert [e['iteration'] for e in json.load(f)] == [2, 4, 6, 8, 10]


def test_make_extension_rejects_removed_and_unknown_arguments():
    with pytest.raises(ValueError, match='invoke_before_training'):
        training.make_extension(invoke_before_training=True)
    with pytest.raises(TypeError, match='foo'):
        training.make_extension(foo=1)


def test_standard_updater_serialize_accepts_a_serializer_returning_nothing(setup_factory):
    s = setup_factory(stop=(1, 'iteration'))
    s.trainer.run()
    called = []

    class Recorder:
        def __getitem__(self, key):
            return self

        def __call__(self, key, value):
            called.append(key)  # returns None, like a user's logging serializer

    class QuietIterator:
        def serialize(self, serializer):
            pass

    s.updater._iterators['main'] = QuietIterator()
    s.updater.serialize(Recorder())
    assert called[-1] == 'iteration' and s.updater.iteration == 1


def test_once_trigger_loads_a_snapshot_without_its_flag_with_a_warning(tmp_path):
    import numpy as np
    from chainlet import serializers
    path = str(tmp_path / 'old.npz')
    np.savez(path, dummy=0)
    trigger = training.triggers.OnceTrigger()
    with pytest.warns(UserWarning, match='_flag_first'):
        serializers.load_npz(path, trigger)
    assert trigger.finished and trigger(None) is False
    resumed = training.triggers.OnceTrigger(call_on_resume=True)
    with pytest.warns(UserWarning):
        serializers.load_npz(path, resumed)
    assert resumed(None) is True and resumed(None) is False


def test_old_style_converters_get_the_legacy_device_id():
    import numpy as np
    from chainlet import backend
    from chainlet.dataset import converter
    from chainlet.dataset.convert import _call_converter

    seen = []

    def plain(batch, device):
        seen.append(device)
        return np.stack(batch)

    @converter()
    def new_style(batch, device):
        seen.append(device)
        return np.stack(batch)

    batch = [np.zeros(2), np.ones(2)]
    _call_converter(plain, batch, backend.CpuDevice())
    _call_converter(plain, batch, None)
    _call_converter(plain, batch, '@numpy')
    _call_converter(new_style, batch, -1)
    assert seen[:3] == [-1, None, -1]
    assert seen[3] == backend.CpuDevice()

    import chainlet
    from chainlet import iterators
    from chainlet.training import extensions as ext

    class Target:
        def __call__(self, x):
            pass

    evaluator = ext.Evaluator(iterators.SerialIterator(batch, 2, repeat=False), {},
                              converter=plain, device=backend.CpuDevice(),
                              eval_func=Target())
    seen.clear()
    with chainlet.Reporter():
        evaluator.evaluate()
    assert seen == [-1]


def test_manual_schedule_trigger_loads_an_old_snapshot_with_warnings(tmp_path, fake_trainer):
    import numpy as np
    from chainlet import serializers
    path = str(tmp_path / 'old.npz')
    np.savez(path, dummy=0)
    trainer = fake_trainer(2)
    for _ in range(3):
        trainer.updater.step()
    trigger = training.triggers.ManualScheduleTrigger([2, 5], 'iteration')
    with pytest.warns(UserWarning) as record:
        serializers.load_npz(path, trigger)
    assert any('finished' in str(w.message) for w in record)
    assert [(trainer.updater.step(), trigger(trainer), trigger.finished)[1:]
            for _ in range(3)] == [(False, False), (True, True), (False, True)]
    late = training.triggers.ManualScheduleTrigger(2, 'iteration')
    with pytest.warns(UserWarning):
        serializers.load_npz(path, late)
    trainer.updater.step()
    assert late(trainer) is False and late.finished  # the point was passed before the resume


def report_step(trainer):
    chainlet.reporter.report({'step': float(trainer.updater.iteration)})


def test_log_report_logs_the_call_before_training_as_its_own_entry(setup_factory):
    s = setup_factory(stop=(2, 'epoch'))  # 5 iterations per epoch
    s.trainer.extend(report_step, name='step', priority=training.PRIORITY_WRITER,
                     call_before_training=True)
    log = extensions.LogReport(keys=['step'])
    s.trainer.extend(log, call_before_training=True)
    s.trainer.run()
    assert [(e['epoch'], e['iteration'], e['step']) for e in log.log] == [
        (0, 0, 0.0), (1, 5, 3.0), (2, 10, 8.0)]  # epoch 1 averages iterations 1..5 only


def test_plot_report_plots_the_call_before_training(setup_factory):
    pytest.importorskip('matplotlib')
    s = setup_factory(stop=(1, 'epoch'))
    s.trainer.extend(report_step, name='step', priority=training.PRIORITY_WRITER,
                     call_before_training=True)
    plot = extensions.PlotReport(['step'], x_key='iteration')
    s.trainer.extend(plot, call_before_training=True)
    s.trainer.run()
    assert plot._data['step'] == [(0, 0.0), (5, 3.0)]
