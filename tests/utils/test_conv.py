"""chainlet.utils.conv and conv_nd: output sizes, im2col and col2im against direct loops.

The GPU tests compare the CuPy kernels with the CPU code; they run on a GPU or on the CuPy
emulator (``CHAINLET_EMULATE_CUPY=1``).
"""
import itertools

import numpy as np
import pytest

from chainlet.utils import conv, conv_nd


def _im2col_ref(img, ksize, stride, pad, dilate, outs, pval=0):
    nd = img.ndim - 2
    col = np.full(img.shape[:2] + tuple(ksize) + tuple(outs), pval, img.dtype)
    for ks in itertools.product(*[range(k) for k in ksize]):
        for ys in itertools.product(*[range(o) for o in outs]):
            src = tuple(y * s - p + k * d for y, s, p, k, d in zip(ys, stride, pad, ks, dilate))
            if all(0 <= i < n for i, n in zip(src, img.shape[2:])):
                col[(slice(None), slice(None)) + ks + ys] = img[(slice(None), slice(None)) + src]
    assert nd == len(outs)
    return col


def _col2im_ref(col, stride, pad, dims, dilate):
    nd = len(dims)
    ksize, outs = col.shape[2:2 + nd], col.shape[2 + nd:]
    img = np.zeros(col.shape[:2] + tuple(dims), col.dtype)
    for ks in itertools.product(*[range(k) for k in ksize]):
        for ys in itertools.product(*[range(o) for o in outs]):
            dst = tuple(y * s - p + k * d for y, s, p, k, d in zip(ys, stride, pad, ks, dilate))
            if all(0 <= i < n for i, n in zip(dst, dims)):
                img[(slice(None), slice(None)) + dst] += col[(slice(None), slice(None)) + ks + ys]
    return img


@pytest.mark.parametrize('size,k,s,p,d', [(10, 4, 3, 2, 1), (10, 4, 4, 2, 1), (10, 4, 3, 2, 2),
                                          (7, 3, 1, 0, 1), (5, 5, 2, 0, 1)])
def test_get_conv_outsize(size, k, s, p, d):
    w, dk = size + 2 * p, k + (k - 1) * (d - 1)
    o = conv.get_conv_outsize(size, k, s, p, cover_all=False, d=d)
    assert (o - 1) * s + dk <= w < o * s + dk  # the most windows that fit
    o = conv.get_conv_outsize(size, k, s, p, cover_all=True, d=d)
    assert (o - 2) * s + dk < w <= (o - 1) * s + dk  # the fewest windows that cover
    assert conv_nd.get_conv_outsize is conv.get_conv_outsize


@pytest.mark.parametrize('size,k,s,p,d,cover_all', [(3, 3, 2, 1, 1, False), (4, 3, 1, 0, 2, False),
                                                    (5, 2, 2, 0, 1, True), (1, 1, 1, 0, 1, False)])
def test_get_deconv_outsize_inverts_conv(size, k, s, p, d, cover_all):
    out = conv.get_deconv_outsize(size, k, s, p, cover_all=cover_all, d=d)
    assert conv.get_conv_outsize(out, k, s, p, cover_all=cover_all, d=d) == size


PARAMS_2D = [(1, 1, 1, 1, 1, 1, 1, 1), (2, 2, 2, 2, 2, 2, 2, 2), (1, 2, 2, 1, 1, 2, 1, 1),
             (1, 2, 3, 4, 1, 2, 1, 1), (1, 2, 3, 4, 4, 5, 2, 3), (3, 3, 2, 2, 1, 1, 1, 1)]


@pytest.mark.parametrize('params', PARAMS_2D)
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_im2col_2d(params, dtype):
    kh, kw, sy, sx, ph, pw, dy, dx = params
    img = np.random.uniform(-1, 1, (2, 3, 8, 10)).astype(dtype)
    col = conv.im2col(img, kh, kw, sy, sx, ph, pw, dy=dy, dx=dx)
    outs = (conv.get_conv_outsize(8, kh, sy, ph, d=dy),
            conv.get_conv_outsize(10, kw, sx, pw, d=dx))
    assert col.shape == (2, 3, kh, kw) + outs and col.dtype == dtype
    assert col.flags.c_contiguous
    np.testing.assert_array_equal(col, _im2col_ref(img, (kh, kw), (sy, sx), (ph, pw),
                                                   (dy, dx), outs))


