"""Scenarios run by ``test_mpi.py`` under ``mpiexec -n 2``; each prints ``PASS <name>``.

Run one by hand: mpiexec -n 2 python tests/distributed/mpi_worker.py grad
"""
from __future__ import annotations

import os
import sys

import numpy as np


def _mlp(seed, n_in=5, n_hidden=4, n_out=3):
    import chainlet
    import chainlet.functions as F
    import chainlet.links as L

    class MLP(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(n_in, n_hidden)
                self.l2 = L.Linear(n_hidden, n_out)

        def forward(self, x):
            return self.l2(F.tanh(self.l1(x)))

    np.random.seed(seed)
    return MLP()


def _grads(model):
    return {name: None if p.grad is None else p.grad.copy() for name, p in model.namedparams()}


def _params(model):
    return {name: p.array.copy() for name, p in model.namedparams()}


def _assert_close(a, b, rtol, atol, what):
    for k in a:
        if a[k] is None or b[k] is None:
            assert a[k] is None and b[k] is None, f'{what}: {k}: {a[k]} vs {b[k]}'
            continue
        np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=f'{what}: {k}')


def scenario_grad():
    """Averaged gradients equal one-process gradients of the whole batch; collectives."""
    import chainlet.functions as F
    import chainlet.distributed as cmn
    rs = np.random.RandomState(1)
    x = rs.randn(8, 5).astype(np.float32)
    t = rs.randint(0, 3, 8).astype(np.int32)
    ref = _mlp(0)
    F.softmax_cross_entropy(ref(x), t).backward()
    expected = _grads(ref)
    for name, dtype, tol in (('naive', None, 1e-6), ('flat', None, 1e-6),
                             ('flat', np.float16, 2e-3), ('naive', np.float64, 1e-6)):
        comm = cmn.create_communicator(name, allreduce_grad_dtype=dtype)
        assert (comm.size, comm.intra_size, comm.inter_size, comm.inter_rank) == (2, 2, 1, 0)
        assert comm.intra_rank == comm.rank
        model = _mlp(0)
        r = comm.rank
        F.softmax_cross_entropy(model(x[4 * r:4 * r + 4]), t[4 * r:4 * r + 4]).backward()
        comm.multi_node_mean_grad(model)
        _assert_close(_grads(model), expected, tol, tol, f'{name}/{dtype}')
        for p in model.params():
            assert p.grad.dtype == np.float32
    comm = cmn.create_communicator('flat')
    r = comm.rank
    total = comm.allreduce(np.arange(6, dtype=np.float32).reshape(2, 3) * (r + 1))
    np.testing.assert_array_equal(total, np.arange(6).reshape(2, 3) * 3)
    half = comm.allreduce(np.full(3, r + 0.5, np.float16))
    assert half.dtype == np.float16 and half.tolist() == [2.0, 2.0, 2.0]
    got = comm.bcast(np.arange(4, dtype=np.int64) if r == 1 else None, root=1)
    assert got.tolist() == [0, 1, 2, 3] and got.dtype == np.int64
    big = {'rank': r, 'payload': list(range(1000))}
    assert comm.bcast_obj(big, max_buf_len=100, root=1)['rank'] == 1
    assert comm.gather_obj(r * 10) == ([0, 10] if r == 0 else None)
    assert comm.allreduce_obj(r + 1) == 3
    if r == 0:
        comm.send_obj(np.arange(5), dest=1, max_buf_len=16)
    else:
        assert comm.recv_obj(source=0, max_buf_len=16).tolist() == list(range(5))
    sub = comm.split(color=r, key=0)
    assert (sub.size, sub.rank, type(sub).__name__) == (1, 0, 'FlatCommunicator')
    # bcast_data: rank 1's different parameters become rank 0's.
    model = _mlp(r)
    comm.bcast_data(model)
    _assert_close(_params(model), _params(_mlp(0)), 0, 0, 'bcast_data')
    naive = cmn.create_communicator('naive')
    model = _mlp(r)
    naive.bcast_data(model)
    _assert_close(_params(model), _params(_mlp(0)), 0, 0, 'naive bcast_data')
    # pure_nccl: NumPy arrays and objects still travel through MPI; NumPy models are refused.
    nccl = cmn.create_communicator('pure_nccl')
    assert nccl.bcast(np.arange(3.0) if r == 0 else None).tolist() == [0.0, 1.0, 2.0]
    assert nccl.allreduce(np.ones(2, np.float32)).tolist() == [2.0, 2.0]
    model = _mlp(0)
    F.sum(model(x)).backward()
    try:
        nccl.multi_node_mean_grad(model)
    except TypeError as e:
        assert 'CuPy array' in str(e) and "'flat'" in str(e), e
    else:
        raise AssertionError('pure_nccl accepted a NumPy model')


