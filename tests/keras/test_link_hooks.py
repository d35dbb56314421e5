"""Link hooks see Keras layers as links: ``with hook:`` and ``layer.add_hook(hook)`` run
around a layer's eager call (a ``TimerHook`` records ``Dense``, not the chainlet code inside)."""
from __future__ import annotations

import numpy as np

import chainlet
from chainlet import keras
from chainlet.link_hooks import TimerHook


def _model():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation='relu'),
                             keras.layers.Dense(2)])


class Recorder(chainlet.LinkHook):
    name = 'Recorder'

    def __init__(self):
        self.events = []

    def forward_preprocess(self, args):
        self.events.append(('pre', type(args.link).__name__, args.forward_name,
                            tuple(args.args[0].shape)))

    def forward_postprocess(self, args):
        self.events.append(('post', args.link.name, tuple(args.out.shape)))


def test_thread_wide_timer_records_keras_layers_innermost_first():
    model = _model()
    x = np.ones((5, 3), np.float32)
    with TimerHook() as hook:
        model(x)
    assert [name for name, _ in hook.call_history] == ['Dense', 'Dense', 'Sequential']
    assert all(t >= 0 for _, t in hook.call_history)
    model(x)  # outside the block: nothing more is recorded
    assert len(hook.call_history) == 3


def test_layer_add_hook_records_that_layer_in_fit_and_predict_until_deleted():
    model = _model()
    dense = model.layers[1]
    hook = TimerHook()
    assert dense.add_hook(hook) is dense
    x = np.ones((6, 3), np.float32)
    model.predict(x, batch_size=3, verbose=0)
    assert [name for name, _ in hook.call_history] == ['Dense', 'Dense']
    model.compile('sgd', 'mse')
    model.fit(x, np.zeros((6, 2), np.float32), batch_size=2, epochs=1, verbose=0)
    assert len(hook.call_history) == 5
    dense.delete_hook('TimerHook')
    model(x)
    assert len(hook.call_history) == 5


def test_hook_arguments_carry_the_layer_inputs_and_outputs():
    model = _model()
    rec = Recorder()
    model.layers[0].add_hook(rec)
    model(np.ones((5, 3), np.float32))
    name = model.layers[0].name
    assert rec.events == [('pre', 'Dense', 'forward', (5, 3)), ('post', name, (5, 4))]


def test_symbolic_calls_are_not_reported():
    with TimerHook() as hook:
        inputs = keras.Input((3,))
        keras.Model(inputs, keras.layers.Dense(2)(inputs))
    assert hook.call_history == []


def test_layer_hook_replaces_thread_hook_of_the_same_name():
    model = _model()
    local, outer = Recorder(), Recorder()
    model.layers[0].add_hook(local)
    with outer:
        model(np.ones((2, 3), np.float32))
    assert [e[0] for e in local.events] == ['pre', 'post']
    # the thread-wide recorder sees the other Dense and the model, not the hooked layer
    assert [e[1] for e in outer.events if e[0] == 'pre'] == ['Sequential', 'Dense']