def test_im2col_2d_pval_cover_all_and_outsize():
    img = np.arange(20.0).reshape(1, 1, 4, 5)
    col = conv.im2col_cpu(img, 2, 2, 2, 2, 0, 0, pval=-1, cover_all=True)
    assert col.shape == (1, 1, 2, 2, 2, 3)
    np.testing.assert_array_equal(col, _im2col_ref(img, (2, 2), (2, 2), (0, 0), (1, 1), (2, 3),
                                                   pval=-1))
    col = conv.im2col_cpu(img, 2, 2, 1, 1, 0, 0, out_h=2, out_w=3)
    np.testing.assert_array_equal(col, _im2col_ref(img, (2, 2), (1, 1), (0, 0), (1, 1), (2, 3)))


def test_im2col_does_not_modify_or_alias_input():
    img = np.random.rand(1, 2, 5, 5)
    before = img.copy()
    col = conv.im2col_cpu(img, 3, 3, 1, 1, 0, 0)
    col[...] = 7
    np.testing.assert_array_equal(img, before)


@pytest.mark.parametrize('params', PARAMS_2D)
def test_col2im_2d(params):
    kh, kw, sy, sx, ph, pw, dy, dx = params
    outs = (conv.get_conv_outsize(8, kh, sy, ph, d=dy),
            conv.get_conv_outsize(10, kw, sx, pw, d=dx))
    col = np.random.uniform(-1, 1, (2, 3, kh, kw) + outs)
    img = conv.col2im(col, sy, sx, ph, pw, 8, 10, dy=dy, dx=dx)
    assert img.shape == (2, 3, 8, 10)
    np.testing.assert_allclose(img, _col2im_ref(col, (sy, sx), (ph, pw), (8, 10), (dy, dx)))


def test_col2im_is_adjoint_of_im2col():
    # <im2col(x), c> == <x, col2im(c)> for every x and c.
    x = np.random.rand(2, 3, 7, 6)
    col = conv.im2col_cpu(x, 3, 2, 2, 1, 1, 2, dy=2, dx=1)
    c = np.random.rand(*col.shape)
    back = conv.col2im_cpu(c, 2, 1, 1, 2, 7, 6, dy=2, dx=1)
    np.testing.assert_allclose((col * c).sum(), (x * back).sum())


def test_2d_errors():
    img = np.zeros((1, 1, 3, 3))
    with pytest.raises(ValueError, match='should be positive') as info:
        conv.im2col_cpu(img, 5, 5, 1, 1, 0, 0)
    assert isinstance(info.value, AssertionError)  # Chainer asserted this
    with pytest.raises(ValueError, match='expected ndim 6'):
        conv.col2im_cpu(np.zeros((1, 1, 2, 2)), 1, 1, 0, 0, 3, 3)


def test_as_tuple():
    assert conv_nd.as_tuple(1, 3) == (1, 1, 1)
    assert conv_nd.as_tuple((1, 2, 3), 3) == (1, 2, 3)
    assert conv_nd.as_tuple([1, 2, 3], 3) == (1, 2, 3)
    with pytest.raises(AssertionError):
        conv_nd.as_tuple((1,), 3)


ND_CASES = [((10,), (1,), (1,), (1,), 1), ((10, 8), (2, 2), (2, 2), (2, 2), 1),
            ((10, 8, 6), (1, 2, 1), (2, 1, 2), (1, 2, 1), 1), ((9, 7), (3, 2), (2, 1), (1, 0), 2),
            ((5, 4, 6), (2, 2, 3), (1, 2, 1), (0, 1, 1), (1, 2, 1))]


@pytest.mark.parametrize('dims,ksize,stride,pad,dilate', ND_CASES)
def test_im2col_nd(dims, ksize, stride, pad, dilate):
    img = np.random.uniform(-1, 1, (2, 3) + dims).astype(np.float32)
    col = conv_nd.im2col_nd(img, ksize, stride, pad, dilate=dilate)
    dil = conv_nd.as_tuple(dilate, len(dims))
    outs = tuple(conv_nd.get_conv_outsize(d, k, s, p, d=di)
                 for d, k, s, p, di in zip(dims, ksize, stride, pad, dil))
    assert col.shape == (2, 3) + ksize + outs
    np.testing.assert_array_equal(col, _im2col_ref(img, ksize, stride, pad, dil, outs))
    view = conv_nd.im2col_nd_view(img, ksize, stride, pad, dilate=dilate)
    np.testing.assert_array_equal(view, col)
    assert not view.flags.writeable


