"""Train an MLP on scikit-learn's bundled 8x8 digits, define-by-run (no download needed).

Run: python examples/train_digits.py [--epochs 20] [--batch-size 32] [--seed 0]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import chainlet
import chainlet.functions as F


def load_digits(seed):
    from sklearn.datasets import load_digits as sk_load
    data = sk_load()
    x = (data.data / 16.0).astype(np.float32)
    t = data.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    x, t = x[order], t[order]
    n_train = int(len(x) * 0.8)
    return (x[:n_train], t[:n_train]), (x[n_train:], t[n_train:])


def init_params(rng, sizes):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        w = (rng.standard_normal((n_in, n_out)) * np.sqrt(1.0 / n_in)).astype(np.float32)
        params += [chainlet.Variable(w), chainlet.Variable(np.zeros(n_out, np.float32))]
    return params


def forward(params, x):
    h = x
    for i in range(0, len(params) - 2, 2):
        h = F.tanh(h @ params[i] + params[i + 1])
    return h @ params[-2] + params[-1]


def cross_entropy(logits, t):
    # log-softmax with the max subtracted (a constant) for stability
    shifted = logits - logits.array.max(axis=1, keepdims=True)
    log_z = F.log(F.sum(F.exp(shifted), axis=1))
    picked = shifted[np.arange(len(t)), t]
    return F.mean(log_z - picked)


def accuracy(params, x, t):
    with chainlet.no_backprop_mode(), chainlet.using_config('train', False):
        return float((forward(params, x).array.argmax(axis=1) == t).mean())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--epochs', type=int, default=20)
    p.add_argument('--batch-size', type=int, default=32)
    p.add_argument('--lr', type=float, default=0.1)
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()

    (x_train, t_train), (x_test, t_test) = load_digits(args.seed)
    rng = np.random.default_rng(args.seed)
    params = init_params(rng, [64, 128, 10])
    velocity = [np.zeros_like(q.array) for q in params]
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        total = 0.0
        for i in range(0, len(order), args.batch_size):
            idx = order[i:i + args.batch_size]
            loss = cross_entropy(forward(params, x_train[idx]), t_train[idx])
            for q in params:
                q.cleargrad()
            loss.backward()
            for q, v in zip(params, velocity):  # momentum SGD, in place
                v *= 0.9
                v -= args.lr * q.grad
                q.array += v
            total += loss.item() * len(idx)
        acc = accuracy(params, x_test, t_test)
        print(f'epoch {epoch:3d}  loss {total / len(x_train):.4f}  test accuracy {acc:.4f}  '
              f'({time.perf_counter() - start:.1f} s)')
    print(f'final test accuracy: {accuracy(params, x_test, t_test):.4f}')


if __name__ == '__main__':
    main()
