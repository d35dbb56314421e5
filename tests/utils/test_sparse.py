"""chainlet.utils.sparse: CooMatrix, to_coo and get_order."""
import numpy as np
import pytest

import chainlet
from chainlet import utils


def _dense(shape, dtype, seed=0):
    x = np.random.RandomState(seed).uniform(0.5, 1, shape).astype(dtype)
    x[x < 0.75] = 0
    return x


@pytest.mark.parametrize('shape', [(2, 3), (3, 4)])
@pytest.mark.parametrize('nbatch', [0, 1, 4])
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('ldnz', [None, 12])
def test_to_coo_round_trip(shape, nbatch, dtype, ldnz):
    x = _dense((nbatch,) + shape if nbatch else shape, dtype)
    sp = utils.to_coo(x, ldnz=ldnz)
    assert isinstance(sp.data, chainlet.Variable)
    assert sp.data.shape == sp.row.shape == sp.col.shape
    assert sp.row.dtype == sp.col.dtype == np.int32 and sp.data.dtype == dtype
    most = max(np.count_nonzero(m) for m in (x if nbatch else [x]))
    assert sp.data.shape[-1] == (most if ldnz is None else max(ldnz, most))
    assert sp.data.ndim == (2 if nbatch else 1)
    assert sp.shape == shape and sp.order == 'C'
    np.testing.assert_array_equal(sp.to_dense(), x)
    # Unused slots hold value 0 at index -1.
    used = sp.row >= 0
    assert (sp.col[~used] == -1).all() and (sp.data.array[~used] == 0).all()


def test_to_coo_requires_grad_and_errors():
    x = np.eye(2, dtype=np.float32)
    assert utils.to_coo(x).data.requires_grad is False
    assert utils.to_coo(x, requires_grad=True).data.requires_grad is True
    with pytest.raises(ValueError, match='expected ndim 2 or 3'):
        utils.to_coo(np.zeros(3))


def test_to_coo_all_zero():
    sp = utils.to_coo(np.zeros((2, 2), np.float32))
    assert sp.data.shape == (0,)
    np.testing.assert_array_equal(sp.to_dense(), np.zeros((2, 2)))


@pytest.mark.parametrize('nbatch', [0, 1])
def test_duplicate_indices_add_up(nbatch):
    data = np.array([3., 0., 4., -5.], np.float32)
    row = np.array([0, 0, 1, 0])
    col = np.array([0, 1, 2, 0])
    expected = np.array([[-2., 0., 0.], [0., 0., 4.]], np.float32)
    if nbatch:
        data, row, col, expected = data[None], row[None], col[None], expected[None]
    np.testing.assert_array_equal(utils.CooMatrix(data, row, col, (2, 3)).to_dense(), expected)


@pytest.mark.parametrize('kwargs,match', [
    (dict(data=np.zeros((1, 1, 1)), row=np.zeros((1, 1, 1)), col=np.zeros((1, 1, 1))),
     'expected ndim 1 or 2'),
    (dict(data=np.zeros(2), row=np.zeros((1, 2)), col=np.zeros(2)), 'same ndim'),
    (dict(shape=(2,)), r'expected \(rows, cols\)'),
    (dict(shape=(0, 2)), 'positive sizes'),
    (dict(order='X'), 'argument order'),
])
def test_coo_matrix_errors(kwargs, match):
    args = dict(data=np.zeros(2), row=np.array([0, 1]), col=np.array([0, 1]), shape=(2, 2))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        utils.CooMatrix(**args)


def test_order_given_is_kept():
    sp = utils.CooMatrix(np.ones(2), np.array([1, 0]), np.array([0, 1]), (2, 2), order='other')
    assert sp.order == 'other'


@pytest.mark.parametrize('nbatch', [0, 1, 4])
def test_get_order_of_to_coo(nbatch):
    x = _dense((nbatch, 3, 4) if nbatch else (3, 4), np.float32)
    x[..., 0, 3] = 1
    x[..., 2, 0] = 1
    sp = utils.to_coo(x)
    assert utils.get_order(sp.row, sp.col) == 'C'
    assert utils.get_order(sp.col, sp.row) == 'F'


def test_get_order_cases():
    row = np.array([0, 2, 4, 1, 3], np.int32)
    col = np.array([1, 3, 0, 2, 4], np.int32)
    assert utils.get_order(row, col) == 'other' == utils.get_order(col, row)
    row = np.array([0, 0, 1, 1, 2], np.int32)
    col = np.array([0, 1, 1, 2, 2], np.int32)
    assert utils.get_order(row, col) == 'C' == utils.get_order(col, row)
    with pytest.raises(ValueError, match='same shape'):
        utils.get_order(np.array([0, 2, 4, 1]), col)
    with pytest.raises(ValueError, match='invalid index combination'):
        utils.get_order(np.array([0, 2, 4, 1, -1]), np.array([1, 3, 0, -1, 4]))


@pytest.mark.gpu
@pytest.mark.parametrize('nbatch', [0, 2])
def test_gpu(nbatch):
    import cupy
    x = _dense((nbatch, 3, 4) if nbatch else (3, 4), np.float32)
    sp = utils.to_coo(cupy.asarray(x))
    assert isinstance(sp.row, cupy.ndarray) and sp.order == 'C'
    dense = sp.to_dense()
    assert isinstance(dense, cupy.ndarray)
    np.testing.assert_array_equal(dense.get(), x)


@pytest.mark.gpu
@pytest.mark.parametrize('nbatch', [0, 1])
def test_gpu_duplicate_indices_add_up(nbatch):
    import cupy
    data = cupy.array([3., 0., 4., -5.], np.float32)
    row, col = cupy.array([0, 0, 1, 0]), cupy.array([0, 1, 2, 0])
    expected = np.array([[-2., 0., 0.], [0., 0., 4.]], np.float32)
    if nbatch:
        data, row, col, expected = data[None], row[None], col[None], expected[None]
    dense = utils.CooMatrix(data, row, col, (2, 3)).to_dense()
    np.testing.assert_array_equal(dense.get(), expected)
