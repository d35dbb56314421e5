"""Per-operation overhead of the core engine (a script that prints figures; not a test).

Workloads (issue "core engine", item 12):
  * a 1,000-op chain of tanh / mul / add on shape (1,): forward, forward+backward, and raw NumPy
  * a 1,000-branch fan-out into one input
  * a 100,000-op deep chain, forward+backward
  * double backward of sum(tanh(x) ** 3) on shape (1000,) as in the peer benchmark (gx by
    grad with double backprop, then sum(gx * gx).backward()), and the same arithmetic by hand
  * peak memory of 50 chained tanh on 4M float32 elements (forward+backward)
  * an MLP step 784-1000-1000-10 (ReLU, softmax cross entropy, SGD) at batch 100 against the same
    arithmetic written by hand in NumPy (the floor the engine adds its overhead to), and the
    same step on a 4-4-4-3 MLP at batch 2, where the engine's per-step cost is all there is

The MLP rows time the floor and chainlet's step in alternating blocks of about 40 ms (each after
one untimed step, so caches are as warm as in a training loop, and both sides see the same
machine), and report the best block of each. BLAS runs on one thread, as in the peer benchmark
(``../shared/bench``), so that the figures measure the engine rather than thread scheduling on
a 2-core machine; set ``OPENBLAS_NUM_THREADS`` (or ``OMP_NUM_THREADS``/``MKL_NUM_THREADS``)
to override.

Run: python benchmarks/bench_core.py [--repeat N]
"""
from __future__ import annotations

import argparse
import gc
import os
import time
import tracemalloc

for _var in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'OPENBLAS_NUM_THREADS'):
    os.environ.setdefault(_var, '1')  # before NumPy loads its BLAS

import numpy as np  # noqa: E402

import chainlet  # noqa: E402
import chainlet.functions as F  # noqa: E402
import chainlet.links  # noqa: E402,F401  (chainlet.links.Linear)


