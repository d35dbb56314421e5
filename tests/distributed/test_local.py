"""Checks of chainlet.distributed that need no MPI process (they run everywhere)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import chainlet
import chainlet.distributed as cmn
from chainlet.distributed import communicators


@pytest.mark.parametrize('n_total,size', [(10, 4), (8, 2), (7, 3), (1, 3), (0, 2), (100, 7)])
def test_shard_bounds_cover_everything_with_equal_sizes(n_total, size):
    bounds = cmn.shard_bounds(n_total, size)
    assert len(bounds) == size
    n_sub = -(-n_total // size)
    assert all(e - b == n_sub and 0 <= b <= e <= n_total for b, e in bounds)
    covered = set()
    for b, e in bounds:
        covered.update(range(b, e))
    assert covered == set(range(n_total))
    assert bounds[-1][1] == n_total


def test_import_does_not_start_mpi():
    code = ('import sys, chainlet.distributed as d; d.AllreducePersistent; d.prepare_fit; '
            'd.MultiNodeBatchNormalization; print("mpi4py" in sys.modules)')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == 'False'


def test_missing_mpi4py_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, 'mpi4py', None)
    with pytest.raises(ImportError, match=r'pip install "chainlet-dl\[mpi\]"'):
        cmn.create_communicator('flat')
    with pytest.raises(ImportError, match=r'chainlet-dl\[mpi\]'):
        cmn.global_except_hook()


def test_create_communicator_checks_its_arguments():
    with pytest.raises(ValueError, match="communicator_name.*'naive', 'flat', 'pure_nccl'.*"
                                         "'hierarchical'.*got 'bogus'"):
        cmn.create_communicator('bogus')
    with pytest.raises(TypeError, match='communicator_name: expected a str, got int'):
        cmn.create_communicator(3)
    with pytest.raises(ValueError, match='allreduce_grad_dtype.*got int32'):
        cmn.create_communicator('flat', allreduce_grad_dtype=np.int32)


class _FakeComm(communicators.CommunicatorBase):
    """Stands in for one process: the mean over one process is the value itself."""

    rank, size = 0, 1

    def __init__(self):
        self.calls = []

    def multi_node_mean_grad(self, model, zero_fill=False):
        self.calls.append(('mean', zero_fill))

    def bcast_data(self, model):
        self.calls.append(('bcast',))

    def allgather_obj(self, obj):
        return [obj]


def _model():
    import chainlet.links as L
    np.random.seed(0)
    return chainlet.Sequential(L.Linear(3, 2))


def test_multi_node_optimizer_broadcasts_then_averages():
    comm = _FakeComm()
    model = _model()
    opt = cmn.create_multi_node_optimizer(chainlet.optimizers.SGD(lr=1.0), comm)
    assert opt.setup(model) is opt
    assert comm.calls == [('bcast',)]
    model[0].W.grad = np.ones((2, 3), np.float32)
    before = model[0].W.array.copy()
    opt.update()
    assert comm.calls[-1] == ('mean', True)
    np.testing.assert_allclose(model[0].W.array, before - 1.0)
    opt.lr = 0.25  # attributes go to the wrapped optimizer
    assert opt.actual_optimizer.lr == 0.25 and opt.t == 1


def test_multi_node_optimizer_rebroadcasts_when_lazy_parameters_appear():
    import chainlet.links as L
    comm = _FakeComm()
    model = chainlet.Sequential(L.Linear(None, 2))
    opt = cmn.create_multi_node_optimizer(chainlet.optimizers.SGD(), comm).setup(model)
    assert comm.calls == []
    model.cleargrads()
    chainlet.functions.sum(model(np.ones((1, 3), np.float32))).backward()
    opt.update()
    assert comm.calls == [('bcast',)] and opt.t == 0  # nothing updated
    opt.update()
    assert comm.calls[-1] == ('mean', True) and opt.t == 1


def test_create_multi_node_optimizer_checks_its_arguments():
    with pytest.raises(TypeError, match='communicator: expected a communicator'):
        cmn.create_multi_node_optimizer(chainlet.optimizers.SGD(), object())
    with pytest.raises(TypeError, match='actual_optimizer: expected an Optimizer'):
        cmn.create_multi_node_optimizer(object(), _FakeComm())
    with pytest.raises(ValueError, match="double_buffering needs the 'flat' or 'pure_nccl'"):
        cmn.create_multi_node_optimizer(chainlet.optimizers.SGD(), _FakeComm(),
                                        double_buffering=True)


def test_mean_over_processes_and_multi_node_evaluator():
    comm = _FakeComm()
    means = cmn.mean_over_processes({'b': np.float32(2.0), 'a': 1}, comm)
    assert means == {'a': 1.0, 'b': 2.0}

    class Evaluator:
        def evaluate(self):
            return {'main/loss': np.float32(0.5)}

    ev = cmn.create_multi_node_evaluator(Evaluator(), comm)
    assert ev.evaluate() == {'main/loss': 0.5}
    with pytest.raises(TypeError, match='evaluate'):
        cmn.create_multi_node_evaluator(object(), comm)


def test_packing_round_trip_and_flags():
    model = _model()
    model.cleargrads()  # fresh parameters start with NaN gradients, as in Chainer
    w, b = model[0].W, model[0].b
    w.grad = np.arange(6, dtype=np.float32).reshape(2, 3)
    packing = communicators._Packing([b, w], zero_fill=True)
    assert packing.length == 2 + 6 + 2
    buf = np.empty(packing.length, np.float16)
    packing.pack(buf)
    np.testing.assert_array_equal(buf, [0, 0, 0, 1, 2, 3, 4, 5, 0, 1])
    packing.unpack(buf, 0.5)
    assert b.grad is None  # no process had it
    np.testing.assert_array_equal(w.grad, np.arange(6).reshape(2, 3) * 0.5)
    assert w.grad.dtype == np.float32


def test_sys_exit_wrapper_records_the_main_threads_status(monkeypatch):
    # The abort at exit (tests/distributed/test_mpi.py) needs the status of sys.exit(n), which
    # never reaches sys.excepthook; a thread's sys.exit ends only that thread.
    import threading
    from chainlet.distributed import _except_hook as hook
    monkeypatch.setattr(hook, '_exit_status', {})
    wrapped = hook._ExitWrapper(sys.exit)
    with pytest.raises(SystemExit) as info:
        wrapped(3)
    assert info.value.code == 3 and hook._exit_status == {'status': 3}

    def in_thread():
        with pytest.raises(SystemExit):
            wrapped(5)
    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join()
    assert hook._exit_status == {'status': 3}
    assert [hook._exit_code(s) for s in (None, 0, 7, 'message', True)] == [0, 0, 7, 1, 1]
