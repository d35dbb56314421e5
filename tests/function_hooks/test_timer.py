import io
import re
import threading
import time

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import FunctionNode
from chainlet.function_hooks import TimerHook


class Slow(FunctionNode):
    """Identity that sleeps in forward and in backward; its backward applies SlowInner."""

    def forward(self, inputs):
        time.sleep(0.02)
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        time.sleep(0.03)
        return SlowInner().apply(grad_outputs)


class SlowInner(FunctionNode):
    def forward(self, inputs):
        time.sleep(0.01)
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        return grad_outputs


def test_forward_backward_and_nesting_are_timed():
    x = chainlet.Variable(np.ones(3, np.float32))
    with TimerHook() as hook:
        y = Slow().apply((x,))[0]
        y.grad = np.ones(3, np.float32)
        y.backward()
    s = hook.summary()
    assert list(s) == ['Slow', 'SlowInner']
    slow, inner = s['Slow'], s['SlowInner']
    assert (slow['forward_occurrence'], slow['backward_occurrence']) == (1, 1)
    assert (inner['forward_occurrence'], inner['backward_occurrence']) == (1, 0)
    assert slow['occurrence'] == 2
    assert slow['forward_time'] >= 0.02
    assert slow['backward_time'] >= 0.04  # inclusive: its own 30 ms plus SlowInner's 10 ms
    assert 0.01 <= inner['forward_time'] < slow['backward_time']
    assert slow['elapsed_time'] == pytest.approx(slow['forward_time'] + slow['backward_time'])
    assert slow['mean_time'] == pytest.approx(slow['elapsed_time'] / 2)
    # The nested call is counted once in the total.
    total = hook.total_time()
    assert 0.06 <= total < 0.06 + 0.04
    assert total == pytest.approx(slow['elapsed_time'], abs=1e-3)
    assert total < slow['elapsed_time'] + inner['elapsed_time']
    assert [label for label, _ in hook.call_history] == ['Slow', 'SlowInner', 'Slow']
    np.testing.assert_array_equal(x.grad, np.ones(3))


def test_real_functions_counts():
    x = chainlet.Variable(np.ones((2, 3), np.float32))
    with TimerHook() as hook:
        for _ in range(3):
            y = F.sum(F.tanh(x) * x)
            y.backward()
    s = hook.summary()
    assert s['Tanh']['forward_occurrence'] == 3 and s['Tanh']['backward_occurrence'] == 3
    assert s['Sum']['forward_occurrence'] == 3
    assert all(r['elapsed_time'] > 0 for r in s.values())
    assert hook.total_time() <= sum(r['elapsed_time'] for r in s.values())


@pytest.mark.parametrize('unit', ['sec', 'ms', 'us', 'ns', 'auto', 'auto_foreach'])
def test_print_report(unit):
    x = chainlet.Variable(np.ones(3, np.float32))
    with TimerHook() as hook:
        F.sum(F.exp(x)).backward()
    out = io.StringIO()
    hook.print_report(unit=unit, file=out)
    # Chainer's table by default: name, total time, count
    assert re.fullmatch(r'FunctionName  ElapsedTime  Occurrence\n( +\S+ +[\d.]+(sec|ms|us|ns) +'
                        r'\d+\n)+', out.getvalue()), out.getvalue()
    out = io.StringIO()
    hook.print_report(unit=unit, file=out, detailed=True)
    lines = out.getvalue().splitlines()
    assert re.match(r'^\s*FunctionName\s+ElapsedTime\s+Occurrence\s+MeanTime\s+Forward\s+'
                    r'Backward$', lines[0])
    units = '(sec|ms|us|ns)'
    row = re.compile(rf'^\s*(\S.*?)\s+[\d.]+{units}\s+(\d+)\s+[\d.]+{units}\s+[\d.]+{units}\s+'
                     rf'[\d.]+{units}$')
    rows = [row.match(line) for line in lines[1:-1]]
    assert all(rows), lines
    assert {m.group(1): int(m.group(3)) for m in rows}['Exp'] == 2
    if unit in ('sec', 'ms', 'us', 'ns'):
        assert all(m.group(2) == unit for m in rows)
    assert lines[-1].startswith('Total time of outermost calls: ')


def test_print_report_defaults_and_bad_unit(capsys):
    hook = TimerHook()
    hook.print_report()
    assert 'FunctionName' in capsys.readouterr().out
    with pytest.raises(ValueError, match='unit'):
        hook.print_report(unit='minutes')


def test_local_hook_on_one_node():
    x = chainlet.Variable(np.ones(3, np.float32))
    hook = TimerHook()
    node = Slow()
    node.add_hook(hook)
    y = F.exp(node.apply((x,))[0])
    assert list(hook.summary()) == ['Slow']
    assert TimerHook().name == 'TimerHook'
    del y


class Failing(FunctionNode):
    def forward(self, inputs):
        raise ValueError('bad input')


def test_exception_inside_a_function_does_not_corrupt_the_hook():
    hook = TimerHook()
    with pytest.raises(ValueError):
        with hook:
            Failing().apply((np.ones(2),))
    with hook:
        F.exp(np.ones(2))
    assert list(hook.summary()) == ['Exp']
    assert hook.total_time() == pytest.approx(hook.summary()['Exp']['elapsed_time'])


def test_hook_is_thread_local():
    hook = TimerHook()

    def worker():
        F.exp(np.ones(2))

    with hook:
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        F.tanh(np.ones(2))
    assert list(hook.summary()) == ['Tanh']


def test_functions_are_recorded_under_their_class_names():
    # As Chainer's _impl_name: 'Mul', not the label '_ * _'; a Function's own class, not the
    # node wrapping it.
    class Twice(chainlet.Function):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, inputs, grads):
            return grads[0] * 2,

    x = chainlet.Variable(np.ones(3, np.float32))
    with TimerHook() as hook:
        y = x * x
        Twice()(y)
    assert [name for name, _ in hook.call_history] == ['Mul', 'Twice']
