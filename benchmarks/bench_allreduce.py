"""Gradient allreduce throughput of chainlet.distributed (a script that prints figures).

A model of about 10M float32 parameters gets gradients, in two layouts: 10 layers of
1000 x 1000 weights plus biases (20 arrays) and 1000 layers of 100 x 100 (2000 arrays);
``multi_node_mean_grad`` averages them over the processes.
Compared: the 'naive' communicator (one Allreduce per parameter), 'flat' (all gradients in one
buffer, one Allreduce) and 'flat' with ``segment_bytes = 4 MiB`` (the same buffer reduced in
4 MiB pieces), each with float32 and float16 communication.

Reported per configuration: milliseconds per step (median) and the algorithmic bandwidth,
gradient bytes (float32, 40 MB) / time, in GB/s.

Run: mpiexec -n 2 python benchmarks/bench_allreduce.py [--repeat 20]
     (started without mpiexec, it relaunches itself with mpiexec -n 2)
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402

import chainlet  # noqa: E402


def _under_mpi() -> bool:
    return any(k in os.environ for k in ('PMI_RANK', 'PMIX_RANK', 'OMPI_COMM_WORLD_RANK'))


def _relaunch(n: int) -> int:
    local = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    mpiexec = local if os.path.exists(local) else shutil.which('mpiexec')
    if mpiexec is None:
        sys.exit('bench_allreduce: no mpiexec found; pip install "chainlet-dl[mpi]"')
    return subprocess.call([mpiexec, '-n', str(n), sys.executable, *sys.argv])


class Model(chainlet.Link):
    """``n_layers`` weights of ``width x width`` and biases of ``width``, as raw Parameters."""

    def __init__(self, n_layers: int, width: int) -> None:
        super().__init__()
        rs = np.random.RandomState(0)
        with self.init_scope():
            for i in range(n_layers):
                setattr(self, f'W{i}', chainlet.Parameter(
                    rs.standard_normal((width, width)).astype(np.float32)))
                setattr(self, f'b{i}', chainlet.Parameter(np.zeros(width, np.float32)))

    def fill_grads(self, rank: int) -> None:
        for p in self.params():
            p.grad = np.full(p.shape, rank + 1.0, np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--layers', type=int, default=0,
                        help='0: both 10 x 1000 and 1000 x 100')
    parser.add_argument('--width', type=int, default=1000)
    parser.add_argument('-n', type=int, default=2, help='processes when relaunching')
    args = parser.parse_args()
    if not _under_mpi():
        sys.exit(_relaunch(args.n))

    import chainlet.distributed as cmn
    shapes = [(args.layers, args.width)] if args.layers else [(10, 1000), (1000, 100)]
    for n_layers, width in shapes:
        model = Model(n_layers, width)
        n_params = model.count_params()
        grad_bytes = n_params * 4
        rows = []
        configs = [('naive', None), ('flat', None), ('flat', 4 * 2 ** 20)]
        for name, segment in configs:
            for dtype in (np.float32, np.float16):
                comm = cmn.create_communicator(name, allreduce_grad_dtype=dtype)
                label = name
                if segment:
                    comm.segment_bytes = segment
                    label = 'flat/4MB-seg'
                model.fill_grads(comm.rank)
                comm.multi_node_mean_grad(model)  # warm-up (buffers, MPI connections)
                times = []
                for _ in range(args.repeat):
                    model.fill_grads(comm.rank)
                    comm.mpi_comm.Barrier()
                    t0 = time.perf_counter()
                    comm.multi_node_mean_grad(model)
                    times.append(time.perf_counter() - t0)
                expected = (comm.size + 1) / 2.0
                assert np.allclose(model.W0.grad, expected), model.W0.grad[0, :3]
                worst = comm.mpi_comm.allreduce(float(np.median(times)), op=_max())
                rows.append((label, np.dtype(dtype).name, worst))
        if comm.rank == 0:
            print(f'{comm.size} processes, {n_params / 1e6:.2f}M float32 parameters in '
                  f'{2 * n_layers} arrays ({grad_bytes / 1e6:.0f} MB of gradients), median of '
                  f'{args.repeat} steps, OMP_NUM_THREADS={os.environ["OMP_NUM_THREADS"]}')
            print(f'{"communicator":<16}{"comm dtype":<12}{"ms/step":>10}{"GB/s":>10}')
            for label, dtype, t in rows:
                print(f'{label:<16}{dtype:<12}{t * 1e3:>10.2f}{grad_bytes / t / 1e9:>10.2f}')
            print(flush=True)


def _max():
    from mpi4py import MPI
    return MPI.MAX


if __name__ == '__main__':
    main()
