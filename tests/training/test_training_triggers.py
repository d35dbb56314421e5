from __future__ import annotations

import io

import numpy as np
import pytest

from chainlet import serializers
from chainlet.training import get_trigger, triggers


def fire_pattern(trainer, trigger, n):
    fired = []
    for _ in range(n):
        trainer.updater.step()
        if trigger(trainer):
            fired.append(trainer.updater.iteration)
    return fired


def test_get_trigger_forms():
    t = get_trigger((3, 'iteration'))
    assert isinstance(t, triggers.IntervalTrigger)
    assert (t.period, t.unit) == (3, 'iteration')
    assert get_trigger(None)(object()) is False

    def f(trainer):
        return True
    assert get_trigger(f) is f
    with pytest.raises(TypeError, match='period, unit'):
        get_trigger(3)
    with pytest.raises(ValueError, match="'epoch' or 'iteration'"):
        get_trigger((1, 'epochs'))
    with pytest.raises(ValueError, match='positive'):
        triggers.IntervalTrigger(0, 'epoch')


def test_interval_trigger_iteration(fake_trainer):
    trainer = fake_trainer(iters_per_epoch=4)
    assert fire_pattern(trainer, triggers.IntervalTrigger(2, 'iteration'), 9) == [2, 4, 6, 8]


def test_interval_trigger_epoch(fake_trainer):
    trainer = fake_trainer(iters_per_epoch=4)
    assert fire_pattern(trainer, triggers.IntervalTrigger(1, 'epoch'), 12) == [4, 8, 12]


@pytest.mark.parametrize('iters_per_epoch, period, expected', [
    (4, 0.5, [2, 4, 6, 8]),
    (3, 0.5, [2, 3, 5, 6]),       # 0.667 crosses 0.5; 1.0; 1.667 crosses 1.5; 2.0
    (5, 1.5, [8, 15]),            # 1.6 crosses 1.5, 3.0
    (10, 0.25, [3, 5, 8, 10]),    # 0.3, 0.5, 0.8, 1.0
])
def test_interval_trigger_fractional_epochs(fake_trainer, iters_per_epoch, period, expected):
    trainer = fake_trainer(iters_per_epoch)
    assert fire_pattern(trainer, triggers.IntervalTrigger(period, 'epoch'),
                        expected[-1]) == expected


def test_manual_schedule_iteration(fake_trainer):
    trainer = fake_trainer(4)
    trigger = triggers.ManualScheduleTrigger([3, 7, 8], 'iteration')
    assert fire_pattern(trainer, trigger, 5) == [3]
    assert not trigger.finished
    assert fire_pattern(trainer, trigger, 10) == [7, 8]
    assert trigger.finished
    assert trigger.get_training_length() == (8, 'iteration')


def test_manual_schedule_fractional_epoch_points(fake_trainer):
    trainer = fake_trainer(3)  # epoch_detail 0.333, 0.667, 1.0, 1.333, ...
    trigger = triggers.ManualScheduleTrigger([0.5, 1, 1.2], 'epoch')
    assert fire_pattern(trainer, trigger, 9) == [2, 3, 4]
    single = triggers.ManualScheduleTrigger(2, 'epoch')
    assert single.points == [2]


def test_once_trigger_and_resume():
    trigger = triggers.OnceTrigger()
    assert [trigger(None) for _ in range(3)] == [True, False, False]
    assert trigger.finished

    saved = serializers.DictionarySerializer()
    trigger.serialize(saved)
    for call_on_resume, expected in ((False, [False, False]), (True, [True, False])):
        fresh = triggers.OnceTrigger(call_on_resume=call_on_resume)
        fresh.serialize(serializers.NpzDeserializer(saved.target))
        assert [fresh(None) for _ in range(2)] == expected


