"""Function nodes carry Chainer's class names and attributes: tools that read a recorded graph
(onnx_chainer's converters, function hooks) look them up by those names."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
import chainlet.functions as F


def _v(*shape):
    return chainlet.Variable(np.random.uniform(-1, 1, shape).astype(np.float32))


def _node(y):
    return y.creator


def test_convolution_2d_settings():
    f = _node(F.convolution_2d(_v(1, 4, 7, 7), _v(6, 2, 3, 3), stride=(2, 1), pad=(1, 0),
                               dilate=(1, 2), groups=2))
    assert type(f).__name__ == 'Convolution2DFunction'
    assert (f.sy, f.sx, f.ph, f.pw, f.dy, f.dx, f.groups, f.cover_all) == \
        (2, 1, 1, 0, 1, 2, 2, False)


def test_deconvolution_settings_and_output_size():
    f = _node(F.deconvolution_2d(_v(1, 4, 3, 3), _v(4, 2, 3, 3), stride=2, pad=1))
    assert (f.sy, f.sx, f.ph, f.pw, f.groups) == (2, 2, 1, 1, 1)
    assert (f.outh, f.outw) == (5, 5)
    g = _node(F.deconvolution_nd(_v(1, 4, 3, 3, 3), _v(4, 2, 2, 2, 2)))
    assert g.outs == (4, 4, 4) and g.stride == (1, 1, 1) and g.pad == (0, 0, 0)


def test_unpooling_2d_settings():
    f = _node(F.unpooling_2d(_v(1, 1, 2, 3), (2, 3), cover_all=False))
    assert (f.kh, f.kw, f.sy, f.sx, f.ph, f.pw) == (2, 3, 2, 3, 0, 0)
    assert (f.outh, f.outw, f.cover_all) == (4, 9, False)


def test_activation_names():
    assert _node(F.clipped_relu(_v(3), 2.5)).cap == 2.5
    f = _node(F.selu(_v(3), alpha=1.5, scale=2.0))
    assert (type(f).__name__, f.alpha, f.scale) == ('Selu', 1.5, 2.0)
    f = _node(F.prelu(_v(2, 3), _v(3)))
    assert type(f).__name__ == 'PReLUFunction'
    from chainlet.functions.activation import prelu
    assert prelu.PReLU is prelu.PReLUFunction


def test_array_function_settings():
    x = _v(2, 3, 4)
    assert _node(F.reshape(x, (6, 4))).shape == (6, 4)
    f = _node(F.pad(x, 1, constant_values=2.0))
    assert f.mode == 'constant' and f.keywords == {'constant_values': 2.0}
    np.testing.assert_array_equal(f.pad_bw, [[1, 1]] * 3)
    f = _node(F.resize_images(_v(1, 1, 4, 4), (3, 5)))
    assert (f.out_H, f.out_W) == (3, 5)
    f = _node(F.matmul(_v(2, 3), _v(2, 3), transb=True))
    assert (type(f).__name__, f.transa, f.transb) == ('MatMul', False, False)
    assert _node(F.normalize(_v(2, 3))).axis == (1,)


@pytest.mark.parametrize('slices,expected', [
    (0, (0,)),
    (slice(1, None), (slice(1, None),)),
    ((0, None, Ellipsis), (0, None, Ellipsis)),
    ([0, 1], ([0, 1],)),
    ([[0, 1], [1, 0]], ([0, 1], [1, 0])),
    ([slice(None), 0], (slice(None), 0)),
])
def test_get_item_slices_are_a_tuple(slices, expected):
    assert _node(F.get_item(_v(2, 3, 4), slices)).slices == expected


def test_permutate_keeps_indices_as_a_setting():
    x = _v(3, 2)
    indices = np.array([2, 0, 1], np.int32)
    y = F.permutate(x, chainlet.Variable(indices), inv=True)
    f = _node(y)
    assert len(f.inputs) == 1 and f.indices is indices
    assert (f.axis, f.inv) == (0, True)
    np.testing.assert_array_equal(y.array[indices], x.array)
    F.sum(y * y).backward()
    np.testing.assert_allclose(x.grad, 2 * x.array, rtol=1e-6)


def test_where_keeps_the_condition_as_a_setting():
    x, y = _v(2, 3), _v(2, 3)
    c = x.array > 0
    z = F.where(chainlet.Variable(c), x, y)
    f = _node(z)
    assert len(f.inputs) == 2 and f.condition is c
    F.sum(z).backward()
    np.testing.assert_array_equal(x.grad, c.astype(np.float32))
    np.testing.assert_array_equal(y.grad, (~c).astype(np.float32))


def test_softmax_cross_entropy_retains_both_inputs():
    x, t = _v(3, 4), np.array([0, 3, 1], np.int32)
    f = _node(F.softmax_cross_entropy(x, t))
    kept_x, kept_t = f.get_retained_inputs()
    assert kept_x.array is x.array and kept_t.array is t
    assert (f.normalize, f.class_weight, f.ignore_label, f.reduce) == (True, None, -1, 'mean')


def test_batch_normalization_axis_becomes_the_reduced_axes():
    g, b = _v(3), _v(3)
    assert _node(F.batch_normalization(_v(2, 3, 4, 4), g, b)).axis == (0, 2, 3)
    f = _node(F.fixed_batch_normalization(_v(2, 3), g, b, _v(3), F.absolute(_v(3))))
    assert f.axis == (0,)
