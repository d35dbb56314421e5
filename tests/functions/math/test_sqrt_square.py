"""sqrt, rsqrt, square."""
import numpy as np
import pytest

import chainlet.functions as F
from math_cases import UnaryCase


class _Unary(UnaryCase):
    low, high = 0.5, 2.0


class TestSqrt(_Unary):
    func = staticmethod(F.sqrt)
    ref = staticmethod(np.sqrt)


class TestRsqrt(_Unary):
    func = staticmethod(F.rsqrt)

    @staticmethod
    def ref(x):
        return 1 / np.sqrt(x)


class TestSquare(_Unary):
    func = staticmethod(F.square)
    ref = staticmethod(np.square)
    low, high = -2.0, 2.0


@pytest.mark.parametrize('func', [F.sqrt, F.rsqrt, F.square])
def test_integer_input_is_rejected(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument x'):
        func(np.arange(3))
