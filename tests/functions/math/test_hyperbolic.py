"""sinh, cosh."""
import numpy as np
import pytest

import chainlet.functions as F
from math_cases import UnaryCase


class _Unary(UnaryCase):
    low, high = -2, 2


class TestSinh(_Unary):
    func = staticmethod(F.sinh)
    ref = staticmethod(np.sinh)


class TestCosh(_Unary):
    func = staticmethod(F.cosh)
    ref = staticmethod(np.cosh)


@pytest.mark.parametrize('func', [F.sinh, F.cosh])
def test_integer_input_is_rejected(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument x'):
        func(np.arange(3))
