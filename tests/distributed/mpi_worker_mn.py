"""Scenarios of ChainerMN's model-parallel and trainer pieces, run by ``test_mpi.py`` under
``mpiexec -n 2``; each prints ``PASS <name>``.

Run one by hand: mpiexec -n 2 python tests/distributed/mpi_worker_mn.py p2p
"""
from __future__ import annotations

import sys
import tempfile

import numpy as np


def _comm():
    import chainlet.distributed as cmn
    comm = cmn.create_communicator('naive')
    assert comm.size == 2, comm.size
    return comm


def scenario_arrays():
    """The array collectives and the communicator options."""
    comm = _comm()
    r = comm.rank
    if r == 0:
        comm.send((np.arange(6.0).reshape(2, 3), np.ones(4)), dest=1, tag=3)
        comm.send(np.full((2,), 7, np.float16), dest=1, tag=4)
        back = comm.recv(source=1, tag=5)
        assert back.dtype == np.int32 and back.tolist() == [[1, 2]]
    else:
        a, b = comm.recv(source=0, tag=3)
        assert a.tolist() == [[0, 1, 2], [3, 4, 5]] and b.tolist() == [1, 1, 1, 1]
        h = comm.recv(source=0, tag=4)
        assert h.dtype == np.float16 and h.tolist() == [7, 7]
        comm.send(np.array([[1, 2]], np.int32), dest=0, tag=5)
    # Shapes differ per process.
    got = comm.gather(np.full((r + 1, 2), r, np.float32), root=1)
    if r == 1:
        assert [g.shape for g in got] == [(1, 2), (2, 2)] and got[1].sum() == 4
    else:
        assert got is None
    parts = comm.allgather(np.arange(r + 1, dtype=np.float64))
    assert [p.tolist() for p in parts] == [[0.0], [0.0, 1.0]]
    mine = comm.scatter((np.zeros(3), np.ones((2, 2))) if r == 0 else None, root=0)
    assert mine.tolist() == ([0, 0, 0] if r == 0 else [[1, 1], [1, 1]])
    row = comm.scatter(np.arange(4).reshape(2, 2) if r == 1 else None, root=1)
    assert row.tolist() == [2 * r, 2 * r + 1]
    ys = comm.alltoall((np.full(1, 10 * r), np.full((2, 2), 10 * r + 1)))
    expected = [[0], [10]] if r == 0 else [[[1, 1], [1, 1]], [[11, 11], [11, 11]]]
    assert [y.tolist() for y in ys] == expected
    comm.set_config('allreduce_grad_dtype', np.float16)
    assert comm.get_config('allreduce_grad_dtype') == np.float16
    assert comm.get_config()['batched_copy'] is True
    sub = comm.split(color=r, key=0)
    assert type(sub) is type(comm) and sub.size == 1


def _linears(seed, n):
    import chainlet.links as L
    rs = np.random.RandomState(seed)
    return [L.Linear(4, 4, initialW=rs.randn(4, 4).astype(np.float32),
                     initial_bias=rs.randn(4).astype(np.float32)) for _ in range(n)]


def scenario_p2p():
    """send/recv/pseudo_connect: the gradients of a model cut in two equal the whole model's."""
    import chainlet
    import chainlet.functions as F
    from chainlet.distributed import functions as mnf
    comm = _comm()
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    t = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    whole = _linears(2, 2)
    F.mean_squared_error(F.tanh(whole[1](F.tanh(whole[0](x)))), t).backward()
    mine = _linears(2, 2)[comm.rank]
    if comm.rank == 0:
        h = F.tanh(mine(x))
        delegate = mnf.send(h, comm, rank=1)
        assert delegate.shape == (0,) and delegate.name == 'delegate_variable'
        # A second value sent after the first: joined to the first's delegate.
        extra, = mnf.pseudo_connect(delegate, chainlet.Variable(np.ones(2, np.float32)))
        delegate = mnf.send(extra * 3, comm, rank=1)
        delegate.backward()
        np.testing.assert_allclose(mine.W.grad, whole[0].W.grad, rtol=1e-5, atol=1e-6)
    else:
        h = mnf.recv(comm, rank=0)
        extra = mnf.recv(comm, rank=0, delegate_variable=h)
        loss = F.mean_squared_error(F.tanh(mine(h)), t)
        np.testing.assert_allclose(extra.array, [3, 3])
        loss, = mnf.pseudo_connect(extra, loss)
        loss.backward()
        np.testing.assert_allclose(mine.W.grad, whole[1].W.grad, rtol=1e-5, atol=1e-6)


