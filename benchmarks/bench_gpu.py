"""Training steps and per-op overhead on a GPU: chainlet, hand-written CuPy, PyTorch eager.

A script, not a test (issue 18, step 3). Workloads, all float32:

* **MLP step** 784-1000-1000-10 (Linear + relu, softmax cross entropy, momentum SGD with lr
  0.01 and momentum 0.9) at batch 32, 256 and 4096;
* **small CNN step** (the model of ``benchmarks/bench_cnn.py``: conv 3x3 3->32 + relu, conv 3x3
  32->64 + relu, 2x2 max pooling, linear to 10, softmax cross entropy; plain SGD, lr 0.01) at
  batch 32 of 3x32x32 images;
* **per-op overhead**: a chain of tiny elementwise ops (``* a``, ``+ b``, ``tanh``) on a
  ``(16,)`` array, forward only without a graph, and forward with the graph plus backward.

Every implementation starts from the same host parameters and data. Before timing, each one
takes a few steps on the same batch and its parameters are compared with chainlet's (the
"agree" column): the hand-written CuPy step does the same arithmetic with CuPy operations
(im2col through a strided view for the convolutions), the PyTorch step uses ``torch.nn`` and
``torch.optim.SGD`` on CUDA (TF32 switched off, so that all three compute in float32; PyTorch's
convolutions use cuDNN, chainlet's the im2col path, as CuPy 14 has no cuDNN). Times are
medians over ``--repeat`` measurements; each measurement runs the step several times between
two device synchronizations, so launch-bound steps are timed as a training loop runs them.

Each implementation is optional: without PyTorch, or with a PyTorch that sees no CUDA device,
its column says why. With ``CHAINLET_EMULATE_CUPY=1`` CuPy is the CPU stand-in of
``tools/cupy_emulator``: the script then checks that everything runs and agrees, and its
timings are CPU timings that say nothing about a GPU. The output is Markdown (``--json PATH``
also writes the figures as JSON); the exit status is 1 when some implementation disagrees or
fails (its cells then show the error; the others are still measured).

Run: python benchmarks/bench_gpu.py [--quick] [--json PATH] [--repeat N] [--device N]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.environ.get('CHAINLET_EMULATE_CUPY'):
    sys.path.insert(0, ROOT)
    import tools.cupy_emulator
    tools.cupy_emulator.install()

import chainlet  # noqa: E402
import chainlet.functions as F  # noqa: E402
import chainlet.links as L  # noqa: E402
from chainlet import backend, optimizers  # noqa: E402

IMPLS = ('chainlet', 'cupy', 'torch')
TITLES = {'chainlet': 'chainlet', 'cupy': 'CuPy by hand', 'torch': 'PyTorch eager'}
LR, MOMENTUM = 0.01, 0.9
RTOL, ATOL = 1e-3, 1e-5   # parameter agreement after a few float32 steps


# -- set-up ---------------------------------------------------------------------------------

def load_cupy(device_id: int):
    """The cupy module, or exit with a message when there is no GPU to run on."""
    try:
        import cupy
    except ImportError:
        sys.exit('bench_gpu: CuPy is not installed, so there is no GPU to benchmark; install '
                 'the extra: pip install "chainlet-dl[cuda13]" (or "chainlet-dl[cuda12]"), or set '
                 'CHAINLET_EMULATE_CUPY=1 to run on the CPU stand-in')
    count = backend.device_count()
    if count == 0:
        sys.exit('bench_gpu: CuPy is installed but no CUDA device was found')
    if device_id >= count:
        sys.exit(f'bench_gpu: --device {device_id} requested but only {count} GPU(s) found')
    return cupy


def load_torch(device_id: int) -> tuple[Any, str | None]:
    """``(torch, None)`` when PyTorch can run on CUDA, else ``(None, why not)``."""
    if os.environ.get('BENCH_GPU_NO_TORCH'):
        return None, 'BENCH_GPU_NO_TORCH is set'
    try:
        import torch
    except ImportError:
        return None, 'PyTorch not installed'
    if not torch.cuda.is_available():
        return None, f'PyTorch {torch.__version__} sees no CUDA device'
    if device_id >= torch.cuda.device_count():
        return None, f'PyTorch sees no CUDA device {device_id}'
    # float32 everywhere: CuPy and chainlet do not use TF32 unless asked to
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch, None


def environment(cp, torch, device_id: int, emulated: bool) -> dict:
    props = cp.cuda.runtime.getDeviceProperties(device_id)
    name = props['name']
    meta = {
        'device': name.decode() if isinstance(name, bytes) else str(name),
        'emulated': emulated,
        'cupy': cp.__version__,
        'numpy': np.__version__,
        'chainlet': getattr(chainlet, '__version__', '?'),
        'python': platform.python_version(),
        'torch': torch.__version__ if torch is not None else None,
    }
    for key, fn in (('cuda_runtime', 'runtimeGetVersion'), ('cuda_driver', 'driverGetVersion')):
        getter = getattr(cp.cuda.runtime, fn, None)
        meta[key] = getter() if getter is not None else None
    return meta


# -- timing ---------------------------------------------------------------------------------

class Timer:
    """Median time of one call, measured in groups of calls between device synchronizations."""

    def __init__(self, sync: Callable[[], None], repeat: int, warmup: int,
                 target_s: float) -> None:
        self.sync, self.repeat, self.warmup, self.target_s = sync, repeat, warmup, target_s

    def _group(self, fn: Callable[[], Any], inner: int) -> float:
        self.sync()
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        self.sync()
        return (time.perf_counter() - t0) / inner

    def __call__(self, fn: Callable[[], Any]) -> dict:
        for _ in range(self.warmup):  # kernel compilation, memory pools, cuBLAS handles
            self._group(fn, 1)
        once = self._group(fn, 1)
        inner = max(1, min(1000, math.ceil(self.target_s / max(once, 1e-7))))
        times = [self._group(fn, inner) for _ in range(self.repeat)]
        return {'median_s': statistics.median(times), 'best_s': min(times), 'inner': inner,
                'repeat': self.repeat}


def agreement(params: list, ref: list) -> dict:
    """How far ``params`` (host arrays) are from ``ref`` (chainlet's)."""
    worst, ok = 0.0, True
    for p, r in zip(params, ref):
        diff = np.abs(p.astype(np.float64) - r.astype(np.float64))
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
        ok = ok and bool(np.all(diff <= ATOL + RTOL * np.abs(r)))
    return {'ok': ok, 'max_abs_diff': worst}


# -- MLP ------------------------------------------------------------------------------------

class MLP(chainlet.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(784, 1000)
            self.l2 = L.Linear(1000, 1000)
            self.l3 = L.Linear(1000, 10)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


def mlp_host_params(rng) -> list:
    out = []
    for n_in, n_out in ((784, 1000), (1000, 1000), (1000, 10)):
        out.append((rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32))
        out.append((rng.standard_normal(n_out) * 0.01).astype(np.float32))
    return out


def chainlet_mlp(cp, device, host_params, x, t):
    model = MLP()
    links = (model.l1, model.l2, model.l3)
    params = [p for link in links for p in (link.W, link.b)]
    for p, h in zip(params, host_params):
        p.array[...] = h
    model.to_device(device)
    opt = optimizers.MomentumSGD(lr=LR, momentum=MOMENTUM).setup(model)
    x, t = cp.asarray(x), cp.asarray(t)

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()

    return step, lambda: [cp.asnumpy(p.array) for p in params]


def cupy_mlp(cp, device, host_params, x, t):
    params = [cp.asarray(h) for h in host_params]
    velocities = [cp.zeros_like(p) for p in params]
    x, t = cp.asarray(x), cp.asarray(t)
    n = x.shape[0]
    rows = cp.arange(n)

    def step():
        W1, b1, W2, b2, W3, b3 = params
        a1 = x @ W1.T + b1
        h1 = cp.maximum(a1, 0)
        a2 = h1 @ W2.T + b2
        h2 = cp.maximum(a2, 0)
        z = h2 @ W3.T + b3
        z -= z.max(axis=1, keepdims=True)
        e = cp.exp(z)
        gz = e / e.sum(axis=1, keepdims=True)
        gz[rows, t] -= 1
        gz /= n
        gh2 = gz @ W3
        ga2 = gh2 * (a2 > 0)
        gh1 = ga2 @ W2
        ga1 = gh1 * (a1 > 0)
        grads = (ga1.T @ x, ga1.sum(0), ga2.T @ h1, ga2.sum(0), gz.T @ h2, gz.sum(0))
        for p, v, g in zip(params, velocities, grads):
            v *= MOMENTUM
            v -= LR * g
            p += v

    return step, lambda: [cp.asnumpy(p) for p in params]


def torch_mlp(torch, device_id, host_params, x, t):
    dev = torch.device('cuda', device_id)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(784, 1000), nn.ReLU(), nn.Linear(1000, 1000), nn.ReLU(),
                          nn.Linear(1000, 10)).to(dev)
    params = [model[0].weight, model[0].bias, model[2].weight, model[2].bias,
              model[4].weight, model[4].bias]
    with torch.no_grad():
        for p, h in zip(params, host_params):
            p.copy_(torch.from_numpy(h))
    # torch's buffer is -v/lr of chainlet's velocity: the same updates for a constant lr
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    x = torch.from_numpy(x).to(dev)
    t = torch.from_numpy(t.astype(np.int64)).to(dev)

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), t)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step, lambda: [p.detach().cpu().numpy() for p in params]


