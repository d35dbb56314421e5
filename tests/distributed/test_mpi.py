"""Run the scenarios of ``mpi_worker.py`` under ``mpiexec -n 2`` (real MPI processes).

Skipped when mpi4py or an ``mpiexec`` is not available (``pip install "chainlet[mpi]"``).
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


def _find_mpiexec() -> str | None:
    # The mpiexec of the environment running the tests comes first: it matches its mpi4py.
    local = Path(sys.executable).parent / 'mpiexec'
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which('mpiexec')


MPIEXEC = _find_mpiexec()
pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec('mpi4py') is None,
                       reason='mpi4py is not installed (pip install "chainlet[mpi]")'),
    pytest.mark.skipif(MPIEXEC is None, reason='no mpiexec found next to the Python '
                                               'interpreter or on PATH'),
]


def _run(scenario: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    repo = str(Path(__file__).resolve().parents[2])
    env['PYTHONPATH'] = repo + os.pathsep + env.get('PYTHONPATH', '')
    return subprocess.run([MPIEXEC, '-n', '2', sys.executable, str(WORKER), scenario],
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


def test_exception_on_one_rank_aborts_the_job():
    start = time.monotonic()
    result = _run('abort', timeout=30.0)
    elapsed = time.monotonic() - start
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert elapsed < 20.0, f'the job took {elapsed:.1f} s to end'
    assert 'uncaught exception on rank 1 of 2' in output, output
    assert 'ValueError: boom on purpose' in output, output
    assert 'rank 0 passed the barrier' not in output
