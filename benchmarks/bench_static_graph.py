"""Training step of a small MLP with and without ``@static_graph`` (a script, not a test).

``static_graph`` replays the recorded function nodes instead of running the chain's Python, so
what it can save is the per-call Python of the links and wrappers; the arrays are small here so
that this overhead, not the arithmetic, dominates. Both models start from the same parameters and
see the same batches, and the script checks that their losses agree before timing.

Run: python benchmarks/bench_static_graph.py [--calls N] [--batch B] [--units U] [--layers L]
"""
from __future__ import annotations

import argparse
import gc
import time

import numpy as np

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet.graph_optimizations.static_graph import static_graph


class MLP(chainlet.Chain):
    def __init__(self, n_in: int, n_units: int, n_out: int, n_layers: int) -> None:
        super().__init__()
        with self.init_scope():
            self.hidden = chainlet.ChainList(*[
                L.Linear(n_in if i == 0 else n_units, n_units) for i in range(n_layers)])
            self.out = L.Linear(n_units, n_out)

    def forward(self, x):
        h = x
        for link in self.hidden:
            h = F.relu(link(h))
        return self.out(h)


class StaticMLP(MLP):
    forward = static_graph(MLP.forward)


def make_step(model, x, t):
    opt = chainlet.optimizers.SGD(0.01)
    opt.setup(model)

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        return loss
    return step


def make_grad(model, x, t):
    def grad():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
    return grad


def make_infer(model, x):
    def infer():
        with chainlet.no_backprop_mode(), chainlet.using_config('train', False):
            return model(x)
    return infer


def per_call(fns, calls):
    """Per-call times of each function, calls interleaved one by one so that both see the same
    load (the machine may be shared); returns {name: (10th percentile, median)} in seconds."""
    times = {name: [] for name in fns}
    clock = time.perf_counter
    gc.collect()
    for _ in range(calls):
        for name, fn in fns.items():
            t0 = clock()
            fn()
            times[name].append(clock() - t0)
    return {name: (float(np.percentile(t, 10)), float(np.median(t))) for name, t in times.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--calls', type=int, default=3000)
    p.add_argument('--batch', type=int, default=32)
    p.add_argument('--units', type=int, default=64)
    p.add_argument('--layers', type=int, default=3)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, 32)).astype(np.float32)
    t = rng.integers(0, 10, args.batch).astype(np.int32)
    dynamic = MLP(32, args.units, 10, args.layers)
    static = StaticMLP(32, args.units, 10, args.layers)
    static.copyparams(dynamic)
    steps = {'define-by-run': make_step(dynamic, x, t), 'static_graph': make_step(static, x, t)}
    losses = {name: [float(step().array) for _ in range(5)] for name, step in steps.items()}
    if not np.allclose(losses['define-by-run'], losses['static_graph'], rtol=1e-6):
        raise SystemExit(f'losses differ: {losses}')
    print(f'MLP {args.layers} x Linear({args.units}) + ReLU, batch {args.batch}, float32; '
          f'{args.calls} calls each, interleaved; 10th percentile / median per call')
    print(f'{"":32s}{"define-by-run":>22s}{"static_graph":>22s}{"ratio":>8s}')
    rows = [('train step (fwd+bwd+SGD)', steps),
            ('forward + backward', {'define-by-run': make_grad(dynamic, x, t),
                                    'static_graph': make_grad(static, x, t)}),
            ('inference (no_backprop, test)', {'define-by-run': make_infer(dynamic, x),
                                               'static_graph': make_infer(static, x)})]
    for label, fns in rows:
        for fn in fns.values():  # record and verify the schedules before timing
            for _ in range(3):
                fn()
        best = per_call(fns, args.calls)
        (a10, a50), (b10, b50) = best['define-by-run'], best['static_graph']
        print(f'{label:32s}{a10 * 1e6:9.1f} / {a50 * 1e6:6.1f} us{b10 * 1e6:9.1f} / '
              f'{b50 * 1e6:6.1f} us{a50 / b50:7.2f}x')


if __name__ == '__main__':
    main()