def scenario_chain_list():
    """MultiNodeChainList: rank 0 computes the first layer, rank 1 the second and the loss."""
    import chainlet.functions as F
    import chainlet.distributed as cmn
    comm = _comm()
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    whole = _linears(5, 2)
    F.sum(whole[1](F.relu(whole[0](x)))).backward()
    layers = _linears(5, 2)
    model = cmn.MultiNodeChainList(comm)
    if comm.rank == 0:
        model.add_link(layers[0], rank_in=None, rank_out=1)
        out = model(x)
    else:
        model.add_link(layers[1], rank_in=0, rank_out=None)
        out = F.sum(model(None))
    out.backward()
    np.testing.assert_allclose(layers[comm.rank].W.grad, whole[comm.rank].W.grad, rtol=1e-5,
                               atol=1e-6)


def scenario_collectives():
    """The differentiable collectives: values and gradients."""
    import chainlet
    import chainlet.functions as F
    from chainlet.distributed import functions as mnf
    comm = _comm()
    r = comm.rank
    x = chainlet.Variable(np.full((2,), r + 1.0, np.float32))
    ys = mnf.allgather(comm, x)
    assert [y.array.tolist() for y in ys] == [[1, 1], [2, 2]]
    F.sum(ys[0] * 1 + ys[1] * 2).backward()
    assert x.grad.tolist() == [2 * (r + 1)] * 2  # both processes' gradients of my x, summed
    xs = [chainlet.Variable(np.full((i + 1,), 10.0 * r + i, np.float32)) for i in range(2)]
    ys = mnf.alltoall(comm, xs)
    assert [y.array.tolist() for y in ys] == [[10.0 * i + r] * (r + 1) for i in range(2)]
    F.sum(ys[0] * 5 + ys[1]).backward()
    # xs[i] went to process i, which weighs what came from process r by 5 if r == 0 else 1.
    g = 5.0 if r == 0 else 1.0
    assert xs[0].grad.tolist() == [g] and xs[1].grad.tolist() == [g, g]
    x = chainlet.Variable(np.arange(3, dtype=np.float16))
    y = mnf.bcast(comm, x if r == 0 else None, root=0)
    assert y.dtype == np.float16 and y.array.tolist() == [0, 1, 2]
    F.sum(y * (r + 1)).backward()
    if r == 0:
        assert x.grad.tolist() == [3, 3, 3]
    x = chainlet.Variable(np.full((r + 1,), r, np.float32))
    got = mnf.gather(comm, x, root=0)
    if r == 0:
        assert [g.array.tolist() for g in got] == [[0], [1, 1]]
        F.sum(got[0] * 2 + got[1] * 3).backward()  # got[0] is broadcast to (2,)
        assert x.grad.tolist() == [4]
    else:
        got.backward()
        assert x.grad.tolist() == [3, 3]
    xs = [chainlet.Variable(np.full(2, float(i), np.float32)) for i in range(2)]
    y = mnf.scatter(comm, xs if r == 1 else None, root=1)
    assert y.array.tolist() == [float(r)] * 2
    F.sum(y * (r + 4)).backward()
    if r == 1:
        assert xs[0].grad.tolist() == [4, 4] and xs[1].grad.tolist() == [5, 5]


