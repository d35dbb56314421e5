"""The scripts prepared for the first GPU run (issue 18): benchmarks/bench_gpu.py and
tools/gpu_first_run.sh, run here on the CPU stand-in for CuPy (tools/cupy_emulator).

On a GPU they are run by hand (docs/gpu.md, "First run on a GPU"); these tests make sure that,
when that happens, they run to the end and write every part of the record.
"""
from __future__ import annotations

import gzip
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import tools.cupy_emulator as emulator  # noqa: E402
import tools.gpu_first_run_report as report  # noqa: E402

_EMULATOR_MARKS = (
    pytest.mark.skipif(not emulator.available(), reason='the CuPy emulator needs g++'),
    pytest.mark.skipif(int(np.__version__.split('.')[0]) < 2,
                       reason='the CuPy emulator stands for CuPy 14, which needs NumPy >= 2'),
)


def needs_emulator(fn):
    for mark in _EMULATOR_MARKS:
        fn = mark(fn)
    return fn


SECTIONS = ('## Machine', '## Stages', '## Smoke test', '## chainlet `gpu` suite',
            '## Examples', '## Chainer 7.8.1 GPU test variants', '## Benchmarks')


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('CHAINLET_', 'GPU_FIRST_RUN_', 'BENCH_GPU_', 'PYTEST_'))}
    env.update(PYTHONDONTWRITEBYTECODE='1', **extra)
    return env