def scenario_zero_fill():
    """A parameter that only one rank uses is averaged with zeros from the other; one that no
    rank uses keeps no gradient."""
    import chainlet
    import chainlet.functions as F
    import chainlet.links as L
    import chainlet.distributed as cmn

    class TwoHeads(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.a = L.Linear(3, 2)
                self.b = L.Linear(3, 2)
                self.unused = L.Linear(3, 2)

    for name in ('flat', 'naive'):
        comm = cmn.create_communicator(name)
        np.random.seed(0)
        model = TwoHeads()
        model.cleargrads()  # as in Chainer, a fresh Parameter's gradient is NaN, not None
        x = np.ones((2, 3), np.float32)
        head = model.a if comm.rank == 0 else model.b
        F.sum(head(x)).backward()
        local = head.W.grad.copy()
        comm.multi_node_mean_grad(model, zero_fill=True)
        np.testing.assert_allclose(model.a.W.grad, local / 2 if comm.rank == 0 else
                                   np.full((2, 3), 1.0, np.float32))
        np.testing.assert_allclose(model.b.W.grad, np.full((2, 3), 1.0, np.float32))
        assert model.unused.W.grad is None and model.unused.b.grad is None
    # The multi-node optimizer zero-fills by default: both ranks update both heads.
    comm = cmn.create_communicator('flat')
    np.random.seed(comm.rank)
    model = TwoHeads()
    opt = cmn.create_multi_node_optimizer(chainlet.optimizers.SGD(lr=0.5), comm).setup(model)
    before = _params(model)
    head = model.a if comm.rank == 0 else model.b
    model.cleargrads()
    F.sum(head(np.ones((2, 3), np.float32))).backward()
    opt.update()
    after = comm.allgather_obj(_params(model))
    _assert_close(after[0], after[1], 0, 0, 'ranks agree')
    np.testing.assert_allclose(after[0]['/a/W'], before['/a/W'] - 0.5)
    np.testing.assert_allclose(after[0]['/unused/W'], before['/unused/W'])


def _digits(n):
    from chainlet import datasets
    train, test = datasets.get_digits()
    return datasets.TupleDataset(*(a[:n] for a in train.datasets)), \
        datasets.TupleDataset(*(a[:n] for a in test.datasets))


def _digits_mlp(seed, lazy=False):
    import chainlet
    import chainlet.functions as F
    import chainlet.links as L

    class MLP(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(None if lazy else 64, 32)
                self.l2 = L.Linear(None if lazy else 32, 10)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

    np.random.seed(seed)
    return MLP()


def scenario_train():
    """Two ranks training the digits MLP end with identical parameters, equal to one process
    training on the doubled batch; also the lazy, double-buffered and evaluator paths."""
    import chainlet
    import chainlet.functions as F
    import chainlet.links as L
    import chainlet.distributed as cmn
    from chainlet import iterators
    from chainlet.dataset import concat_examples
    from chainlet.training import extensions

    comm = cmn.create_communicator('flat')
    rank, steps, batch = comm.rank, 5, 8
    train, test = _digits(2 * steps * batch)
    shard = cmn.scatter_dataset(train if rank == 0 else None, comm)
    assert len(shard) == steps * batch

    def run_multi(lazy=False, double_buffering=False):
        model = _digits_mlp(seed=rank + 10, lazy=lazy)  # rank 1 starts elsewhere on purpose
        opt = cmn.create_multi_node_optimizer(chainlet.optimizers.MomentumSGD(lr=0.1), comm,
                                              double_buffering=double_buffering)
        opt.setup(model)
        for i in range(steps):
            x, t = concat_examples(shard[i * batch:(i + 1) * batch])
            opt.update(lambda: F.softmax_cross_entropy(model(x), t))
        return model, opt

    def run_single(skip_first=False, delayed=False):
        model = _digits_mlp(seed=10)
        opt = chainlet.optimizers.MomentumSGD(lr=0.1).setup(model)
        previous = None
        for i in range(steps):
            parts = [train[(r * steps + i) * batch:(r * steps + i + 1) * batch]
                     for r in range(2)]
            x, t = concat_examples(parts[0] + parts[1])
            model.cleargrads()
            F.softmax_cross_entropy(model(x), t).backward()
            if skip_first and i == 0:
                continue
            if delayed:
                current = _grads(model)
                if previous is not None:
                    for name, p in model.namedparams():
                        p.grad = previous[name]
                    opt.update()
                previous = current
                continue
            opt.update()
        return model

    for lazy, db, single in ((False, False, run_single()),
                             (True, False, run_single(skip_first=True)),
                             (False, True, run_single(delayed=True))):
        model, opt = run_multi(lazy=lazy, double_buffering=db)
        mine = _params(model)
        both = comm.allgather_obj(mine)
        _assert_close(both[0], both[1], 0, 0, f'ranks agree (lazy={lazy}, db={db})')
        _assert_close(mine, _params(single), 1e-5, 1e-6, f'single process (lazy={lazy}, '
                      f'db={db})')
    assert opt.lr == 0.1 and opt.t == steps - 1

    # The evaluator averages over ranks: equal to one evaluation of the whole test set.
    test_shard = cmn.scatter_dataset(test if rank == 0 else None, comm)
    clf = L.Classifier(model)
    it = iterators.SerialIterator(test_shard, len(test_shard), repeat=False, shuffle=False)
    evaluator = cmn.create_multi_node_evaluator(extensions.Evaluator(it, clf), comm)
    result = evaluator()
    both = comm.allgather_obj(result)
    assert both[0] == both[1], both
    full = extensions.Evaluator(iterators.SerialIterator(test, len(test), repeat=False,
                                                         shuffle=False), clf)()
    for k in full:
        np.testing.assert_allclose(result[k], full[k], rtol=1e-5, err_msg=k)


def scenario_scatter():
    """Shard sizes and contents, shuffling, other roots, TupleDataset shards."""
    import chainlet.distributed as cmn
    from chainlet import datasets
    comm = cmn.create_communicator('naive')
    r = comm.rank
    shard = cmn.scatter_dataset(list(range(11)) if r == 0 else None, comm)
    assert isinstance(shard, datasets.SubDataset)
    assert shard[:] == (list(range(6)) if r == 0 else list(range(5, 11))), shard[:]
    shard = cmn.scatter_dataset(list(range(10)) if r == 1 else None, comm, root=1,
                                shuffle=True, seed=3)
    everything = comm.allgather_obj(shard[:])
    assert len(everything[0]) == len(everything[1]) == 5
    assert sorted(everything[0] + everything[1]) == list(range(10))
    order = np.random.RandomState(3).permutation(10)
    assert everything[r] == order[5 * r:5 * r + 5].tolist()
    x = np.arange(14, dtype=np.float32).reshape(7, 2)
    shard = cmn.scatter_dataset(datasets.TupleDataset(x, np.arange(7)) if r == 0 else None,
                                comm, max_buf_len=8)
    assert len(shard) == 4
    xs, ts = zip(*shard[:])
    assert list(ts) == ([0, 1, 2, 3] if r == 0 else [3, 4, 5, 6])
    np.testing.assert_array_equal(np.stack(xs), x[list(ts)])


def scenario_bn():
    """MultiNodeBatchNormalization on 2 x 4 rows equals BatchNormalization on 8 rows."""
    import chainlet
    import chainlet.functions as F
    import chainlet.links as L
    import chainlet.distributed as cmn
    comm = cmn.create_communicator('flat')
    r = comm.rank
    rs = np.random.RandomState(0)
    x = (rs.randn(8, 3) * 3 + 5).astype(np.float32)
    w = rs.randn(8, 3).astype(np.float32)
    ref = L.BatchNormalization(3)
    xv = chainlet.Variable(x)
    y_ref = ref(xv)
    F.sum(y_ref * w).backward()
    mnbn = cmn.MultiNodeBatchNormalization(3, comm)
    xl = chainlet.Variable(x[4 * r:4 * r + 4])
    y = mnbn(xl)
    F.sum(y * w[4 * r:4 * r + 4]).backward()
    np.testing.assert_allclose(y.array, y_ref.array[4 * r:4 * r + 4], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(xl.grad, xv.grad[4 * r:4 * r + 4], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(comm.allreduce(mnbn.gamma.grad), ref.gamma.grad, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(comm.allreduce(mnbn.beta.grad), ref.beta.grad, rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(mnbn.avg_mean, ref.avg_mean, rtol=1e-5)
    np.testing.assert_allclose(mnbn.avg_var, ref.avg_var, rtol=1e-5)
    with chainlet.using_config('train', False):
        np.testing.assert_allclose(mnbn(x).array, ref(x).array, rtol=1e-5, atol=1e-5)
    # AllreducePersistent averages the running statistics (and leaves the counter alone).
    mnbn.avg_mean[...] = r
    mnbn.N = 5 + r
    cmn.AllreducePersistent(mnbn, comm)()
    np.testing.assert_allclose(mnbn.avg_mean, np.full(3, 0.5, np.float32))
    assert mnbn.N == 5 + r


def scenario_keras_support():
    """prepare_fit shards consistently; the hooks average gradients and logs."""
    import chainlet.functions as F
    import chainlet.distributed as cmn
    from chainlet.distributed import keras_support
    comm = cmn.create_communicator('flat')
    r = comm.rank
    np.random.seed(0)
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10)
    model = _mlp(seed=r, n_in=2)
    plan = keras_support.prepare_fit(model, comm, x, y, validation_data=(x[:4], y[:4]))
    both = comm.allgather_obj(plan.y.tolist())
    assert len(both[0]) == len(both[1]) == 5 and sorted(both[0] + both[1]) == list(range(10))
    np.testing.assert_array_equal(plan.x, x[plan.y])
    assert plan.validation_data[1].tolist() == ([0, 1] if r == 0 else [2, 3])
    _assert_close(_params(model), _params(_mlp(seed=0, n_in=2)), 0, 0, 'prepare_fit bcast')
    F.sum(model(plan.x)).backward()
    plan.mean_grad()
    grads = comm.allgather_obj(_grads(model))
    _assert_close(grads[0], grads[1], 0, 0, 'mean_grad')
    logs = plan.average_logs({'loss': float(r), 'acc': np.float32(2 * r), 'note': 'x'})
    assert logs == {'loss': 0.5, 'acc': 1.0, 'note': 'x'}, logs
    assert plan.verbose(2) == (2 if r == 0 else 0)


def scenario_keras_fit():
    """model.fit(..., communicator=comm) on 2 ranks equals one process fitting the doubled
    batch; weights and history agree on both ranks; only rank 0 prints."""
    import chainlet.distributed as cmn
    from chainlet import keras
    comm = cmn.create_communicator('flat')
    rs = np.random.RandomState(5)
    x = rs.randn(32, 6).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)

    def build():
        model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation='tanh'),
                                  keras.layers.Dense(2)])
        model.compile(optimizer=keras.optimizers.SGD(0.1),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=['accuracy'])
        return model

    np.random.seed(123)
    model = build()
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=2,
                        validation_data=(x[:8], y[:8]), communicator=comm)
    weights = [w.copy() for w in model.get_weights()]
    both = comm.allgather_obj((weights, history.history))
    for a, b in zip(both[0][0], both[1][0]):
        np.testing.assert_array_equal(a, b)
    assert both[0][1] == both[1][1]

    np.random.seed(123)
    single = build()
    seed = np.random.randint(2 ** 31)  # what rank 0 drew to shuffle before sharding
    order = np.random.RandomState(seed).permutation(32)
    shards = [order[b:e] for b, e in cmn.shard_bounds(32, 2)]
    interleaved = np.concatenate([np.concatenate([s[i:i + 4] for s in shards])
                                  for i in range(0, 16, 4)])
    ref = single.fit(x[interleaved], y[interleaved], batch_size=8, epochs=2, shuffle=False,
                     verbose=0)
    for a, b in zip(weights, single.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for k in ('loss', 'accuracy'):
        np.testing.assert_allclose(history.history[k], ref.history[k], rtol=1e-5)
    assert 'val_loss' in history.history


def scenario_abort():
    """An exception on rank 1 ends the job while rank 0 waits in a collective."""
    import chainlet.distributed as cmn
    cmn.global_except_hook()
    comm = cmn.create_communicator('flat')
    if comm.rank == 1:
        raise ValueError('boom on purpose')
    comm.mpi_comm.barrier()  # never completes: rank 1 is gone
    print('rank 0 passed the barrier', flush=True)


def scenario_abort_by_default():
    """Without global_except_hook: creating the communicator made aborting the default."""
    import chainlet.distributed as cmn
    comm = cmn.create_communicator('flat')
    if comm.rank == 1:
        raise ValueError('boom on purpose')
    comm.mpi_comm.barrier()  # never completes: rank 1 is gone
    print('rank 0 passed the barrier', flush=True)


def scenario_exit_status():
    """Rank 1 calls sys.exit(3) while rank 0 waits in a collective: the job must end."""
    import chainlet.distributed as cmn
    comm = cmn.create_communicator('flat')
    if comm.rank == 1:
        sys.exit(3)
    comm.mpi_comm.allreduce(1)  # never completes: rank 1 is gone
    print('rank 0 passed the allreduce', flush=True)


def scenario_exit_zero():
    """sys.exit(0) on every rank (after the others finished) is a normal end, not an abort."""
    import chainlet.distributed as cmn
    comm = cmn.create_communicator('flat')
    comm.mpi_comm.barrier()
    print(f'PASS exit_zero rank {comm.rank}', flush=True)
    sys.exit(0)


def scenario_hook_opt_out():
    """CHAINLET_MPI_ABORT_ON_EXCEPTION=0 keeps the user's own sys.excepthook."""
    import chainlet.distributed as cmn
    assert os.environ['CHAINLET_MPI_ABORT_ON_EXCEPTION'] == '0'
    mine = sys.excepthook
    cmn.create_communicator('naive')
    assert sys.excepthook is mine
    cmn.global_except_hook()  # the explicit call still installs it
    assert sys.excepthook is not mine
    sys.excepthook = mine


def main():
    name = sys.argv[1]
    globals()[f'scenario_{name}']()
    from mpi4py import MPI
    MPI.COMM_WORLD.barrier()
    print(f'PASS {name} rank {MPI.COMM_WORLD.rank}', flush=True)


if __name__ == '__main__':
    main()
