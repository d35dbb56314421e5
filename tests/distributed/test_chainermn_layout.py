"""``chainermn`` from compat/chainer/src: ChainerMN's module layout over chainlet.distributed.

Run in a subprocess with ``compat/chainer/src`` first on the path (no install needed, and
``chainer`` does not leak into this process's ``sys.modules``).
"""
from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SRC = ROOT / 'compat' / 'chainer' / 'src'


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(ROOT)]))
    env.pop('CHAINERMN_FORCE_ABORT_ON_EXCEPTION', None)
    result = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_public_names_are_chainlets_objects():
    _run('''
        import chainlet.distributed as cmn
        from chainlet.distributed import functions as mnf
        import chainermn
        from chainermn.datasets import create_empty_dataset, scatter_index, DataSizeError
        from chainermn.datasets.scatter import _scatter_index
        from chainermn.extensions import (AllreducePersistent, GenericMultiNodeEvaluator,
                                          MultiNodeEarlyStoppingTrigger, ObservationAggregator,
                                          create_multi_node_checkpointer,
                                          create_multi_node_evaluator, multi_node_snapshot)
        from chainermn.extensions._multi_node_snapshot import _parse_replica_sets
        from chainermn.extensions.checkpoint import _CheckpointStats
        from chainermn.iterators import (create_multi_node_iterator,
                                         create_synchronized_iterator)
        from chainermn.iterators.multi_node_iterator import _build_ctrl_msg, _parse_ctrl_msg
        from chainermn.links import (MultiNodeBatchNormalization, MultiNodeChainList,
                                     create_mnbn_model, create_multi_node_n_step_rnn)
        from chainermn import nccl as nccl_module, global_except_hook  # noqa: F401
        from chainermn.testing import get_device

        assert chainermn.__version__ == '7.8.1'
        assert chainermn.CommunicatorBase is cmn.CommunicatorBase
        assert chainermn.scatter_dataset is cmn.scatter_dataset
        assert chainermn.MultiNodeChainList is cmn.MultiNodeChainList is MultiNodeChainList
        assert MultiNodeBatchNormalization is cmn.MultiNodeBatchNormalization
        assert chainermn.functions.pseudo_connect is mnf.pseudo_connect
        assert chainermn.functions.send is mnf.send and chainermn.functions.recv is mnf.recv
        for name in ('allgather', 'alltoall', 'bcast', 'gather', 'scatter'):
            assert getattr(chainermn.functions, name) is getattr(mnf, name)
        assert ObservationAggregator is cmn.ObservationAggregator
        assert AllreducePersistent is cmn.AllreducePersistent
        assert list(_scatter_index(10, 3, False)) == [(0, 0, 4), (1, 4, 7), (2, 7, 10)]
        assert _parse_replica_sets([0], 3) == [{0}, {1, 2}]
        assert _parse_ctrl_msg(_build_ctrl_msg(False, True, True, False, 3))[4] == 3
        assert isinstance(_CheckpointStats().report(), str)
        assert create_empty_dataset([1, 2]) == [(), ()]
        assert issubclass(DataSizeError, RuntimeError)
        assert get_device().name == '@numpy'
    ''')


@pytest.mark.skipif(importlib.util.find_spec('mpi4py') is None,
                    reason='mpi4py is not installed')
def test_communicator_modules():
    # As ChainerMN's, these modules import mpi4py.MPI.
    _run('''
        import chainlet.distributed as cmn
        import chainermn.communicators.flat_communicator as flat
        import chainermn.communicators.mpi_communicator_base as base
        import chainermn.communicators.naive_communicator as naive
        import chainermn.communicators.non_cuda_aware_communicator as ncuda
        import chainermn.communicators.pure_nccl_communicator as nccl
        import chainermn.communicators.hierarchical_communicator as hier
        import chainermn.communicators.two_dimensional_communicator as twod
        import chainermn.communicators.single_node_communicator as single
        from chainermn.communicators._communication_utility import chunked_bcast_obj, INT_MAX
        from chainermn.communicators import _memory_utility  # noqa: F401

        assert naive.NaiveCommunicator is cmn.NaiveCommunicator
        assert flat.FlatCommunicator is cmn.FlatCommunicator
        assert base.MpiCommunicatorBase is cmn.MpiCommunicatorBase
        assert issubclass(ncuda.NonCudaAwareCommunicator, cmn.FlatCommunicator)
        assert issubclass(hier.HierarchicalCommunicator, cmn.FlatCommunicator)
        assert issubclass(twod.TwoDimensionalCommunicator, cmn.FlatCommunicator)
        assert issubclass(single.SingleNodeCommunicator, cmn.FlatCommunicator)
        assert nccl.PureNcclCommunicator is cmn.PureNcclCommunicator
        assert INT_MAX == 2 ** 31 - 1 and callable(chunked_bcast_obj)
    ''')


@pytest.mark.skipif(importlib.util.find_spec('mpi4py') is None,
                    reason='mpi4py is not installed')
def test_single_process_communicator_round_trip():
    _run('''
        import numpy as np
        import chainer, chainer.links as L, chainer.functions as F
        import chainermn
        from chainermn.communicators._communication_utility import chunked_bcast_obj, INT_MAX
        from mpi4py import MPI

        comm = chainermn.create_communicator('naive', MPI.COMM_WORLD)
        assert type(comm).__name__ == 'NaiveCommunicator' and comm.size == 1
        assert (comm.rank, comm.intra_rank, comm.inter_rank, comm.inter_size) == (0, 0, 0, 1)
        assert comm.bcast_obj({'a': 1}) == {'a': 1}
        assert comm.gather_obj(3) == [3] and comm.allreduce_obj(2) == 2
        assert comm.allreduce(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0]
        assert comm.bcast(np.ones(2, np.float16)).dtype == np.float16
        assert chunked_bcast_obj(np.arange(1000), comm.mpi_comm, 7).sum() == 499500
        for bad in (-1, INT_MAX):
            try:
                chunked_bcast_obj([1], comm.mpi_comm, bad)
            except AssertionError:
                pass
            else:
                raise AssertionError(f'max_buf_len={bad} accepted')

        model = L.Linear(2, 3)
        opt = chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(), comm)
        opt.setup(model)
        model.cleargrads()
        F.sum(model(np.ones((1, 2), np.float32))).backward()
        opt.update()
        assert opt.t == 0          # ChainerMN: the first update after setup only broadcasts
        opt.update()
        assert opt.t == 1
        shard = chainermn.scatter_dataset(list(range(5)), comm, shuffle=True, seed=0)
        assert sorted(shard) == [0, 1, 2, 3, 4]
        try:
            chainermn.create_communicator('naive', allreduce_grad_dtype=np.int32)
        except ValueError as e:
            assert 'allreduce_grad_dtype' in str(e)
        else:
            raise AssertionError('int32 gradients accepted')
        comm.finalize()
    ''')
