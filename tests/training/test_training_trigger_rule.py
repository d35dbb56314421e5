"""Chainer 7.8.1's trigger rule: an interval trigger fires when a boundary was crossed since
its *own* previous call, so triggers that are called only now and then still fire; and the
internal triggers of extensions, whose state is not saved (as in Chainer), do not fire early
after a resume."""
from __future__ import annotations

import random

import numpy as np
import pytest

from chainlet import reporter, serializers, training
from chainlet.training import extensions, triggers

# Chainer's test_interval_trigger.py cases: (iters_per_epoch, interval, resume, expected)
CASES = [
    (5, (2, 'iteration'), 4, [False, True, False, True, False, True, False]),
    (1, (3, 'epoch'), 4, [False, False, True, False, False, True, False]),
    (2, (1.5, 'epoch'), 4, [False, False, True, False, False, True, False]),
    (2.5, (1, 'epoch'), 3, [False, False, True, False, True, False, False]),
    (0.5, (1, 'epoch'), 4, [True] * 7),
]


@pytest.mark.parametrize('iters_per_epoch, interval, resume, expected', CASES)
@pytest.mark.parametrize('seed', range(5))
def test_sparse_calls_fire_for_boundaries_crossed_since_the_previous_call(
        fake_trainer, iters_per_epoch, interval, resume, expected, seed):
    rng = random.Random(seed)
    trainer = fake_trainer(iters_per_epoch)
    trigger = triggers.IntervalTrigger(*interval)
    accumulated = False
    for want in [False] + expected:
        accumulated = accumulated or want
        if rng.randrange(2):
            assert trigger(trainer) == accumulated
            accumulated = False
        trainer.updater.step()


@pytest.mark.parametrize('iters_per_epoch, interval, resume, expected', CASES)
@pytest.mark.parametrize('seed', range(5))
def test_sparse_calls_survive_a_snapshot(fake_trainer, tmp_path, iters_per_epoch, interval,
                                         resume, expected, seed):
    rng = random.Random(seed)
    trainer = fake_trainer(iters_per_epoch)
    trigger = triggers.IntervalTrigger(*interval)
    accumulated = False
    for want in expected[:resume]:
        trainer.updater.step()
        accumulated = accumulated or want
        if rng.randrange(2):
            assert trigger(trainer) == accumulated
            accumulated = False
    path = str(tmp_path / 'trigger.npz')
    serializers.save_npz(path, trigger)
    trigger = triggers.IntervalTrigger(*interval)
    serializers.load_npz(path, trigger)
    for want in expected[resume:]:
        trainer.updater.step()
        accumulated = accumulated or want
        if rng.randrange(2):
            assert trigger(trainer) == accumulated
            accumulated = False


@pytest.mark.parametrize('iters_per_epoch, interval, resume, expected', CASES)
def test_snapshot_without_positions_guesses_them_from_the_updater(
        fake_trainer, tmp_path, iters_per_epoch, interval, resume, expected):
    trainer = fake_trainer(iters_per_epoch)
    trigger = triggers.IntervalTrigger(*interval)
    for want in expected[:resume]:
        trainer.updater.step()
        assert trigger(trainer) == want
    path = str(tmp_path / 'old.npz')
    np.savez(path, dummy=0)  # an old snapshot: nothing saved
    trigger = triggers.IntervalTrigger(*interval)
    with pytest.warns(UserWarning) as record:
        serializers.load_npz(path, trigger)
    messages = ' '.join(str(w.message) for w in record)
    assert 'previous_iteration' in messages and 'previous_epoch_detail' in messages
    for want in expected[resume:]:
        trainer.updater.step()
        assert trigger(trainer) == want


class Correct:
    """An evaluator stand-in: reports counts every ``every`` iterations."""

    priority = training.PRIORITY_WRITER

    def __init__(self, every):
        self.trigger = (every, 'iteration')

    def __call__(self, trainer):
        reporter.report({'v/correct': 3.0, 'v/total': 4.0})


