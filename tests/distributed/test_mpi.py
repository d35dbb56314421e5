"""Run the scenarios of ``mpi_worker.py`` under ``mpiexec -n 2`` (real MPI processes).

Skipped when mpi4py or an ``mpiexec`` is not available (``pip install "chainlet-dl[mpi]"``).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name('mpi_worker.py')
MN_WORKER = Path(__file__).with_name('mpi_worker_mn.py')  # ChainerMN's model-parallel API


def _find_mpiexec() -> str | None:
    # The mpiexec of the environment running the tests comes first: it matches its mpi4py.
    local = Path(sys.executable).parent / 'mpiexec'
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which('mpiexec')


MPIEXEC = _find_mpiexec()
pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec('mpi4py') is None,
                       reason='mpi4py is not installed (pip install "chainlet-dl[mpi]")'),
    pytest.mark.skipif(MPIEXEC is None, reason='no mpiexec found next to the Python '
                                               'interpreter or on PATH'),
]


REPO = Path(__file__).resolve().parents[2]


def _run(*args: str, timeout: float = 60.0, **extra_env: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    env.pop('CHAINLET_MPI_ABORT_ON_EXCEPTION', None)
    env.update(extra_env)
    env['PYTHONPATH'] = str(REPO) + os.pathsep + env.get('PYTHONPATH', '')
    script = args[0] if args[0].endswith('.py') else str(WORKER)
    rest = args[1:] if args[0].endswith('.py') else args
    return subprocess.run([MPIEXEC, '-n', '2', sys.executable, script, *rest],
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize('scenario', ['grad', 'zero_fill', 'train', 'scatter', 'bn',
                                      'keras_support', 'keras_fit'])
def test_scenario(scenario):
    result = _run(scenario)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for rank in (0, 1):
        assert f'PASS {scenario} rank {rank}' in result.stdout, output
    if scenario == 'keras_fit':  # progress is printed by rank 0 only
        assert result.stdout.count('Epoch 1/2') == 1, output


@pytest.mark.parametrize('scenario', ['arrays', 'p2p', 'chain_list', 'collectives',
                                      'trainer_pieces', 'snapshot'])
def test_chainermn_scenario(scenario):
    result = _run(str(MN_WORKER), scenario)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for rank in (0, 1):
        assert f'PASS {scenario} rank {rank}' in result.stdout, output


def test_exception_on_one_rank_aborts_the_job():
    start = time.monotonic()
    result = _run('abort', timeout=30.0)
    elapsed = time.monotonic() - start
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert elapsed < 20.0, f'the job took {elapsed:.1f} s to end'
    assert 'uncaught exception on rank 1 of 2' in output, f'exit {result.returncode}: {output}'
    assert 'ValueError: boom on purpose' in output, output
    assert 'rank 0 passed the barrier' not in output


def test_exception_on_one_rank_aborts_the_job_by_default():
    # No global_except_hook(): before the fix rank 0 waited in its barrier forever.
    start = time.monotonic()
    try:
        result = _run('abort_by_default', timeout=45.0)
    except subprocess.TimeoutExpired:
        pytest.fail('rank 0 hung after rank 1 raised')
    elapsed = time.monotonic() - start
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert elapsed < 30.0, f'the job took {elapsed:.1f} s to end'
    assert 'uncaught exception on rank 1 of 2' in output, f'exit {result.returncode}: {output}'
    assert 'ValueError: boom on purpose' in output, output
    assert 'rank 0 passed the barrier' not in output


def test_sys_exit_with_a_failure_status_on_one_rank_aborts_the_job():
    # sys.exit never reaches sys.excepthook, and mpi4py's MPI_Finalize at exit left rank 0
    # waiting in its allreduce forever (python -m mpi4py aborts such a job).
    start = time.monotonic()
    try:
        result = _run('exit_status', timeout=60.0)
    except subprocess.TimeoutExpired:
        pytest.fail('rank 0 hung after rank 1 called sys.exit(3)')
    elapsed = time.monotonic() - start
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert elapsed < 30.0, f'the job took {elapsed:.1f} s to end'
    assert 'rank 1 of 2 exits with status 3' in output, f'exit {result.returncode}: {output}'
    assert 'rank 0 passed the allreduce' not in output


def test_sys_exit_zero_is_a_normal_end():
    result = _run('exit_zero')
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert 'aborting' not in output, output
    for rank in (0, 1):
        assert f'PASS exit_zero rank {rank}' in result.stdout, output


def test_default_abort_can_be_turned_off():
    result = _run('hook_opt_out', CHAINLET_MPI_ABORT_ON_EXCEPTION='0')
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    for rank in (0, 1):
        assert f'PASS hook_opt_out rank {rank}' in result.stdout, output


@pytest.mark.skipif(importlib.util.find_spec('sklearn') is None,
                    reason='the digits data ships with scikit-learn')
@pytest.mark.parametrize('mode', [[], ['--loop']])
def test_example_trains_on_two_processes(tmp_path, mode):
    result = _run(str(REPO / 'examples' / 'train_digits_mpi.py'), '--epochs', '2',
                  '--out', str(tmp_path), *mode)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert '2 processes on 1 node(s)' in result.stdout
    accuracy = float(result.stdout.split()[-1 if mode else -2])
    assert output.count('2 processes on') == 1, output  # rank 0 prints alone
    assert 0.5 < accuracy <= 1.0, output
