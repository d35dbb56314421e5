"""Every code block of the documentation runs, so the docs cannot rot.

Each page's ``python`` blocks run in order in one namespace (a page reads as one session, the
way a reader types it), in a fresh Python process started in an empty temporary directory, with
the repository on ``sys.path``. Tracebacks name the Markdown file and its line. Other blocks are
checked for what they are: ``bash`` commands must name files and extras that exist, ``text``
blocks are output shown to the reader and are not run. An HTML comment right above a block can
say how it runs (the blocks of a page that share such a directive run as their own session):

- ``<!-- docs-test: cupy -->`` runs the blocks on the NumPy stand-in for CuPy that CI uses
  (``tools/cupy_emulator``, two GPUs); on a machine with CuPy it runs them on the GPU instead;
- ``<!-- docs-test: gpu -->`` needs CuPy and a real GPU (``pure_nccl``), skipped elsewhere;
- ``<!-- docs-test: mpiexec -n 2 -->`` runs the blocks under ``mpiexec -n 2`` (skipped without
  MPI).

Hidden code keeps the reader's view clean: ``<!-- docs-test: setup ... -->`` anywhere on a page
runs before its blocks (the ``trainer`` or ``model`` a reference page's snippets extend) and
``<!-- docs-test: teardown ... -->`` after them (running that trainer, checking a result);
``<!-- docs-test: before ... -->`` and ``<!-- docs-test: after ... -->`` right above a block do
the same for that block alone (a tutorial's variation on a finished trainer builds a fresh one).

A page's claims about errors run too: a ``python`` block followed directly by a ``text`` block
that starts with ``Traceback (most recent call last):`` must raise the error that the text
block's last line shows (``TypeError: Adam: unexpected keyword argument 'lr'; ...``: the
exception's class or a base class, and its message, where ``...`` stands for any text). The
session goes on after it, so a page can show an error and then the fix.
"""
from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import shlex
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / 'README.md', *(ROOT / 'docs').rglob('*.md')])
_FENCE = re.compile(r'^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```',
                    re.S | re.M)
_COMMENTS_BEFORE = re.compile(r'(?:<!--(?:(?!-->).)*-->\s*)+\Z', re.S)
_COMMENT = re.compile(r'<!--\s*docs-test:\s*(?P<what>(?:(?!-->).)*)-->', re.S)
_KNOWN_LANGS = {'python', 'bash', 'text'}


class Block:
    """A fenced block, with what the ``docs-test`` comments right above it say about it."""

    def __init__(self, page: pathlib.Path, line: int, lang: str, code: str) -> None:
        self.page, self.line, self.lang, self.code = page, line, lang, code
        self.directive, self.before, self.after = '', '', ''
        self.expect = ''  # 'ErrorName: message' when the page shows the block raising
        self.end = 0  # offset of the end of the block in the page

    def __repr__(self) -> str:
        return f'{self.page.relative_to(ROOT)}:{self.line}'


def _blocks(page: pathlib.Path) -> list[Block]:
    text = page.read_text(encoding='utf-8')
    found = []
    for m in _FENCE.finditer(text):
        line = text.count('\n', 0, m.start()) + 2  # first line of the block's body
        block = Block(page, line, m.group('lang'), textwrap.dedent(m.group('body')))
        above = _COMMENTS_BEFORE.search(text, 0, m.start())
        for c in _COMMENT.finditer(above.group(0) if above else ''):
            kind, _, code = c.group('what').partition('\n')
            kind = kind.strip()
            if kind in ('before', 'after'):
                setattr(block, kind, textwrap.dedent(code))
            elif kind not in ('setup', 'teardown'):  # those two belong to the page
                block.directive = kind
        if (found and found[-1].lang == 'python' and _is_traceback(block)
                and not text[found[-1].end:m.start()].strip()):
            found[-1].expect = block.code.strip().splitlines()[-1].strip()
        block.end = m.end()
        found.append(block)
    return found


def _is_traceback(block: Block) -> bool:
    return block.lang == 'text' and block.code.startswith('Traceback (most recent call last):')


def _hidden_code(page: pathlib.Path, kind: str) -> str:
    text = page.read_text(encoding='utf-8')
    return '\n'.join(textwrap.dedent(m.group(1)) for m in
                     re.finditer(rf'<!--\s*docs-test:\s*{kind}\n(.*?)-->', text, re.S))