# -- small CNN ------------------------------------------------------------------------------

class CNN(chainlet.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 32, 3, pad=1)
            self.conv2 = L.Convolution2D(32, 64, 3, pad=1)
            self.fc = L.Linear(64 * 16 * 16, 10)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)
        return self.fc(h)


def cnn_host_params(rng) -> list:
    shapes = ((32, 3, 3, 3), (64, 32, 3, 3), (10, 64 * 16 * 16))
    out = []
    for shape in shapes:
        fan_in = int(np.prod(shape[1:]))
        out.append((rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32))
        out.append((rng.standard_normal(shape[0]) * 0.01).astype(np.float32))
    return out


def chainlet_cnn(cp, device, host_params, x, t):
    model = CNN()
    params = [p for link in (model.conv1, model.conv2, model.fc) for p in (link.W, link.b)]
    for p, h in zip(params, host_params):
        p.array[...] = h
    model.to_device(device)
    opt = optimizers.SGD(lr=LR).setup(model)
    x, t = cp.asarray(x), cp.asarray(t)

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()

    return step, lambda: [cp.asnumpy(p.array) for p in params]


def _im2col(cp, x, k, pad):
    n, c, h, w = x.shape
    xp = cp.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - k + 1, w + 2 * pad - k + 1
    sn, sc, sh, sw = xp.strides
    view = cp.lib.stride_tricks.as_strided(xp, (n, c, k, k, oh, ow), (sn, sc, sh, sw, sh, sw))
    return cp.ascontiguousarray(view).reshape(n, c * k * k, oh * ow)


