import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


class TestDropout(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'ratio': 0.5}, {'shape': (), 'ratio': 0.3},
              {'shape': (0, 2), 'ratio': 0.5}, {'shape': (2, 3), 'ratio': 0.0}]

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        flag = np.random.uniform(0, 1, self.shape) >= self.ratio
        self.mask = (flag / (1 - self.ratio)).astype(self.dtype)
        return x,

    def forward(self, inputs, device):
        x, = inputs
        return F.dropout(x, self.ratio, mask=self.mask.astype(x.dtype)),

    def forward_expected(self, inputs):
        return (inputs[0] * self.mask).astype(self.dtype),


def test_random_mask_statistics_and_scale():
    np.random.seed(0)
    x = np.ones((200, 50), np.float32)
    y, mask = F.dropout(x, 0.4, return_mask=True)
    assert y.dtype == np.float32 and mask.dtype == np.float32
    values = set(np.unique(y.array).tolist())
    assert values <= {0.0, np.float32(1 / 0.6)}
    assert abs((y.array == 0).mean() - 0.4) < 0.02
    np.testing.assert_array_equal(y.array, x * mask)


def test_mask_from_global_random_state_is_reproducible():
    x = np.ones((4, 5), np.float32)
    np.random.seed(3)
    y1 = F.dropout(x).array
    np.random.seed(3)
    y2 = F.dropout(x).array
    np.testing.assert_array_equal(y1, y2)


def test_generator_argument():
    x = np.ones((4, 5))
    y1 = F.dropout(x, rng=np.random.default_rng(1)).array
    y2 = F.dropout(x, rng=np.random.default_rng(1)).array
    np.testing.assert_array_equal(y1, y2)


def test_returned_mask_can_be_reused():
    x = np.random.uniform(-1, 1, (3, 3)).astype(np.float32)
    y1, mask = F.dropout(x, 0.5, return_mask=True)
    y2 = F.dropout(x, 0.5, mask=mask)
    np.testing.assert_array_equal(y1.array, y2.array)


def test_gradient_is_mask():
    x = chainlet.Variable(np.random.uniform(-1, 1, (3, 4)))
    y, mask = F.dropout(x, 0.5, return_mask=True)
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, mask)


def test_test_mode_returns_input():
    x = chainlet.Variable(np.ones((2, 2), np.float32))
    with chainlet.using_config('train', False):
        assert F.dropout(x) is x
        y, mask = F.dropout(x, 0.9, return_mask=True)
        assert y is x and mask is None
        a = F.dropout(np.ones(2, np.float32))
    assert isinstance(a, chainlet.Variable) and not a.requires_grad


def test_bad_arguments():
    with pytest.raises(ValueError, match=r'dropout: argument ratio: expected a value in \[0, 1\)'):
        F.dropout(np.ones(2), 1.0)
    with pytest.raises(ValueError, match='dropout: argument ratio'):
        F.dropout(np.ones(2), -0.1)
    with pytest.raises(InvalidType, match='dropout: argument x: expected a floating-point'):
        F.dropout(np.ones(2, np.int32))
    with pytest.raises(InvalidType, match=r'dropout: argument mask: expected shape \(2,\)'):
        F.dropout(np.ones(2), mask=np.ones(3))


@pytest.mark.parametrize('rng', [None, np.random.default_rng(3)])
def test_zero_dim_input(rng):
    # Issue 13, item 7: a 0-d input crashed ('bool' object has no attribute 'astype').
    np.random.seed(1)
    outs = set()
    for _ in range(20):
        x = chainlet.Variable(np.array(2.0, np.float32))
        y, mask = F.dropout(x, 0.5, return_mask=True, rng=rng)
        y.backward()
        assert y.shape == () and y.dtype == np.float32 and mask.shape == ()
        assert float(x.grad) == float(mask)
        outs.add(float(y.array))
    assert outs == {0.0, 4.0}


@pytest.mark.parametrize('ratio', ['0.5', b'0.5', True, None])
def test_ratio_of_a_wrong_type_is_a_clear_error(ratio):
    with pytest.raises(TypeError, match=r'dropout: argument ratio: expected a float in \[0, 1\), '
                       r'got .*\((str|bytes|bool|NoneType)\)'):
        F.dropout(np.ones(3, np.float32), ratio)


@pytest.mark.parametrize('ratio', [1.0, -0.1, 2, '0.5', None])
def test_ratio_is_checked_only_when_dropout_applies(ratio):
    # As Chainer: in test mode no node is built and x comes back unchecked; the node itself
    # (Dropout(ratio), as Chainer's constructor) checks the ratio.
    x = np.ones(3, np.float32)
    with chainlet.using_config('train', False):
        y, mask = F.dropout(x, ratio, return_mask=True)
    np.testing.assert_array_equal(y.array, x)
    assert mask is None
    with pytest.raises((ValueError, TypeError), match='dropout: argument ratio'):
        F.dropout(x, ratio)
    with pytest.raises((ValueError, TypeError), match='dropout: argument ratio'):
        F.noise.dropout.Dropout(ratio)
    with pytest.raises(ValueError, match='dropout: argument ratio'):
        F.dropout(x, 1.0, mask=np.ones(3, np.float32))  # checked with a mask too, as Chainer


def test_dropout_node_takes_chainers_positional_arguments():
    # Chainer 7.8.1: Dropout(dropout_ratio, mask=None, return_mask=False).
    x = np.ones((2, 3), np.float32)
    mask = np.array([[0, 2, 2], [2, 0, 2]], np.float32)
    node = F.noise.dropout.Dropout(0.5, mask, True)
    assert node.dropout_ratio == 0.5 and node.return_mask is True
    y, = node.apply((x,))
    np.testing.assert_array_equal(y.array, mask)
    z, = F.noise.dropout.Dropout(0.5, None, False, rng=np.random.default_rng(0)).apply((x,))
    assert set(np.unique(z.array)) <= {0.0, 2.0}
