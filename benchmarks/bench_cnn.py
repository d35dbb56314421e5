"""One training step of a small CNN: chainlet against hand-written NumPy (a script, not a test).

The step (issue "functions", convolution part): a batch of 32 images 3x32x32,
conv 3x3 3->32 (pad 1) + relu, conv 3x3 32->64 (pad 1) + relu, 2x2 max pooling, linear to 10,
softmax cross entropy; forward and backward (gradients of all six parameters, none for the
images). The reference does exactly the same arithmetic with NumPy only: im2col through a
strided view, one matrix product per image, col2im with one strided addition per kernel
offset, 2x2 max pooling on the strided views of the four window offsets. A second figure
times the 32->64 convolution alone (forward, then gradients of input, filter and bias).
Both run in the same process on the same data, interleaved; the script first checks that
they agree, then prints the best and median times and their ratio (target: chainlet within
1.3x of the reference). Set OPENBLAS_NUM_THREADS=1 (or OMP_NUM_THREADS=1) for steadier
figures on a busy machine.

Run: python benchmarks/bench_cnn.py [--repeat N] [--batch N] [--dtype float32]
"""
from __future__ import annotations

import argparse
import gc
import time

import numpy as np

import chainlet
import chainlet.functions as F


# -- the NumPy reference ------------------------------------------------------------------

def _im2col(x, k, pad):
    """``(n, c, h, w)`` -> contiguous ``(n, c*k*k, h_O*w_O)`` for stride 1."""
    n, c, h, w = x.shape
    if pad:
        xp = np.zeros((n, c, h + 2 * pad, w + 2 * pad), x.dtype)
        xp[:, :, pad:pad + h, pad:pad + w] = x
    else:
        xp = x
    oh, ow = xp.shape[2] - k + 1, xp.shape[3] - k + 1
    sn, sc, sh, sw = xp.strides
    view = np.lib.stride_tricks.as_strided(
        xp, (n, c, k, k, oh, ow), (sn, sc, sh, sw, sh, sw), writeable=False)
    return np.ascontiguousarray(view).reshape(n, c * k * k, oh * ow), (oh, ow)


def _col2im(col, c, k, pad, h, w):
    """Adjoint of ``_im2col``: ``(n, c*k*k, h_O*w_O)`` -> ``(n, c, h, w)``."""
    n = col.shape[0]
    oh, ow = h + 2 * pad - k + 1, w + 2 * pad - k + 1
    col = col.reshape(n, c, k, k, oh, ow)
    img = np.zeros((n, c, h + 2 * pad, w + 2 * pad), col.dtype)
    for i in range(k):
        for j in range(k):
            img[:, :, i:i + oh, j:j + ow] += col[:, :, i, j]
    return img[:, :, pad:pad + h, pad:pad + w]


def _conv(x, W, b, pad):
    n = x.shape[0]
    out_c, _, k, _ = W.shape
    col, (oh, ow) = _im2col(x, k, pad)
    y = np.matmul(W.reshape(out_c, -1), col)
    y += b.reshape(1, out_c, 1)
    return y.reshape(n, out_c, oh, ow), col


def _conv_backward(gy, col, W, x_shape, pad, need_gx):
    n, out_c = gy.shape[:2]
    gy = gy.reshape(n, out_c, -1)
    # One product per image summed over the batch (much faster than tensordot's copies).
    gW = np.matmul(gy, col.transpose(0, 2, 1)).sum(axis=0).reshape(W.shape)
    gb = gy.sum(axis=(0, 2))
    gx = None
    if need_gx:
        gcol = np.matmul(W.reshape(out_c, -1).T, gy)
        gx = _col2im(gcol, x_shape[1], W.shape[2], pad, x_shape[2], x_shape[3])
    return gx, gW, gb


def numpy_step(x, t, W1, b1, W2, b2, W3, b3):
    """Loss and the six parameter gradients, by hand."""
    n = x.shape[0]
    y1, col1 = _conv(x, W1, b1, 1)
    h1 = np.maximum(y1, 0)
    y2, col2 = _conv(h1, W2, b2, 1)
    h2 = np.maximum(y2, 0)
    # 2x2 max pooling on the four strided views of the window offsets.
    views = [h2[:, :, i::2, j::2] for i in (0, 1) for j in (0, 1)]
    p = np.maximum(np.maximum(views[0], views[1]), np.maximum(views[2], views[3]))
    pf = p.reshape(n, -1)
    z = pf @ W3.T + b3
    zmax = z.max(axis=1, keepdims=True)
    e = np.exp(z - zmax)
    s = e.sum(axis=1, keepdims=True)
    logp = z - zmax - np.log(s)
    loss = -logp[np.arange(n), t].mean()

    gz = e / s
    gz[np.arange(n), t] -= 1
    gz /= n
    gW3 = gz.T @ pf
    gb3 = gz.sum(axis=0)
    gp = (gz @ W3).reshape(p.shape)
    # The gradient goes to the first maximum of each window (ties: lowest offset).
    gh2 = np.zeros(h2.shape, h2.dtype)
    free = np.ones(p.shape, bool)
    for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        hit = (views[k] == p) & free
        gh2[:, :, i::2, j::2] = np.where(hit, gp, 0)
        free &= ~hit
    gy2 = gh2 * (y2 > 0)
    gh1, gW2, gb2 = _conv_backward(gy2, col2, W2, h1.shape, 1, True)
    gy1 = gh1 * (y1 > 0)
    _, gW1, gb1 = _conv_backward(gy1, col1, W1, x.shape, 1, False)
    return loss, (gW1, gb1, gW2, gb2, gW3, gb3)