def _col2im(cp, col, c, k, pad, h, w):
    n = col.shape[0]
    oh, ow = h + 2 * pad - k + 1, w + 2 * pad - k + 1
    col = col.reshape(n, c, k, k, oh, ow)
    img = cp.zeros((n, c, h + 2 * pad, w + 2 * pad), col.dtype)
    for i in range(k):
        for j in range(k):
            img[:, :, i:i + oh, j:j + ow] += col[:, :, i, j]
    return img[:, :, pad:pad + h, pad:pad + w]


def cupy_cnn(cp, device, host_params, x, t):
    params = [cp.asarray(h) for h in host_params]
    x, t = cp.asarray(x), cp.asarray(t)
    n = x.shape[0]
    rows = cp.arange(n)

    def conv(h, W, b):
        col = _im2col(cp, h, 3, 1)
        y = cp.matmul(W.reshape(W.shape[0], -1), col) + b.reshape(1, -1, 1)
        return y.reshape(n, W.shape[0], h.shape[2], h.shape[3]), col

    def conv_grads(gy, col, W, x_shape, need_gx):
        gy = gy.reshape(n, W.shape[0], -1)
        gW = cp.matmul(gy, col.transpose(0, 2, 1)).sum(axis=0).reshape(W.shape)
        gx = None
        if need_gx:
            gcol = cp.matmul(W.reshape(W.shape[0], -1).T, gy)
            gx = _col2im(cp, gcol, x_shape[1], 3, 1, x_shape[2], x_shape[3])
        return gx, gW, gy.sum(axis=(0, 2))

    def step():
        W1, b1, W2, b2, W3, b3 = params
        y1, col1 = conv(x, W1, b1)
        h1 = cp.maximum(y1, 0)
        y2, col2 = conv(h1, W2, b2)
        h2 = cp.maximum(y2, 0)
        views = [h2[:, :, i::2, j::2] for i in (0, 1) for j in (0, 1)]
        p = cp.maximum(cp.maximum(views[0], views[1]), cp.maximum(views[2], views[3]))
        pf = p.reshape(n, -1)
        z = pf @ W3.T + b3
        z -= z.max(axis=1, keepdims=True)
        e = cp.exp(z)
        gz = e / e.sum(axis=1, keepdims=True)
        gz[rows, t] -= 1
        gz /= n
        gW3, gb3 = gz.T @ pf, gz.sum(axis=0)
        gp = (gz @ W3).reshape(p.shape)
        gh2 = cp.zeros(h2.shape, h2.dtype)
        free = cp.ones(p.shape, bool)
        for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
            hit = (views[k] == p) & free   # the first maximum of each window gets the gradient
            gh2[:, :, i::2, j::2] = cp.where(hit, gp, 0)
            free &= ~hit
        gh1, gW2, gb2 = conv_grads(gh2 * (y2 > 0), col2, W2, h1.shape, True)
        _, gW1, gb1 = conv_grads(gh1 * (y1 > 0), col1, W1, x.shape, False)
        for prm, g in zip(params, (gW1, gb1, gW2, gb2, gW3, gb3)):
            prm -= LR * g

    return step, lambda: [cp.asnumpy(p) for p in params]


