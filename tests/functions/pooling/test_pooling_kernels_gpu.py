"""The generated CUDA pooling kernels, compiled and run, agree with chainlet's pooling.

Marked ``gpu``. These kernels take only raw inputs, so their loop size comes from the output
arrays, which the CuPy emulator does not do yet: there they are skipped (they pass on it once
the emulator sizes loops by non-raw outputs, as CuPy does).
"""
import sys

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.functions.pooling import average_pooling_nd_kernel, max_pooling_nd_kernel

pytestmark = pytest.mark.gpu


@pytest.fixture
def cupy():
    if 'tools.cupy_emulator' in sys.modules:
        pytest.skip('the CuPy emulator does not size a loop by its output arrays')
    import cupy
    return cupy


def _sizes(x_shape, ksize, stride, pad, outs):
    return (list(x_shape[2:]) + list(outs) + list(ksize) + list(stride) + list(pad))


@pytest.mark.parametrize('shape,ksize,stride,pad', [
    ((2, 3, 7), (3,), (2,), (1,)), ((1, 2, 5, 6), (2, 3), (2, 2), (1, 0)),
    ((1, 2, 4, 3, 5), (2, 2, 3), (1, 2, 2), (0, 1, 1))])
def test_max_kernels(cupy, shape, ksize, stride, pad):
    x = np.random.RandomState(0).permutation(int(np.prod(shape))).astype(np.float32)
    x = x.reshape(shape)
    xv = chainlet.Variable(x)
    y, idx = F.max_pooling_nd(xv, ksize, stride, pad, cover_all=False, return_indices=True)
    gy = np.random.RandomState(1).uniform(-1, 1, y.shape).astype(np.float32)
    y.grad = gy
    y.backward()
    ndim = len(ksize)
    fwd = cupy.ElementwiseKernel(*max_pooling_nd_kernel.MaxPoolingNDKernelForward.generate(ndim))
    out = cupy.empty(y.shape, np.float32)
    indexes = cupy.empty(y.shape, np.int32)
    fwd(cupy.asarray(x), *_sizes(shape, ksize, stride, pad, y.shape[2:]), out, indexes)
    np.testing.assert_array_equal(cupy.asnumpy(out), y.array)
    np.testing.assert_array_equal(cupy.asnumpy(indexes), idx)
    bwd = cupy.ElementwiseKernel(
        *max_pooling_nd_kernel.MaxPoolingNDKernelBackward.generate(ndim))
    gx = cupy.empty(shape, np.float32)
    bwd(cupy.asarray(gy), indexes, *_sizes(shape, ksize, stride, pad, y.shape[2:]), gx)
    np.testing.assert_allclose(cupy.asnumpy(gx), xv.grad, rtol=1e-6)


def test_average_kernels(cupy):
    shape, ksize, stride, pad = (2, 2, 5, 4), (3, 2), (2, 1), (1, 1)
    x = np.random.RandomState(0).uniform(-1, 1, shape).astype(np.float32)
    xv = chainlet.Variable(x)
    y = F.average_pooling_nd(xv, ksize, stride, pad)
    gy = np.random.RandomState(1).uniform(-1, 1, y.shape).astype(np.float32)
    y.grad = gy
    y.backward()
    coeff = np.float32(1 / np.prod(ksize))
    sizes = _sizes(shape, ksize, stride, pad, y.shape[2:])
    fwd = cupy.ElementwiseKernel(
        *average_pooling_nd_kernel.AveragePoolingNDKernelForward.generate(2))
    out = cupy.empty(y.shape, np.float32)
    fwd(cupy.asarray(x), *sizes, coeff, out)
    np.testing.assert_allclose(cupy.asnumpy(out), y.array, rtol=1e-5, atol=1e-6)
    bwd = cupy.ElementwiseKernel(
        *average_pooling_nd_kernel.AveragePoolingNDKernelBackward.generate(2))
    gx = cupy.empty(shape, np.float32)
    bwd(cupy.asarray(gy * coeff), *sizes, gx)
    np.testing.assert_allclose(cupy.asnumpy(gx), xv.grad, rtol=1e-5, atol=1e-6)
