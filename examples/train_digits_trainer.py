"""Train an MLP on scikit-learn's 8x8 digits with the Chainer-style Trainer (no download).

The script is written as a Chainer script would be; only the import differs.

Run:
    python examples/train_digits_trainer.py [--epochs 20] [--out result] [--resume SNAPSHOT]
        [--device @numpy | @cupy:0]

Resume an interrupted run from one of its snapshots (written at the end of every epoch into
--out as snapshot_epoch_<epoch>; the last three are kept). After the default 20 epochs:
    python examples/train_digits_trainer.py --epochs 30 --resume result/snapshot_epoch_20
"""
from __future__ import annotations

import argparse

import numpy as np

import chainlet as chainer
import chainlet.functions as F
import chainlet.links as L
from chainlet import training
from chainlet.training import extensions


class MLP(chainer.Chain):
    """Two hidden ReLU layers; input sizes are inferred at the first call."""

    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def main():
    parser = argparse.ArgumentParser(description='Digits MLP trained with chainlet.training')
    parser.add_argument('--batchsize', '-b', type=int, default=32)
    parser.add_argument('--epochs', '-e', type=int, default=20)
    parser.add_argument('--unit', '-u', type=int, default=100)
    parser.add_argument('--out', '-o', default='result')
    parser.add_argument('--resume', '-r', default='', help='snapshot to resume from')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--progress-interval', type=int, default=100)
    parser.add_argument('--device', '-d', default='@numpy',
                        help="where to train: '@numpy' (CPU) or '@cupy:0' (GPU 0)")
    args = parser.parse_args()

    np.random.seed(args.seed)  # initial weights and shuffling draw from NumPy's global state
    model = L.Classifier(MLP(args.unit, 10))
    model.to_device(args.device)
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    train, test = chainer.datasets.get_digits()
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False,
                                                 shuffle=False)

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=args.device)
    trainer = training.Trainer(updater, (args.epochs, 'epoch'), out=args.out)

    trainer.extend(extensions.Evaluator(test_iter, model, device=args.device))
    # Named by epoch: iterations per epoch (1438 / 32) are not whole, so iteration numbers
    # of the epoch ends (899 after 20 epochs) are hard to guess.
    trainer.extend(extensions.snapshot(filename='snapshot_epoch_{.updater.epoch}', n_retains=3),
                   trigger=(1, 'epoch'))
    trainer.extend(extensions.LogReport())
    if extensions.PlotReport.available():
        trainer.extend(extensions.PlotReport(['main/loss', 'validation/main/loss'], 'epoch',
                                             filename='loss.png'))
        trainer.extend(extensions.PlotReport(['main/accuracy', 'validation/main/accuracy'],
                                             'epoch', filename='accuracy.png'))
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'validation/main/loss', 'main/accuracy',
         'validation/main/accuracy', 'elapsed_time']))
    trainer.extend(extensions.ProgressBar(update_interval=args.progress_interval))

    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()


if __name__ == '__main__':
    main()