def torch_cnn(torch, device_id, host_params, x, t):
    dev = torch.device('cuda', device_id)
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64 * 16 * 16, 10)).to(dev)
    params = [model[0].weight, model[0].bias, model[2].weight, model[2].bias,
              model[6].weight, model[6].bias]
    with torch.no_grad():
        for p, h in zip(params, host_params):
            p.copy_(torch.from_numpy(h))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x = torch.from_numpy(x).to(dev)
    t = torch.from_numpy(t.astype(np.int64)).to(dev)

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), t)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step, lambda: [p.detach().cpu().numpy() for p in params]


# -- per-op overhead ------------------------------------------------------------------------

def chainlet_ops(cp, n_ops, backward):
    x = cp.linspace(-1, 1, 16, dtype=np.float32)
    a, b = cp.full(16, 0.9, np.float32), cp.full(16, 0.1, np.float32)

    def chain(h):
        for i in range(n_ops):
            h = _chainlet_op(h, i, a, b)
        return h

    if backward:
        def run():
            v = chainlet.Variable(x)
            F.sum(chain(v)).backward()
    else:
        def run():
            with chainlet.no_backprop_mode():
                chain(chainlet.Variable(x))
    return run


def _chainlet_op(h, i, a, b):
    k = i % 3
    if k == 0:
        return h * a
    if k == 1:
        return h + b
    return F.tanh(h)


def cupy_ops(cp, n_ops, backward):
    if backward:
        return None
    x = cp.linspace(-1, 1, 16, dtype=np.float32)
    a, b = cp.full(16, 0.9, np.float32), cp.full(16, 0.1, np.float32)

    def run():
        h = x
        for i in range(n_ops):
            k = i % 3
            h = h * a if k == 0 else h + b if k == 1 else cp.tanh(h)
    return run