def test_interval_trigger_serialize_round_trip(fake_trainer):
    trainer = fake_trainer(4)
    trigger = triggers.IntervalTrigger(3, 'iteration')
    fire_pattern(trainer, trigger, 4)
    buf = io.BytesIO()
    serializers.save_npz(buf, trigger)
    buf.seek(0)
    fresh = triggers.IntervalTrigger(3, 'iteration')
    serializers.load_npz(buf, fresh)
    assert fresh._previous_iteration == 4
    # Continues as the original would: next firing at iteration 6.
    assert fire_pattern(trainer, fresh, 3) == [6]


def test_max_and_min_value_triggers(fake_trainer):
    trainer = fake_trainer(2)
    tmax = triggers.MaxValueTrigger('acc', trigger=(1, 'epoch'))
    tmin = triggers.MinValueTrigger('loss', trigger=(1, 'epoch'))
    # per-iteration values; each epoch (2 iterations) compares the mean
    accs = [0.4, 0.6, 0.2, 0.4, 0.8, 0.8, 0.5, 0.7]
    losses = [1.0, 0.8, 0.7, 0.5, 0.9, 0.9, 0.2, 0.1]
    fired_max, fired_min = [], []
    for acc, loss in zip(accs, losses):
        trainer.updater.step()
        trainer.observation = {'acc': acc, 'loss': loss}
        fired_max.append(tmax(trainer))
        fired_min.append(tmin(trainer))
    assert [i + 1 for i, f in enumerate(fired_max) if f] == [2, 6]   # 0.5, 0.3, 0.8, 0.6
    assert [i + 1 for i, f in enumerate(fired_min) if f] == [2, 4, 8]  # .9 .6 .9 .15


def test_early_stopping_modes_and_patience(fake_trainer):
    trainer = fake_trainer(1)
    stop = triggers.EarlyStoppingTrigger(check_trigger=(1, 'epoch'), monitor='val/accuracy',
                                         patience=2, max_trigger=(50, 'epoch'))
    assert stop._operator(1.0, 0.5)  # 'auto' + accuracy -> maximize
    decisions = []
    for acc in [0.5, 0.6, 0.55, 0.58, 0.7, 0.6]:
        trainer.updater.step()
        trainer.observation = {'val/accuracy': acc}
        decisions.append(stop(trainer))
    assert decisions == [False, False, False, True, False, False]
    assert stop.get_training_length() == (50, 'epoch')


def test_early_stopping_max_trigger_and_missing_key_warns(fake_trainer):
    trainer = fake_trainer(1)
    stop = triggers.EarlyStoppingTrigger(monitor='main/loss', max_trigger=(3, 'iteration'))
    trainer.updater.step()
    with pytest.warns(UserWarning, match='main/loss'):
        assert stop(trainer) is False
    trainer.updater.step()
    with pytest.warns(UserWarning):
        stop(trainer)
    trainer.updater.step()
    assert stop(trainer) is True  # max_trigger fires before the key is looked at
    with pytest.raises(ValueError, match='mode'):
        triggers.EarlyStoppingTrigger(mode='best')


def test_early_stopping_stops_trainer(setup_factory):
    s = setup_factory(stop=None)
    stop = triggers.EarlyStoppingTrigger(check_trigger=(1, 'iteration'), monitor='const',
                                         patience=3, mode='min', max_trigger=(100, 'epoch'))
    s.trainer.stop_trigger = stop
    s.trainer.extend(lambda tr: tr.observation.update(const=np.float32(1.0)), name='const',
                     priority=400)
    s.trainer.run()
    # iteration 1 sets the best; iterations 2, 3, 4 do not improve -> stop after 4
    assert s.updater.iteration == 4


def test_time_trigger(fake_trainer):
    class T:
        elapsed_time = 0.0
    trainer, trigger = T(), triggers.TimeTrigger(1.0)
    results = []
    for t in (0.5, 1.0, 1.5, 3.2, 3.3, 4.0):
        trainer.elapsed_time = t
        results.append(trigger(trainer))
    assert results == [False, True, False, True, False, True]
