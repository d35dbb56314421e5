import numpy as np
import pytest

import chainlet.functions as F


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_matches_reference(dtype):
    y = np.random.uniform(-1, 1, (4, 5)).astype(dtype)
    t = np.random.randint(-1, 2, (4, 5)).astype(np.int32)
    valid = t != -1
    expected = (((y >= 0) == (t == 1)) & valid).sum() / max(valid.sum(), 1)
    acc = F.binary_accuracy(y, t)
    assert acc.dtype == dtype and acc.shape == ()
    np.testing.assert_allclose(acc.array, expected, rtol=1e-3)


def test_chainer_examples():
    y = np.array([[-2.0, 0.0], [3.0, -5.0]])
    assert float(F.binary_accuracy(y, np.array([[0, 1], [1, 0]], np.int32)).array) == 1
    assert float(F.binary_accuracy(y, np.array([[0, 0], [1, 1]], np.int32)).array) == 0.5
    assert float(F.binary_accuracy(y, np.array([[0, -1], [1, -1]], np.int32)).array) == 1
    assert float(F.binary_accuracy(y, np.full((2, 2), -1, np.int32)).array) == 0


def test_errors():
    with pytest.raises(TypeError, match='binary_accuracy: argument t: expected shape'):
        F.binary_accuracy(np.zeros((2, 2)), np.zeros(2, np.int32))
    with pytest.raises(TypeError, match='binary_accuracy: argument y'):
        F.binary_accuracy(np.zeros(2, np.int32), np.zeros(2, np.int32))
