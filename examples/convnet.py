"""A small CNN on the digits seen as 1x8x8 images (no download needed).

Two 3x3 convolutions with batch normalization and ReLU, max pooling, dropout and a linear
classifier, trained with MomentumSGD and evaluated in test mode.

Run: python examples/convnet.py [--epochs 10] [--device @numpy | @cupy:0]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import datasets, iterators, optimizers
from chainlet.dataset import concat_examples


class ConvNet(chainlet.Chain):
    def __init__(self, n_out: int = 10) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, 16, ksize=3, pad=1)
            self.bn1 = L.BatchNormalization(16)
            self.conv2 = L.Convolution2D(16, 32, ksize=3, pad=1)
            self.bn2 = L.BatchNormalization(32)
            self.fc = L.Linear(None, n_out)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.max_pooling_2d(F.relu(self.bn2(self.conv2(h))), 2)  # 8x8 -> 4x4
        h = F.dropout(h, 0.25)
        return self.fc(h)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--epochs', type=int, default=10)
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--device', default='@numpy',
                        help="where to train: '@numpy' (CPU) or '@cupy:0' (GPU 0)")
    args = parser.parse_args()

    np.random.seed(args.seed)
    train, test = datasets.get_digits(ndim=3)
    model = L.Classifier(ConvNet())
    model.to_device(args.device)
    opt = optimizers.MomentumSGD(lr=0.05)
    opt.setup(model)
    it = iterators.SerialIterator(train, args.batch_size)
    start = time.perf_counter()
    while it.epoch < args.epochs:
        x, t = concat_examples(it.next(), args.device)
        opt.update(model, x, t)  # cleargrads, loss, backward and update in one call
        if it.is_new_epoch:
            with chainlet.using_config('train', False), chainlet.no_backprop_mode():
                x_test, t_test = concat_examples(test, args.device)
                acc = float(F.accuracy(model.predictor(x_test), t_test).array)
            print(f'epoch {it.epoch:3d}  loss {float(model.loss.array):.4f}  '
                  f'test accuracy {acc:.4f}  ({time.perf_counter() - start:.1f} s)', flush=True)
    print(f'final test accuracy: {acc:.4f}')


if __name__ == '__main__':
    main()
