"""The documentation site builds with warnings as errors (``mkdocs build --strict``).

A broken link between pages, a page left out of the navigation, a docstring the API reference
cannot parse or a cross-reference to nothing fails the build, and so this test. It needs the
``docs`` extra (``pip install -e ".[docs]"``) and is skipped without it.
"""
from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _require_docs_extra() -> None:
    for module in ('mkdocs', 'material', 'mkdocstrings', 'mkdocstrings_handlers.python'):
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:  # the parent package of a dotted name is missing
            found = False
        if not found:
            pytest.skip(f'the docs extra is not installed (no {module}): '
                        'pip install -e ".[docs]"')


@pytest.fixture(scope='module')
def site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    _require_docs_extra()
    out = tmp_path_factory.mktemp('site')
    env = dict(os.environ, NO_MKDOCS_2_WARNING='1')
    done = subprocess.run(
        [sys.executable, '-m', 'mkdocs', 'build', '--strict', '--site-dir', str(out),
         '--config-file', str(ROOT / 'mkdocs.yml')],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    # what mkdocs reports, without its progress lines (a new page must also be added to the
    # nav of mkdocs.yml: a page left out of it is reported here)
    messages = [line for line in done.stderr.splitlines() if not line.startswith('INFO')]
    assert done.returncode == 0, 'mkdocs build --strict failed:\n' + '\n'.join(messages[-60:])
    return out


def test_every_user_guide_page_is_a_chapter(site: pathlib.Path) -> None:
    pages = sorted(p.relative_to(ROOT / 'docs').with_suffix('')
                   for p in (ROOT / 'docs').rglob('*.md'))
    for page in pages:
        built = page.parent if page.name in ('README', 'index') else page
        assert (site / built / 'index.html').is_file(), f'docs/{page}.md was not built'


def test_api_reference_documents_public_names(site: pathlib.Path) -> None:
    functions = (site / 'api' / 'functions' / 'activation' / 'index.html').read_text('utf-8')
    assert 'id="chainlet.functions.tanh"' in functions
    # the doctest renders as console code, not as an admonition of block quotes
    tanh = functions[functions.index('id="chainlet.functions.tanh"'):]
    assert '<span class="gp">&gt;&gt;&gt; </span>' in tanh[:tanh.index('FunctionNode classes')]
    core = (site / 'api' / 'chainlet' / 'index.html').read_text(encoding='utf-8')
    for name in ('Variable', 'FunctionNode', 'Chain', 'grad'):
        assert f'id="chainlet.{name}"' in core  # re-exported from private modules
    assert 'id="chainlet._' not in core
    layers = (site / 'api' / 'keras' / 'layers' / 'index.html').read_text(encoding='utf-8')
    # a docstring made at import time and a second name bound with a tuple assignment
    assert 'id="chainlet.keras.layers.Conv2D"' in layers
    assert 'id="chainlet.keras.layers.MaxPool2D"' in layers
    ops = (site / 'api' / 'keras' / 'ops' / 'index.html').read_text(encoding='utf-8')
    assert 'id="chainlet.keras.ops.add"' in ops  # a function made by a factory


def test_links_outside_docs_point_to_pages_of_the_site(site: pathlib.Path) -> None:
    # Issue 32: they pointed at a repository address that does not exist.
    index = (site / 'index.html').read_text(encoding='utf-8')
    assert 'href="source/examples/train_vae.py/"' in index
    assert '../examples/' not in index
    shown = (site / 'source' / 'examples' / 'train_vae.py' / 'index.html').read_text('utf-8')
    assert '<span class="nf">main</span>' in shown  # the source, highlighted
    listing = (site / 'source' / 'examples' / 'index.html').read_text(encoding='utf-8')
    assert 'href="train_vae.py/"' in listing
    for page in site.rglob('*.html'):
        assert 'github.com/chainlet' not in page.read_text(encoding='utf-8'), page


def test_functions_reference_is_one_page_per_family_public_names_first(
        site: pathlib.Path) -> None:
    families = sorted(p.parent.name
                      for p in (ROOT / 'chainlet' / 'functions').glob('*/_exports.py'))
    for family in families:
        page = site / 'api' / 'functions' / family / 'index.html'
        html = page.read_text(encoding='utf-8')
        assert page.stat().st_size < 600_000, f'{page}: {page.stat().st_size} bytes'
        ids = re.findall(r'id="(chainlet\.[\w.]+)"', html)
        assert ids, page
        # every documented name is a public name of chainlet.functions (F.X), and the names
        # come in alphabetical order
        assert all(re.fullmatch(r'chainlet\.functions\.\w+', i) for i in ids), ids[:5]
        names = [i.rsplit('.', 1)[1] for i in ids]
        assert names == sorted(names), family
    overview = (site / 'api' / 'functions' / 'index.html').read_text(encoding='utf-8')
    assert overview.count('href="activation/"') >= 1


def test_code_blocks_do_not_overflow_the_column(site: pathlib.Path) -> None:
    css = (site / 'stylesheets' / 'extra.css').read_text(encoding='utf-8')
    assert re.search(r'pre > code \{[^}]*overflow-x: auto', css)
    index = (site / 'index.html').read_text(encoding='utf-8')
    assert 'href="stylesheets/extra.css"' in index


def test_home_page_starts_where_a_user_starts(site: pathlib.Path) -> None:
    text = (ROOT / 'docs' / 'index.md').read_text(encoding='utf-8')
    order = [text.index(h) for h in ('It is for:', '## Install', '## Quick start',
                                     '## Map of these pages')]
    assert order == sorted(order)
    assert 'pip install chainlet-dl' in text


def test_functions_reference_pages_are_up_to_date() -> None:
    """docs/api/functions/<family>.md list what the family exports (``python
    tools/mkdocs_hooks.py`` rewrites them)."""
    _require_docs_extra()
    spec = importlib.util.spec_from_file_location('_hooks', ROOT / 'tools' / 'mkdocs_hooks.py')
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    families = {p.parent.name for p in (ROOT / 'chainlet' / 'functions').glob('*/_exports.py')}
    assert families == set(hooks._FAMILIES)
    for family in sorted(families):
        page = ROOT / 'docs' / 'api' / 'functions' / f'{family}.md'
        assert page.read_text(encoding='utf-8') == hooks._family_page(family), (
            f'{page} is out of date: run python tools/mkdocs_hooks.py')
