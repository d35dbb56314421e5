"""Helpers of ``tools/gpu_first_run.sh``: the machine's description, a smoke test, the record.

Four subcommands (run from the repository root):

* ``env`` prints the machine and software versions as ``key: value`` lines (the record reads
  them back), then ``nvidia-smi`` and ``cupy.show_config()`` verbatim;
* ``smoke`` runs a few chainlet operations on GPU 0 and compares them with NumPy, printing any
  warning CuPy raises on the way (the test suites turn warnings into errors); exit status 1 when
  something is wrong;
* ``slim SRC.jsonl DST.jsonl.gz`` keeps of a pytest report-log what the record reads;
* ``record DIR [DIR ...] [--out PATH] [--date YYYY-MM-DD]`` writes the Markdown record of issue
  18 (``benchmarks/results/gpu-YYYY-MM-DD.md``) from the logs ``gpu_first_run.sh`` left in the
  folders: machine, stage statuses, the ``gpu`` suite's summary lines and failures, the examples,
  Chainer's GPU test variants, and the benchmark tables. Several folders (the ``$OUT`` of each
  call, e.g. stage1 and stage2) merge into one record; a log found in none of them is reported
  as not run.

With ``CHAINLET_EMULATE_CUPY=1``, ``env`` and ``smoke`` use the CPU stand-in of
``tools/cupy_emulator``.
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LISTED = 60   # failures listed per section of the record


def _install_emulator_if_asked() -> None:
    if os.environ.get('CHAINLET_EMULATE_CUPY'):
        sys.path.insert(0, ROOT)
        import tools.cupy_emulator
        tools.cupy_emulator.install()


def _run(cmd: list[str]) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f'({cmd[0]}: {exc})'
    return (proc.stdout + proc.stderr).strip()


# -- env ------------------------------------------------------------------------------------

def cmd_env(_args) -> int:
    _install_emulator_if_asked()
    info: dict[str, str] = {}
    smi = shutil.which('nvidia-smi')
    if smi:
        q = _run([smi, '--query-gpu=name,driver_version,memory.total',
                  '--format=csv,noheader'])
        first = q.splitlines()[0] if q else ''
        parts = [p.strip() for p in first.split(',')]
        if len(parts) == 3:
            info['device'], info['driver'], info['memory'] = parts
        head = _run([smi])
        m = re.search(r'CUDA Version:\s*([\d.]+)', head)
        if m:
            info['driver CUDA version'] = m.group(1)
    else:
        head = '(nvidia-smi not found)'
    info['python'] = f'{platform.python_version()} ({sys.executable})'
    info['platform'] = platform.platform()
    import numpy
    info['numpy'] = numpy.__version__
    config = ''
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            import cupy
            info['cupy'] = cupy.__version__
            rt = cupy.cuda.runtime
            for key, fn in (('CUDA runtime', 'runtimeGetVersion'),
                            ('CUDA driver API', 'driverGetVersion')):
                if hasattr(rt, fn):
                    info[key] = str(getattr(rt, fn)())
            count = rt.getDeviceCount()
            info['GPUs seen by CuPy'] = str(count)
            if count:
                props = rt.getDeviceProperties(0)
                name = props['name']
                info.setdefault('device', name.decode() if isinstance(name, bytes) else name)
                if 'major' in props:
                    info['compute capability'] = f"{props['major']}.{props['minor']}"
            if hasattr(cupy, 'show_config'):
                import contextlib
                import io
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    cupy.show_config()
                config = buf.getvalue()
        for w in caught:
            print(f'warning while importing CuPy: {w.category.__name__}: {w.message}')
    except Exception as exc:  # the record must say what went wrong, whatever it is
        info['cupy'] = f'unusable: {type(exc).__name__}: {exc}'
    try:
        import torch
        info['torch'] = (f'{torch.__version__}, CUDA {torch.version.cuda}, '
                         f'cuda available: {torch.cuda.is_available()}')
    except ImportError:
        info['torch'] = 'not installed'
    for mod in ('xdist', 'pytest_timeout', 'pytest_reportlog', 'mock', 'scipy', 'mpi4py'):
        try:
            m = __import__(mod)
            info[f'module {mod}'] = getattr(m, '__version__', 'present')
        except ImportError:
            info[f'module {mod}'] = 'missing'
    import chainlet
    version = getattr(chainlet, '__version__', '?')
    info['chainlet'] = f'{version} ({os.path.dirname(chainlet.__file__)})'
    commit = _run(['git', '-C', ROOT, 'rev-parse', 'HEAD']) if shutil.which('git') else ''
    carried = os.path.join(ROOT, '.gpu_carry', 'COMMIT')
    if re.fullmatch(r'[0-9a-f]{40}', commit):
        info['commit'] = commit
    elif os.path.exists(carried):  # the device machine has the tree but not its history
        with open(carried, encoding='utf-8') as fh:
            lines = [line for line in fh.read().splitlines() if line.strip()]
        info['commit'] = ', '.join(lines) + ' (as tools/carry_for_gpu.sh found it)'
    else:
        info['commit'] = 'unknown (no git here)'
    info['emulated'] = str(bool(os.environ.get('CHAINLET_EMULATE_CUPY')))
    info['cpus'] = str(os.cpu_count())
    for k, v in info.items():
        print(f'{k}: {v}')
    print('\n--- nvidia-smi\n' + head)
    print('\n--- cupy.show_config()\n' + (config or '(not available)'))
    return 0


# -- smoke ----------------------------------------------------------------------------------

def cmd_smoke(_args) -> int:
    _install_emulator_if_asked()
    import numpy as np
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        import cupy
        import chainlet
        import chainlet.functions as F
        import chainlet.links as L
        from chainlet import backend, optimizers
        device = backend.get_device('@cupy:0')
        rng = np.random.default_rng(0)
        x = rng.standard_normal((8, 5)).astype(np.float32)
        t = rng.integers(0, 3, 8).astype(np.int32)
        losses, grads = [], []
        for dev in (backend.get_device('@numpy'), device):
            np.random.seed(0)
            model = L.Linear(5, 3)
            model.to_device(dev)
            opt = optimizers.Adam().setup(model)
            xv, tv = dev.send((x, t))
            loss = F.softmax_cross_entropy(F.tanh(model(xv)), tv)
            model.cleargrads()
            loss.backward()
            grads.append(backend.CpuDevice().send(model.W.grad))
            opt.update()
            losses.append(float(backend.CpuDevice().send(loss.array)))
        ok = abs(losses[0] - losses[1]) < 1e-5 and np.allclose(grads[0], grads[1], atol=1e-5)
        print(f'cupy {cupy.__version__}: loss CPU {losses[0]:.6f}, GPU {losses[1]:.6f}, '
              f'gradients agree: {np.allclose(grads[0], grads[1], atol=1e-5)}')
        y = F.relu(chainlet.Variable(cupy.arange(-3, 3, dtype=np.float32)))
        print('relu on the GPU:', cupy.asnumpy(y.array).tolist(), 'on', y.device)
    for w in caught:
        print(f'WARNING {w.category.__name__}: {w.message} ({w.filename}:{w.lineno})')
    print('smoke: ' + ('OK' if ok else 'FAILED'))
    return 0 if ok else 1


# -- record ---------------------------------------------------------------------------------

def _find(dirs: list[str], name: str) -> str | None:
    for d in dirs:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return None


def _read(path: str | None) -> str:
    if path is None:
        return ''
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8', errors='replace') as fh:
        return fh.read()


def _stages(dirs: list[str]) -> list[tuple[str, str, str]]:
    """(stage, status, seconds) from the STAGE lines of each folder's run.log."""
    out = []
    for d in dirs:
        for m in re.finditer(r'^STAGE (\S+) (\S+) (\S+)$', _read(_find([d], 'run.log')), re.M):
            rc, secs = m.group(2), m.group(3)
            status = {'0': 'ok', '124': 'TIMED OUT', '137': 'KILLED (time)',
                      'skipped': 'skipped'}.get(rc, f'exit status {rc}')
            out.append((m.group(1), status, secs))
    return out