# -- the same step with chainlet ---------------------------------------------------------

def chainlet_step(x, t, params):
    W1, b1, W2, b2, W3, b3 = params
    for p in params:
        p.grad = None
    h = F.relu(F.convolution_2d(x, W1, b1, pad=1))
    h = F.relu(F.convolution_2d(h, W2, b2, pad=1))
    h = F.max_pooling_2d(h, 2)
    loss = F.softmax_cross_entropy(F.linear(h, W3, b3), t)
    loss.backward()
    return loss.array, tuple(p.grad for p in params)


def numpy_conv_layer(h, W, b, gy):
    y, col = _conv(h, W, b, 1)
    return y, _conv_backward(gy, col, W, h.shape, 1, True)


def chainlet_conv_layer(h, W, b, gy):
    for v in (h, W, b):
        v.grad = None
    y = F.convolution_2d(h, W, b, pad=1)
    y.grad = gy
    y.backward()
    return y.array, (h.grad, W.grad, b.grad)


def compare(name, ref_fn, ch_fn, repeat):
    """Interleave the two so that drifts in machine load hit both alike; print the figures."""
    for _ in range(2):  # warm-up (allocator, BLAS threads)
        ref_fn()
        ch_fn()
    ref_times, ch_times = [], []
    for _ in range(repeat):
        ref_times.append(timed(ref_fn))
        ch_times.append(timed(ch_fn))
    ref_best, ch_best = min(ref_times), min(ch_times)
    ref_med, ch_med = float(np.median(ref_times)), float(np.median(ch_times))
    print(f'{name} (best / median of {repeat}):')
    print(f'  NumPy reference : {ref_best * 1e3:8.2f} ms / {ref_med * 1e3:8.2f} ms')
    print(f'  chainlet        : {ch_best * 1e3:8.2f} ms / {ch_med * 1e3:8.2f} ms')
    print(f'  ratio chainlet / NumPy: {ch_best / ref_best:.2f}x best, '
          f'{ch_med / ref_med:.2f}x median (target <= 1.3x)')


def timed(fn):
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeat', type=int, default=15)
    ap.add_argument('--batch', type=int, default=32)
    ap.add_argument('--dtype', default='float32')
    args = ap.parse_args()
    dtype = np.dtype(args.dtype)
    rng = np.random.default_rng(0)
    n = args.batch
    x = rng.standard_normal((n, 3, 32, 32)).astype(dtype)
    t = rng.integers(0, 10, n).astype(np.int32)
    arrays = [rng.standard_normal((32, 3, 3, 3)) * 0.3, np.zeros(32),
              rng.standard_normal((64, 32, 3, 3)) * 0.08, np.zeros(64),
              rng.standard_normal((10, 64 * 16 * 16)) * 0.01, np.zeros(10)]
    arrays = [a.astype(dtype) for a in arrays]
    params = [chainlet.Variable(a.copy()) for a in arrays]

    loss_ref, grads_ref = numpy_step(x, t, *arrays)
    loss, grads = chainlet_step(x, t, params)
    tol = 1e-3 if dtype == np.float32 else 1e-8
    np.testing.assert_allclose(loss, loss_ref, rtol=tol)
    for name, g, r in zip(('W1', 'b1', 'W2', 'b2', 'W3', 'b3'), grads, grads_ref):
        np.testing.assert_allclose(g, r, rtol=tol * 10, atol=tol * np.abs(r).max(),
                                   err_msg=f'gradient of {name}')

    compare(f'CNN step, batch {n} of 3x32x32, {dtype.name}, forward+backward',
            lambda: numpy_step(x, t, *arrays), lambda: chainlet_step(x, t, params), args.repeat)

    # The second convolution alone (the bulk of the step), with the gradient of its input.
    h = np.maximum(rng.standard_normal((n, 32, 32, 32)), 0).astype(dtype)
    gy = rng.standard_normal((n, 64, 32, 32)).astype(dtype)
    W2, b2 = arrays[2], arrays[3]
    hv, W2v, b2v = (chainlet.Variable(a.copy()) for a in (h, W2, b2))
    y_ref, g_ref = numpy_conv_layer(h, W2, b2, gy)
    y, g = chainlet_conv_layer(hv, W2v, b2v, gy)
    np.testing.assert_allclose(y, y_ref, rtol=tol, atol=tol)
    for a, r in zip(g, g_ref):
        np.testing.assert_allclose(a, r, rtol=tol * 10, atol=tol * np.abs(r).max())
    compare(f'conv 3x3 32->64 pad 1 on {n}x32x32x32, forward+backward (gx, gW, gb)',
            lambda: numpy_conv_layer(h, W2, b2, gy),
            lambda: chainlet_conv_layer(hv, W2v, b2v, gy), args.repeat)


if __name__ == '__main__':
    main()
