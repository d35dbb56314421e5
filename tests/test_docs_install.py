"""Every install hint names the distribution that really installs this project (issue 32).

The name ``chainlet`` on PyPI belongs to an unrelated project (a generator-chaining framework
that also imports as ``chainlet``): ``pip install "chainlet[hdf5]"`` would install it. This
project is distributed as ``chainlet-dl`` and imported as ``chainlet``; hints use
``pip install "chainlet-dl[extra]"`` or the checkout form ``pip install -e ".[extra]"``.
"""
from __future__ import annotations

import pathlib
import re

import pytest

SELF = pathlib.Path(__file__).resolve()
ROOT = SELF.parents[1]
SCANNED = ('chainlet', 'docs', 'examples', 'tests', 'tools', 'benchmarks')
SUFFIXES = {'.py', '.md', '.yml', '.yaml', '.sh', '.cfg', '.toml', '.txt', '.rst'}
# Built from pieces so that this file does not match itself.
_NAME = 'chain' + 'let'
# "pip install chainlet", "pip install 'chainlet'", "pip install -U chainlet==1.0" ...
_PIP_BARE = re.compile(r'pip3?\s+install\s+(?:-[-\w]+\s+)*["\']?' + _NAME + r'(?![-\w.\[/])')
# "chainlet[hdf5]" (and its regex-escaped form in tests) anywhere: pip would install the other
# project with that extra ignored.
_EXTRA = re.compile(r'(?<![-\w./])' + _NAME + r'\\?\[')


def _files():
    yield ROOT / 'README.md'
    yield ROOT / 'mkdocs.yml'
    yield ROOT / 'pyproject.toml'
    for base in SCANNED:
        for path in sorted((ROOT / base).rglob('*')):
            if (path.suffix in SUFFIXES and path.is_file() and '__pycache__' not in path.parts
                    and path != SELF):  # this file quotes the wrong forms on purpose
                yield path


def _offences(text: str) -> list[str]:
    return [m.group(0) for rx in (_PIP_BARE, _EXTRA) for m in rx.finditer(text)]


@pytest.mark.parametrize('text', [
    'pip install chainlet', "pip install 'chainlet'", 'pip install -U chainlet\n',
    'pip install "chainlet[hdf5]"', 'needs `chainlet[caffe]`', r"match=r'chainlet\[mpi\]'",
])
def test_the_check_catches_the_wrong_name(text):
    assert _offences(text)


@pytest.mark.parametrize('text', [
    'pip install "chainlet-dl[hdf5]"', 'pip install chainlet-dl', 'pip install -e ".[docs]"',
    'import chainlet', 'pip install chainlet_dl', 'chainlet.functions[0]',
])
def test_the_check_passes_the_right_name(text):
    assert not _offences(text)


def test_no_file_recommends_the_unrelated_chainlet_distribution():
    bad = []
    for path in _files():
        text = path.read_text(encoding='utf-8', errors='replace')
        for i, line in enumerate(text.splitlines(), 1):
            if _offences(line):
                bad.append(f'{path.relative_to(ROOT)}:{i}: {line.strip()}')
    assert not bad, ('these tell users to install the unrelated PyPI project "chainlet"; use '
                     '"chainlet-dl[extra]" (or pip install -e ".[extra]" from a clone):\n'
                     + '\n'.join(bad))


def test_pyproject_names_the_distribution_chainlet_dl():
    text = (ROOT / 'pyproject.toml').read_text(encoding='utf-8')
    assert re.search(r'^name\s*=\s*"chainlet-dl"', text, re.M)