def _env(text: str) -> dict[str, str]:
    head = text.split('\n--- ', 1)[0]
    return dict(m.groups() for m in re.finditer(r'^([^:\n]+): (.*)$', head, re.M))


_SUMMARY = re.compile(r'^=*\s*(\d+ (?:passed|failed|error|errors|skipped|deselected|xfailed|'
                      r'xpassed|warnings?|rerun)\b.*?)\s*=*$', re.M)


def _pytest_section(text: str, title: str) -> list[str]:
    if not text:
        return ['Not run (no log).', '']
    summary = _SUMMARY.findall(text)
    command = re.search(r'^COMMAND: (.*)$', text, re.M)
    lines = [f'`{command.group(1).strip()}`', ''] if command else []
    lines += ['Summary line: ' + (f'`{summary[-1]}`' if summary else
                                  '**none** (the run did not finish; see the log tail below)'),
              '']
    failed = re.findall(r'^((?:FAILED|ERROR) \S+.*)$', text, re.M)
    if failed:
        lines += [f'{len(failed)} failures and errors (first {min(len(failed), MAX_LISTED)}):',
                  '', '```text'] + [f[:300] for f in failed[:MAX_LISTED]] + ['```', '']
    skips = re.findall(r'^SKIPPED \[(\d+)\] (.*)$', text, re.M)
    if skips:
        skips.sort(key=lambda s: -int(s[0]))
        lines += [f'Skip reasons ({sum(int(n) for n, _ in skips)} skipped, largest groups):',
                  '', '```text'] + [f'{n} {r[:250]}' for n, r in skips[:15]] + ['```', '']
    if not summary:
        # a verbose run cut short: count the per-test lines it printed (pytest-xdist's and not)
        done = re.findall(r'^(?:\[gw\d+\] \[ *\d+%\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) '
                          r'(\S+)|(\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b)',
                          text, re.M)
        counts: dict[str, int] = {}
        cut = []
        for a, nid, nid2, b in done:
            outcome = a or b
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome in ('FAILED', 'ERROR') and not failed:
                cut.append(f'{outcome} {nid or nid2}')
        if counts:
            lines += ['Per-test lines before the run stopped: ' + ', '.join(
                f'{n} {k.lower()}' for k, n in sorted(counts.items())), '']
        if cut:
            lines += [f'Failures among them (first {min(len(cut), MAX_LISTED)}):', '',
                      '```text'] + cut[:MAX_LISTED] + ['```', '']
        lines += ['Log tail:', '', '```text', *text.strip().splitlines()[-40:], '```', '']
    return lines


