"""The Keras examples run (with fewer epochs)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(script: str, *args: str) -> str:
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS='1')
    result = subprocess.run([sys.executable, os.path.join(ROOT, 'examples', script), *args],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_keras_functional_example():
    out = _run('keras_functional.py', '--epochs', '2')
    assert 'shared_encoder (Dense)' in out and 'final losses and metrics' in out


def test_keras_sequential_example(tmp_path):
    pytest.importorskip('sklearn', reason='the example trains on the digits of scikit-learn')
    out = _run('keras_sequential.py', '--epochs', '3', '--out', str(tmp_path), '--verbose', '0')
    assert 'best val_accuracy' in out and 'checkpoint reloaded' in out
    assert (tmp_path / 'log.csv').exists() and (tmp_path / 'best.keras').exists()
