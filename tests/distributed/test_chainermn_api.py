"""ChainerMN's pieces in chainlet.distributed, in one process (``test_mpi.py`` runs them on
two): functions, datasets, snapshot and checkpoint helpers, evaluators, options."""
from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import chainlet
import chainlet.distributed as cmn
import chainlet.functions as F
import chainlet.links as L
from chainlet import gradient_check
from chainlet.distributed import functions as mnf
from chainlet.distributed.checkpoint import CheckpointStats
from chainlet.distributed.iterators import build_ctrl_msg, parse_ctrl_msg
from chainlet.distributed.snapshot import parse_replica_sets

needs_mpi = pytest.mark.skipif(importlib.util.find_spec('mpi4py') is None,
                               reason='mpi4py is not installed')


@pytest.fixture
def comm():
    pytest.importorskip('mpi4py')
    return cmn.create_communicator('naive')


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('shapes', [[(4, 5), (3, 2)], [()]])
def test_pseudo_connect_passes_values_and_gradients(dtype, shapes):
    rs = np.random.RandomState(0)
    delegate = rs.uniform(-1, 1, (3, 2)).astype(dtype)
    xs = tuple(rs.uniform(-1, 1, s).astype(dtype) for s in shapes)
    ys = mnf.pseudo_connect(chainlet.Variable(delegate), *[chainlet.Variable(x) for x in xs])
    assert isinstance(ys, tuple) and len(ys) == len(xs)
    for x, y in zip(xs, ys):
        assert y.dtype == dtype
        np.testing.assert_array_equal(y.array, x)
    gys = tuple(rs.uniform(-1, 1, s).astype(dtype) for s in shapes)
    gradient_check.check_backward(mnf.pseudo_connect, (delegate,) + xs, gys, dtype=np.float64)


def test_pseudo_connect_runs_the_delegates_graph():
    a = chainlet.Variable(np.array([2.0]))
    delegate = a * 3
    y, = mnf.pseudo_connect(delegate, chainlet.Variable(np.array([5.0])))
    y.backward()
    assert a.grad.tolist() == [0.0]  # reached, with the zero gradient of the delegate
    y, = mnf.pseudo_connect(None, np.array([1.0, 2.0]))
    assert y.array.tolist() == [1.0, 2.0]


@pytest.mark.parametrize('n, size', [(10, 3), (1244, 23), (2, 1), (0, 4), (230945, 237)])
def test_disjoint_shards_cover_everything_once(n, size):
    bounds = cmn.shard_bounds(n, size, force_equal_length=False)
    assert len(bounds) == size and bounds[0][0] == 0 and bounds[-1][1] == n
    assert all(e == b2 for (_, e), (b2, _) in zip(bounds, bounds[1:]))
    lengths = [e - b for b, e in bounds]
    assert max(lengths) - min(lengths) <= 1


def test_shard_bounds_checks_its_arguments():
    with pytest.raises(ValueError, match='shard_bounds: argument size: expected a positive'):
        cmn.shard_bounds(3, 0)
    with pytest.raises(ValueError, match='argument n_total: expected an int >= 0, got -1'):
        cmn.shard_bounds(-1, 2)


def test_create_empty_dataset():
    assert cmn.create_empty_dataset(np.arange(3)) == [(), (), ()]
    assert cmn.create_empty_dataset([]) == []


def test_scatter_index_and_unequal_scatter_in_one_process(comm):
    assert cmn.scatter_index(7, comm) == (0, 7)
    shard = cmn.scatter_dataset(np.arange(5), comm, force_equal_length=False)
    assert [int(v) for v in shard] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize('sets, size, expected', [
    ([0], 4, [{0}, {1, 2, 3}]),
    ([0, 1], 4, [{0}, {1}, {2, 3}]),
    ([[0, 1], [2, 3]], 4, [{0, 1}, {2, 3}]),
    ([], 4, [{0, 1, 2, 3}]),
    ([range(0, 8, 2)], 8, [{0, 2, 4, 6}, {1, 3, 5, 7}]),
])
def test_parse_replica_sets(sets, size, expected):
    assert parse_replica_sets(sets, size) == expected


def test_parse_replica_sets_rejects_bad_ranks():
    with pytest.raises(ValueError, match=r'rank\(s\) \[4\] outside 0 .. 3'):
        parse_replica_sets([4], 4)
    with pytest.raises(ValueError, match='in more than one set'):
        parse_replica_sets([[0, 1], [1]], 4)