def scenario_trainer_pieces():
    """scatter_index, GenericMultiNodeEvaluator, ObservationAggregator, multi-node
    iterators."""
    import chainlet
    import chainlet.distributed as cmn
    from chainlet.training import extension
    comm = _comm()
    r = comm.rank
    assert cmn.scatter_index(10, comm, force_equal_length=False) == [(0, 5), (5, 10)][r]
    data = list(range(r, 11, 2))  # 6 and 5 examples: shards of different lengths
    it = chainlet.iterators.SerialIterator(data, 4, repeat=False, shuffle=False)
    evaluator = cmn.GenericMultiNodeEvaluator(comm, it, lambda x: x.tolist())
    result = evaluator(None)
    if r == 0:
        assert sorted(v for batch in result for v in batch) == list(range(11))
    else:
        assert result is None

    train = np.random.rand(6, 1).astype(np.float32)
    model = chainlet.links.Linear(1, 1)
    opt = cmn.create_multi_node_optimizer(chainlet.optimizers.SGD(), comm)
    opt.setup(model)
    iterator = chainlet.iterators.SerialIterator(train, 1)
    updater = chainlet.training.StandardUpdater(
        iterator, opt, loss_func=lambda x: chainlet.functions.sum(model(x)))
    trainer = chainlet.training.Trainer(updater, (3, 'iteration'),
                                        out=tempfile.mkdtemp())
    seen = []

    @extension.make_extension(trigger=(1, 'iteration'), priority=extension.PRIORITY_WRITER)
    def report_rank(t):
        t.observation['rank'] = np.asarray(float(r), np.float32)

    @extension.make_extension(trigger=(1, 'iteration'), priority=extension.PRIORITY_READER)
    def check(t):
        seen.append(float(t.observation['rank-mean']))

    trainer.extend(report_rank)
    trainer.extend(cmn.ObservationAggregator(comm, 'rank', 'rank-mean'))
    trainer.extend(check)
    trainer.run()
    assert seen == [0.5, 0.5, 0.5], seen

    it = cmn.create_multi_node_iterator(
        chainlet.iterators.SerialIterator(list(range(5)), 2, repeat=False, shuffle=True)
        if r == 0 else None, comm)
    batches = [list(b) for b in it]
    assert comm.allgather_obj(batches)[0] == batches and len(batches) == 3

    # Any process's snapshot of a multi-node iterator resumes the master's iteration.
    class Saver(chainlet.serializer.Serializer):
        def __init__(self):
            self.target = {}

        def __getitem__(self, key):
            raise KeyError(key)

        def __call__(self, key, value):
            self.target[key] = value
            return value

    it = cmn.create_multi_node_iterator(
        chainlet.iterators.SerialIterator(list(range(6)), 2) if r == 0 else None, comm)
    seen = it.next() + it.next()
    saver = Saver()
    it.serialize(saver)
    assert saver.target['current_position'] == 4 and saver.target['epoch'] == 0
    assert sorted(seen + [int(v) for v in saver.target['order'][4:]]) == list(range(6))
    it = cmn.create_synchronized_iterator(
        chainlet.iterators.SerialIterator(list(range(8)), 8, shuffle=True), comm)
    first = it.next()
    assert comm.allgather_obj(first)[0] == first


def scenario_snapshot():
    """multi_node_snapshot: rank 0 writes, and on resume rank 1 gets rank 0's state;
    the checkpointer resumes the newest common iteration."""
    import chainlet
    import chainlet.distributed as cmn
    from chainlet.training import extensions
    comm = _comm()
    out = comm.bcast_obj(tempfile.mkdtemp() if comm.rank == 0 else None)

    def make(iterations):
        model = chainlet.links.Linear(2, 1)
        opt = chainlet.optimizers.SGD()
        opt.setup(model)
        it = chainlet.iterators.SerialIterator(np.ones((4, 2), np.float32), 2)
        updater = chainlet.training.StandardUpdater(
            it, opt, loss_func=lambda x: chainlet.functions.sum(model(x)))
        trainer = chainlet.training.Trainer(updater, out=out)
        snap = cmn.multi_node_snapshot(comm, extensions.snapshot(target=updater, autoload=True),
                                       [])
        snap.initialize(trainer)
        for _ in range(iterations):
            updater.update()
        return updater, snap, trainer

    updater, snap, trainer = make(3 + comm.rank)  # the processes differ...
    assert snap.is_master == (comm.rank == 0)
    snap(trainer)
    comm.mpi_comm.barrier()
    resumed, _, _ = make(0)
    assert resumed.iteration == 3  # ...and both resume rank 0's state

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        cp = cmn.create_multi_node_checkpointer('run', comm, path=out)
    model = chainlet.links.Linear(2, 1)
    for it in (1, 2) if comm.rank == 0 else (1,):
        cp.save(model, it)
    comm.mpi_comm.barrier()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        cp2 = cmn.create_multi_node_checkpointer('run', comm, path=out)
    cp2.maybe_load(chainlet.links.Linear(2, 1))
    assert cp2.files == [f'run.{comm.rank}.1'], cp2.files  # the newest common iteration
    cp2.finalize()


def main():
    name = sys.argv[1]
    globals()[f'scenario_{name}']()
    from mpi4py import MPI
    MPI.COMM_WORLD.barrier()
    print(f'PASS {name} rank {MPI.COMM_WORLD.rank}', flush=True)


if __name__ == '__main__':
    main()