@needs_emulator
def test_bench_gpu_quick_runs_and_agrees_on_the_emulator(tmp_path):
    out = tmp_path / 'bench.json'
    proc = subprocess.run(
        [sys.executable, str(ROOT / 'benchmarks' / 'bench_gpu.py'), '--quick', '--json', str(out)],
        cwd=tmp_path, env=_env(CHAINLET_EMULATE_CUPY='1', BENCH_GPU_NO_TORCH='1'),
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    text = proc.stdout
    for title in ('### MLP training step', '### Small CNN training step',
                  '### Per-op overhead', '### Targets (issue 18)', '**Emulated**'):
        assert title in text, text
    assert 'n/a (BENCH_GPU_NO_TORCH is set)' in text
    result = json.loads(out.read_text())
    assert result['emulated'] and result['meta']['cupy'].endswith('+emulated')
    assert [r['batch'] for r in result['mlp']] == [32] and len(result['cnn']) == 1
    for row in result['mlp'] + result['cnn']:
        assert set(row['ms']) == {'chainlet', 'cupy'} and all(v > 0 for v in row['ms'].values())
        assert row['agree']['cupy']['ok'], row
        assert row['agree']['cupy']['max_abs_diff'] < 1e-4
    assert [r['backward'] for r in result['ops']] == [False, True]
    assert set(result['ops'][1]['us_per_op']) == {'chainlet'}  # raw CuPy has no autograd
    assert all('emulated' in t['status'] for t in result['targets'])


@needs_emulator
def test_bench_gpu_reports_a_failing_implementation_and_measures_the_others(
        monkeypatch, tmp_path, capsys):
    present = getattr(sys.modules.get('cupy'), '__version__', None)
    if present is not None and not present.endswith('+emulated'):
        pytest.skip('a real CuPy is imported in this process')
    import benchmarks.bench_gpu as bench
    if present is None:  # (under CHAINLET_EMULATE_CUPY=1 it is installed for the session)
        emulator.install()
    try:
        def broken(*args):
            raise ValueError('no such kernel')
        monkeypatch.setattr(bench, 'cupy_mlp', broken)
        monkeypatch.setenv('BENCH_GPU_NO_TORCH', '1')
        status = bench.main(['--quick', '--only', 'mlp', '--json', str(tmp_path / 'b.json')])
    finally:
        if present is None:
            emulator.uninstall()
    out, err = capsys.readouterr()
    assert status == 1 and 'mlp: cupy (error: ValueError: no such kernel)' in err
    row = json.loads((tmp_path / 'b.json').read_text())['mlp'][0]
    assert set(row['ms']) == {'chainlet'} and row['agree'] == {}
    assert '| n/a (error: ValueError: no such kernel) |' in out


def test_bench_gpu_agreement_flags_a_difference():
    import benchmarks.bench_gpu as bench  # noqa: F401  (imports without CuPy)
    ref = [np.ones((3, 2), np.float32), np.zeros(2, np.float32)]
    assert bench.agreement([r.copy() for r in ref], ref)['ok']
    off = [ref[0] * (1 + 1e-2), ref[1]]
    a = bench.agreement(off, ref)
    assert not a['ok'] and a['max_abs_diff'] == pytest.approx(1e-2, rel=1e-3)


@needs_emulator
@pytest.mark.skipif(shutil.which('bash') is None or shutil.which('timeout') is None,
                    reason='needs bash and timeout')
def test_gpu_first_run_emulated_writes_every_section(tmp_path):
    out = tmp_path / 'out'
    proc = subprocess.run(
        ['bash', str(ROOT / 'tools' / 'gpu_first_run.sh'), 'all'], cwd=ROOT,
        env=_env(GPU_FIRST_RUN_EMULATE='1', OUT=str(out), PYTHON=sys.executable,
                 TMPDIR=str(tmp_path)),
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    records = list(out.glob('gpu-*.md'))
    assert len(records) == 1 and re.fullmatch(r'gpu-\d{4}-\d{2}-\d{2}\.md', records[0].name)
    text = records[0].read_text()
    for section in SECTIONS:
        assert section in text, section
    assert '**Emulated dry run**' in text
    stages = dict(re.findall(r'^\| (\S+) \| (ok|[^|]+?) \| \d+ \|$', text, re.M))
    for name in ('env', 'smoke', 'gpu-suite', 'bench', 'examples'):
        assert stages.get(name) == 'ok', (name, stages, (out / 'run.log').read_text())
    assert re.search(r'Summary line: `\d+ passed', text), text
    assert '| train_digits | ok |' in text
    assert '#### MLP training step' in text and 'CuPy by hand: yes' in text
    assert 'smoke: OK' in text
    # Chainer's harness is beside the checkout (../shared) or carried; without it the record
    # says so instead of a summary
    if 'conformance' in stages and stages['conformance'] == 'ok':
        part = text.split('## Chainer 7.8.1 GPU test variants')[1].split('## Benchmarks')[0]
        assert re.search(r'Summary line: `\d+ passed', part), part
    assert {p.name for p in out.iterdir()} >= {'env.log', 'smoke.log', 'gpu-suite.log',
                                               'bench.log', 'bench.json', 'examples.log',
                                               'run.log', 'conformance.log'}
    assert not list(tmp_path.glob('gpu-first-run.*')), 'scratch folder left behind'


@pytest.mark.skipif(shutil.which('bash') is None or shutil.which('timeout') is None,
                    reason='needs bash and timeout')
def test_gpu_first_run_skips_steps_past_its_budget(tmp_path):
    out = tmp_path / 'out'
    proc = subprocess.run(
        ['bash', str(ROOT / 'tools' / 'gpu_first_run.sh'), 'stage1'], cwd=ROOT,
        env=_env(OUT=str(out), PYTHON=sys.executable, GPU_FIRST_RUN_BUDGET='30'),
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    text = next(out.glob('gpu-*.md')).read_text()
    for name in ('env', 'smoke', 'gpu-suite', 'bench', 'examples'):
        assert f'| {name} | skipped |' in text
    assert text.count('Not run (no log).') >= 4


def test_gpu_first_run_rejects_an_unknown_stage():
    proc = subprocess.run(['bash', str(ROOT / 'tools' / 'gpu_first_run.sh'), 'stage3'],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and 'usage' in proc.stderr


def _write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_record_merges_the_two_calls(tmp_path):
    one, two = tmp_path / 'stage1', tmp_path / 'stage2'
    _write(one / 'env.log', 'device: NVIDIA H100 80GB HBM3\ndriver: 580.159.04\n'
                            'cupy: 14.2.0\nemulated: False\n\n--- nvidia-smi\nx: y\n')
    _write(one / 'run.log', 'STAGE env 0 3\nSTAGE gpu-suite 124 270\nSTAGE bench 0 40\n')
    # cut short by its time limit: no summary, only the verbose per-test lines
    _write(one / 'gpu-suite.log', 'COMMAND: python -m pytest -m gpu -n 16\n'
                                  '[gw0] [ 10%] PASSED tests/gpu/test_a.py::test_1\n'
                                  '[gw1] [ 20%] FAILED tests/gpu/test_x.py::test_y\n'
                                  '[gw0] [ 30%] PASSED tests/gpu/test_a.py::test_2\n')
    _write(one / 'bench.log', 'noise\n## bench_gpu.py on H100\n\n### MLP training step\n\n'
                              '| batch |\n|---:|\n| 32 |\n')
    _write(two / 'run.log', 'STAGE conformance 0 300\n')
    _write(two / 'conformance.log', '....\nERROR chainer_tests/a_tests/test_b.py - Boom\n'
                                    '== 4 passed, 1 error in 3.00s ==\n')
    lines = [{'$report_type': 'TestReport', 'nodeid': f'chainer_tests/functions_tests/'
              f'math_tests/test_exp.py::T::test_{i}', 'when': 'call',
              'outcome': 'passed' if i else 'failed',
              'longrepr': None if i else {'reprcrash': {'message': (
                  'RuntimeError: Parameterized test failed.\n\n(caused by)\n'
                  'TypeError: Exp: bad dtype')}}} for i in range(3)]
    lines.append({'$report_type': 'CollectReport', 'nodeid': 'chainer_tests/a_tests/test_b.py',
                  'outcome': 'failed'})
    for r in lines:
        r['keywords'] = {'a_long_keyword_list': 1}
    raw = tmp_path / 'conformance.jsonl'
    _write(raw, '\n'.join(json.dumps(r) for r in lines) + '\n')
    assert report.main(['slim', str(raw), str(two / 'conformance.jsonl.gz')]) == 0
    with gzip.open(two / 'conformance.jsonl.gz', 'rt') as fh:
        slim = [json.loads(line) for line in fh]
    assert len(slim) == len(lines) and not any('keywords' in r for r in slim)
    _write(two / 'gpu-2026-12-01.md', '(the record the second call wrote)')
    target = tmp_path / 'results' / 'gpu-2026-12-01.md'
    assert report.main(['record', str(one), str(two), '--out', str(target)]) == 0
    text = target.read_text()
    assert text.startswith('# GPU run 2026-12-01: NVIDIA H100 80GB HBM3')
    for section in SECTIONS:
        assert section in text
    assert '| driver | 580.159.04 |' in text and 'Emulated' not in text
    assert '| gpu-suite | TIMED OUT | 270 |' in text and '| conformance | ok | 300 |' in text
    suite = text.split('## chainlet `gpu` suite')[1].split('## Examples')[0]
    assert '**none**' in suite and 'FAILED tests/gpu/test_x.py::test_y' in suite
    assert 'Per-test lines before the run stopped: 1 failed, 2 passed' in suite
    assert '`python -m pytest -m gpu -n 16`' in suite
    conf = text.split('## Chainer 7.8.1 GPU test variants')[1].split('## Benchmarks')[0]
    assert 'Summary line: `4 passed, 1 error in 3.00s`' in conf
    assert '| functions_tests/math_tests | 0 | 2 | 1 | 0 | 66.7 |' in conf
    assert '| a_tests | 1 | 0 | 0 | 0 | - |' in conf
    assert '| 1 | TypeError: Exp: bad dtype |' in conf
    assert 'math_tests/test_exp.py::T::test_0  <- TypeError: Exp: bad dtype' in conf
    assert '#### MLP training step' in text and 'noise' not in text
    assert 'Not run (no log).' in text.split('## Examples')[1].split('## Chainer')[0]