def test_multi_node_snapshot_in_one_process(comm, tmp_path):
    from unittest import mock

    from chainlet.training import extensions
    condition = mock.MagicMock(side_effect=[True, False])
    writer = mock.MagicMock()
    snapshot = extensions.snapshot(target=mock.MagicMock(), condition=condition, writer=writer)
    wrapped = cmn.multi_node_snapshot(comm, snapshot, [])
    assert wrapped.is_master and snapshot.filename == 'snapshot_iter_{.updater.iteration}.0'
    trainer = mock.MagicMock()
    trainer.out = str(tmp_path)
    wrapped.initialize(trainer)
    wrapped(trainer)
    wrapped(trainer)
    wrapped.finalize()
    assert condition.call_count == 2 and writer.call_count == 1


def test_checkpoint_stats_and_file_names(comm, tmp_path):
    stats = CheckpointStats()
    assert stats.report() == 'No stats available'
    for _ in range(3):
        stats.start()
        stats.end()
    assert stats.report().startswith('Snapshot duration stats (sec): avg=')
    with pytest.warns(DeprecationWarning):
        cp = cmn.create_multi_node_checkpointer('run', comm, path=str(tmp_path))
    names = cp._filenames([3, 17])
    assert names == ['run.0.3', 'run.0.17']
    assert cp._parse_filenames(names + ['other.0.1']) == [('run', 0, 3), ('run', 0, 17), None]


