import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.functions.math.erf import erf_array, erfc_array, ndtr_array
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType

special = pytest.importorskip('scipy.special')


class TestGELU(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return np.asarray(np.random.uniform(-4, 4, self.shape), self.dtype),

    def forward(self, inputs, device):
        return F.gelu(inputs[0]),

    def forward_expected(self, inputs):
        xd = inputs[0].astype(np.float64)
        return np.asarray(xd * special.ndtr(xd), inputs[0].dtype),


def test_gelu_values_and_tails():
    x = np.array([-40.0, -10.0, -1.0, 0.0, 1.0, 10.0, 1e4])
    y = F.gelu(x).array
    np.testing.assert_allclose(y, x * special.ndtr(x), rtol=1e-12, atol=0)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_gelu_large_inputs_no_overflow(dtype):
    x = chainlet.Variable(np.array([-6e4, -1e4, 1e4, 6e4], dtype))
    y = F.gelu(x)
    ones = np.ones(4, dtype)  # F.sum of y would itself overflow float16
    gx, = chainlet.grad([y], [x], [ones], enable_double_backprop=True)
    ggx, = chainlet.grad([gx], [x], [ones])
    np.testing.assert_array_equal(y.array, [0.0, 0.0, 1e4, 6e4])
    np.testing.assert_array_equal(gx.array, [0.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(ggx.array, [0.0, 0.0, 0.0, 0.0])
    assert y.dtype == gx.dtype == ggx.dtype == dtype


@pytest.mark.parametrize('dtype, rtol', [(np.float64, 1e-13), (np.float32, 2e-6)])
def test_erf_helpers_accuracy(dtype, rtol):
    # The array helpers of chainlet.functions.math.erf that gelu is built on.
    x = np.concatenate([np.linspace(-6, 6, 2001), np.geomspace(1e-10, 9, 200)]).astype(dtype)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(erf_array(x), special.erf(xd), rtol=rtol, atol=0)
    np.testing.assert_allclose(erfc_array(x), special.erfc(xd), rtol=rtol * 100, atol=0)
    np.testing.assert_allclose(ndtr_array(x), special.ndtr(xd), rtol=rtol * 100, atol=0)
    for f in (erf_array, erfc_array, ndtr_array):
        assert f(x).dtype == dtype


def test_erf_helpers_special_values():
    x = np.array([-np.inf, -1e300, 0.0, 1e300, np.inf, np.nan])
    np.testing.assert_array_equal(erf_array(x), [-1.0, -1.0, 0.0, 1.0, 1.0, np.nan])
    np.testing.assert_array_equal(erfc_array(x), [2.0, 2.0, 1.0, 0.0, 0.0, np.nan])
    np.testing.assert_array_equal(ndtr_array(x), [0.0, 0.0, 0.5, 1.0, 1.0, np.nan])
    assert erf_array(np.array(0.5, np.float16)).dtype == np.float16


def test_gelu_rejects_integer_input():
    with pytest.raises(InvalidType, match='gelu: argument x'):
        F.gelu(np.array([1, 2]))
