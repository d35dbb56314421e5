"""A non-array ``x`` (None, a list, a str) gives a TypeError naming the function and argument,
not a bare ``AttributeError: ... has no attribute 'shape'`` from the wrapper."""
import numpy as np
import pytest

import chainlet.functions as F

_IDX = np.zeros((1, 1, 2, 2), np.intp)

CALLS = [
    ('reshape', 'x', lambda x: F.reshape(x, (2,))),
    ('broadcast_to', 'x', lambda x: F.broadcast_to(x, (2,))),
    ('sum_to', 'x', lambda x: F.sum_to(x, (2,))),
    ('cast', 'x', lambda x: F.cast(x, np.float32)),
    ('softmax', 'x', lambda x: F.softmax(x)),
    ('log_softmax', 'x', lambda x: F.log_softmax(x)),
    ('gumbel_softmax', 'log_pi', lambda x: F.gumbel_softmax(x)),
    ('max_pooling_nd', 'x', lambda x: F.max_pooling_nd(x, 2)),
    ('average_pooling_nd', 'x', lambda x: F.average_pooling_nd(x, 2)),
    ('unpooling_2d', 'x', lambda x: F.unpooling_2d(x, 2)),
    ('upsampling_2d', 'x', lambda x: F.upsampling_2d(x, _IDX, 2)),
    ('linear', 'x', lambda x: F.linear(x, np.ones((3, 2), np.float32))),
    ('mean', 'x', lambda x: F.mean(x)),
]


@pytest.mark.parametrize('func,arg,call', CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize('bad', [None, [[1.0, 2.0]]], ids=['None', 'list'])
def test_non_array_x_is_a_named_type_error(func, arg, call, bad):
    with pytest.raises(TypeError, match=f'^{func}: argument {arg}: expected a Variable or an '
                                        f'ndarray, got {type(bad).__name__}$'):
        call(bad)