_RUNNER = '''
import sys
sys.path.insert(0, {root!r})
if {emulate!r}:
    import tools.cupy_emulator
    tools.cupy_emulator.install()
__doc_ns = {{'__name__': '__main__'}}
exec(compile({setup!r}, {page!r} + ' (docs-test: setup)', 'exec'), __doc_ns)
def __shows(error, expect):
    # expect: 'Name: message' as the page shows it; '...' in the message stands for any text.
    import re
    name, _, message = expect.partition(':')
    names = [c.__name__ for c in type(error).__mro__]
    pattern = '.*'.join(re.escape(part) for part in message.strip().split('...'))
    return name.strip().rsplit('.', 1)[-1] in names and re.match(pattern, str(error), re.S)


for __path, __line, __before, __code, __after, __expect in {blocks!r}:
    exec(compile(__before, f'{{__path}}:{{__line}} (docs-test: before)', 'exec'), __doc_ns)
    __compiled = compile('\\n' * (__line - 1) + __code, __path, 'exec')
    if not __expect:
        exec(__compiled, __doc_ns)
    else:
        try:
            exec(__compiled, __doc_ns)
        except Exception as __error:
            if not __shows(__error, __expect):
                raise AssertionError(f'{{__path}}:{{__line}}: the page shows {{__expect!r}}; '
                                     f'the block raised {{type(__error).__name__}}: '
                                     f'{{__error}}') from __error
        else:
            raise AssertionError(f'{{__path}}:{{__line}}: the page shows {{__expect!r}}; '
                                 f'the block raised nothing')
    exec(compile(__after, f'{{__path}}:{{__line}} (docs-test: after)', 'exec'), __doc_ns)
exec(compile({teardown!r}, {page!r} + ' (docs-test: teardown)', 'exec'), __doc_ns)
'''


def _pages_with(lang: str) -> list[pathlib.Path]:
    return [p for p in PAGES if any(b.lang == lang for b in _blocks(p))]


def _sessions() -> list[tuple[pathlib.Path, str]]:
    """(page, directive) pairs: the blocks of a page that share a directive run as one session."""
    found = []
    for page in PAGES:
        for directive in dict.fromkeys(b.directive for b in _blocks(page) if b.lang == 'python'):
            found.append((page, directive))
    return found


def test_every_block_says_what_it_is():
    """An untagged block could be code nobody runs; say python, bash or text."""
    bad = [f'{b!r} ({b.lang or "no language"})'
           for p in PAGES for b in _blocks(p) if b.lang not in _KNOWN_LANGS]
    assert not bad, 'blocks need a language (python, bash or text): ' + ', '.join(bad)
    unknown = [f'{b!r}: {b.directive!r}' for p in PAGES for b in _blocks(p)
               if b.directive and b.directive not in ('cupy', 'gpu')
               and not b.directive.startswith('mpiexec ')]
    assert not unknown, 'unknown docs-test directives: ' + ', '.join(unknown)


def _has_gpu() -> bool:
    if importlib.util.find_spec('cupy') is None:
        return False
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # a CuPy without a driver or device: no GPU to run on
        return False


@pytest.mark.parametrize('page,directive', _sessions(),
                         ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, pathlib.Path)
                         else v.replace(' ', '') or 'plain')
def test_python_blocks_run(page, directive, tmp_path):
    blocks = [b for b in _blocks(page) if b.lang == 'python' and b.directive == directive]
    cmd = [sys.executable]
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MPLBACKEND='Agg')
    env.pop('CHAINLET_EMULATE_CUPY', None)
    emulate = False
    if directive == 'gpu' and not _has_gpu():
        pytest.skip('needs CuPy and a GPU (these blocks run in the gpu leg of the tests)')
    if directive == 'cupy' and importlib.util.find_spec('cupy') is None:
        if not _emulator_usable():
            pytest.skip('the CuPy emulator needs NumPy >= 2 (as CuPy 14 does)')
        emulate = True
        env['CHAINLET_CUPY_EMULATOR_GPUS'] = '2'  # pages may show multi-GPU code
    if directive.startswith('mpiexec'):
        mpiexec = pathlib.Path(sys.executable).parent / 'mpiexec'
        if importlib.util.find_spec('mpi4py') is None or not mpiexec.exists():
            pytest.skip('mpi4py and mpiexec are not installed (pip install "chainlet-dl[mpi]")')
        cmd = [str(mpiexec), *shlex.split(directive)[1:], sys.executable]
    result = _run_session(page, blocks, cmd, env, emulate, tmp_path)
    if result.returncode != 0:
        missing = _missing_optional_module(result.stderr)
        if missing:
            pytest.skip(f'{page.relative_to(ROOT)} needs {missing}, an optional dependency that '
                        f'is not installed')
    assert result.returncode == 0, f'{page.relative_to(ROOT)}:\n{result.stdout}\n{result.stderr}'


