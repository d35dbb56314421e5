"""Data-parallel training of the digits MLP on several processes with MPI (ChainerMN style).

Every process runs this same script. Rank 0 loads the data and scatters one shard to each
process; each process computes gradients on its shard, the multi-node optimizer averages them
(one packed allreduce per step) and every process applies the same update. Evaluation is
averaged over the processes, and only rank 0 prints.

Run (needs ``pip install "chainlet-dl[mpi]"`` and scikit-learn for the data):

    mpiexec -n 2 python examples/train_digits_mpi.py --epochs 5
    mpiexec -n 2 python examples/train_digits_mpi.py --loop        # plain loop, no Trainer
    mpiexec -f hosts -n 8 python examples/train_digits_mpi.py     # several machines (MPICH)
"""
from __future__ import annotations

import argparse
import os

# Several processes share the machine's cores: a multi-threaded BLAS in each of them would
# oversubscribe the CPU (a 30x slowdown is common). Set OMP_NUM_THREADS yourself to override.
os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402

import chainlet as chainer  # noqa: E402
import chainlet.distributed as cmn  # noqa: E402
import chainlet.functions as F  # noqa: E402
import chainlet.links as L  # noqa: E402
from chainlet import datasets, iterators, optimizers  # noqa: E402
from chainlet.dataset import concat_examples  # noqa: E402


class MLP(chainer.Chain):
    """Two hidden layers of ``n_units`` with ReLU, then ``n_out`` logits."""

    def __init__(self, n_units: int, n_out: int) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)  # initialized lazily; broadcast at the 1st update
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h = F.relu(self.l1(x))
        h = F.relu(self.l2(h))
        return self.l3(h)


def train_with_trainer(args, comm, model, optimizer, train, test):
    from chainlet import training
    from chainlet.training import extensions
    train_iter = iterators.SerialIterator(train, args.batch_size)
    test_iter = iterators.SerialIterator(test, args.batch_size, repeat=False, shuffle=False)
    updater = training.StandardUpdater(train_iter, optimizer, device=args.device)
    trainer = training.Trainer(updater, (args.epochs, 'epoch'), out=args.out)
    evaluator = extensions.Evaluator(test_iter, model, device=args.device)
    trainer.extend(cmn.create_multi_node_evaluator(evaluator, comm))
    if comm.rank == 0:  # reporting on one process only
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.PrintReport(
            ['epoch', 'main/loss', 'validation/main/loss', 'validation/main/accuracy',
             'elapsed_time']))
    trainer.run()


def train_with_loop(args, comm, model, optimizer, train, test):
    train_iter = iterators.SerialIterator(train, args.batch_size)
    while train_iter.epoch < args.epochs:
        x, t = concat_examples(train_iter.next(), args.device)
        optimizer.update(model, x, t)
        if train_iter.is_new_epoch:
            test_iter = iterators.SerialIterator(test, args.batch_size, repeat=False,
                                                 shuffle=False)
            sums = np.zeros(3)
            with chainer.using_config('train', False), chainer.no_backprop_mode():
                for batch in test_iter:
                    x, t = concat_examples(batch, args.device)
                    y = model.predictor(x)
                    sums += [float(F.softmax_cross_entropy(y, t).array) * len(t),
                             float(F.accuracy(y, t).array) * len(t), len(t)]
            total = comm.allreduce(sums)  # sums over every process's shard
            if comm.rank == 0:
                print(f'epoch {train_iter.epoch:3d}  test loss {total[0] / total[2]:.4f}  '
                      f'test accuracy {total[1] / total[2]:.4f}', flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--epochs', type=int, default=5)
    parser.add_argument('--batch-size', type=int, default=32, help='per process')
    parser.add_argument('--units', type=int, default=128)
    parser.add_argument('--communicator', default='flat', choices=['naive', 'flat', 'pure_nccl'])
    parser.add_argument('--gpu', action='store_true', help='one GPU per process (intra_rank)')
    parser.add_argument('--loop', action='store_true', help='plain loop instead of Trainer')
    parser.add_argument('--out', default='result_mpi')
    args = parser.parse_args()

    cmn.global_except_hook()  # an error on any process stops the whole job
    comm = cmn.create_communicator(args.communicator)
    # One process per GPU: the node-local rank picks it (before any NCCL collective).
    args.device = chainer.backend.get_device(
        f'@cupy:{comm.intra_rank}' if args.gpu else '@numpy')
    args.device.use()
    if comm.rank == 0:
        print(f'{comm.size} processes on {comm.inter_size} node(s), communicator '
              f'{args.communicator}, batch {args.batch_size} per process', flush=True)

    train, test = datasets.get_digits() if comm.rank == 0 else (None, None)
    train = cmn.scatter_dataset(train, comm, shuffle=True, seed=0)
    test = cmn.scatter_dataset(test, comm)

    np.random.seed(comm.rank)  # different on purpose: rank 0's parameters are broadcast
    model = L.Classifier(MLP(args.units, 10))
    model.to_device(args.device)
    optimizer = cmn.create_multi_node_optimizer(optimizers.Adam(), comm)
    optimizer.setup(model)

    if args.loop:
        train_with_loop(args, comm, model, optimizer, train, test)
    else:
        train_with_trainer(args, comm, model, optimizer, train, test)


if __name__ == '__main__':
    main()