def _conformance_table(jsonl: str) -> list[str]:
    """Pass counts per directory of Chainer's tests, from a pytest report-log."""
    verdict: dict[str, str] = {}
    cause: dict[str, str] = {}
    broken = set()
    for line in jsonl.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        kind = r.get('$report_type')
        if kind == 'CollectReport' and r.get('outcome') == 'failed':
            broken.add(r.get('nodeid', ''))
        if kind != 'TestReport':
            continue
        nid, when, out = r['nodeid'], r['when'], r['outcome']
        if out == 'failed':
            cause.setdefault(nid, _crash(r.get('longrepr')))
        if when == 'setup' and out != 'passed':
            verdict[nid] = 'skipped' if out == 'skipped' else 'failed'
        elif when == 'call':
            verdict[nid] = out
        elif when == 'teardown' and out == 'failed':
            verdict[nid] = 'failed'
    if not verdict and not broken:
        return []
    rows: dict[str, dict[str, int]] = {}

    def group(nid: str) -> str:
        parts = nid.split('::')[0].split('/')
        return '/'.join(parts[1:3]) if len(parts) > 3 else '/'.join(parts[1:2]) or nid

    for nid, v in verdict.items():
        c = rows.setdefault(group(nid), {'passed': 0, 'failed': 0, 'skipped': 0, 'broken': 0})
        c[v if v in ('passed', 'skipped') else 'failed'] += 1
    for nid in broken:
        rows.setdefault(group(nid), {'passed': 0, 'failed': 0, 'skipped': 0, 'broken': 0})
        rows[group(nid)]['broken'] += 1
    lines = ['| directory | files failing to import | passed | failed | skipped | pass % |',
             '|---|---:|---:|---:|---:|---:|']
    tot = {'passed': 0, 'failed': 0, 'skipped': 0, 'broken': 0}
    for name in sorted(rows):
        c = rows[name]
        ran = c['passed'] + c['failed']
        pct = f"{100 * c['passed'] / ran:.1f}" if ran else '-'
        lines.append(f"| {name} | {c['broken']} | {c['passed']} | {c['failed']} | "
                     f"{c['skipped']} | {pct} |")
        for k in tot:
            tot[k] += c[k]
    ran = tot['passed'] + tot['failed']
    pct = f"{100 * tot['passed'] / ran:.1f}" if ran else '-'
    lines.append(f"| **total** | {tot['broken']} | {tot['passed']} | {tot['failed']} | "
                 f"{tot['skipped']} | {pct} |")
    lines.append('')
    failed = [nid for nid, v in verdict.items() if v not in ('passed', 'skipped')]
    if failed:
        counts: dict[str, int] = {}
        for nid in failed:
            counts[cause.get(nid, '?')] = counts.get(cause.get(nid, '?'), 0) + 1
        lines += ['Most common causes of failure:', '', '| tests | cause |', '|---:|---|']
        lines += [f"| {n} | {c[:200].replace('|', '/')} |" for c, n in
                  sorted(counts.items(), key=lambda kv: -kv[1])[:20]]
        lines += ['', f'Failing tests (first {min(len(failed), MAX_LISTED)} of {len(failed)}):',
                  '', '```text']
        lines += [f"{nid[:250]}  <- {cause.get(nid, '?')[:150]}" for nid in failed[:MAX_LISTED]]
        lines += ['```', '']
    return lines