# Optional dependencies (the extras of pyproject.toml): a page that needs one is skipped, not
# failed, where it is not installed (issue 32).
_OPTIONAL = ('sklearn', 'h5py', 'google.protobuf', 'onnx', 'onnxruntime', 'tensorboardX',
             'safetensors', 'PIL', 'matplotlib', 'mpi4py', 'scipy', 'tqdm', 'graphviz')


def _missing_optional_module(stderr: str) -> str:
    """The optional module whose absence made a page fail, or '' (a real failure)."""
    tail = stderr.strip().splitlines()[-1] if stderr.strip() else ''
    for name in _OPTIONAL:
        try:
            installed = importlib.util.find_spec(name) is not None
        except ImportError:  # a dotted name whose parent package is missing
            installed = False
        if installed:
            continue
        top = name.split('.')[0]
        if f"No module named '{top}" in tail or (tail.startswith('ImportError') and
                                                 'chainlet-dl[' in tail and top in stderr):
            return name
    return ''


def _run_session(page: pathlib.Path, blocks: list[Block], cmd: list[str], env: dict,
                 emulate: bool, tmp_path: pathlib.Path) -> subprocess.CompletedProcess:
    script = _RUNNER.format(root=str(ROOT), page=str(page), emulate=emulate,
                            setup=_hidden_code(page, 'setup'),
                            teardown=_hidden_code(page, 'teardown'),
                            blocks=[(str(b.page), b.line, b.before, b.code, b.after,
                                     b.expect) for b in blocks])
    (tmp_path / '_doc_page.py').write_text(script, encoding='utf-8')
    return subprocess.run([*cmd, '_doc_page.py'], cwd=tmp_path, env=env, text=True,
                          capture_output=True, timeout=300)


_SHOWN_ERROR = """A page:

```python
x = 1
{raised}
```

```text
Traceback (most recent call last):
  ...
{shown}
```

```python
assert x == 1  # the session goes on
```
"""


@pytest.mark.parametrize('raised, shown, ok', [
    ("raise TypeError('Adam: bad lr; use alpha')", 'TypeError: Adam: bad lr; use alpha', True),
    ("raise TypeError('Adam: bad lr; use alpha')", 'TypeError: Adam: ...alpha', True),
    ("raise KeyError('x')", 'LookupError: ...', True),  # a base class of the raised one
    ("raise TypeError('Adam: bad lr')", 'ValueError: Adam: bad lr', False),
    ("raise TypeError('Adam: bad lr')", 'TypeError: SGD: bad lr', False),
    ('pass', 'TypeError: Adam', False),  # raises nothing
])
def test_a_block_the_page_shows_raising_must_raise_that(tmp_path, raised, shown, ok):
    page = tmp_path / 'page.md'
    page.write_text(_SHOWN_ERROR.format(raised=raised, shown=shown), encoding='utf-8')
    blocks = [b for b in _blocks(page) if b.lang == 'python']
    assert blocks[0].expect == shown and not blocks[1].expect
    result = _run_session(page, blocks, [sys.executable], dict(os.environ), False, tmp_path)
    assert (result.returncode == 0) == ok, result.stderr
    if not ok:
        assert f'the page shows {shown!r}' in result.stderr


def _emulator_usable() -> bool:
    import numpy
    return int(numpy.__version__.split('.')[0]) >= 2


def _extras() -> set[str]:
    text = (ROOT / 'pyproject.toml').read_text(encoding='utf-8')
    section = text.split('[project.optional-dependencies]', 1)[1].split('\n[', 1)[0]
    return set(re.findall(r'^([\w-]+)\s*=', section, re.M))


@pytest.mark.parametrize('page', _pages_with('bash'), ids=lambda p: str(p.relative_to(ROOT)))
def test_bash_blocks_name_what_exists(page):
    """Shell commands are run by CI (the README's) or by the tests of what they start; here each
    file path they name must exist and each ``chainlet-dl[extra]`` must be a declared extra."""
    extras = _extras()
    for block in (b for b in _blocks(page) if b.lang == 'bash'):
        for extra in re.findall(r'chainlet-dl\[([\w,-]+)\]|"\.\[([\w,-]+)\]"', block.code):
            for name in ','.join(extra).split(','):
                if name:
                    assert name in extras, f'{block!r}: no extra named {name!r}'
        for path in re.findall(r'(?<![\w/.])((?:examples|docs|tests|benchmarks)/[\w/.-]+)',
                               block.code):
            assert (ROOT / path).exists(), f'{block!r}: {path} does not exist'
