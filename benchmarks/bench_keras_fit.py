"""Overhead of ``keras Model.fit`` against the same training written as a chainlet loop.

Both train a Dense 784-1000-1000-10 network (ReLU, softmax cross-entropy on logits) with plain
SGD (learning rate 0.01) on the same synthetic batches (6,000 samples, batch 100, no
shuffling) for one epoch, after one warm-up epoch each. The script prints both times and
their ratio; the goal is a ratio of at most 1.1.

Run:
    python benchmarks/bench_keras_fit.py [--samples 6000] [--repeat 3] [--gpu]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import keras, optimizers


class MLP(chainlet.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(784, 1000)
            self.l2 = L.Linear(1000, 1000)
            self.l3 = L.Linear(1000, 10)

    def forward(self, x: chainlet.Variable) -> chainlet.Variable:
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


def chainlet_epoch(model: MLP, opt: optimizers.SGD, x: np.ndarray, t: np.ndarray,
                   batch: int, xp) -> float:
    start = time.perf_counter()
    for i in range(0, len(x), batch):
        loss = F.softmax_cross_entropy(model(xp.asarray(x[i:i + batch])),
                                       xp.asarray(t[i:i + batch]))
        model.cleargrads()
        loss.backward()
        opt.update()
        float(loss.array)  # the same per-batch host read as fit's loss tracking
    return time.perf_counter() - start


def keras_model() -> keras.Model:
    model = keras.Sequential([keras.Input(shape=(784,)),
                              keras.layers.Dense(1000, activation='relu'),
                              keras.layers.Dense(1000, activation='relu'),
                              keras.layers.Dense(10)])
    model.compile(keras.optimizers.SGD(learning_rate=0.01),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def keras_epoch(model: keras.Model, x: np.ndarray, t: np.ndarray, batch: int) -> float:
    start = time.perf_counter()
    model.fit(x, t, batch_size=batch, epochs=1, shuffle=False, verbose=0)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--samples', type=int, default=6000)
    parser.add_argument('--batch', type=int, default=100)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--gpu', action='store_true')
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.samples, 784), dtype=np.float32)
    t = rng.integers(0, 10, args.samples).astype(np.int32)

    np.random.seed(0)
    net = MLP()
    kmodel = keras_model()
    xp = np
    if args.gpu:
        net.to_device('@cupy:0')
        kmodel.to_device('@cupy:0')
        xp = chainlet.backend.import_cupy()
    opt = optimizers.SGD(lr=0.01).setup(net)

    def sync() -> None:
        if args.gpu:
            xp.cuda.Device().synchronize()

    chainlet_epoch(net, opt, x, t, args.batch, xp)  # warm-up
    keras_epoch(kmodel, x, t, args.batch)
    times_c, times_k = [], []
    for _ in range(args.repeat):  # interleaved, so that machine noise hits both
        sync()
        times_c.append(chainlet_epoch(net, opt, x, t, args.batch, xp))
        sync()
        times_k.append(keras_epoch(kmodel, x, t, args.batch))
        sync()
    tc, tk = min(times_c), min(times_k)
    print(f'chainlet loop: {tc:.3f} s/epoch   keras fit: {tk:.3f} s/epoch   '
          f'ratio fit/loop: {tk / tc:.3f}')


if __name__ == '__main__':
    main()
