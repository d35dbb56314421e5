"""Argument errors that Chainer raises from its type check, and small Chainer behaviours."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.functions.array.flip import _flip
from chainlet.utils.type_check import InvalidType


@pytest.mark.parametrize('call', [
    lambda x: F.flip(x, 3),
    lambda x: F.flip(x, -4),
    lambda x: F.rollaxis(x, 3),
    lambda x: F.rollaxis(x, 0, 4),
    lambda x: F.rollaxis(x, 0, -4),
    lambda x: F.moveaxis(x, 0, 4),
    lambda x: F.moveaxis(x, -4, 0),
    lambda x: F.broadcast_to(x, (3, 1, 4)),
    lambda x: F.broadcast_to(x, (4,)),
])
def test_out_of_range_axes_and_shapes_are_invalid_type_and_value_error(call):
    x = np.zeros((3, 2, 4), np.float32)
    with pytest.raises(InvalidType) as info:
        call(x)
    assert isinstance(info.value, ValueError)


def test_broadcast_without_arguments_is_invalid_type():
    with pytest.raises(InvalidType, match='broadcast: expected at least one argument, got none'):
        F.broadcast()


@pytest.mark.parametrize('nd,func', [(1, F.convolution_1d), (3, F.convolution_3d),
                                     (1, F.deconvolution_1d), (3, F.deconvolution_3d)])
def test_fixed_rank_convolutions_reject_other_ranks_with_value_error(nd, func):
    x = np.zeros((2, 3, 3, 3), np.float32)
    W = np.zeros((3, 3, 1, 1), np.float32)
    with pytest.raises(ValueError, match=rf'argument x: expected ndim {nd + 2}, got shape'):
        func(x, W)


def test_deconvolution_outsize_mismatch_is_invalid_type_and_value_error():
    x = np.zeros((2, 3, 4), np.float32)
    W = np.zeros((3, 2, 2), np.float32)
    with pytest.raises(InvalidType, match='deconvolution_nd: argument outsize') as info:
        F.deconvolution_nd(x, W, outsize=(10,))
    assert isinstance(info.value, ValueError)


def test_private_flip_matches_numpy():
    x = np.arange(24).reshape(2, 3, 4)
    for axis in range(-3, 3):
        np.testing.assert_array_equal(_flip(x, axis), np.flip(x, axis))


@pytest.mark.parametrize('repeats,axis', [(True, None), (False, 0), ((True, False), 0),
                                          ((True,) * 6, None)])
def test_repeat_counts_bools_as_numpy_does(repeats, axis):
    x = np.arange(6.0).reshape(2, 3) if axis is None else np.arange(2.0)
    np.testing.assert_array_equal(F.repeat(x, repeats, axis).array,
                                  np.repeat(x, repeats, axis))
    with pytest.raises(TypeError, match='repeat: argument axis: expected an int'):
        F.repeat(x, 1, True)


def test_select_item_rejects_negative_indices_in_debug_mode_only():
    x = np.arange(4.0).reshape(2, 2)
    t = np.array([-1, 0], np.int32)
    np.testing.assert_array_equal(F.select_item(x, t).array, [1, 2])
    with chainlet.using_config('debug', True):
        with pytest.raises(ValueError,
                           match=r'select_item: argument t: expected values in \[0, 2\), got -1'):
            F.select_item(x, t)


@pytest.mark.parametrize('func', [F.convolution_2d, F.deconvolution_2d])
def test_removed_deterministic_keyword_gets_chainers_hint(func):
    x = np.zeros((1, 1, 3, 3), np.float32)
    W = np.zeros((1, 1, 2, 2), np.float32)
    with pytest.raises(ValueError, match="using_config\\('cudnn_deterministic'"):
        func(x, W, deterministic=True)
    with pytest.raises(TypeError, match=rf"{func.__name__}\(\) got unexpected keyword "
                                        r"argument\(s\) 'foo'"):
        func(x, W, foo=1)


@pytest.mark.parametrize('call', [lambda a, sl: F.get_item(a, sl),
                                  lambda a, sl: F.scatter_add(a, sl, np.zeros((2, 2)))])
def test_index_errors_keep_chainers_and_our_types(call):
    a = np.zeros((4, 3, 2))
    with pytest.raises(ValueError, match=r'argument slices: expected at most one Ellipsis') as e:
        call(a, (Ellipsis, Ellipsis))
    assert isinstance(e.value, IndexError)
    for sl in [(0, 0, 0, 0), (np.ones((4, 3), bool), 0, 0)]:
        with pytest.raises(InvalidType, match=r'argument slices: expected at most 3 indices for '
                                              r'an array of ndim 3, got 4') as e:
            call(a, sl)
        assert isinstance(e.value, IndexError)


def test_a_list_index_follows_chainer():
    # Chainer's rule (what NumPy did before 1.23): a list of ints is one integer array index,
    # any other list is a tuple of per-axis indices.
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(F.get_item(x, [2, 0]).array, x[[2, 0]])
    np.testing.assert_array_equal(F.get_item(x, [[0, 1], [1, 3]]).array, x[[0, 1], [1, 3]])
    np.testing.assert_array_equal(F.get_item(x, [slice(None), 1]).array, x[:, 1])
    np.testing.assert_array_equal(F.get_item(x, [[[0, 1], [1, 2]]]).array, x[[[0, 1], [1, 2]],])
    assert F.get_item(np.zeros((4, 3)), (None, 0, 0, None)).shape == (1, 1)