def _crash_text(longrepr) -> str:
    """A report's crash message (its last 2,000 characters)."""
    if isinstance(longrepr, dict):
        msg = (longrepr.get('reprcrash') or {}).get('message') or ''
    elif isinstance(longrepr, (list, tuple)) and longrepr:
        msg = str(longrepr[-1])
    else:
        msg = str(longrepr or '')
    return msg[-2000:]


def _crash(longrepr) -> str:
    """The last line of a report's crash message: the cause under Chainer's 'Parameterized
    test failed' wrapper, or the exception itself."""
    rows = [row.strip() for row in _crash_text(longrepr).splitlines() if row.strip()]
    return rows[-1] if rows else '?'


def _examples(text: str) -> list[str]:
    rows = re.findall(r'^EXAMPLE (\S+) rc=(\S+) seconds=(\S+) last=(.*)$', text, re.M)
    if not rows:
        return ['Not run (no log).', '']
    lines = ['| example (`--device @cupy:0`) | status | seconds | last line of output |',
             '|---|---|---:|---|']
    for name, rc, secs, last in rows:
        status = 'ok' if rc == '0' else ('TIMED OUT' if rc == '124' else f'FAILED (exit {rc})')
        lines.append(f'| {name} | {status} | {secs} | {last.strip()[:160].replace("|", "/")} |')
    return lines + ['']