def torch_ops(torch, device_id, n_ops, backward):
    dev = torch.device('cuda', device_id)
    x = torch.linspace(-1, 1, 16, dtype=torch.float32, device=dev)
    a = torch.full((16,), 0.9, device=dev)
    b = torch.full((16,), 0.1, device=dev)

    def chain(h):
        for i in range(n_ops):
            k = i % 3
            h = h * a if k == 0 else h + b if k == 1 else torch.tanh(h)
        return h

    if backward:
        def run():
            v = x.detach().requires_grad_()
            chain(v).sum().backward()
    else:
        def run():
            with torch.no_grad():
                chain(x)
    return run


# -- driver ---------------------------------------------------------------------------------

def _guard(row: dict, name: str, fn: Callable[[], Any]) -> Any:
    """``fn()``, or ``None`` with the error noted in the row: one implementation failing on a
    new machine must not cost the figures of the others."""
    try:
        return fn()
    except Exception as exc:  # reported in the table and by the exit status
        row['note'][name] = f'error: {type(exc).__name__}: {str(exc)[:200]}'
        row.setdefault('errors', []).append(name)
        return None


def run_training(kind, batch, ctx, steps) -> dict:
    cp, torch = ctx['cp'], ctx['torch']
    rng = np.random.default_rng(0)
    if kind == 'mlp':
        host = mlp_host_params(rng)
        x = rng.standard_normal((batch, 784)).astype(np.float32)
        makers = {'chainlet': chainlet_mlp, 'cupy': cupy_mlp, 'torch': torch_mlp}
    else:
        host = cnn_host_params(rng)
        x = rng.standard_normal((batch, 3, 32, 32)).astype(np.float32)
        makers = {'chainlet': chainlet_cnn, 'cupy': cupy_cnn, 'torch': torch_cnn}
    t = rng.integers(0, 10, batch).astype(np.int32)
    row: dict = {'batch': batch, 'steps_compared': steps, 'ms': {}, 'agree': {}, 'note': {}}
    impls = {}
    for name in IMPLS:
        if name == 'torch' and torch is None:
            row['note'][name] = ctx['torch_why']
            continue
        module, where = (torch, ctx['device_id']) if name == 'torch' else (cp, ctx['device'])

        def build_and_step(make=makers[name], module=module, where=where):
            step, params = make(module, where, host, x, t)
            for _ in range(steps):  # the same steps on the same batch from the same start
                step()
            return step, params()

        built = _guard(row, name, build_and_step)
        if built is not None:
            impls[name] = built
    if 'chainlet' in impls:
        ref = impls['chainlet'][1]
        for name in impls:
            if name != 'chainlet':
                row['agree'][name] = agreement(impls[name][1], ref)
    for name, (step, _) in impls.items():
        timing = _guard(row, name, lambda step=step, name=name: ctx['timers'][name](step))
        if timing is not None:
            row['ms'][name] = timing['median_s'] * 1e3
    return row


def run_ops(n_ops, backward, ctx) -> dict:
    cp, torch = ctx['cp'], ctx['torch']
    row: dict = {'n_ops': n_ops, 'backward': backward, 'us_per_op': {}, 'note': {}}
    runs = {'chainlet': chainlet_ops(cp, n_ops, backward), 'cupy': cupy_ops(cp, n_ops, backward)}
    if torch is None:
        row['note']['torch'] = ctx['torch_why']
    else:
        runs['torch'] = _guard(row, 'torch',
                               lambda: torch_ops(torch, ctx['device_id'], n_ops, backward))
    if runs['cupy'] is None:
        row['note']['cupy'] = 'no autograd'
    for name, fn in runs.items():
        if fn is None:
            continue
        timing = _guard(row, name, lambda fn=fn, name=name: ctx['timers'][name](fn))
        if timing is not None:
            row['us_per_op'][name] = timing['median_s'] * 1e6 / n_ops
    return row


def _cell(row, key, name, fmt):
    if name in row[key]:
        return fmt.format(row[key][name])
    return f"n/a ({row['note'][name]})" if name in row['note'] else 'n/a'


