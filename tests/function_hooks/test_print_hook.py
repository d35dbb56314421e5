import io
import re

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.function_hooks import PrintHook
from chainlet.function_hooks.print_hook import describe_array


_VAR = (r'<variable at 0x[0-9a-f]+>\n- device: CPU\n- backend: <class \'numpy.ndarray\'>\n'
        r'- shape: {shape}\n- dtype: float32\n- statistics: mean={mean}, std={std}\n'
        r'- grad: {grad}\n')


def test_forward_and_backward_output_in_chainers_format():
    out = io.StringIO()
    x = chainlet.Variable(np.array([1.0, 3.0], np.float32))
    with PrintHook(file=out):
        y = F.sum(F.exp(x))
    expected = ('function\tExp\ninput data\n'
                + _VAR.format(shape=r'\(2,\)', mean='2.00000000', std='1.00000000',
                              grad='None')
                + 'function\tSum\ninput data\n'
                + _VAR.format(shape=r'\(2,\)', mean=r'11\.4\d+', std=r'8\.68\d+',
                              grad='None'))
    assert re.fullmatch(expected, out.getvalue()), out.getvalue()
    out = io.StringIO()
    hook = PrintHook(file=out)
    y.creator.add_hook(hook)
    y.backward()
    text = out.getvalue()
    # Sum's input is kept on the graph because Exp retained its output; the output gradient
    # is shown as the grad of a zero-filled variable, as Chainer prints it.
    expected = ('function\tSum\ninput data\n'
                + _VAR.format(shape=r'\(2,\)', mean=r'11\.4\d+', std=r'8\.68\d+',
                              grad='None')
                + 'output gradient\n'
                + _VAR.format(shape=r'\(\)', mean='0.00000000', std='0.00000000',
                              grad='mean=1.00000000, std=0.00000000'))
    assert re.fullmatch(expected, text), text
    assert 'Exp' not in text  # only the node the hook was added to


def test_inputs_not_retained_print_removed():
    out = io.StringIO()
    x = chainlet.Variable(np.ones(2, np.float32))
    y = F.sum(x)  # Sum retains nothing, and x has no creator that retained it
    y.creator.add_hook(PrintHook(file=out))
    y.backward()
    assert out.getvalue().startswith('function\tSum\ninput data\n(removed)\noutput gradient\n')


def test_sep_is_deprecated_end_and_default_stdout(capsys):
    with pytest.warns(DeprecationWarning, match='sep'):
        hook = PrintHook(sep=', ', end=' |')
    with hook:
        F.tanh(np.zeros((2, 2), np.float32))
    out = capsys.readouterr().out
    assert out.startswith('function\tTanh |input data |<variable at 0x')
    assert out.endswith('- grad: None |')


def test_describe_array_kinds():
    assert describe_array(np.arange(4, dtype=np.int32)) == \
        'shape=(4,) dtype=int32 mean=1.5 std=1.118'
    assert describe_array(np.zeros((0, 3), np.float32)) == 'shape=(0, 3) dtype=float32'
    assert describe_array(np.array([True, False])) == 'shape=(2,) dtype=bool mean=0.5 std=0.5'
    assert describe_array(np.array([1 + 1j, 3 + 1j])) == \
        'shape=(2,) dtype=complex128 mean=2+1j std=1'
    assert describe_array(None) == 'None'
