import numpy as np
import pytest

import chainlet
import chainlet.functions as F


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('shape', [(5, 3), (4, 3, 2), (4, 3, 2, 1)])
def test_matches_reference(dtype, shape):
    y = np.random.uniform(-1, 1, shape).astype(dtype)
    t_shape = shape[:1] + tuple(s for s in shape[2:] if s != 1) if len(shape) == 4 \
        else shape[:1] + shape[2:]
    t = np.random.randint(0, shape[1], t_shape).astype(np.int32)
    acc = F.accuracy(y, t)
    expected = (y.argmax(axis=1).reshape(t.shape) == t).mean()
    assert acc.dtype == dtype and acc.shape == ()
    np.testing.assert_allclose(acc.array, expected, rtol=1e-3)


def test_ignore_label():
    y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], np.float32)
    t = np.array([1, 1, -1, 0], np.int32)
    np.testing.assert_allclose(F.accuracy(y, t, ignore_label=-1).array, 2 / 3, rtol=1e-6)
    np.testing.assert_allclose(F.accuracy(y, t).array, 0.5)
    all_ignored = np.full(4, 7, np.int32)
    assert float(F.accuracy(y, all_ignored, ignore_label=7).array) == 0


def test_no_gradient():
    y = chainlet.Variable(np.random.randn(3, 4))
    acc = F.accuracy(y, np.array([0, 1, 2], np.int32))
    (acc + (y * 0).sum()).backward()
    assert (y.grad == 0).all()


def test_errors():
    y = np.zeros((3, 4), np.float32)
    with pytest.raises(TypeError, match=r'accuracy: argument t: expected shape \(3,\)'):
        F.accuracy(y, np.zeros(4, np.int32))
    with pytest.raises(TypeError, match='accuracy: argument t: expected a signed integer'):
        F.accuracy(y, np.zeros(3, np.float32))
    with pytest.raises(TypeError, match='accuracy: argument y: expected a floating'):
        F.accuracy(np.zeros((3, 4), np.int32), np.zeros(3, np.int32))
    with pytest.raises(TypeError, match='accuracy: argument y: expected ndim >= 2'):
        F.accuracy(np.zeros(3, np.float32), np.zeros(3, np.int32))
