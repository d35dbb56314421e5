import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import FunctionNode, Variable


def test_nan_in_forward_names_function_and_creation_stack():
    x = Variable(np.array([-1.0, 1.0]))
    with chainlet.using_config('debug', True):
        with pytest.raises(RuntimeError) as info, np.errstate(invalid='ignore'):
            F.log(x)  # this line should appear in the message
    msg = str(info.value)
    assert msg.startswith('NaN is detected on forward computation of Log: forward output 0 '
                          '(debug mode)')
    assert 'test_nan_in_forward_names_function_and_creation_stack' in msg
    assert 'F.log(x)' in msg


def test_inf_in_forward():
    with chainlet.using_config('debug', True):
        with pytest.raises(RuntimeError, match='Inf is detected on forward computation of Exp: '
                                               'forward output 0'), \
                np.errstate(over='ignore'):
            F.exp(Variable(np.array([1000.0])))


def test_nan_in_backward_names_function_and_where_it_was_applied():
    class BadGrad(FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * np.nan,
    with chainlet.using_config('debug', True):
        y = BadGrad().apply((Variable(np.array([1.0])),))[0]
        with pytest.raises(RuntimeError, match='NaN is detected on backward computation of '
                                               'BadGrad: gradient of input 0') \
                as info:
            y.backward()
    assert 'BadGrad().apply' in str(info.value)


def test_no_check_outside_debug_mode():
    with np.errstate(invalid='ignore'):
        y = F.log(Variable(np.array([-1.0])))
    assert np.isnan(y.array[0])
    assert chainlet.is_debug() is False
    chainlet.set_debug(True)
    try:
        assert chainlet.is_debug()
    finally:
        chainlet.set_debug(False)
