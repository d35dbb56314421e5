"""Learning-rate schedules (``keras.optimizers.schedules``): values against the formulas,
configs, argument errors, and their use by the optimizers, ``fit`` and ``model.save``."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import chainlet
from chainlet import keras
from chainlet.keras.optimizers import schedules

STEPS = [0, 1, 2, 3, 5, 9, 10, 11, 20, 37, 100, 1000]


def _values(schedule, steps=STEPS):
    return np.array([schedule(s) for s in steps])


def test_schedules_is_reachable_from_optimizers():
    assert keras.optimizers.schedules is schedules
    assert keras.optimizers.schedules.ExponentialDecay is schedules.ExponentialDecay
    assert issubclass(schedules.CosineDecay, schedules.LearningRateSchedule)


# -- values against NumPy references of the formulas --

@pytest.mark.parametrize('staircase', [False, True])
def test_exponential_decay(staircase):
    lr = schedules.ExponentialDecay(0.3, decay_steps=10, decay_rate=0.7, staircase=staircase)
    p = np.array(STEPS, np.float64) / 10
    if staircase:
        p = np.floor(p)
    np.testing.assert_allclose(_values(lr), 0.3 * 0.7 ** p, rtol=1e-12)
    assert isinstance(lr(3), float)
    assert lr(np.int64(10)) == pytest.approx(0.21)


def test_exponential_decay_staircase_is_flat_within_a_period():
    lr = schedules.ExponentialDecay(1.0, 4, 0.5, staircase=True)
    assert [lr(s) for s in range(9)] == [1.0] * 4 + [0.5] * 4 + [0.25]


@pytest.mark.parametrize('boundaries, values', [([10], [1.0, 0.1]),
                                                ([3, 10, 20], [0.5, 0.4, 0.3, 0.2]),
                                                ([2.5, 9.5], [3, 2, 1])])
def test_piecewise_constant_decay(boundaries, values):
    lr = schedules.PiecewiseConstantDecay(boundaries, values)
    steps = STEPS + [2.5, 9.5, 9.6]
    # values[i] where boundaries[i-1] < step <= boundaries[i]
    expected = np.array(values, np.float64)[np.searchsorted(boundaries, steps, side='left')]
    np.testing.assert_array_equal(_values(lr, steps), expected)
    assert all(type(lr(s)) is float for s in steps)


@pytest.mark.parametrize('power', [1.0, 0.5, 2.0])
@pytest.mark.parametrize('cycle', [False, True])
def test_polynomial_decay(power, cycle):
    lr = schedules.PolynomialDecay(0.1, decay_steps=10, end_learning_rate=0.01, power=power,
                                   cycle=cycle)
    step = np.array(STEPS, np.float64)
    if cycle:
        decay_steps = 10 * np.where(step == 0, 1.0, np.ceil(step / 10))
    else:
        decay_steps = np.full_like(step, 10.0)
        step = np.minimum(step, 10.0)
    expected = (0.1 - 0.01) * (1 - step / decay_steps) ** power + 0.01
    np.testing.assert_allclose(_values(lr), expected, rtol=1e-12)


def test_polynomial_decay_default_end_and_cycle_restart():
    lr = schedules.PolynomialDecay(1.0, 4)
    assert lr(4) == lr(100) == pytest.approx(0.0001)
    cyc = schedules.PolynomialDecay(1.0, 4, end_learning_rate=0.0, cycle=True)
    assert [cyc(s) for s in (0, 2, 4, 5, 8, 9)] == pytest.approx([1.0, 0.5, 0.0, 0.375, 0.0,
                                                                  1 - 9 / 12])


@pytest.mark.parametrize('staircase', [False, True])
def test_inverse_time_decay(staircase):
    lr = schedules.InverseTimeDecay(0.5, decay_steps=4, decay_rate=0.3, staircase=staircase)
    p = np.array(STEPS, np.float64) / 4
    if staircase:
        p = np.floor(p)
    np.testing.assert_allclose(_values(lr), 0.5 / (1 + 0.3 * p), rtol=1e-12)


@pytest.mark.parametrize('alpha', [0.0, 0.2])
def test_cosine_decay(alpha):
    lr = schedules.CosineDecay(0.4, decay_steps=20, alpha=alpha)
    step = np.minimum(np.array(STEPS, np.float64), 20)
    expected = 0.4 * ((1 - alpha) * 0.5 * (1 + np.cos(np.pi * step / 20)) + alpha)
    np.testing.assert_allclose(_values(lr), expected, rtol=1e-12, atol=1e-15)
    assert lr(20) == pytest.approx(0.4 * alpha) and lr(10) == pytest.approx(0.4 * (1 + alpha) / 2)


@pytest.mark.parametrize('alpha', [0.0, 0.1])
def test_cosine_decay_with_warmup(alpha):
    lr = schedules.CosineDecay(0.01, decay_steps=20, alpha=alpha, warmup_target=0.5,
                               warmup_steps=10)
    step = np.minimum(np.array(STEPS, np.float64), 30)
    warm = 0.01 + (0.5 - 0.01) * step / 10
    decay = 0.5 * ((1 - alpha) * 0.5 * (1 + np.cos(np.pi * (step - 10) / 20)) + alpha)
    expected = np.where(step < 10, warm, decay)
    np.testing.assert_allclose(_values(lr), expected, rtol=1e-12, atol=1e-15)
    assert lr(0) == pytest.approx(0.01)
    assert lr(10) == pytest.approx(0.5)          # end of warmup: the decay starts at the target
    assert lr(30) == lr(10 ** 6) == pytest.approx(0.5 * alpha)


def test_cosine_decay_warmup_target_without_warmup_steps_decays_from_target():
    lr = schedules.CosineDecay(0.1, decay_steps=10, warmup_target=1.0)
    assert lr(0) == pytest.approx(1.0) and lr(5) == pytest.approx(0.5)


def _sgdr_reference(lr0, first, t_mul, m_mul, alpha, step):
    # Walk the periods one by one: period i lasts first * t_mul ** i steps.
    start, length, i = 0.0, float(first), 0
    while step >= start + length:
        start += length
        length *= t_mul
        i += 1
    fraction = (step - start) / length
    return lr0 * ((1 - alpha) * m_mul ** i * 0.5 * (1 + math.cos(math.pi * fraction)) + alpha)


@pytest.mark.parametrize('t_mul, m_mul, alpha', [(1.0, 1.0, 0.0), (2.0, 1.0, 0.0),
                                                 (2.0, 0.5, 0.1), (3.0, 0.8, 0.0),
                                                 (1.5, 0.9, 0.05), (0.5, 1.0, 0.0)])
def test_cosine_decay_restarts(t_mul, m_mul, alpha):
    lr = schedules.CosineDecayRestarts(0.2, first_decay_steps=10, t_mul=t_mul, m_mul=m_mul,
                                       alpha=alpha)
    steps = [s for s in list(range(60)) + [99.5, 130, 400, 1000]
             if t_mul >= 1 or s < 19]   # with t_mul < 1 all periods end before step 20
    expected = [_sgdr_reference(0.2, 10, t_mul, m_mul, alpha, s) for s in steps]
    np.testing.assert_allclose(_values(lr, steps), expected, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize('t_mul', [1.0, 2.0, 3.0, 1.5])
def test_cosine_decay_restarts_at_the_restart_boundaries(t_mul):
    m_mul, alpha = 0.5, 0.1
    lr = schedules.CosineDecayRestarts(1.0, 10, t_mul=t_mul, m_mul=m_mul, alpha=alpha)
    start, length = 0.0, 10.0
    for i in range(6):
        # A restart begins at the top of its cosine; the step before it is near the bottom.
        assert lr(start) == pytest.approx((1 - alpha) * m_mul ** i + alpha, rel=1e-12)
        end = start + length
        assert lr(end - 1e-6) == pytest.approx(alpha, abs=1e-6)
        start, length = end, length * t_mul


def test_cosine_decay_restarts_past_the_last_shrinking_period_raises():
    lr = schedules.CosineDecayRestarts(1.0, 10, t_mul=0.5)   # periods 10, 5, 2.5, ...: 20 steps
    with pytest.raises(ValueError, match='CosineDecayRestarts.*past the last restart'):
        lr(20)


# -- configs --

ALL = [schedules.ExponentialDecay(0.1, 100, 0.96, staircase=True),
       schedules.PiecewiseConstantDecay([10, 20], [0.1, 0.01, 0.001], name='pc'),
       schedules.PolynomialDecay(0.1, 50, end_learning_rate=0.01, power=0.5, cycle=True),
       schedules.InverseTimeDecay(0.1, 10, 0.5),
       schedules.CosineDecay(0.0, 30, alpha=0.1, warmup_target=0.2, warmup_steps=5),
       schedules.CosineDecayRestarts(0.1, 7, t_mul=1.5, m_mul=0.8, alpha=0.05)]


@pytest.mark.parametrize('schedule', ALL, ids=lambda s: type(s).__name__)
def test_config_round_trip(schedule):
    steps = list(range(0, 200, 3))
    clone = type(schedule).from_config(schedule.get_config())
    assert clone.get_config() == schedule.get_config()
    assert _values(clone, steps).tolist() == _values(schedule, steps).tolist()
    data = json.loads(json.dumps(schedules.serialize(schedule)))
    assert data['class_name'] == type(schedule).__name__
    again = schedules.deserialize(data)
    assert type(again) is type(schedule) and again.get_config() == schedule.get_config()
    assert type(schedule).__name__ in repr(schedule)


def test_config_has_keras_keys_and_defaults():
    assert schedules.CosineDecayRestarts(0.1, 5).get_config() == {
        'initial_learning_rate': 0.1, 'first_decay_steps': 5, 't_mul': 2.0, 'm_mul': 1.0,
        'alpha': 0.0, 'name': 'SGDRDecay'}
    assert schedules.CosineDecay(0.1, 5).get_config() == {
        'initial_learning_rate': 0.1, 'decay_steps': 5, 'alpha': 0.0, 'name': 'CosineDecay',
        'warmup_target': None, 'warmup_steps': 0}
    assert schedules.PolynomialDecay(0.1, 5).get_config()['end_learning_rate'] == 0.0001
    assert schedules.PiecewiseConstantDecay([1], [2, 3]).get_config()['name'] == \
        'PiecewiseConstant'


def test_deserialize_reads_keras_files_and_custom_objects():
    keras_style = {'module': 'keras.optimizers.schedules', 'class_name': 'ExponentialDecay',
                   'config': {'initial_learning_rate': 0.1, 'decay_steps': 10,
                              'decay_rate': 0.5, 'staircase': False,
                              'name': 'ExponentialDecay'},
                   'registered_name': None}
    assert schedules.deserialize(keras_style)(10) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="unknown learning-rate schedule 'Nope'"):
        schedules.deserialize({'class_name': 'Nope', 'config': {}})
    with pytest.raises(ValueError, match='class_name'):
        schedules.deserialize([1, 2])
    with pytest.raises(TypeError, match='LearningRateSchedule'):
        schedules.serialize(lambda step: 0.1)
    restored = schedules.deserialize({'class_name': 'Halving', 'config': {'lr': 1.0}},
                                     custom_objects={'Halving': _Halving})
    assert restored(2) == 0.25


class _Halving(schedules.LearningRateSchedule):
    def __init__(self, lr: float) -> None:
        self.lr = lr

    def __call__(self, step):
        return self.lr / 2 ** step

    def get_config(self):
        return {'lr': self.lr}


def test_base_class_asks_for_call_and_get_config():
    class NoCall(schedules.LearningRateSchedule):
        pass
    with pytest.raises(NotImplementedError, match=r'NoCall.*__call__'):
        NoCall()(0)
    with pytest.raises(NotImplementedError, match=r'NoCall.*get_config'):
        NoCall().get_config()
    assert 'NoCall(...)' == repr(NoCall())


# -- argument errors --

@pytest.mark.parametrize('make, exc, match', [
    (lambda: schedules.ExponentialDecay(0.1, 0, 0.5), ValueError,
     r'ExponentialDecay: argument decay_steps: expected a number > 0, got 0'),
    (lambda: schedules.ExponentialDecay(0.1, -3, 0.5), ValueError,
     r'ExponentialDecay: argument decay_steps'),
    (lambda: schedules.ExponentialDecay('0.1', 10, 0.5), TypeError,
     r'ExponentialDecay: argument initial_learning_rate: expected a number, got str'),
    (lambda: schedules.InverseTimeDecay(0.1, 0.0, 0.5), ValueError,
     r'InverseTimeDecay: argument decay_steps'),
    (lambda: schedules.InverseTimeDecay(0.1, 10, None), TypeError,
     r'InverseTimeDecay: argument decay_rate'),
    (lambda: schedules.PolynomialDecay(0.1, 0), ValueError,
     r'PolynomialDecay: argument decay_steps'),
    (lambda: schedules.PolynomialDecay(0.1, 10, power=float('nan')), ValueError,
     r'PolynomialDecay: argument power: expected a finite number'),
    (lambda: schedules.CosineDecay(0.1, 0), ValueError, r'CosineDecay: argument decay_steps'),
    (lambda: schedules.CosineDecay(0.1, 10, warmup_target=1.0, warmup_steps=-1), ValueError,
     r'CosineDecay: argument warmup_steps: expected a number >= 0'),
    (lambda: schedules.CosineDecayRestarts(0.1, 0), ValueError,
     r'CosineDecayRestarts: argument first_decay_steps'),
    (lambda: schedules.CosineDecayRestarts(0.1, 10, t_mul=0.0), ValueError,
     r'CosineDecayRestarts: argument t_mul'),
    (lambda: schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5]), ValueError,
     r'PiecewiseConstantDecay: argument values: expected one more value than boundaries '
     r'\(3\), got 2'),
    (lambda: schedules.PiecewiseConstantDecay([10], [1.0, 0.5, 0.1]), ValueError,
     r'PiecewiseConstantDecay: argument values.*got 3'),
    (lambda: schedules.PiecewiseConstantDecay([20, 10], [1.0, 0.5, 0.1]), ValueError,
     r'PiecewiseConstantDecay: argument boundaries: expected strictly increasing'),
    (lambda: schedules.PiecewiseConstantDecay([10, 'x'], [1.0, 0.5, 0.1]), TypeError,
     r'PiecewiseConstantDecay: argument boundaries\[1\]'),
])
def test_bad_arguments_name_class_and_argument(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_bad_step():
    lr = schedules.ExponentialDecay(0.1, 10, 0.5)
    with pytest.raises(TypeError, match='ExponentialDecay: step: expected a number, got str'):
        lr('3')
    with pytest.raises(ValueError, match='CosineDecay: step: expected a finite number'):
        schedules.CosineDecay(0.1, 10)(float('inf'))


# -- optimizers --

def _link(w0=1.0):
    link = chainlet.Link()
    with link.init_scope():
        link.w = chainlet.Parameter(np.array([w0], np.float32))
    return link


OPTIMIZERS = ['SGD', 'RMSprop', 'Adam', 'AdamW', 'Adagrad']


@pytest.mark.parametrize('name', OPTIMIZERS)
def test_every_optimizer_takes_a_schedule_and_applies_it_before_each_update(name):
    schedule = schedules.ExponentialDecay(0.1, 1, 0.5)
    opt = getattr(keras.optimizers, name)(learning_rate=schedule)
    link = _link()
    opt.build(link)
    applied = []
    for step in range(4):
        assert opt.iterations == step
        assert opt.learning_rate == pytest.approx(0.1 * 0.5 ** step)
        link.w.grad = np.array([1.0], np.float32)
        opt.update()
        applied.append(getattr(opt.chainlet_optimizer, opt._lr_attr))
    assert applied == pytest.approx([0.1, 0.05, 0.025, 0.0125])
    assert opt.learning_rate == opt.lr == pytest.approx(0.1 * 0.5 ** 4)


def test_apply_gradients_uses_the_schedule():
    opt = keras.optimizers.SGD(schedules.PiecewiseConstantDecay([0], [1.0, 0.5]))
    link = _link()
    opt.build(link)
    opt.apply_gradients([(np.array([1.0], np.float32), link.w)])
    opt.apply_gradients([(np.array([1.0], np.float32), link.w)])
    assert float(link.w.array[0]) == pytest.approx(1.0 - 1.0 - 0.5)


def test_weight_decay_uses_the_scheduled_rate_of_the_step():
    # SGD with g = 0 leaves only the decay: w *= 1 - lr_t * wd, with lr_t = 0.5, 0.25
    opt = keras.optimizers.SGD(schedules.ExponentialDecay(0.5, 1, 0.5), weight_decay=0.1)
    link = _link(2.0)
    opt.build(link)
    for _ in range(2):
        link.w.grad = np.array([0.0], np.float32)
        opt.update()
    assert float(link.w.array[0]) == pytest.approx(2.0 * (1 - 0.05) * (1 - 0.025), rel=1e-6)


def test_learning_rate_of_a_schedule_optimizer_is_not_settable():
    opt = keras.optimizers.Adam(schedules.InverseTimeDecay(0.1, 1, 1.0))
    with pytest.raises(TypeError, match=r'Adam: .*LearningRateSchedule \(InverseTimeDecay\)'):
        opt.learning_rate = 0.01
    assert opt.learning_rate == pytest.approx(0.1)
    opt.learning_rate = schedules.ExponentialDecay(0.3, 1, 0.5)   # another schedule is fine
    assert opt.learning_rate == pytest.approx(0.3)
    plain = keras.optimizers.SGD(lambda step: 0.2)   # a plain callable can be replaced
    plain.learning_rate = 0.05
    assert plain.learning_rate == 0.05


def test_a_schedule_giving_a_bad_rate_raises():
    with pytest.raises(ValueError, match=r'SGD: learning_rate \(the value of .*\) must be a '
                                         r'finite number >= 0, got -0.1'):
        keras.optimizers.SGD(schedules.PolynomialDecay(-0.1, 10, end_learning_rate=0.0))
    opt = keras.optimizers.SGD(0.1)
    with pytest.raises(ValueError, match='finite number'):
        opt.learning_rate = schedules.PiecewiseConstantDecay([], [float('nan')])
    assert opt.learning_rate == 0.1 and opt.get_config()['learning_rate'] == 0.1


@pytest.mark.parametrize('name', OPTIMIZERS)
def test_optimizer_config_round_trips_a_schedule(name):
    schedule = schedules.CosineDecay(0.1, 100, warmup_target=0.3, warmup_steps=10)
    opt = getattr(keras.optimizers, name)(learning_rate=schedule)
    config = opt.get_config()
    assert config['learning_rate'] == {'class_name': 'CosineDecay',
                                       'config': schedule.get_config()}
    data = json.loads(json.dumps(keras.optimizers.serialize(opt)))
    clone = keras.optimizers.deserialize(data)
    assert type(clone) is type(opt)
    assert isinstance(clone._schedule, schedules.CosineDecay)
    assert clone.get_config() == config
    assert type(opt).from_config(config).get_config() == config
    custom = keras.optimizers.SGD(_Halving(1.0))
    back = keras.optimizers.deserialize(keras.optimizers.serialize(custom),
                                        custom_objects={'_Halving': _Halving})
    assert back.learning_rate == 1.0 and back._schedule.get_config() == {'lr': 1.0}


# -- training --

def _dense_model(seed=0):
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])


def _data():
    rng = np.random.default_rng(0)
    return (rng.normal(size=(8, 3)).astype(np.float32),
            rng.normal(size=(8, 2)).astype(np.float32))


def test_fit_with_a_schedule_matches_a_manual_loop_exactly():
    x, y = _data()
    model = _dense_model()
    manual = _dense_model()
    manual.set_weights(model.get_weights())
    schedule = schedules.ExponentialDecay(0.1, 1, 0.5)
    model.compile(keras.optimizers.SGD(learning_rate=schedule), 'mse')
    model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    assert model.optimizer.iterations == 3

    mse = keras.losses.get('mse')
    for lr in (0.1, 0.05, 0.025):
        loss = mse(y, manual(x, training=True))
        manual.cleargrads()
        loss.backward()
        for p in manual.params():
            p.array[...] -= np.multiply(p.grad, lr)
    for got, want in zip(model.get_weights(), manual.get_weights()):
        np.testing.assert_array_equal(got, want)
    assert model.optimizer.learning_rate == pytest.approx(0.0125)


def test_fit_with_schedule_and_learning_rate_scheduler_raises():
    x, y = _data()
    model = _dense_model()
    model.compile(keras.optimizers.SGD(schedules.ExponentialDecay(0.1, 1, 0.5)), 'mse')
    callback = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    with pytest.raises(TypeError, match=r'LearningRateScheduler: cannot set the learning rate: '
                                        r'SGD: .*LearningRateSchedule \(ExponentialDecay\)'):
        model.fit(x, y, epochs=2, callbacks=[callback], verbose=0)


@pytest.mark.parametrize('ext', ['.keras', '.npz', '.h5'])
def test_save_and_load_keep_the_schedule(tmp_path, ext):
    if ext == '.h5':
        pytest.importorskip('h5py')
    x, y = _data()
    model = _dense_model()
    schedule = schedules.PiecewiseConstantDecay([2], [0.1, 0.01])
    model.compile(keras.optimizers.Adam(learning_rate=schedule), 'mse')
    model.fit(x, y, epochs=1, verbose=0)
    path = str(tmp_path / f'model{ext}')
    model.save(path)
    loaded = keras.models.load_model(path)
    opt = loaded.optimizer
    assert type(opt) is keras.optimizers.Adam
    assert isinstance(opt._schedule, schedules.PiecewiseConstantDecay)
    assert opt.get_config() == model.optimizer.get_config()
    # the optimizer state is saved: the schedule goes on from the saved iteration count
    assert opt.iterations == model.optimizer.iterations == 1 and opt.learning_rate == 0.1
    loaded.fit(x, y, batch_size=4, epochs=2, verbose=0)
    assert opt.iterations == 5 and opt.learning_rate == 0.01
    model.save(path, include_optimizer=False)
    fresh = keras.models.load_model(path).optimizer
    assert fresh.iterations == 0 and fresh.learning_rate == 0.1
