"""A run interrupted and resumed with ``snapshot(autoload=True)`` equals an uninterrupted one.

``Trainer.run`` loads autoload snapshots before any extension's ``initialize``, so schedules
(``*Shift``) set the resumed value before the first update after the resume; Chainer 7.8.1
loads in the snapshot's own ``initialize`` (priority -100, after the schedules), so its first
updates after a resume run with the start value.
"""
from __future__ import annotations

import numpy as np
import pytest

from chainlet.training import extensions

STOP = (60, 'iteration')  # 5 iterations per epoch


class Interrupt(Exception):
    pass


SCHEDULES = {
    'MultistepShift': (lambda: extensions.MultistepShift('lr', 0.1, [20, 40], 0.1), None),
    'ExponentialShift per epoch': (lambda: extensions.ExponentialShift('lr', 0.5),
                                   (1, 'epoch')),
    'LinearShift': (lambda: extensions.LinearShift('lr', (0.1, 0.01), (10, 40)), None),
    'StepShift': (lambda: extensions.StepShift('lr', 0.5, 7), None),
    'PolynomialShift': (lambda: extensions.PolynomialShift('lr', 2.0, 70), None),
    'WarmupShift': (lambda: extensions.WarmupShift('lr', 0.0, 30, 0.1), None),
    'InverseShift': (lambda: extensions.InverseShift('lr', 0.1, 1.0), None),
}


def build(setup_factory, out, schedule, interrupt_at=None):
    """A trainer with the schedule, an autoload snapshot every 5 iterations and an lr probe."""
    s = setup_factory(out=out, stop=STOP, optimizer='sgd')
    make, trigger = SCHEDULES[schedule]
    s.trainer.extend(make(), trigger=trigger)
    s.trainer.extend(extensions.snapshot(autoload=True), trigger=(5, 'iteration'))
    s.lrs = {}
    update = s.optimizer.update

    def recording_update(*args, **kwargs):
        s.lrs[s.updater.iteration + 1] = s.optimizer.lr  # the lr this update runs with
        return update(*args, **kwargs)

    s.optimizer.update = recording_update

    def interrupt(trainer):
        if trainer.updater.iteration == interrupt_at:
            raise Interrupt()

    s.trainer.extend(interrupt, name='interrupt', priority=-200)  # after the snapshot
    return s


@pytest.mark.parametrize('schedule', sorted(SCHEDULES))
def test_autoload_resume_gives_the_uninterrupted_lr_sequence_and_parameters(
        setup_factory, tmp_path, schedule):
    whole = build(setup_factory, tmp_path / 'whole', schedule)
    whole.trainer.run()

    out = tmp_path / 'part'
    part = build(setup_factory, out, schedule, interrupt_at=52)
    with pytest.raises(Interrupt):
        part.trainer.run(show_loop_exception_msg=False)
    resumed = build(setup_factory, out, schedule)  # autoload: snapshot_iter_50
    resumed.trainer.run()

    assert min(resumed.lrs) == 51
    for it in range(51, 61):
        assert resumed.lrs[it] == pytest.approx(whole.lrs[it], rel=1e-12, abs=1e-15), it
    assert len(set(whole.lrs.values())) > 1  # the schedule did change the lr
    for name, param in whole.model.namedparams():
        np.testing.assert_allclose(dict(resumed.model.namedparams())[name].array,
                                   param.array, rtol=1e-6, atol=1e-7)


def test_multistep_shift_resumed_at_50_starts_at_the_decayed_lr(setup_factory, tmp_path):
    out = tmp_path / 'run'
    part = build(setup_factory, out, 'MultistepShift', interrupt_at=50)
    with pytest.raises(Interrupt):
        part.trainer.run(show_loop_exception_msg=False)
    resumed = build(setup_factory, out, 'MultistepShift')
    resumed.trainer.run()
    assert resumed.lrs[51] == pytest.approx(0.001)


class Probe:
    """Records the iteration at ``initialize``; initialized before the snapshot (-100)."""

    priority = 1000

    def __init__(self):
        self.seen = []

    def initialize(self, trainer):
        self.seen.append(trainer.updater.iteration)

    def __call__(self, trainer):
        pass


def test_autoload_loads_before_every_initialize(setup_factory, tmp_path):
    out = tmp_path / 'run'
    first = setup_factory(out=out, stop=(3, 'iteration'))
    first.trainer.extend(extensions.snapshot(autoload=True), trigger=(3, 'iteration'))
    first.trainer.extend(Probe(), name='probe')
    first.trainer.run()
    again = setup_factory(out=out, stop=(5, 'iteration'))
    again.trainer.extend(extensions.snapshot(autoload=True), trigger=(3, 'iteration'))
    probe = Probe()
    again.trainer.extend(probe, name='probe')
    again.trainer.run()
    assert probe.seen == [3]


def test_snapshot_initialize_alone_still_autoloads(setup_factory, tmp_path):
    out = tmp_path / 'run'
    first = setup_factory(out=out, stop=(3, 'iteration'))
    first.trainer.extend(extensions.snapshot(), trigger=(3, 'iteration'))
    first.trainer.run()
    again = setup_factory(out=out, stop=(5, 'iteration'))
    snapshot = extensions.snapshot(autoload=True)
    again.trainer.extend(snapshot, trigger=(3, 'iteration'))
    snapshot.initialize(again.trainer)  # as Chainer's tests call it, outside Trainer.run
    assert again.updater.iteration == 3


def test_a_mock_extension_gets_no_autoload_call(setup_factory):
    from unittest import mock
    s = setup_factory(stop=(1, 'iteration'))
    ext = mock.MagicMock()
    s.trainer.extend(ext, name='mock')
    s.trainer.run()
    assert 'autoload_snapshot' not in [c[0] for c in ext.method_calls]
    assert ext.called