def test_checkpointer_resumes_the_newest_iteration(comm, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        cp = cmn.create_multi_node_checkpointer('run', comm, path=str(tmp_path))
        model = L.Linear(2, 2)
        for it in (1, 2):
            model.W.array[...] = it
            cp.save(model, it)
        restored = L.Linear(2, 2)
        cmn.create_multi_node_checkpointer('run', comm, path=str(tmp_path)).maybe_load(restored)
    assert (restored.W.array == 2).all()
    cp.finalize()
    assert list(tmp_path.iterdir()) == []


def test_ctrl_msg_round_trip():
    msg = build_ctrl_msg(True, True, False, True, 7)
    assert msg.dtype == np.float32 and msg.shape == (5,)
    assert parse_ctrl_msg(msg) == (True, True, False, True, 7)
    np.testing.assert_array_equal(build_ctrl_msg(*parse_ctrl_msg(msg)), msg)


def test_generic_evaluator_gathers_every_batch(comm):
    it = chainlet.iterators.SerialIterator(list(range(9)), 2, repeat=False, shuffle=False)
    evaluator = cmn.GenericMultiNodeEvaluator(comm, it, lambda x: int(x.sum()))
    assert evaluator(None) == [1, 5, 9, 13, 8]
    assert evaluator(None) == [1, 5, 9, 13, 8]  # the iterator is reset

    class Total(cmn.GenericMultiNodeEvaluator):
        def calc_local(self, x):
            return len(x)

        def aggregate(self, results):
            return sum(results)

    assert Total(comm, it, None)(None) == 9


def test_observation_aggregator_averages_over_iterations(comm):
    from unittest import mock
    agg = cmn.ObservationAggregator(comm, 'loss', 'loss_mean', comm_trigger=(2, 'iteration'))
    trainer = mock.MagicMock()
    trainer.observation = {}
    for it, value in enumerate([1.0, 3.0], 1):
        trainer.updater.iteration = it
        trainer.updater.epoch_detail = it / 10
        trainer.observation = {'loss': np.float32(value)}
        agg(trainer)
    assert trainer.observation['loss_mean'] == 2.0


def test_communicator_options_and_array_checks(comm):
    assert comm.get_config('batched_copy') is True
    comm.set_config('allreduce_grad_dtype', np.float16)
    assert comm.allreduce_grad_dtype == np.float16
    with pytest.raises(ValueError, match="set_config: argument name: expected one of .* got "
                                         "'colour'"):
        comm.set_config('colour', 1)
    with pytest.raises(ValueError, match='send: argument dest: expected 0 <= dest < size = 1, '
                                         'got 1'):
        comm.send(np.ones(2), dest=1)
    with pytest.raises(TypeError, match='send: every array of a message must have the same '
                                        'dtype'):
        comm.send((np.ones(2), np.ones(2, np.int32)), dest=0)
    assert comm.allgather(np.arange(3))[0].tolist() == [0, 1, 2]
    assert comm.alltoall((np.ones((2, 2)),))[0].shape == (2, 2)


def test_send_to_itself_is_refused(comm):
    with pytest.raises(ValueError, match="send: argument rank: expected a rank other than "
                                         "this process's own \\(0\\)"):
        mnf.send(chainlet.Variable(np.ones(2)), comm, rank=0)
    with pytest.raises(ValueError, match='recv: argument rank'):
        mnf.recv(comm, rank=0)


def test_collective_functions_in_one_process(comm):
    x = chainlet.Variable(np.arange(3, dtype=np.float16))
    y = mnf.allgather(comm, x)  # one process: one Variable, as ChainerMN's Function returns
    F.sum(y * 2).backward()
    assert y.dtype == np.float16 and x.grad.tolist() == [2, 2, 2]
    x = chainlet.Variable(np.arange(2, dtype=np.float32))
    y = mnf.bcast(comm, x)
    F.sum(y * 3).backward()
    assert x.grad.tolist() == [3, 3]
    x = chainlet.Variable(np.ones(2, np.float32))
    y = mnf.scatter(comm, [x])
    F.sum(y * 4).backward()
    assert x.grad.tolist() == [4, 4]


def test_multi_node_chain_list_through_its_own_queue(comm):
    first, second = L.Linear(3, 2), L.Linear(2, 1)
    model = cmn.MultiNodeChainList(comm)
    model.add_link(first, rank_in=None, rank_out=0)   # to this process itself
    model.add_link(second, rank_in=0, rank_out=None)
    x = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    y = model(x)
    np.testing.assert_allclose(y.array, second(first(x)).array, rtol=1e-6)
    F.sum(y).backward()
    assert first.W.grad is not None and second.W.grad is not None
    with pytest.raises(ValueError, match='only one component may have rank_out=None'):
        model.add_link(L.Linear(1, 1), rank_in=0, rank_out=None)


def test_mnbn_backend_names(comm):
    with pytest.raises(ValueError, match="communication_backend: expected one of 'auto', "
                                         "'mpi', 'nccl', got 'dummy'"):
        cmn.MultiNodeBatchNormalization(3, comm, communication_backend='dummy')
    with pytest.raises(ValueError, match="'nccl' needs a PureNcclCommunicator"):
        cmn.MultiNodeBatchNormalization(3, comm, communication_backend='nccl')
    bn = cmn.MultiNodeBatchNormalization(3, comm, communication_backend='mpi')
    copied = bn.copy(mode='copy')  # the communicator is shared, not copied
    assert copied.comm is comm and copied.gamma is not bn.gamma


def test_mnbn_mixed16_matches_batch_normalization(comm):
    # The statistics and the gradients of the float32 parameters are computed in float32.
    x = np.random.RandomState(71).random_sample((8, 3)).astype(np.float16)
    with chainlet.using_config('dtype', chainlet.mixed16):
        bn, mnbn = L.BatchNormalization(3), cmn.MultiNodeBatchNormalization(3, comm)
    for link in (bn, mnbn):
        F.sum(F.relu(link(x)) * np.arange(3, dtype=np.float16)).backward()
        assert link.gamma.dtype == np.float32
    np.testing.assert_allclose(mnbn.gamma.grad, bn.gamma.grad, atol=1e-4, rtol=1e-3)
    np.testing.assert_allclose(mnbn.beta.grad, bn.beta.grad, atol=1e-4, rtol=1e-3)


def test_create_mnbn_model_replaces_batch_normalization(comm):
    model = chainlet.Sequential(L.Linear(3, 3), L.BatchNormalization(3))
    model[1].avg_mean[...] = 2.0
    mn_model = cmn.create_mnbn_model(model, comm)
    assert type(mn_model[1]) is cmn.MultiNodeBatchNormalization
    assert (mn_model[1].avg_mean == 2.0).all() and type(model[1]) is L.BatchNormalization
    np.testing.assert_array_equal(mn_model[0].W.array, model[0].W.array)


def test_optimizer_can_keep_chainermns_first_update(comm):
    model = L.Linear(2, 3)
    opt = cmn.create_multi_node_optimizer(chainlet.optimizers.SGD(), comm,
                                          broadcast_on_setup=False)
    opt.setup(model)
    model.cleargrads()
    F.sum(model(np.ones((1, 2), np.float32))).backward()
    opt.update()
    assert opt.t == 0  # the first update only broadcast
    opt.update()
    assert opt.t == 1
    plain = cmn.create_multi_node_optimizer(chainlet.optimizers.SGD(), comm)
    plain.setup(L.Linear(2, 3))
    plain.target.cleargrads()
    F.sum(plain.target(np.ones((1, 2), np.float32))).backward()
    plain.update()
    assert plain.t == 1


def test_chainermn_communicator_names(comm):
    for name, cls in [('non_cuda_aware', cmn.NonCudaAwareCommunicator),
                      ('hierarchical', cmn.HierarchicalCommunicator),
                      ('two_dimensional', cmn.TwoDimensionalCommunicator),
                      ('single_node', cmn.SingleNodeCommunicator)]:
        made = cmn.create_communicator(name)
        assert type(made) is cls and isinstance(made, cmn.FlatCommunicator)
