"""Examples leave nothing behind in the temporary folder (issue 32)."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_keras_sequential_without_out_removes_its_temporary_folder(tmp_path):
    pytest.importorskip('sklearn', reason='the example trains on the digits of scikit-learn')
    tmp = tmp_path / 'tmp'
    tmp.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS='1', TMPDIR=str(tmp))
    result = subprocess.run([sys.executable, str(ROOT / 'examples' / 'keras_sequential.py'),
                             '--epochs', '2', '--verbose', '0'], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert 'checkpoint reloaded' in result.stdout and 'now removed' in result.stdout
    assert list(tmp.iterdir()) == []