def _ratio(row, key, a, b):
    if a in row[key] and b in row[key] and row[key][b] > 0:
        return f'{row[key][a] / row[key][b]:.2f}x'
    return 'n/a'


def _agree(row):
    parts = []
    for name in ('cupy', 'torch'):
        if name in row['agree']:
            a = row['agree'][name]
            parts.append(f"{TITLES[name]}: {'yes' if a['ok'] else 'NO'} "
                         f"({a['max_abs_diff']:.1e})")
    return '; '.join(parts) or 'n/a'


def render(result: dict) -> str:
    m = result['meta']
    lines = [f"## bench_gpu.py on {m['device']}", '']
    if m['emulated']:
        lines += ['**Emulated**: CuPy is the CPU stand-in of `tools/cupy_emulator`; these are '
                  'CPU timings of a correctness run and say nothing about a GPU.', '']
    lines += [f"CuPy {m['cupy']}, NumPy {m['numpy']}, PyTorch {m['torch'] or 'absent'}, "
              f"Python {m['python']}, CUDA runtime {m['cuda_runtime']}, driver "
              f"{m['cuda_driver']}; {'quick run, ' if result['quick'] else ''}median of "
              f"{result['repeat']} measurements. float32, TF32 off.", '']
    for kind, title in (('mlp', 'MLP training step 784-1000-1000-10 (MomentumSGD)'),
                        ('cnn', 'Small CNN training step (bench_cnn.py model, SGD), 3x32x32')):
        rows = result[kind]
        if not rows:
            continue
        lines += [f'### {title}', '',
                  '| batch | chainlet ms | CuPy by hand ms | PyTorch eager ms | chainlet / CuPy '
                  '| chainlet / PyTorch | parameters agree with chainlet after '
                  f"{rows[0]['steps_compared']} steps (max abs diff) |",
                  '|---:|---:|---:|---:|---:|---:|---|']
        for r in rows:
            lines.append(f"| {r['batch']} | {_cell(r, 'ms', 'chainlet', '{:.3f}')} | "
                         f"{_cell(r, 'ms', 'cupy', '{:.3f}')} | "
                         f"{_cell(r, 'ms', 'torch', '{:.3f}')} | "
                         f"{_ratio(r, 'ms', 'chainlet', 'cupy')} | "
                         f"{_ratio(r, 'ms', 'chainlet', 'torch')} | {_agree(r)} |")
        lines.append('')
    if result['ops']:
        n = result['ops'][0]['n_ops']
        lines += [f'### Per-op overhead: a chain of {n} tiny ops (`* a`, `+ b`, `tanh`) on a '
                  '(16,) float32 array', '',
                  '| mode | chainlet µs/op | raw CuPy µs/op | PyTorch eager µs/op | '
                  'chainlet / PyTorch |', '|---|---:|---:|---:|---:|']
        for r in result['ops']:
            mode = 'forward + backward (graph)' if r['backward'] else 'forward, no graph'
            lines.append(f"| {mode} | {_cell(r, 'us_per_op', 'chainlet', '{:.1f}')} | "
                         f"{_cell(r, 'us_per_op', 'cupy', '{:.1f}')} | "
                         f"{_cell(r, 'us_per_op', 'torch', '{:.1f}')} | "
                         f"{_ratio(r, 'us_per_op', 'chainlet', 'torch')} |")
        lines.append('')
    lines += ['### Targets (issue 18)', '']
    for target in result['targets']:
        lines.append(f"- {target['what']}: **{target['status']}**")
    lines.append('')
    return '\n'.join(lines)


