"""neg, add, sub, mul, div, pow: broadcasting, scalar operands, dtype preservation (NEP 50)."""
import operator

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check
from chainlet.testing import PytestFunctionTestCase

_SHAPES = [{'shape1': (3, 2), 'shape2': (3, 2)},
           {'shape1': (3, 2), 'shape2': (2,)},
           {'shape1': (1, 2), 'shape2': (3, 1)},
           {'shape1': (), 'shape2': (2, 3)},
           {'shape1': (), 'shape2': ()},
           {'shape1': (0, 2), 'shape2': (2,)}]


class _Binary(PytestFunctionTestCase):
    params = _SHAPES
    low, high = -1.0, 1.0

    def generate_inputs(self):
        x1 = np.random.uniform(self.low, self.high, self.shape1).astype(self.dtype)
        x2 = np.random.uniform(self.low, self.high, self.shape2).astype(self.dtype)
        return x1, x2

    def forward(self, inputs, device):
        return type(self).func(*inputs),

    def forward_expected(self, inputs):
        x1, x2 = inputs
        return np.asarray(type(self).ref(x1.astype(np.float64), x2)).astype(self.dtype),


class TestAdd(_Binary):
    func = staticmethod(F.add)
    ref = staticmethod(np.add)


class TestSub(_Binary):
    func = staticmethod(F.sub)
    ref = staticmethod(np.subtract)


class TestMul(_Binary):
    func = staticmethod(F.mul)
    ref = staticmethod(np.multiply)


class TestDiv(_Binary):
    func = staticmethod(F.div)
    ref = staticmethod(np.divide)
    low, high = 0.5, 2.0

    def setup(self):
        if self.dtype == np.float16:
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)


class TestPow(_Binary):
    func = staticmethod(F.pow)
    ref = staticmethod(np.power)
    low, high = 0.5, 2.0

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)


class TestAddMany(PytestFunctionTestCase):
    params = [{'shapes': ((2, 3), (2, 3), (2, 3))}, {'shapes': ((2, 3), (3,), ())},
              {'shapes': ((), (), (), ())}]

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return F.add(*inputs),

    def forward_expected(self, inputs):
        y = inputs[0].astype(np.float64)
        for x in inputs[1:]:
            y = y + x
        return y.astype(self.dtype),


