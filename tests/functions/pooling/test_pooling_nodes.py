"""Chainer's pooling node classes: constructor signatures, attributes and module paths."""
import numpy as np
import pytest

import chainlet.functions as F
from chainlet.functions.pooling.average_pooling_2d import AveragePooling2D, average_pooling_2d
from chainlet.functions.pooling.max_pooling_2d import MaxPooling2D, max_pooling_2d


def test_module_paths_hold_the_public_objects():
    assert max_pooling_2d is F.max_pooling_2d and MaxPooling2D is F.MaxPooling2D
    assert average_pooling_2d is F.average_pooling_2d
    assert AveragePooling2D is F.AveragePooling2D


def test_package_attributes_are_modules_as_in_chainer():
    # In Chainer 7.8.1, after ``import chainer.functions``, every public attribute of
    # ``chainer.functions.pooling`` is a module; the functions live on ``F`` and in the modules.
    import types

    import chainlet.functions.pooling as P
    chainer_modules = [
        'average_pooling_2d', 'average_pooling_nd', 'average_pooling_nd_kernel',
        'max_pooling_nd', 'max_pooling_nd_kernel', 'pooling_nd_kernel', 'roi_average_align_2d',
        'roi_average_pooling_2d', 'roi_max_align_2d', 'roi_max_pooling_2d', 'roi_pooling_2d',
        'spatial_pyramid_pooling_2d', 'unpooling_2d', 'unpooling_nd', 'upsampling_2d']
    for name in chainer_modules:
        assert isinstance(getattr(P, name), types.ModuleType), name
    public = [n for n in vars(P) if not n.startswith('_')]
    assert all(isinstance(getattr(P, n), types.ModuleType) for n in public), public
    assert F.pooling is P
    assert P.max_pooling_nd.max_pooling_2d is F.max_pooling_2d  # Chainer 7's location
    assert P.max_pooling_2d.MaxPooling2D is F.MaxPooling2D
    assert P.average_pooling_2d.average_pooling_2d is F.average_pooling_2d
    assert P.roi_max_align_2d.roi_max_align_2d is F.roi_max_align_2d
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(F.max_pooling_2d(x, 2).array, [[[[5, 7], [13, 15]]]])


def test_max_pooling_2d_node_matches_the_function():
    x = np.random.RandomState(0).permutation(2 * 3 * 5 * 4).astype(np.float32)
    x = x.reshape(2, 3, 5, 4)
    node = MaxPooling2D((3, 2), (2, 1), (1, 0), False, True)
    assert (node.kh, node.kw, node.sy, node.sx, node.ph, node.pw) == (3, 2, 2, 1, 1, 0)
    assert node.cover_all is False
    y, = node.apply((x,))
    expected, idx = F.max_pooling_2d(x, (3, 2), (2, 1), (1, 0), cover_all=False,
                                     return_indices=True)
    np.testing.assert_array_equal(y.array, expected.array)
    np.testing.assert_array_equal(node.indexes, idx)


def test_nd_nodes_take_chainers_positional_arguments():
    x = np.random.RandomState(1).uniform(-1, 1, (1, 2, 5)).astype(np.float64)
    # MaxPoolingND(ndim, ksize, stride, pad, cover_all, return_indices)
    y, = F.MaxPoolingND(1, 3, 2, 1, False, True).apply((x,))
    np.testing.assert_array_equal(y.array, F.max_pooling_1d(x, 3, 2, 1, cover_all=False).array)
    # AveragePoolingND(ndim, ksize, stride, pad, cover_all, pad_value)
    y, = F.AveragePoolingND(1, 3, 2, 1, False, None).apply((x,))
    np.testing.assert_array_equal(y.array,
                                  F.average_pooling_1d(x, 3, 2, 1, pad_value=None).array)


def test_average_nodes_have_no_cover_all():
    node = AveragePooling2D(2, 2, 0)
    assert (node.kh, node.sx, node.pw, node.cover_all) == (2, 2, 0, False)
    with pytest.raises(ValueError, match='average_pooling_2d: argument cover_all: expected '
                       'False'):
        AveragePooling2D(2, cover_all=True)
    with pytest.raises(ValueError, match='average_pooling_nd: argument cover_all'):
        F.AveragePoolingND(2, 2, None, 0, True)