def targets(result: dict) -> list:
    out = []
    mlp = [r for r in result['mlp'] if r['batch'] == 4096]
    what = 'MLP step at batch 4096 within 1.1x of hand-written CuPy'
    if mlp and 'cupy' in mlp[0]['ms'] and 'chainlet' in mlp[0]['ms']:
        ratio = mlp[0]['ms']['chainlet'] / mlp[0]['ms']['cupy']
        out.append({'what': what, 'ratio': ratio,
                    'status': f"{'met' if ratio <= 1.1 else 'not met'} ({ratio:.2f}x)"})
    else:
        out.append({'what': what, 'ratio': None, 'status': 'not measured'})
    for r in result['ops']:
        mode = 'with backward' if r['backward'] else 'forward only'
        what = f'per-op overhead ({mode}) at or below PyTorch eager'
        if 'torch' in r['us_per_op'] and 'chainlet' in r['us_per_op']:
            ratio = r['us_per_op']['chainlet'] / r['us_per_op']['torch']
            out.append({'what': what, 'ratio': ratio,
                        'status': f"{'met' if ratio <= 1.0 else 'not met'} ({ratio:.2f}x)"})
        else:
            why = r['note'].get('torch') or r['note'].get('chainlet', '?')
            out.append({'what': what, 'ratio': None, 'status': f'not measured ({why})'})
    if result['emulated']:
        for t in out:
            t['status'] += ' (emulated CPU timings: not a GPU measurement)'
    return out


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true',
                    help='tiny sizes and few repeats: checks that everything runs and agrees')
    ap.add_argument('--json', metavar='PATH', help='also write the figures as JSON')
    ap.add_argument('--repeat', type=int, help='measurements per figure (default 20, quick 2)')
    ap.add_argument('--steps', type=int, default=3,
                    help='steps taken before the parameters are compared (default 3)')
    ap.add_argument('--device', type=int, default=0)
    ap.add_argument('--only', choices=('mlp', 'cnn', 'ops'), action='append',
                    help='run only these workloads (repeatable)')
    args = ap.parse_args(argv)
    quick = args.quick
    repeat = args.repeat or (2 if quick else 20)
    only = set(args.only or ('mlp', 'cnn', 'ops'))
    cp = load_cupy(args.device)
    emulated = cp.__version__.endswith('+emulated')
    torch, torch_why = load_torch(args.device)
    device = backend.get_device(args.device)
    sync_cupy = cp.cuda.Device(args.device).synchronize
    target_s = 0.0 if quick else 0.05
    warmup = 1 if quick else 3
    timers = {name: Timer(sync_cupy, repeat, warmup, target_s) for name in ('chainlet', 'cupy')}
    if torch is not None:
        timers['torch'] = Timer(lambda: torch.cuda.synchronize(args.device), repeat, warmup,
                                target_s)
    ctx = {'cp': cp, 'torch': torch, 'torch_why': torch_why, 'device': device,
           'device_id': args.device, 'timers': timers}
    result: dict = {'meta': environment(cp, torch, args.device, emulated), 'quick': quick,
                    'repeat': repeat, 'emulated': emulated, 'mlp': [], 'cnn': [], 'ops': []}
    with backend.using_device(device):
        if 'mlp' in only:
            for batch in ((32,) if quick else (32, 256, 4096)):
                result['mlp'].append(run_training('mlp', batch, ctx, args.steps))
        if 'cnn' in only:
            result['cnn'].append(run_training('cnn', 2 if quick else 32, ctx, args.steps))
        if 'ops' in only:
            for backward in (False, True):
                result['ops'].append(run_ops(12 if quick else 300, backward, ctx))
    result['targets'] = targets(result)
    print(render(result), flush=True)
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as fh:
            json.dump(result, fh, indent=1)
    bad = [f"{kind} batch {r['batch']}: {name}" for kind in ('mlp', 'cnn')
           for r in result[kind] for name, a in r['agree'].items() if not a['ok']]
    if bad:
        print('bench_gpu: parameters disagree with chainlet\'s: ' + ', '.join(bad),
              file=sys.stderr)
    failed = [f"{kind}: {name} ({r['note'][name]})" for kind in ('mlp', 'cnn', 'ops')
              for r in result[kind] for name in r.get('errors', ())]
    if failed:
        print('bench_gpu: errors: ' + '; '.join(failed), file=sys.stderr)
    return 1 if bad or failed else 0


if __name__ == '__main__':
    sys.exit(main())