def test_micro_average_after_a_coarser_evaluator_reports_each_epoch(setup_factory):
    s = setup_factory(stop=(12, 'iteration'))  # 5 iterations per epoch
    s.trainer.extend(Correct(every=3), name='eval')
    s.trainer.extend(extensions.MicroAverage('v/correct', 'v/total', 'v/accuracy'))
    seen = []
    s.trainer.extend(lambda tr: seen.append((tr.updater.iteration,
                                             tr.observation.get('v/accuracy'))),
                     name='probe', priority=0)
    s.trainer.run()
    # called at 3, 6, 9, 12: the epoch boundaries 5 and 10 were crossed before 6 and 12
    reported = [(it, value) for it, value in seen if value is not None]
    assert reported == [(6, 0.75), (12, 0.75)]


def test_log_report_with_a_coarse_extension_trigger_still_logs(setup_factory):
    s = setup_factory(stop=(20, 'iteration'))  # 5 iterations per epoch
    log = extensions.LogReport(trigger=(1, 'epoch'))
    s.trainer.extend(log, trigger=(3, 'iteration'))  # called at 3, 6, 9, ...
    s.trainer.run()
    assert [e['iteration'] for e in log.log] == [6, 12, 15]


def run_with_interval(setup_factory, out, make, stop, interrupt_at=None, resume_from=None):
    s = setup_factory(out=out, stop=stop)
    ext = make()
    s.trainer.extend(ext, name='ext')
    s.trainer.extend(extensions.snapshot(), trigger=(1, 'iteration'))

    def interrupt(trainer):
        if trainer.updater.iteration == interrupt_at:
            raise RuntimeError('interrupted')

    s.trainer.extend(interrupt, name='interrupt', priority=-200)
    if resume_from is not None:
        serializers.load_npz(str(out / resume_from), s.trainer)
    return s, ext


@pytest.mark.parametrize('make, fired', [
    (lambda: extensions.MicroAverage('main/accuracy', 'main/accuracy', 'ratio'),
     lambda ext, tr: 'ratio' in tr.observation),
    (lambda: extensions.PlotReport(['main/loss'], filename='plot.png'),
     lambda ext, tr: len(ext._data['main/loss'])),
])
def test_internal_trigger_does_not_fire_early_after_a_resume(setup_factory, tmp_path, make,
                                                             fired):
    out = tmp_path / 'run'
    s, ext = run_with_interval(setup_factory, out, make, (12, 'iteration'), interrupt_at=7)
    with pytest.raises(RuntimeError):
        s.trainer.run(show_loop_exception_msg=False)
    s, ext = run_with_interval(setup_factory, out, make, (12, 'iteration'),
                               resume_from='snapshot_iter_7')
    seen = [(7, fired(ext, s.trainer))]
    s.trainer.extend(lambda tr: seen.append((tr.updater.iteration, fired(ext, tr))),
                     name='probe', priority=-300)
    s.trainer.run()
    # 5 iterations per epoch: the next boundary after 7 is at 10, not at 8
    changes = [it for (it, value), (_, before) in zip(seen[1:], seen) if value != before]
    assert changes[0] == 10


def test_manual_schedule_trigger_with_sparse_calls(fake_trainer):
    trainer = fake_trainer(4)
    trigger = triggers.ManualScheduleTrigger([3, 5], 'iteration')
    fired = []
    for it in range(1, 9):
        trainer.updater.step()
        if it in (2, 4, 8):
            fired.append(trigger(trainer))
    assert fired == [False, True, True]
    assert trigger.finished


def test_early_stopping_loads_a_chainer_snapshot_without_its_state(fake_trainer, tmp_path):
    path = str(tmp_path / 'chainer.npz')
    np.savez(path, dummy=0)  # Chainer 7.8.1's EarlyStoppingTrigger saves nothing
    trigger = triggers.EarlyStoppingTrigger(check_trigger=(1, 'epoch'), patience=2)
    with pytest.warns(UserWarning, match='patience is counted afresh'):
        serializers.load_npz(path, trigger)
    trainer = fake_trainer(4)
    for _ in range(5):  # resumed at epoch 1.25: no check before the boundary at 2
        trainer.updater.step()
    trainer.observation = {'main/loss': 1.0}
    for _ in range(2):
        assert trigger(trainer) is False
        trainer.updater.step()
    assert trigger.count == 0 and trigger.best == np.inf
