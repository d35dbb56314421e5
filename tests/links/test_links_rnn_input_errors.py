"""A 0-d (or otherwise batch-less) input to a recurrent link raises a ValueError that names the
link and the argument, instead of an IndexError on ``x.shape[0]`` or an error from an inner
function (``linear``, ``concat``) that does not say which link was called."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet.links as L

Z = np.ones((), np.float32)
X = np.ones((2, 3), np.float32)
H = np.zeros((2, 4), np.float32)


@pytest.mark.parametrize('make,call,link,arg', [
    (lambda: L.LSTM(3, 4), lambda f: f(Z), 'LSTM', 'x'),
    (lambda: L.LSTM(4), lambda f: f(Z), 'LSTM', 'x'),  # in_size inferred from x
    (lambda: L.StatelessLSTM(3, 4), lambda f: f(None, None, Z), 'StatelessLSTM', 'x'),
    (lambda: L.StatelessLSTM(3, 4), lambda f: f(Z, None, X), 'StatelessLSTM', 'c'),
    (lambda: L.StatelessLSTM(3, 4), lambda f: f(None, Z, X), 'StatelessLSTM', 'h'),
    (lambda: L.StatefulPeepholeLSTM(3, 4), lambda f: f(Z), 'StatefulPeepholeLSTM', 'x'),
    (lambda: L.StatefulZoneoutLSTM(3, 4), lambda f: f(Z), 'StatefulZoneoutLSTM', 'x'),
    (lambda: L.ChildSumTreeLSTM(3, 4), lambda f: f(Z), 'ChildSumTreeLSTM', 'x'),
    (lambda: L.NaryTreeLSTM(3, 4, 2), lambda f: f(None, Z, None, None, X), 'NaryTreeLSTM',
     'c_2'),
    (lambda: L.NStepLSTM(1, 3, 4, 0.0), lambda f: f(None, None, [Z]), 'NStepLSTM', 'xs[0]'),
    (lambda: L.NStepLSTM(1, 3, 4, 0.0), lambda f: f(Z, None, [X]), 'NStepLSTM', 'hx'),
    (lambda: L.NStepBiLSTM(1, 3, 4, 0.0), lambda f: f(None, Z, [X]), 'NStepBiLSTM', 'cx'),
    (lambda: L.StatefulGRU(3, 4), lambda f: f(Z), 'StatefulGRU', 'x'),
    (lambda: L.StatelessGRU(3, 4), lambda f: f(H, Z), 'StatelessGRU', 'x'),
    (lambda: L.StatefulMGU(3, 4), lambda f: f(Z), 'StatefulMGU', 'x'),
    (lambda: L.StatelessMGU(3, 4), lambda f: f(H, Z), 'StatelessMGU', 'x'),
])
def test_zero_dim_input_names_link_and_argument(make, call, link, arg):
    with pytest.raises(ValueError) as info:
        call(make())
    message = str(info.value)
    assert message.startswith(f'{link}: argument {arg}: expected shape (')
    assert message.endswith('got ()')


def test_valid_steps_still_run():
    lstm = L.LSTM(3, 4)
    assert lstm(X).shape == (2, 4)
    c, h = L.StatelessLSTM(3, 4)(None, None, X)
    assert c.shape == h.shape == (2, 4)
    hy, cy, ys = L.NStepLSTM(1, 3, 4, 0.0)(None, None, [X, X[:1]])
    assert hy.shape == (1, 2, 4) and [y.shape for y in ys] == [(2, 4), (1, 4)]
