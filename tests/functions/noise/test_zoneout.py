import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check


@pytest.mark.parametrize('ratio', [0.0, 0.25, 1.0])
def test_zoneout_mixes_by_flags(ratio):
    h = chainlet.Variable(np.random.uniform(-1, 1, (3, 4)).astype(np.float32))
    x = chainlet.Variable(np.random.uniform(-1, 1, (3, 4)).astype(np.float32))
    y = F.zoneout(h, x, ratio)
    flag_h, flag_x = y.creator.flag_h, y.creator.flag_x
    assert (flag_h ^ flag_x).all()
    np.testing.assert_array_equal(y.array, np.where(flag_x, x.array, h.array))
    if ratio == 0.0:
        assert flag_x.all()
    if ratio == 1.0:
        assert flag_h.all()


def test_zoneout_gradients_follow_the_flags():
    np.random.seed(3)
    h, x, gy, ggh, ggx = np.random.uniform(-1, 1, (5, 3, 4))
    flag = np.random.rand(3, 4)

    def f(h, x):
        np.random.seed(0)  # the same draw on every call of the numerical check
        return F.zoneout(h, x, 0.5)

    gradient_check.check_backward(f, (h, x), gy)
    gradient_check.check_double_backward(f, (h, x), gy, (ggh, ggx))
    del flag


def test_zoneout_in_test_mode_returns_x():
    x = np.ones((2, 2), np.float32)
    with chainlet.using_config('train', False):
        y = F.zoneout(np.zeros((2, 2), np.float32), x, 0.9)
    np.testing.assert_array_equal(y.array, x)


def test_zoneout_rejects_bad_ratio_and_shapes():
    with pytest.raises(ValueError, match='zoneout: argument ratio'):
        F.zoneout(np.zeros(2), np.zeros(2), 1.5)
    with pytest.raises(TypeError, match='zoneout: argument x'):
        F.zoneout(np.zeros(2), np.zeros(3), 0.5)


@pytest.mark.parametrize('ratio', [1.5, -0.5])
def test_zoneout_ratio_is_checked_only_in_training(ratio):
    h, x = np.zeros(2, np.float32), np.ones(2, np.float32)
    with chainlet.using_config('train', False):
        y = F.zoneout(h, x, ratio)
    np.testing.assert_array_equal(y.array, x)
    with pytest.raises(ValueError, match=r'zoneout: argument ratio: expected a value in \[0, 1\]'):
        F.zoneout(h, x, ratio)
    with pytest.raises(ValueError, match='zoneout: argument ratio'):
        F.noise.zoneout.Zoneout(ratio)