def backward_from_ones(y):
    """``y.backward()`` with an explicit gradient of ones (these outputs have shape ``(1,)``)."""
    y.grad = np.ones_like(y.array)
    y.backward()


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def chain_ops(x, n):
    c = np.full((1,), 0.5, np.float32)
    y = x
    for i in range(n // 3):
        y = F.tanh(y)
        y = y * c
        y = y + c
    return y


def numpy_chain(x, n):
    c = np.full((1,), 0.5, np.float32)
    y = x
    for i in range(n // 3):
        y = np.tanh(y)
        y = y * c
        y = y + c
    return y


def numpy_mlp_step(params, x, t, lr):
    """One SGD step of the MLP, by hand: what chainlet's step computes, with no engine."""
    (w1, b1), (w2, b2), (w3, b3) = params
    h1 = x @ w1.T + b1
    a1 = np.maximum(h1, 0)
    h2 = a1 @ w2.T + b2
    a2 = np.maximum(h2, 0)
    y = a2 @ w3.T + b3
    y = y - y.max(axis=1, keepdims=True)
    e = np.exp(y)
    p = e / e.sum(axis=1, keepdims=True)
    n = len(t)
    g = p
    g[np.arange(n), t] -= 1
    g /= n
    grads = [(g.T @ a2, g.sum(0))]
    g = (g @ w3) * (h2 > 0)
    grads.append((g.T @ a1, g.sum(0)))
    g = (g @ w2) * (h1 > 0)
    grads.append((g.T @ x, g.sum(0)))
    for (w, b), (gw, gb) in zip(params, reversed(grads)):
        w -= lr * gw
        b -= lr * gb


def repeat_call(fn, n):
    for _ in range(n):
        fn()


_ONE, _TWO, _THREE, _MINUS_TWO = (np.array(v, np.float32) for v in (1, 2, 3, -2))


def numpy_double(x):
    """The arithmetic of the double-backward workload, by hand: ``y = sum(tanh(x)**3)``; its
    gradient ``gx`` (as the gradient graph computes it); ``z = sum(gx * gx)``; and ``dz/dx``
    through that graph."""
    t = np.tanh(x)
    np.asarray((t * t * t).sum())
    gy = np.array(1, np.float32)  # dy/dy, broadcast by the products below
    gpow = gy * (t * t * _THREE)  # d(t**3)/dt
    gx = gpow * (_ONE - t * t)  # through tanh
    np.asarray((gx * gx).sum())
    ggx = 2 * np.array(1, np.float32) * gx  # dz/dgx
    g_t = ggx * gpow * t * _MINUS_TWO  # dz/dt through tanh's gradient
    g_t += (ggx * (_ONE - t * t) * gy) * t * _TWO * _THREE  # and through t**3's gradient
    return g_t * (_ONE - t * t)  # dz/dx


def mlp_step_times(repeat, sizes=(784, 1000, 1000, 10), batch=100):
    """Best times of the hand-written NumPy step and chainlet's step, timed alternately."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    t = rng.integers(0, sizes[-1], batch).astype(np.int32)
    model = chainlet.Sequential(*[chainlet.links.Linear(a, b) for a, b in zip(sizes, sizes[1:])])
    params = [(layer.W.array.copy(), layer.b.array.copy()) for layer in model]
    opt = chainlet.optimizers.SGD(lr=0.01).setup(model)
    l1, l2, l3 = list(model)

    def step():
        h = F.relu(l1(x))
        h = F.relu(l2(h))
        loss = F.softmax_cross_entropy(l3(h), t)
        model.cleargrads()
        loss.backward()
        opt.update()

    def floor():
        numpy_mlp_step(params, x, t, 0.01)
    for _ in range(3):
        step()
        floor()
    # Blocks of steps lasting about 40 ms each, the two alternating, each block after one
    # untimed step: a training loop's warm caches, and both sides see the same machine.
    t0 = time.perf_counter()
    step()
    number = max(3, int(0.04 / max(time.perf_counter() - t0, 1e-7)))
    best = [float('inf'), float('inf')]
    for _ in range(repeat * 2):
        gc.collect()
        for k, fn in enumerate((floor, step)):
            fn()
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / number)
    return best[0], best[1]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--repeat', type=int, default=7)
    args = p.parse_args()
    r = args.repeat
    n = 999
    x0 = np.full((1,), 0.3, np.float32)

    t_np = best_of(lambda: numpy_chain(x0, n), r)
    x = chainlet.Variable(x0.copy())
    t_fwd = best_of(lambda: chain_ops(x, n), r)

    def fwd_bwd():
        x.cleargrad()
        y = chain_ops(x, n)
        backward_from_ones(y)
    t_fb = best_of(fwd_bwd, r)
    with chainlet.no_backprop_mode():
        t_nb = best_of(lambda: chain_ops(x, n), r)
    print(f'chain of {n} tanh/mul/add ops on shape (1,):')
    print(f'  numpy forward (no graph)      {t_np / n * 1e6:7.2f} us/op')
    print(f'  chainlet forward, no_backprop {t_nb / n * 1e6:7.2f} us/op')
    print(f'  chainlet forward              {t_fwd / n * 1e6:7.2f} us/op')
    print(f'  chainlet forward+backward     {t_fb / n * 1e6:7.2f} us/op')

    def fan_out():
        x.cleargrad()
        ys = [F.tanh(x) for _ in range(1000)]
        backward_from_ones(F.add(*ys))
    t_fan = best_of(fan_out, r)
    print(f'1000-branch fan-out (tanh x1000 + one add), fwd+bwd: {t_fan * 1e3:7.2f} ms '
          f'({t_fan / 1001 * 1e6:.2f} us/op)')

    def deep():
        x.cleargrad()
        y = x
        for _ in range(100_000):
            y = y * np.float32(1.0)
        backward_from_ones(y)
    t_deep = best_of(deep, max(1, r // 3))
    print(f'100,000-op deep chain, fwd+bwd: {t_deep:6.3f} s ({t_deep / 1e5 * 1e6:.2f} us/op)')

    xd = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    xb = chainlet.Variable(xd.copy())

    def double():
        xb.cleargrad()
        y = F.sum(F.tanh(xb) ** 3)
        gx, = chainlet.grad([y], [xb], enable_double_backprop=True)
        F.sum(gx * gx).backward()
    t_dbl = best_of(lambda: repeat_call(double, 200), r) / 200
    t_dbl_np = best_of(lambda: repeat_call(lambda: numpy_double(xd), 200), r) / 200
    print(f'double backward of sum(tanh(x)**3) on (1000,), then sum(gx*gx).backward(): '
          f'numpy by hand {t_dbl_np * 1e6:5.1f} us, chainlet {t_dbl * 1e6:5.1f} us')

    big = np.random.default_rng(0).standard_normal(4_000_000).astype(np.float32)
    nbytes = big.nbytes
    xv = chainlet.Variable(big)
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    y = xv
    for _ in range(50):
        y = F.tanh(y)
    y.grad = np.ones_like(big)
    y.backward()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del y
    print(f'peak memory of 50 tanh on 4M float32 (fwd+bwd): {peak / nbytes:.2f} arrays '
          f'(50 retained outputs + working arrays; x itself excluded)')

    t_np_mlp, t_mlp = mlp_step_times(r)
    print(f'MLP step 784-1000-1000-10, batch 100: numpy by hand {t_np_mlp * 1e3:6.2f} ms, '
          f'chainlet {t_mlp * 1e3:6.2f} ms ({t_mlp / t_np_mlp:.3f}x)')
    t_np_small, t_small = mlp_step_times(r, sizes=(4, 4, 4, 3), batch=2)
    print(f'MLP step 4-4-4-3, batch 2 (the per-step cost of the engine): numpy by hand '
          f'{t_np_small * 1e6:6.1f} us, chainlet {t_small * 1e6:6.1f} us '
          f'(+{(t_small - t_np_small) * 1e6:.1f} us)')


if __name__ == '__main__':
    main()