def cmd_record(args) -> int:
    dirs = args.dirs
    env_text = _read(_find(dirs, 'env.log'))
    env = _env(env_text)
    date = args.date
    for d in dirs if not date else ():  # the run's date: the record a call left, if any
        found = sorted(f for f in os.listdir(d) if re.fullmatch(r'gpu-\d{4}-\d{2}-\d{2}\.md', f))
        if found:
            date = found[0][4:-3]
            break
    date = date or datetime.date.today().isoformat()
    emulated = env.get('emulated') == 'True'
    out = [f'# GPU run {date}: {env.get("device", "unknown device")}', '']
    if emulated:
        out += ['**Emulated dry run** (`GPU_FIRST_RUN_EMULATE=1`): CuPy was the CPU stand-in of '
                '`tools/cupy_emulator` and the suites ran a tiny subset. Nothing here was '
                'measured on a GPU.', '']
    out += ['Written by `tools/gpu_first_run.sh` (issue 18, steps 1-3); raw logs beside it in '
            'the run\'s `$OUT`.', '', '## Machine', '',
            '| | |', '|---|---|']
    for key in ('device', 'memory', 'compute capability', 'driver', 'driver CUDA version',
                'CUDA runtime', 'CUDA driver API', 'cupy', 'numpy', 'torch', 'python', 'cpus',
                'platform', 'chainlet', 'commit', 'module xdist', 'module pytest_timeout',
                'module pytest_reportlog', 'module mock'):
        out.append(f'| {key} | {env.get(key, "not recorded")} |')
    out.append('')
    cupy_warnings = re.findall(r'^warning while importing CuPy: (.*)$', env_text, re.M)
    if cupy_warnings:
        out += ['Warnings while importing CuPy (the suites turn warnings into errors):', '']
        out += [f'- {w}' for w in cupy_warnings] + ['']
    out += ['## Stages', '', '| stage | status | seconds |', '|---|---|---:|']
    stages = _stages(dirs)
    out += [f'| {s} | {st} | {secs} |' for s, st, secs in stages] or ['| (none) | | |']
    out.append('')
    smoke = _read(_find(dirs, 'smoke.log'))
    out += ['## Smoke test', '']
    out += (['```text', *smoke.strip().splitlines()[-20:], '```', ''] if smoke
            else ['Not run (no log).', ''])
    out += ['## chainlet `gpu` suite', '']
    out += _pytest_section(_read(_find(dirs, 'gpu-suite.log')), 'gpu suite')
    out += ['## Examples', '']
    out += _examples(_read(_find(dirs, 'examples.log')))
    out += ['## Chainer 7.8.1 GPU test variants', '',
            'The shared part of Chainer\'s suite through its conformance harness '
            '(`MARKS="gpu and not cudnn"`, `chainer` replaced by `chainlet`). '
            '`reference_passed.txt.gz` covers the CPU variants only, so these are raw counts.',
            '']
    conf = _read(_find(dirs, 'conformance.log'))
    out += _conformance_table(_read(_find(dirs, 'conformance.jsonl.gz')
                                    or _find(dirs, 'conformance.jsonl')))
    out += _pytest_section(conf, 'conformance')
    out += ['## Benchmarks', '']
    bench = _read(_find(dirs, 'bench.log'))
    if bench:
        tables = bench[bench.find('## bench_gpu.py'):] if '## bench_gpu.py' in bench else ''
        body = re.sub(r'^## ', '### ', re.sub(r'^### ', '#### ', tables, flags=re.M), flags=re.M)
        out += [body.strip(), ''] if body.strip() else \
            ['bench_gpu.py printed no tables; log tail:', '', '```text',
             *bench.strip().splitlines()[-40:], '```', '']
    else:
        out += ['Not run (no log).', '']
    text = '\n'.join(out).rstrip() + '\n'
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, 'w', encoding='utf-8') as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_slim(args) -> int:
    """Copy a pytest report-log, gzipped, keeping what the record reads: each report's type,
    test, phase, outcome, duration and crash message (the full tracebacks and keyword lists of
    tens of thousands of Chainer tests would pass the device tool's 16 MiB a file)."""
    with open(args.src, encoding='utf-8', errors='replace') as src, \
            gzip.open(args.dst, 'wt', encoding='utf-8') as dst:
        for line in src:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            keep = {k: r[k] for k in ('$report_type', 'nodeid', 'when', 'outcome', 'duration')
                    if k in r}
            if r.get('outcome') == 'failed':
                keep['longrepr'] = {'reprcrash': {'message': _crash_text(r.get('longrepr'))}}
            dst.write(json.dumps(keep) + '\n')
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    sub.add_parser('env').set_defaults(fn=cmd_env)
    sub.add_parser('smoke').set_defaults(fn=cmd_smoke)
    rec = sub.add_parser('record')
    rec.add_argument('dirs', nargs='+', help="folders holding the logs (each call's $OUT)")
    rec.add_argument('--out', help='where to write the Markdown (default: stdout)')
    rec.add_argument('--date', help="the date in the title (default: that of a call's record "
                     'in the folders, else today)')
    rec.set_defaults(fn=cmd_record)
    slim = sub.add_parser('slim')
    slim.add_argument('src', help='a pytest report-log (.jsonl)')
    slim.add_argument('dst', help='the gzipped copy to write')
    slim.set_defaults(fn=cmd_slim)
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == '__main__':
    sys.exit(main())