class TestNeg(PytestFunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return -inputs[0],

    def forward_expected(self, inputs):
        return -inputs[0],


# A scalar operand on either side of each operator.
_SCALAR_OPS = [
    ('add', lambda x: x + 2.5, lambda x: x + 2.5),
    ('radd', lambda x: 2.5 + x, lambda x: 2.5 + x),
    ('sub', lambda x: x - 2.5, lambda x: x - 2.5),
    ('rsub', lambda x: 2.5 - x, lambda x: 2.5 - x),
    ('mul', lambda x: x * 1.5, lambda x: x * 1.5),
    ('rmul', lambda x: -1.5 * x, lambda x: -1.5 * x),
    ('div', lambda x: x / 4.0, lambda x: x / 4.0),
    ('rdiv', lambda x: 2.0 / x, lambda x: 2.0 / x),
    ('pow', lambda x: x ** 3, lambda x: x ** 3),
    ('pow2', lambda x: x ** 2, lambda x: x ** 2),
    ('pow1', lambda x: x ** 1, lambda x: x ** 1),
    ('pow_half', lambda x: x ** 0.5, lambda x: x ** 0.5),
    ('pow_neg', lambda x: x ** -2.0, lambda x: x ** -2.0),
    ('rpow', lambda x: 2.0 ** x, lambda x: 2.0 ** x),
]


class TestScalarOperand(PytestFunctionTestCase):
    params = [{'op': name, 'shape': shape} for name, _, _ in _SCALAR_OPS
              for shape in ((3, 2), ())]

    def setup(self):
        self.f, self.ref = {n: (f, r) for n, f, r in _SCALAR_OPS}[self.op]
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)

    def generate_inputs(self):
        return np.random.uniform(0.5, 2.0, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return self.f(inputs[0]),

    def forward_expected(self, inputs):
        return np.asarray(self.ref(inputs[0].astype(np.float64))).astype(self.dtype),


@pytest.mark.parametrize('expr', [
    lambda x: x * 2.0, lambda x: 2.0 * x, lambda x: x + np.float64(1), lambda x: x / 10,
    lambda x: 10 / x, lambda x: x - np.float64(0.5), lambda x: x ** 2.0, lambda x: 3 ** x,
    lambda x: x * np.float32(2), lambda x: -x, lambda x: abs(x),
    lambda x: F.mul(x, np.float64(3.0)), lambda x: F.add(np.float64(3.0), x)])
def test_scalars_keep_float32(expr):
    x = chainlet.Variable(np.array([1.0, 2.0], np.float32))
    y = expr(x)
    assert y.dtype == np.float32
    y.grad = np.ones(2, np.float32)
    y.backward()
    assert x.grad.dtype == np.float32


def test_scalars_keep_float16():
    x = chainlet.Variable(np.array([1.0, 2.0], np.float16))
    assert (x * 2.0 + np.float64(1) - 3 / x).dtype == np.float16


def test_ndarray_on_the_left_gives_a_variable():
    x = chainlet.Variable(np.array([1.0, 2.0]))
    for op in (operator.add, operator.sub, operator.mul, operator.truediv):
        y = op(np.array([3.0, 4.0]), x)
        assert isinstance(y, chainlet.Variable)
        np.testing.assert_allclose(y.array, op(np.array([3.0, 4.0]), x.array))


def test_broadcast_gradient_is_summed_to_the_input_shape():
    a = chainlet.Variable(np.ones((3, 2), np.float32))
    b = chainlet.Variable(np.array([1.0, 2.0], np.float32))
    y = F.sum(a * b)
    y.backward()
    assert b.grad.shape == (2,)
    np.testing.assert_allclose(b.grad, [3.0, 3.0])
    np.testing.assert_allclose(a.grad, np.tile([1.0, 2.0], (3, 1)))


@pytest.mark.parametrize('func', [F.add, F.sub, F.mul, F.div, F.pow])
def test_mixed_dtypes_are_rejected(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument rhs: expected dtype '
                                        'float32'):
        func(np.ones(2, np.float32), np.ones(2, np.float64))


@pytest.mark.parametrize('func', [F.add, F.sub, F.mul, F.div])
def test_unbroadcastable_shapes_are_rejected(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: arguments cannot be broadcast'):
        func(np.ones((2, 3)), np.ones((4,)))


def test_unsupported_operand_is_rejected():
    x = chainlet.Variable(np.ones(2))
    with pytest.raises(TypeError, match='mul: unsupported operand of type list'):
        F.mul(x, [1.0, 2.0])


def test_labels_are_chainers():
    from chainlet.functions.math import basic_math as bm
    assert bm.Add().label == '_ + _' and bm.PowVarVar().label == '_ ** _'
    assert bm.Neg().label == '__neg__' and bm.Absolute().label == '|_|'
    assert bm.AddConstant(-2).label == '_ + (-2)'
    assert bm.DivFromConstant(2.0).label == '2.0 / _'
    assert bm.MulConstant(np.ones(2)).label == '_ * constant array'
    with pytest.raises(ValueError, match='basic_math'):
        bm._convert_value_to_string('a')


@pytest.mark.parametrize('op', [lambda x, c: x + c, lambda x, c: c - x, lambda x, c: x * c,
                                lambda x, c: c / x, lambda x, c: x ** c, lambda x, c: c ** x])
def test_constant_array_takes_the_variable_dtype(op):
    x = chainlet.Variable(np.array([1.5, 2.0], np.float16))
    y = op(x, np.array([2.0, 3.0]))
    assert y.dtype == np.float16
    y.grad = np.ones(2, np.float16)
    y.backward()
    assert x.grad.dtype == np.float16


def test_two_variables_of_different_dtypes_still_raise():
    x = chainlet.Variable(np.ones(2, np.float16))
    with pytest.raises(TypeError, match='add: argument rhs'):
        x + chainlet.Variable(np.ones(2))


def test_floordiv_is_floor_of_the_quotient():
    from chainlet.functions.math.basic_math import floordiv, rfloordiv
    x = chainlet.Variable(np.array([7.0, -7.0]))
    np.testing.assert_array_equal(floordiv(x, 2.0).array, [3.0, -4.0])
    np.testing.assert_array_equal(rfloordiv(x, 15.0).array, [2.0, -3.0])


def test_matmul_operator_form_casts_a_constant_array():
    from chainlet.functions.math.basic_math import matmul, rmatmul
    x = chainlet.Variable(np.ones((2, 2), np.float32))
    assert matmul(x, np.ones((2, 3))).dtype == np.float32
    assert rmatmul(x, np.ones((3, 2))).shape == (3, 2)
    assert rmatmul(x, np.ones((3, 2))).dtype == np.float32


@pytest.mark.parametrize('c', [1, 2, 3, 0.5, -2.0])
def test_the_pow_gradient_node_has_a_second_derivative(c):
    # x ** c's gradient node is differentiable in x and gy: the third derivative of x ** c.
    from chainlet.functions.math.basic_math import PowVarConstGrad
    rng = np.random.RandomState(c == 1)
    x, gy, ggx = (rng.uniform(0.5, 2.0, 3), rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3))
    gradient_check.check_backward(lambda x, gy: PowVarConstGrad(c).apply((x, gy)), (x, gy),
                                  ggx, dtype=np.float64)
    gradient_check.check_double_backward(
        lambda x, gy: PowVarConstGrad(c).apply((x, gy)), (x, gy), ggx,
        (rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)), dtype=np.float64)
    np.testing.assert_allclose(PowVarConstGrad(c).apply((x, gy))[0].array,
                               gy * c * x ** (c - 1), rtol=1e-13)


@pytest.mark.parametrize('op', [operator.mul, operator.add, operator.truediv])
def test_a_negative_zero_constant_is_not_its_positive_twin(op):
    # 0.0 == -0.0, so a constant cache keyed by value once gave x * -0.0 the result of x * 0.0.
    a = np.array([1.0, -1.0, -0.0], np.float32)
    x = chainlet.Variable(a)
    for c in (0.0, -0.0, 0.0):
        with np.errstate(divide='ignore', invalid='ignore'):
            expected = op(a, np.float32(c))
            got = op(x, c).array
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
        np.testing.assert_array_equal(got, expected)
