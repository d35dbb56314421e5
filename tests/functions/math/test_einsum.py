"""einsum: explicit and implicit output, ellipsis, diagonals, sublist form."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestEinsum(PytestFunctionTestCase):
    params = [{'spec': 'ij,jk->ik', 'shapes': ((2, 3), (3, 4))},
              {'spec': 'ij,jk', 'shapes': ((2, 3), (3, 4))},
              {'spec': 'ij->ji', 'shapes': ((2, 3),)},
              {'spec': 'ij->', 'shapes': ((2, 3),)},
              {'spec': 'ij', 'shapes': ((2, 3),)},
              {'spec': 'i,i', 'shapes': ((3,), (3,))},
              {'spec': 'i,j->ij', 'shapes': ((3,), (2,))},
              {'spec': 'ij,ik,jkl->il', 'shapes': ((3, 2), (3, 2), (2, 2, 4))},
              {'spec': 'bij,bjk->bki', 'shapes': ((2, 2, 3), (2, 3, 2))},
              {'spec': 'ii->i', 'shapes': ((3, 3),)},
              {'spec': 'ii', 'shapes': ((3, 3),)},
              {'spec': 'iji,j->ij', 'shapes': ((2, 3, 2), (3,))},
              {'spec': 'ij,j->i', 'shapes': ((2, 3), (3,))},
              {'spec': 'ijk,k->ij', 'shapes': ((2, 3, 2), (2,))},
              {'spec': '...ij,...jk->...ik', 'shapes': ((2, 2, 3), (3, 2))},
              {'spec': '...i,...i', 'shapes': ((2, 1, 3), (4, 3))},
              {'spec': 'i...->...', 'shapes': ((3, 2, 2),)},
              {'spec': ',ij->ij', 'shapes': ((), (2, 3))},
              {'spec': 'ij,jk->ik', 'shapes': ((0, 3), (3, 2))}]

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)

    def forward(self, inputs, device):
        return F.einsum(self.spec, *inputs),

    def forward_expected(self, inputs):
        xs = [x.astype(np.float64) for x in inputs]
        return np.asarray(np.einsum(self.spec, *xs), self.dtype),


def test_sublist_form_matches_string_form():
    x1 = np.arange(12.0).reshape(3, 4)
    x2 = np.arange(15.0).reshape(3, 5)
    w = np.arange(120.0).reshape(4, 5, 6)
    y = F.einsum('ij,ik,jkl->il', x1, x2, w)
    np.testing.assert_allclose(F.einsum(x1, [0, 1], x2, [0, 2], w, [1, 2, 3], [0, 3]).array,
                               y.array)
    np.testing.assert_allclose(F.einsum(x1, [Ellipsis, 1], x2, [Ellipsis, 2], w, [1, 2, 3])
                               .array, y.array)
    np.testing.assert_allclose(F.einsum('...j,...k,jkl', x1, x2, w).array, y.array)


def test_result_does_not_alias_the_input():
    x = np.eye(3)
    y = F.einsum('ii->i', x)
    y.array[0] = 5.0
    assert x[0, 0] == 1.0


def test_gradient_of_trace_and_unused_letter():
    x = chainlet.Variable(np.random.rand(3, 3))
    y = F.einsum('ii', x)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.eye(3))
    a = chainlet.Variable(np.random.rand(2, 3))
    y = F.einsum('ij->i', a)  # j is summed inside a only: its gradient broadcasts along j
    y.grad = np.array([1.0, 2.0])
    y.backward()
    np.testing.assert_array_equal(a.grad, [[1, 1, 1], [2, 2, 2]])


def test_bad_subscripts():
    a = np.ones((2, 3))
    with pytest.raises(ValueError, match='einsum: expected 2 operands'):
        F.einsum('ij,jk->ik', a)
    # Shape mismatches are type errors (InvalidType), as in Chainer.
    with pytest.raises(TypeError, match=r"einsum: argument operands\[1\]: expected length 3 "
                                        r"for letter 'j'"):
        F.einsum('ij,jk->ik', a, np.ones((2, 2)))
    with pytest.raises(TypeError, match=r"einsum: argument operands\[0\]: expected a shape "
                                        r"that fits subscripts 'ijk'"):
        F.einsum('ijk->i', a)
    with pytest.raises(ValueError, match="einsum: output letter 'z'"):
        F.einsum('ij->z', a)
    with pytest.raises(ValueError, match='einsum: argument subscripts: invalid character'):
        F.einsum('i$->i', a)
    with pytest.raises(ValueError, match='einsum: argument subscripts: expected at most one'):
        F.einsum('ij->i->j', a)
    with pytest.raises(ValueError, match='repeat a letter'):
        F.einsum('ij->ii', a)
    with pytest.raises(TypeError, match='do not broadcast'):
        F.einsum('...i,...i', np.ones((2, 3)), np.ones((4, 3)))
    with pytest.raises(TypeError, match=r'einsum: argument operands\[1\]: expected dtype'):
        F.einsum('ij,jk', a, np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match=r'einsum: argument operands\[0\]: expected a Var'):
        F.einsum('i', [1.0, 2.0])


def test_ellipsis_must_reach_the_output():
    with pytest.raises(ValueError, match='missing from the output'):
        F.einsum('...i->i', np.ones((2, 3)))
    with pytest.raises(ValueError, match='in no input'):
        F.einsum('i,i->...', np.ones(2), np.ones(2))
    # An empty "..." may be left out.
    assert F.einsum('...i->i', np.ones(3)).shape == (3,)


@pytest.mark.parametrize('subs, shapes, out_shape', [
    ('i->ij', [(3,)], (3, 4)), (',ij->i', [(), (3, 4)], (3,)), ('i->ii', [(3,)], None)])
def test_diag_einsum(subs, shapes, out_shape):
    from chainlet.functions.math.einsum import DiagEinSum
    from chainlet import gradient_check
    ins, out = subs.split('->')
    xs = [np.random.uniform(-1, 1, s) for s in shapes]
    y = DiagEinSum(ins, out, out_shape).apply(xs)[0]
    if subs == 'i->ij':
        np.testing.assert_allclose(y.array, np.broadcast_to(xs[0][:, None], (3, 4)))
    elif subs == 'i->ii':
        np.testing.assert_allclose(y.array, np.diag(xs[0]))
    else:
        np.testing.assert_allclose(y.array, xs[0] * xs[1].sum(axis=1))
    gy = np.random.uniform(-1, 1, y.shape)
    ggx = [np.random.uniform(-1, 1, s) for s in shapes]

    def f(*v):
        return DiagEinSum(ins, out, out_shape).apply(v)[0]
    gradient_check.check_backward(f, xs, gy)
    gradient_check.check_double_backward(f, xs, gy, ggx)