@pytest.mark.parametrize('dims,ksize,stride,pad,dilate', ND_CASES)
def test_col2im_nd(dims, ksize, stride, pad, dilate):
    dil = conv_nd.as_tuple(dilate, len(dims))
    outs = tuple(conv_nd.get_conv_outsize(d, k, s, p, d=di)
                 for d, k, s, p, di in zip(dims, ksize, stride, pad, dil))
    col = np.random.uniform(-1, 1, (2, 3) + ksize + outs)
    img = conv_nd.col2im_nd(col, stride, pad, dims, dilate)
    assert img.shape == (2, 3) + dims
    np.testing.assert_allclose(img, _col2im_ref(col, stride, pad, dims, dil))


def test_im2col_nd_cover_all_per_axis_and_outsize():
    img = np.arange(30.0).reshape(1, 1, 5, 6)
    col = conv_nd.im2col_nd_cpu(img, (2, 2), (2, 2), (0, 0), pval=-1, cover_all=(True, False))
    assert col.shape == (1, 1, 2, 2, 3, 3)
    np.testing.assert_array_equal(col, _im2col_ref(img, (2, 2), (2, 2), (0, 0), (1, 1), (3, 3),
                                                   pval=-1))
    col = conv_nd.im2col_nd_cpu(img, (2, 2), (1, 1), (0, 0), outsize=(2, 2))
    assert col.shape == (1, 1, 2, 2, 2, 2)


def test_nd_length_errors():
    img = np.zeros((2, 3, 4, 3), np.float32)
    for args in [((2,), (1, 1), (0, 0)), ((2, 2), (1,), (0, 0)), ((2, 2), (1, 1), (0,))]:
        with pytest.raises(AssertionError):
            conv_nd.im2col_nd_cpu(img, *args)
    with pytest.raises(ValueError, match='argument outsize'):
        conv_nd.im2col_nd_cpu(img, (2, 2), (1, 1), (0, 0), outsize=(3,))
    col = np.zeros((2, 3, 2, 2, 3, 2), np.float32)
    with pytest.raises(AssertionError):
        conv_nd.col2im_nd_cpu(np.zeros((2, 3, 2, 3, 2)), (1, 1), (0, 0), (4, 3))
    for args in [((1,), (0, 0), (4, 3)), ((1, 1), (0,), (4, 3)), ((1, 1), (0, 0), (4,))]:
        with pytest.raises(AssertionError):
            conv_nd.col2im_nd_cpu(col, *args)
    with pytest.raises(ValueError, match=r'should be positive'):
        conv_nd.im2col_nd_cpu(img, (5, 5), (1, 1), (0, 0))


# -- the CuPy kernels, against the CPU code --

@pytest.mark.gpu
@pytest.mark.parametrize('params', PARAMS_2D)
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_im2col_col2im_gpu_2d(params, dtype):
    import cupy
    kh, kw, sy, sx, ph, pw, dy, dx = params
    img = np.random.uniform(-1, 1, (2, 3, 8, 10)).astype(dtype)
    col = conv.im2col(cupy.asarray(img), kh, kw, sy, sx, ph, pw, dy=dy, dx=dx)
    assert isinstance(col, cupy.ndarray)
    np.testing.assert_array_equal(col.get(), conv.im2col_cpu(img, kh, kw, sy, sx, ph, pw,
                                                             dy=dy, dx=dx))
    c = np.random.uniform(-1, 1, col.shape).astype(dtype)
    back = conv.col2im(cupy.asarray(c), sy, sx, ph, pw, 8, 10, dy=dy, dx=dx)
    assert isinstance(back, cupy.ndarray)
    tol = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(back.get(), conv.col2im_cpu(c, sy, sx, ph, pw, 8, 10, dy, dx),
                               rtol=tol, atol=tol)


@pytest.mark.gpu
@pytest.mark.parametrize('dims,ksize,stride,pad,dilate', ND_CASES)
def test_im2col_col2im_gpu_nd(dims, ksize, stride, pad, dilate):
    import cupy
    img = np.random.uniform(-1, 1, (2, 3) + dims).astype(np.float32)
    col = conv_nd.im2col_nd(cupy.asarray(img), ksize, stride, pad, dilate=dilate)
    expected = conv_nd.im2col_nd_cpu(img, ksize, stride, pad, dilate=dilate)
    np.testing.assert_array_equal(col.get(), expected)
    c = np.random.uniform(-1, 1, expected.shape).astype(np.float32)
    back = conv_nd.col2im_nd(cupy.asarray(c), stride, pad, dims, dilate)
    np.testing.assert_allclose(back.get(), conv_nd.col2im_nd_cpu(c, stride, pad, dims, dilate),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError):
        conv_nd.im2col_nd_gpu(cupy.asarray(img), ksize[:-1] + (1, 1), stride, pad)
