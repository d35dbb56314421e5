"""Training steps on the GPU: chainlet against hand-written CuPy (a script, not a test).

Workloads (issue "GPU execution"):
  * MLP step 784-1000-1000-10, Linear + relu + softmax cross entropy + MomentumSGD (lr 0.01,
    momentum 0.9), batch 100 and 1000, float32;
  * the CNN step of benchmarks/bench_cnn.py (conv 3x3 3->32 + relu, conv 3x3 32->64 + relu,
    2x2 max pooling, linear to 10, softmax cross entropy; forward and backward), batch 32.

Each chainlet step runs against a CuPy implementation of the same arithmetic written by hand
(matrix products, im2col through a strided view, elementwise CuPy operations), in the same
process on the same data, interleaved. The script checks that the two agree, then prints the
best and median times (each step ends with a device synchronisation) and their ratio.

Run: python benchmarks/bench_gpu.py [--repeat N] [--device N]
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import backend, optimizers


def _require_gpu(device_id: int):
    try:
        import cupy
    except ImportError:
        sys.exit('bench_gpu: CuPy is not installed, so there is no GPU to benchmark; install '
                 'the extra: pip install "chainlet[cuda12]" (or "chainlet[cuda13]")')
    count = backend.device_count()
    if count == 0:
        sys.exit('bench_gpu: CuPy is installed but no CUDA device was found')
    if device_id >= count:
        sys.exit(f'bench_gpu: --device {device_id} requested but only {count} GPU(s) found')
    return cupy


# -- timing -------------------------------------------------------------------------------

def compare(cp, name, ref_fn, ch_fn, repeat):
    """Interleave the two steps; each timing includes a synchronisation of the device."""
    def timed(fn):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        return time.perf_counter() - t0

    for _ in range(3):  # warm-up: kernel compilation, memory pool
        timed(ref_fn)
        timed(ch_fn)
    ref_times, ch_times = [], []
    for _ in range(repeat):
        ref_times.append(timed(ref_fn))
        ch_times.append(timed(ch_fn))
    ref_best, ch_best = min(ref_times), min(ch_times)
    ref_med, ch_med = float(np.median(ref_times)), float(np.median(ch_times))
    print(f'{name} (best / median of {repeat}):')
    print(f'  CuPy by hand : {ref_best * 1e3:8.3f} ms / {ref_med * 1e3:8.3f} ms')
    print(f'  chainlet     : {ch_best * 1e3:8.3f} ms / {ch_med * 1e3:8.3f} ms')
    print(f'  ratio chainlet / CuPy: {ch_best / ref_best:.2f}x best, {ch_med / ref_med:.2f}x '
          f'median')


# -- MLP ----------------------------------------------------------------------------------

class MLP(chainlet.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(784, 1000)
            self.l2 = L.Linear(1000, 1000)
            self.l3 = L.Linear(1000, 10)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


def chainlet_mlp_step(model, opt, x, t):
    loss = F.softmax_cross_entropy(model(x), t)
    model.cleargrads()
    loss.backward()
    opt.update()
    return loss.array


def cupy_mlp_step(cp, params, velocities, x, t, lr=0.01, momentum=0.9):
    """Forward, backward and momentum update of the same MLP with CuPy operations."""
    W1, b1, W2, b2, W3, b3 = params
    n = x.shape[0]
    a1 = x @ W1.T + b1
    h1 = cp.maximum(a1, 0)
    a2 = h1 @ W2.T + b2
    h2 = cp.maximum(a2, 0)
    z = h2 @ W3.T + b3
    z = z - z.max(axis=1, keepdims=True)
    e = cp.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = -(z[cp.arange(n), t] - cp.log(s[:, 0])).mean()
    gz = e / s
    gz[cp.arange(n), t] -= 1
    gz /= n
    gh2 = gz @ W3
    ga2 = gh2 * (a2 > 0)
    gh1 = ga2 @ W2
    ga1 = gh1 * (a1 > 0)
    grads = (ga1.T @ x, ga1.sum(0), ga2.T @ h1, ga2.sum(0), gz.T @ h2, gz.sum(0))
    for p, v, g in zip(params, velocities, grads):
        v *= momentum
        v -= lr * g
        p += v
    return loss


def bench_mlp(cp, batch, repeat, device):
    rng = np.random.default_rng(0)
    x = cp.asarray(rng.standard_normal((batch, 784)).astype(np.float32))
    t = cp.asarray(rng.integers(0, 10, batch).astype(np.int32))
    np.random.seed(0)
    model = MLP().to_device(device)
    params = [p.array.copy() for p in (model.l1.W, model.l1.b, model.l2.W, model.l2.b,
                                       model.l3.W, model.l3.b)]
    velocities = [cp.zeros_like(p) for p in params]
    opt = optimizers.MomentumSGD(lr=0.01, momentum=0.9).setup(model)
    for _ in range(2):  # the two must stay in step (same parameters after each update)
        loss_ch = chainlet_mlp_step(model, opt, x, t)
        loss_ref = cupy_mlp_step(cp, params, velocities, x, t)
        np.testing.assert_allclose(float(loss_ch), float(loss_ref), rtol=1e-4)
    np.testing.assert_allclose(cp.asnumpy(model.l1.W.array), cp.asnumpy(params[0]),
                               rtol=1e-3, atol=1e-5)
    compare(cp, f'MLP 784-1000-1000-10 step, batch {batch}, float32, MomentumSGD',
            lambda: cupy_mlp_step(cp, params, velocities, x, t),
            lambda: chainlet_mlp_step(model, opt, x, t), repeat)


# -- CNN (the step of bench_cnn.py) --------------------------------------------------------

def _im2col(cp, x, k, pad):
    n, c, h, w = x.shape
    xp = cp.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    oh, ow = xp.shape[2] - k + 1, xp.shape[3] - k + 1
    sn, sc, sh, sw = xp.strides
    view = cp.lib.stride_tricks.as_strided(xp, (n, c, k, k, oh, ow), (sn, sc, sh, sw, sh, sw))
    return cp.ascontiguousarray(view).reshape(n, c * k * k, oh * ow), (oh, ow)


def _col2im(cp, col, c, k, pad, h, w):
    n = col.shape[0]
    oh, ow = h + 2 * pad - k + 1, w + 2 * pad - k + 1
    col = col.reshape(n, c, k, k, oh, ow)
    img = cp.zeros((n, c, h + 2 * pad, w + 2 * pad), col.dtype)
    for i in range(k):
        for j in range(k):
            img[:, :, i:i + oh, j:j + ow] += col[:, :, i, j]
    return img[:, :, pad:pad + h, pad:pad + w]


def _conv(cp, x, W, b, pad):
    out_c, _, k, _ = W.shape
    col, (oh, ow) = _im2col(cp, x, k, pad)
    y = cp.matmul(W.reshape(out_c, -1), col) + b.reshape(1, out_c, 1)
    return y.reshape(x.shape[0], out_c, oh, ow), col


def _conv_backward(cp, gy, col, W, x_shape, pad, need_gx):
    n, out_c = gy.shape[:2]
    gy = gy.reshape(n, out_c, -1)
    gW = cp.matmul(gy, col.transpose(0, 2, 1)).sum(axis=0).reshape(W.shape)
    gb = gy.sum(axis=(0, 2))
    gx = None
    if need_gx:
        gcol = cp.matmul(W.reshape(out_c, -1).T, gy)
        gx = _col2im(cp, gcol, x_shape[1], W.shape[2], pad, x_shape[2], x_shape[3])
    return gx, gW, gb


def cupy_cnn_step(cp, x, t, W1, b1, W2, b2, W3, b3):
    n = x.shape[0]
    y1, col1 = _conv(cp, x, W1, b1, 1)
    h1 = cp.maximum(y1, 0)
    y2, col2 = _conv(cp, h1, W2, b2, 1)
    h2 = cp.maximum(y2, 0)
    views = [h2[:, :, i::2, j::2] for i in (0, 1) for j in (0, 1)]
    p = cp.maximum(cp.maximum(views[0], views[1]), cp.maximum(views[2], views[3]))
    pf = p.reshape(n, -1)
    z = pf @ W3.T + b3
    z = z - z.max(axis=1, keepdims=True)
    e = cp.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = -(z[cp.arange(n), t] - cp.log(s[:, 0])).mean()
    gz = e / s
    gz[cp.arange(n), t] -= 1
    gz /= n
    gW3, gb3 = gz.T @ pf, gz.sum(axis=0)
    gp = (gz @ W3).reshape(p.shape)
    gh2 = cp.zeros(h2.shape, h2.dtype)
    free = cp.ones(p.shape, bool)
    for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        hit = (views[k] == p) & free
        gh2[:, :, i::2, j::2] = cp.where(hit, gp, 0)
        free &= ~hit
    gy2 = gh2 * (y2 > 0)
    gh1, gW2, gb2 = _conv_backward(cp, gy2, col2, W2, h1.shape, 1, True)
    gy1 = gh1 * (y1 > 0)
    _, gW1, gb1 = _conv_backward(cp, gy1, col1, W1, x.shape, 1, False)
    return loss, (gW1, gb1, gW2, gb2, gW3, gb3)


def chainlet_cnn_step(x, t, params):
    W1, b1, W2, b2, W3, b3 = params
    for p in params:
        p.grad = None
    h = F.relu(F.convolution_2d(x, W1, b1, pad=1))
    h = F.relu(F.convolution_2d(h, W2, b2, pad=1))
    h = F.max_pooling_2d(h, 2)
    loss = F.softmax_cross_entropy(F.linear(h, W3, b3), t)
    loss.backward()
    return loss.array, tuple(p.grad for p in params)


def bench_cnn(cp, batch, repeat):
    rng = np.random.default_rng(0)
    x = cp.asarray(rng.standard_normal((batch, 3, 32, 32)).astype(np.float32))
    t = cp.asarray(rng.integers(0, 10, batch).astype(np.int32))
    arrays = [rng.standard_normal((32, 3, 3, 3)) * 0.3, np.zeros(32),
              rng.standard_normal((64, 32, 3, 3)) * 0.08, np.zeros(64),
              rng.standard_normal((10, 64 * 16 * 16)) * 0.01, np.zeros(10)]
    arrays = [cp.asarray(a.astype(np.float32)) for a in arrays]
    params = [chainlet.Variable(a.copy()) for a in arrays]
    loss_ref, grads_ref = cupy_cnn_step(cp, x, t, *arrays)
    loss, grads = chainlet_cnn_step(x, t, params)
    np.testing.assert_allclose(float(loss), float(loss_ref), rtol=1e-3)
    for name, g, r in zip(('W1', 'b1', 'W2', 'b2', 'W3', 'b3'), grads, grads_ref):
        r = cp.asnumpy(r)
        np.testing.assert_allclose(cp.asnumpy(g), r, rtol=1e-2, atol=1e-3 * np.abs(r).max(),
                                   err_msg=f'gradient of {name}')
    compare(cp, f'CNN step of bench_cnn.py, batch {batch} of 3x32x32, float32',
            lambda: cupy_cnn_step(cp, x, t, *arrays), lambda: chainlet_cnn_step(x, t, params),
            repeat)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeat', type=int, default=20)
    ap.add_argument('--device', type=int, default=0)
    args = ap.parse_args()
    cp = _require_gpu(args.device)
    device = backend.get_device(args.device)
    with backend.using_device(device):
        name = cp.cuda.runtime.getDeviceProperties(args.device)['name']
        print(f'device {device}: {name.decode() if isinstance(name, bytes) else name}')
        for batch in (100, 1000):
            bench_mlp(cp, batch, args.repeat, device)
        bench_cnn(cp, 32, args.repeat)


if __name__ == '__main__':
    main()
