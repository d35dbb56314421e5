"""What tools that read the recorded graph (onnx_chainer's exporter, graph dumps) rely on:
output nodes that know their Variable while hooks observe, and a ``FunctionNode.apply`` that can
be monkeypatched for every function class."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import _hooks
from chainlet.function_hooks import FunctionHook
from chainlet.function_node import FunctionNode


class _Recorder(FunctionHook):
    name = 'recorder'


class _LinkRecorder(chainlet.LinkHook):
    name = 'link_recorder'


def _origin(method):
    """The function a class's hot method is a copy of (Python 3.11+ gives each class its own
    copy; before 3.11 the class simply inherits the function itself)."""
    return getattr(method, '_hot_copy_of', method)


def _x():
    return chainlet.Variable(np.arange(3, dtype=np.float32))


def test_outputs_do_not_know_their_variable_without_hooks():
    y = F.tanh(_x())
    assert y.node.get_variable_or_none() is None
    assert _hooks.observers.active == 0


@pytest.mark.parametrize('hook', [_Recorder, _LinkRecorder])
def test_outputs_know_their_variable_under_a_thread_hook(hook):
    x = _x()
    with hook():
        assert _hooks.observers.active == 1
        y = F.tanh(x)
        a, b = F.split_axis(x, [1], 0)
        z = x * 2.0 + y  # the two-input path
    assert _hooks.observers.active == 0
    for v in (y, a, b, z):
        assert v.node.get_variable_or_none() is v
        assert v.node.get_variable() is v
    # As a leaf's node, the reference is weak: the node outlives its Variable.
    node = z.node
    del z, v
    gc.collect()
    assert node.get_variable_or_none() is None


def test_outputs_know_their_variable_under_a_local_hook():
    x = _x()
    f = type(F.tanh(x).creator)()
    f.add_hook(_Recorder())
    y, = f.apply((x,))
    assert y.node.get_variable_or_none() is y


def test_gradients_under_hooks_stay_on_the_variables():
    x = _x()
    with _Recorder():
        y = F.tanh(x)
        z = F.sum(y * y)
    z.backward(retain_grad=True)
    t = np.tanh(x.array)
    np.testing.assert_allclose(x.grad, 2 * t * (1 - t * t), rtol=1e-6)
    np.testing.assert_allclose(y.grad, 2 * t, rtol=1e-6)
    assert y.node.grad is y.grad  # the node answers from its Variable, as in Chainer


def test_outputs_made_without_backprop_know_their_variable_under_hooks():
    with _Recorder(), chainlet.no_backprop_mode():
        y = F.tanh(_x())
    assert y.creator is None and y.node.get_variable_or_none() is y


def test_patching_apply_reaches_every_function_class():
    x = _x()
    relu = type(F.relu(x).creator)
    original = FunctionNode.apply
    seen = []

    def patched(self, inputs):
        seen.append(type(self).__name__)
        return original(self, inputs)

    FunctionNode.apply = patched
    try:
        F.relu(x)
        F.tanh(x)
        assert _origin(relu.apply) is patched  # a per-class copy of the patch
    finally:
        FunctionNode.apply = original
    F.relu(x)
    assert seen == ['ReLU', 'Tanh']
    assert _origin(relu.apply) is original  # the original is back everywhere


def test_patching_a_subclass_reaches_its_subclasses_and_deleting_restores():
    class Base(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

    class Derived(Base):
        pass

    original = Derived.apply
    calls = []

    def patched(self, inputs):
        calls.append(type(self).__name__)
        return FunctionNode.__dict__['apply'](self, inputs)

    Base.apply = patched
    Derived().apply((_x(),))
    assert calls == ['Derived']
    del Base.apply
    Derived().apply((_x(),))
    assert calls == ['Derived']
    assert _origin(Derived.apply) is _origin(original)
