"""The trainer split by job (``chainlet.keras.trainers``) and data-parallel ``fit`` as a
strategy: the interface ``fit`` calls, and that the facade stays free of
``chainlet.training``."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras.trainers import compile_utils, data_adapters


def _model():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.SGD(0.1), 'mse', metrics=['mae'])
    return model


def _data(n=10):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 3)).astype(np.float32), rng.normal(size=(n, 2)).astype(np.float32)


def test_old_import_path_is_the_same_class():
    from chainlet.keras.engine.trainer import Trainer as Old
    from chainlet.keras.trainers import Trainer
    assert Old is Trainer
    assert issubclass(keras.Model, Trainer)


class RecordingStrategy:
    """A hand-made strategy: keeps the first half of the data, counts the calls."""

    def __init__(self):
        self.calls = []

    def distribute_data(self, model, x, y, sample_weight, validation_data):
        self.calls.append('distribute_data')
        return x[:6], y[:6], sample_weight, validation_data

    def verbose(self, verbose):
        self.calls.append('verbose')
        return 0

    def after_backward(self):
        self.calls.append('after_backward')

    def reduce_logs(self, logs):
        self.calls.append('reduce_logs')
        return dict(logs, reduced=1.0)


def test_fit_calls_the_strategy_interface():
    x, y = _data()
    strategy = RecordingStrategy()
    history = _model().fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=1,
                           communicator=strategy)
    # 6 samples kept, batch 4: 2 steps per epoch, one gradient average per step
    assert strategy.calls == ['distribute_data', 'verbose'] + \
        ['after_backward', 'after_backward', 'reduce_logs'] * 2
    assert history.history['reduced'] == [1.0, 1.0]


def test_fit_communicator_rejects_iterators():
    x, y = _data()
    with pytest.raises(ValueError, match='communicator= needs array inputs'):
        _model().fit(iter([(x, y)]), communicator=RecordingStrategy())


def test_one_process_data_parallel_fit_matches_plain_fit_and_skips_training_package():
    # A one-process communicator: the strategy shuffles once (seeded through numpy's global
    # state) and keeps every sample, so the result equals a fit on the permuted data.
    code = '''
import sys
import numpy as np
from chainlet import keras

class OneProcess:
    rank, size = 0, 1
    def allgather_obj(self, obj): return [obj]
    def bcast_obj(self, obj): return obj
    def bcast_data(self, model): pass
    def multi_node_mean_grad(self, model, zero_fill=False): pass

def build():
    np.random.seed(1)
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    m.compile(keras.optimizers.SGD(0.1), 'mse')
    return m

rng = np.random.default_rng(0)
x = rng.normal(size=(8, 3)).astype(np.float32)
y = rng.normal(size=(8, 2)).astype(np.float32)
np.random.seed(5)
a = build()
np.random.seed(5)
h = a.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0, communicator=OneProcess())
b = build()
np.random.seed(5)
order = np.random.RandomState(np.random.randint(2 ** 31)).permutation(8)
b.fit(x[order], y[order], batch_size=4, epochs=1, shuffle=False, verbose=0)
for wa, wb in zip(a.get_weights(), b.get_weights()):
    np.testing.assert_allclose(wa, wb, rtol=1e-6)
assert not [m for m in sys.modules if m.startswith('chainlet.training')]
print('ok')
'''
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'ok'


def test_data_adapters_split_and_steps():
    model = _model()
    x, y = _data(10)
    source = data_adapters.make_source(model, x, y, None, 'fit')
    train, val = data_adapters.split_validation(source, 0.25)
    assert (train.n, val.n) == (7, 3)
    np.testing.assert_array_equal(val.xs[0], x[7:])
    assert data_adapters.steps_per_epoch_of(train, 3, None) == 3
    assert data_adapters.steps_per_epoch_of(train, 3, 2) == 2
    with pytest.raises(ValueError, match='validation_split=0.95 leaves 0 training'):
        data_adapters.split_validation(source, 0.95)
    with pytest.raises(ValueError, match='batch_size must be a positive int, got 0'):
        data_adapters.check_batch_size('fit', 0, 32)


def test_compile_utils_resolve_names_and_metrics():
    inputs = keras.Input((3,))
    a = keras.layers.Dense(1, name='a')(inputs)
    b = keras.layers.Dense(2, name='b')(inputs)
    model = keras.Model(inputs, [a, b])
    args = {'loss': ['mse', 'mae'], 'loss_weights': [1.0, 0.5], 'metrics': [['mae'], ['mse']],
            'weighted_metrics': None}
    outs = [np.zeros((4, 1), np.float32), np.zeros((4, 2), np.float32)]
    spec = compile_utils.resolve(model, args, None, outs)
    assert spec.output_names == ['a', 'b'] and spec.multi
    assert spec.weights == [1.0, 0.5]
    assert [name for _, name, _, _ in spec.metrics] == ['a_mae', 'b_mse']
    assert [t.name for t in spec.loss_trackers] == ['a_loss', 'b_loss']
    with pytest.raises(ValueError, match='loss has 3 entries but the model has 2 outputs'):
        compile_utils.resolve(model, dict(args, loss=['mse', 'mse', 'mse']), None, outs)
