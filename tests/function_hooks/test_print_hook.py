import io

import numpy as np

import chainlet
import chainlet.functions as F
from chainlet.function_hooks import PrintHook
from chainlet.function_hooks.print_hook import describe_array


def test_forward_and_backward_output():
    out = io.StringIO()
    x = chainlet.Variable(np.array([1.0, 3.0], np.float32))
    with PrintHook(file=out):
        y = F.sum(F.exp(x))
    assert out.getvalue() == (
        'function Exp (forward)\n'
        'input data\n'
        '  [0] shape=(2,) dtype=float32 mean=2 std=1\n'
        'function Sum (forward)\n'
        'input data\n'
        f'  [0] shape=(2,) dtype=float32 mean={np.exp([1.0, 3.0]).mean():.4g} '
        f'std={np.exp([1.0, 3.0]).std():.4g}\n')
    out = io.StringIO()
    hook = PrintHook(file=out)
    y.creator.add_hook(hook)
    y.backward()
    text = out.getvalue()
    # Sum's input is kept on the graph because Exp retained its output.
    assert text.startswith('function Sum (backward)\ninput data\n  [0] shape=(2,) '
                           'dtype=float32 mean=11.4 std=8.684\n'
                           'output gradient\n  [0] shape=() dtype=float32 mean=1 std=0\n')
    assert 'Exp' not in text  # only the node the hook was added to


def test_inputs_not_retained_print_none():
    out = io.StringIO()
    x = chainlet.Variable(np.ones(2, np.float32))
    y = F.sum(x)  # Sum retains nothing, and x has no creator that retained it
    y.creator.add_hook(PrintHook(file=out))
    y.backward()
    assert out.getvalue().startswith('function Sum (backward)\ninput data\n  [0] None\n')


def test_sep_end_and_default_stdout(capsys):
    with PrintHook(sep=', ', end=' |'):
        F.tanh(np.zeros((2, 2), np.float64))
    assert capsys.readouterr().out == (
        'function Tanh (forward) |input data |  [0] shape=(2, 2), dtype=float64, mean=0, '
        'std=0 |')


def test_describe_array_kinds():
    assert describe_array(np.arange(4, dtype=np.int32)) == \
        'shape=(4,) dtype=int32 mean=1.5 std=1.118'
    assert describe_array(np.zeros((0, 3), np.float32)) == 'shape=(0, 3) dtype=float32'
    assert describe_array(np.array([True, False])) == 'shape=(2,) dtype=bool mean=0.5 std=0.5'
    assert describe_array(np.array([1 + 1j, 3 + 1j])) == \
        'shape=(2,) dtype=complex128 mean=2+1j std=1'
    assert describe_array(None) == 'None'
