"""Per-operation overhead of the core engine (a script that prints figures; not a test).

Workloads (issue "core engine", item 12):
  * a 1,000-op chain of tanh / mul / add on shape (1,): forward, forward+backward, and raw NumPy
  * a 1,000-branch fan-out into one input
  * a 100,000-op deep chain, forward+backward
  * double backward of sum(tanh(x) ** 3) on shape (1000,)
  * peak memory of 50 chained tanh on 4M float32 elements (forward+backward)

Run: python benchmarks/bench_core.py [--repeat N]
"""
from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import numpy as np

import chainlet
import chainlet.functions as F


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
        y.backward()
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
        F.add(*ys).backward()
    t_fan = best_of(fan_out, r)
    print(f'1000-branch fan-out (tanh x1000 + one add), fwd+bwd: {t_fan * 1e3:7.2f} ms '
          f'({t_fan / 1001 * 1e6:.2f} us/op)')

    def deep():
        x.cleargrad()
        y = x
        for _ in range(100_000):
            y = y * np.float32(1.0)
        y.backward()
    t_deep = best_of(deep, max(1, r // 3))
    print(f'100,000-op deep chain, fwd+bwd: {t_deep:6.3f} s ({t_deep / 1e5 * 1e6:.2f} us/op)')

    xb = chainlet.Variable(np.random.default_rng(0).standard_normal(1000).astype(np.float32))

    def double():
        y = F.sum(F.tanh(xb) ** 3)
        gx, = chainlet.grad([y], [xb], enable_double_backprop=True)
        ggx, = chainlet.grad([F.sum(gx)], [xb])
    t_dbl = best_of(double, r)
    print(f'double backward of sum(tanh(x)**3) on (1000,): {t_dbl * 1e3:7.3f} ms')

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


if __name__ == '__main__':
    main()
