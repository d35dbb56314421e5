"""Public signatures that differed from Chainer 7.8.1's (found by comparing them with
``tools/chainer_inventory.py``'s signature dump): argument names and positions as Chainer's."""
import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import datasets
from chainlet.training import extensions
from chainlet.utils import conv, type_check


def test_mean_takes_weights_at_chainer_position():
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    w = np.array([3.0, 1.0])
    np.testing.assert_allclose(F.mean(x, 1, w).array, [1.25, 3.5])
    np.testing.assert_allclose(F.mean(x, 1, None, True).array, [[1.5], [4.0]])
    np.testing.assert_allclose(F.mean(x, axis=0, keepdims=True).array, [[2.0, 3.5]])
    y = chainlet.Variable(x)
    F.sum(F.mean(y, 1, w)).backward()
    np.testing.assert_allclose(y.grad, [[0.75, 0.25], [0.75, 0.25]])


def test_spatial_pyramid_pooling_third_argument_is_pooling():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    expected = F.spatial_pyramid_pooling_2d(x, 2, pooling='max').array
    np.testing.assert_array_equal(F.spatial_pyramid_pooling_2d(x, 2, 'max').array, expected)
    from chainlet.functions.pooling.max_pooling_2d import MaxPooling2D
    with pytest.warns(DeprecationWarning):  # Chainer 6's pooling class, given positionally
        old = F.spatial_pyramid_pooling_2d(x, 2, MaxPooling2D)
    np.testing.assert_array_equal(old.array, expected)
    with pytest.raises(ValueError, match="expected 'max'"):
        F.spatial_pyramid_pooling_2d(x, 2, 'average')


def test_cross_validation_n_folds():
    data = list(range(6))
    folds = datasets.get_cross_validation_datasets(data, n_folds=3)
    assert len(folds) == 3 and sorted(len(te) for _, te in folds) == [2, 2, 2]
    with pytest.warns(DeprecationWarning, match='n_fold is deprecated'):
        old = datasets.get_cross_validation_datasets(data, n_fold=3)
    assert [te[:] for _, te in old] == [te[:] for _, te in folds]
    rnd = datasets.get_cross_validation_datasets_random(data, 2, seed=0)
    with pytest.warns(DeprecationWarning):
        rnd_old = datasets.get_cross_validation_datasets_random(data, n_fold=2, seed=0)
    assert [te[:] for _, te in rnd] == [te[:] for _, te in rnd_old]
    with pytest.raises(TypeError, match='missing the argument n_folds'):
        datasets.get_cross_validation_datasets(data)
    with pytest.raises(TypeError, match='unexpected keyword'):
        datasets.get_cross_validation_datasets(data, 2, folds=2)


def test_batch_renormalization_initial_statistics():
    brn = L.BatchRenormalization(3, 1.5, 0.5, 0.9, 2e-5, None, True, True, None, None,
                                 np.array([1., 2., 3.]), 4.0)
    np.testing.assert_array_equal(brn.avg_mean, [1., 2., 3.])
    np.testing.assert_array_equal(brn.avg_var, [4., 4., 4.])
    assert brn.avg_mean.dtype == np.float32
    with chainlet.using_config('dtype', np.float64):
        assert L.BatchRenormalization(2).avg_mean.dtype == np.float64


def test_deformable_convolution_argument_names():
    link = L.DeformableConvolution2D(2, 3, 3, deform_nobias=True, deform_initialW=0.5,
                                     offset_nobias=True)
    assert link.deform_conv.b is None and link.offset_conv.b is None
    np.testing.assert_array_equal(link.deform_conv.W.array, np.full((3, 2, 3, 3), 0.5))
    with pytest.raises(TypeError):
        L.DeformableConvolution2D(2, 3, 3, nobias=True)


def test_mgu_argument_names():
    stateless = L.StatelessMGU(n_inputs=3, n_units=4)
    assert stateless.W_f.W.shape == (4, 7)
    stateful = L.StatefulMGU(in_size=3, out_size=4)
    assert stateful(np.ones((2, 3), np.float32)).shape == (2, 4)


def test_polynomial_shift_init():
    shift = extensions.PolynomialShift('lr', 1.0, 4, 0.8)
    shift._start(None)  # init given: the optimizer's value is not read
    assert [round(shift._value_at(t), 6) for t in range(5)] == [0.8, 0.6, 0.4, 0.2, 0.0]


def test_utils_conv_im2col_positional_arguments_are_chainers():
    img = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    # cover_all at position 7, as in Chainer; the padding value is keyword-only
    col = conv.im2col(img, 2, 2, 2, 2, 1, 1, False)
    np.testing.assert_array_equal(col, conv.im2col_cpu(img, 2, 2, 2, 2, 1, 1, 0, False))
    padded = conv.im2col(img, 2, 2, 2, 2, 1, 1, pval=-1)
    assert padded[0, 0, 0, 0, 0, 0] == -1


def test_type_check_shapes_override():
    a = np.zeros((2, 3), np.float32)
    info = type_check.get_types((a,), 'in_types', False, shapes=[(3, 2)])
    assert type_check.eval(info[0].shape) == (3, 2)
    assert type_check.eval(type_check.get_types((a,), 'in_types', False)[0].shape) == (2, 3)
    light = type_check.get_light_types((a,), shapes=[(6,)])
    assert light[0].shape == (6,) and light[0].dtype == np.float32


def test_hdf5_deserializer_second_argument_is_strict(tmp_path):
    h5py = pytest.importorskip('h5py')
    from chainlet.serializers import HDF5Deserializer
    with h5py.File(str(tmp_path / 'a.h5'), 'w') as f:
        d = HDF5Deserializer(f, False)
        assert d('missing', 5) == 5
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            with pytest.raises(TypeError):
                HDF5Deserializer(f, False, 'prefix/')  # path is keyword-only
