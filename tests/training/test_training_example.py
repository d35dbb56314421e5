"""Runs examples/train_digits_trainer.py in a subprocess: log, plots, snapshot resume."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip('sklearn')

SCRIPT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, 'examples',
                      'train_digits_trainer.py')


def run_example(*args):
    proc = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def read_log(out):
    with open(os.path.join(out, 'log')) as f:
        return json.load(f)


def test_example_short_run_and_resume(tmp_path):
    out = str(tmp_path / 'result')
    stdout = run_example('--epochs', '2', '--out', out, '--progress-interval', '20')
    log = read_log(out)
    assert [e['epoch'] for e in log] == [1, 2]
    assert [e['iteration'] for e in log] == [45, 90]  # 1438 examples, batches of 32
    for entry in log:
        assert {'main/loss', 'main/accuracy', 'validation/main/loss',
                'validation/main/accuracy', 'elapsed_time'} <= set(entry)
    assert log[1]['main/loss'] < log[0]['main/loss']
    assert 'validation/main/accuracy' in stdout.splitlines()[0]  # PrintReport header
    assert 'iteration 20, epoch 0.45/2' in stdout  # ProgressBar, plain lines in a pipe
    snapshots = sorted(n for n in os.listdir(out) if n.startswith('snapshot_'))
    assert snapshots == ['snapshot_epoch_1', 'snapshot_epoch_2']
    if 'matplotlib' in sys.modules or _has_matplotlib():
        for name in ('loss.png', 'accuracy.png'):
            with open(os.path.join(out, name), 'rb') as f:
                assert f.read(4) == b'\x89PNG'

    stdout = run_example('--epochs', '3', '--out', out, '--resume',
                         os.path.join(out, 'snapshot_epoch_2'))
    log = read_log(out)
    assert [e['epoch'] for e in log] == [1, 2, 3]
    assert [e['iteration'] for e in log] == [45, 90, 135]
    assert log[2]['elapsed_time'] > log[1]['elapsed_time']
    assert 'snapshot_epoch_3' in os.listdir(out)
    # As in Chainer, PrintReport prints the restored log again before the new epoch.
    rows = [line.split()[0] for line in stdout.splitlines() if re.match(r'\d+\s+\d', line)]
    assert rows == ['1', '2', '3']


def test_example_docstring_resumes_from_a_snapshot_the_default_run_writes():
    # Issue 13, item 9: the docstring named snapshot_iter_900; 20 epochs end at iteration 899.
    with open(SCRIPT) as f:
        source = f.read()
    epochs = int(re.search(r"'--epochs', '-e', type=int, default=(\d+)", source).group(1))
    assert re.search(r'--resume result/(\S+)', source).group(1) == f'snapshot_epoch_{epochs}'


@pytest.mark.slow
def test_example_default_run_reaches_95_percent(tmp_path):
    out = str(tmp_path / 'full')
    run_example('--out', out, '--progress-interval', '1000')
    log = read_log(out)
    assert len(log) == 20
    assert log[-1]['validation/main/accuracy'] >= 0.95
    assert log[-1]['elapsed_time'] < 60


def _has_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
