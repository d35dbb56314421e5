import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.type_check import InvalidType


def test_invalid_type_is_a_type_error():
    assert issubclass(InvalidType, TypeError)


@pytest.mark.parametrize('kwargs,x,message', [
    (dict(ndim=2), np.zeros(3), 'linear: argument W: expected ndim 2, got shape (3,)'),
    (dict(kind='f'), np.zeros(3, np.int32),
     'linear: argument W: expected a floating-point dtype, got int32'),
    (dict(shape=(None, 4)), np.zeros((2, 3)), 'linear: argument W: expected shape (*, 4), got '
                                              '(2, 3)'),
    (dict(dtype=np.float32), np.zeros(2), 'linear: argument W: expected dtype float32, got '
                                          'float64'),
    (dict(min_ndim=2), np.zeros(2), 'linear: argument W: expected ndim >= 2, got shape (2,)'),
    ({}, [1, 2], 'linear: argument W: expected an ndarray, got list'),
])
def test_argument_messages(kwargs, x, message):
    with pytest.raises(InvalidType) as info:
        type_check.argument('linear', 'W', x, **kwargs)
    assert str(info.value) == message


def test_argument_passes():
    type_check.argument('f', 'x', np.zeros((2, 3), np.float32), ndim=2, kind='f',
                        shape=(2, None), dtype=np.float32)


def test_helpers():
    with pytest.raises(InvalidType, match='f: argument b: expected dtype float32 '):
        type_check.same_dtype('f', ('a', 'b'), (np.zeros(1, np.float32), np.zeros(1)))
    with pytest.raises(InvalidType, match=r'f: arguments cannot be broadcast together: a \(2,\), '
                                          r'b \(3,\)'):
        type_check.broadcastable('f', ('a', 'b'), (np.zeros(2), np.zeros(3)))
    assert type_check.broadcastable('f', ('a', 'b'), (np.zeros((2, 1)), np.zeros(3))) == (2, 3)
    with pytest.raises(InvalidType, match='f: expected 2 or 3 inputs, got 1'):
        type_check.count('f', (1,), (2, 3))
    with pytest.raises(InvalidType, match='condition 1'):
        type_check.expect(True, False)
    with pytest.raises(ValueError, match=r'f: argument axis: expected an axis in \[-2, 2\), '
                                         r'got 2'):
        type_check.axis_in_range('f', 'axis', 2, 2)
    assert type_check.axis_in_range('f', 'axis', -1, 3) == 2


def test_integer_input_to_float_function():
    with pytest.raises(InvalidType, match='tanh: argument x: expected a floating-point dtype, '
                                          'got int64'):
        F.tanh(np.arange(3))


def test_type_check_can_be_disabled():
    with chainlet.using_config('type_check', False):
        y = F.tanh(np.arange(3))  # NumPy computes it; no check
    assert y.dtype.kind == 'f'


def test_invalid_type_pickles():
    import pickle
    e = pickle.loads(pickle.dumps(type_check.fail('f', 'x', 'a', 'b')))
    assert str(e) == 'f: argument x: expected a, got b' and e.expect == 'a'
