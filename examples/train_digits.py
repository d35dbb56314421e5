"""Train an MLP on scikit-learn's bundled 8x8 digits, Chainer style (no download needed).

A define-by-run training loop: a Chain built in ``init_scope``, Adam, a SerialIterator,
``cleargrads`` / ``backward`` / ``update``, evaluation under ``using_config('train', False)`` and
``no_backprop_mode``, and ``save_npz`` at the end. A Chainer script ported to chainlet changes only
its imports (``import chainlet as chainer``).

Run: python examples/train_digits.py [--epochs 20] [--batch-size 32] [--device @numpy]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import chainlet as chainer
import chainlet.functions as F
import chainlet.links as L
from chainlet import datasets, iterators, optimizers, serializers
from chainlet.dataset import concat_examples


class MLP(chainer.Chain):
    """Two hidden layers of ``n_units`` with ReLU, then ``n_out`` logits."""

    def __init__(self, n_units: int, n_out: int) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)  # input size inferred from the first batch
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h = F.relu(self.l1(x))
        h = F.relu(self.l2(h))
        return self.l3(h)


def evaluate(model, dataset, device, batch_size=256):
    """Mean loss and accuracy over ``dataset`` in test mode, building no graph."""
    it = iterators.SerialIterator(dataset, batch_size, repeat=False, shuffle=False)
    total_loss = total_acc = 0.0
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        for batch in it:
            x, t = concat_examples(batch, device)
            y = model(x)
            total_loss += float(F.softmax_cross_entropy(y, t).array) * len(t)
            total_acc += float(F.accuracy(y, t).array) * len(t)
    return total_loss / len(dataset), total_acc / len(dataset)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--epochs', type=int, default=20)
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--units', type=int, default=128)
    parser.add_argument('--device', default='@numpy',
                        help="'@numpy' (CPU) or a GPU such as '@cupy:0' / 'cuda:0'")
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--out', default='digits_mlp.npz', help='where the model is saved')
    args = parser.parse_args()

    np.random.seed(args.seed)  # initializers and shuffling draw from NumPy's global state
    train, test = datasets.get_digits()
    model = MLP(args.units, 10)
    model.to_device(args.device)
    optimizer = optimizers.Adam()
    optimizer.setup(model)
    train_iter = iterators.SerialIterator(train, args.batch_size)

    start = time.perf_counter()
    sum_loss = 0.0
    n_seen = 0
    while train_iter.epoch < args.epochs:
        x, t = concat_examples(train_iter.next(), args.device)
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        sum_loss += float(loss.array) * len(t)
        n_seen += len(t)
        if train_iter.is_new_epoch:
            test_loss, test_acc = evaluate(model, test, args.device)
            print(f'epoch {train_iter.epoch:3d}  train loss {sum_loss / n_seen:.4f}  '
                  f'test loss {test_loss:.4f}  test accuracy {test_acc:.4f}  '
                  f'({time.perf_counter() - start:.1f} s)', flush=True)
            sum_loss, n_seen = 0.0, 0

    _, test_acc = evaluate(model, test, args.device)
    serializers.save_npz(args.out, model)
    print(f'final test accuracy: {test_acc:.4f} (model saved to {args.out})')


if __name__ == '__main__':
    main()
