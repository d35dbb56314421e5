"""mkdocs hooks for the documentation site (``hooks:`` in ``mkdocs.yml``).

Links out of ``docs/``. The pages link to files beside that folder (``../examples/train_vae.py``,
``../examples/``) so that they read correctly in the repository, where ``tests/test_project.py``
checks that every such link exists. mkdocs only knows the files under ``docs_dir``; rather than
send readers to a repository address, the site carries those files itself: each linked file
becomes a generated page under ``source/`` showing it (a folder becomes a page listing its
files), and the links are rewritten to those pages. ``mkdocs build --strict`` still fails on a
link that is really broken.

The API reference of ``chainlet.functions`` is one page per family
(``docs/api/functions/<family>.md``), written from the family's ``_exports.py`` by
``python tools/mkdocs_hooks.py``: the public functions first, in alphabetical order, then a
table of the family's ``FunctionNode`` classes (what custom-function authors and Chainer code
subclass or name), so no page opens with internal classes and none is megabytes long.
``tests/test_docs_site.py`` fails when a page is out of date.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import posixpath
import re
from typing import Any

from mkdocs.structure.files import File, InclusionLevel

_ROOT = pathlib.Path(__file__).resolve().parents[1]
_SOURCE = 'source'  # where the generated pages of files outside docs/ live on the site
_FAMILIES = {  # chainlet/functions/<family>: the title of its API page
    'activation': 'Activation', 'array': 'Array', 'connection': 'Connection (linear, convolution)',
    'evaluation': 'Evaluation', 'loss': 'Loss', 'math': 'Math', 'noise': 'Noise',
    'normalization': 'Normalization', 'pooling': 'Pooling', 'rnn': 'RNN', 'util': 'Utility',
}
# The guide pages (docs/functions/) of each family, where their names differ.
_GUIDES = {
    'connection': '[the guides to linear](../../functions/linear.md) and '
                  '[convolution](../../functions/convolution.md) functions',
}
for _family in ('activation', 'array', 'evaluation', 'loss', 'math', 'noise', 'normalization',
                'pooling', 'rnn', 'util'):
    _GUIDES[_family] = f'[the family\'s guide](../../functions/{_family}.md)'

# A Markdown inline link or image target: ](target) or ](target "title").
_LINK = re.compile(r'(\]\()(?P<target>[^)\s#]+)(?P<rest>(?:#[^)\s]*)?(?:\s+"[^"]*")?\))')


def _outside_target(page_uri: str, target: str) -> str | None:
    """The repository path a relative link of a page leads to, if it leaves ``docs/``."""
    if re.match(r'^[a-z][a-z0-9+.-]*:', target) or target.startswith('/'):
        return None
    path = posixpath.normpath(posixpath.join('docs', posixpath.dirname(page_uri), target))
    if path == 'docs' or path.startswith('docs/') or path.startswith('..'):
        return None
    return path


def _source_uri(path: str) -> str:
    """The generated page that shows the repository file or folder ``path``."""
    if (_ROOT / path).is_dir():
        return f'{_SOURCE}/{path}/index.md'
    return f'{_SOURCE}/{path}.md'


def _source_page(path: str) -> str:
    full = _ROOT / path
    if full.is_dir():
        items = sorted(p for p in full.iterdir() if p.is_file() and not p.name.startswith('.')
                       and p.suffix in ('.py', '.md', '.txt', '.sh'))
        lines = [f'# `{path}/`', '']
        lines += [f'- [`{p.name}`]({p.name}.md)' for p in items]
        return '\n'.join(lines) + '\n'
    text = full.read_text(encoding='utf-8')
    lang = {'.py': 'python', '.sh': 'bash', '.toml': 'toml', '.yml': 'yaml'}.get(full.suffix, '')
    fence = '````' if '```' in text else '```'
    return f'# `{path}`\n\n{fence}{lang}\n{text.rstrip()}\n{fence}\n'


def _family_names(family: str) -> list[str]:
    tree = ast.parse((_ROOT / 'chainlet' / 'functions' / family / '_exports.py').read_text())
    return sorted({a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                   for a in node.names})


def _family_classes(family: str) -> list[tuple[str, str, str]]:
    """(class, module, first docstring line) of the family's FunctionNode classes."""
    from chainlet.function_node import FunctionNode
    found = {}
    for path in sorted((_ROOT / 'chainlet' / 'functions' / family).glob('[!_]*.py')):
        module = importlib.import_module(f'chainlet.functions.{family}.{path.stem}')
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, FunctionNode)
                    and obj.__module__ == module.__name__ and not name.startswith('_')):
                doc = (inspect.getdoc(obj) or '').split('\n\n')[0].replace('\n', ' ')
                found[name] = (name, module.__name__, doc.replace('|', '\\|'))
    return sorted(found.values())


def _family_page(family: str) -> str:
    title = _FAMILIES[family]
    names = _family_names(family)
    lines = [f'# `chainlet.functions`: {title.lower()}', '',
             f'The {title.lower()} functions (`import chainlet.functions as F`), '
             f'{len(names)} in alphabetical order; {_GUIDES[family]} '
             f'explains them together.', '',
             '::: chainlet.functions', '    options:', '      show_root_heading: false',
             '      show_root_toc_entry: false', '      members_order: alphabetical',
             '      heading_level: 2', '      members:']
    lines += [f'        - {n}' for n in names]
    classes = _family_classes(family)
    if classes:
        lines += ['', '## FunctionNode classes', '',
                  'What the functions above apply; Chainer code may name or subclass them.', '',
                  '| class | module | |', '|---|---|---|']
        lines += [f'| `{c}` | `{m}` | {d} |' for c, m, d in classes]
    return '\n'.join(lines) + '\n'


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages that show the files outside docs/ that pages link to."""
    wanted = set()
    for file in list(files):
        if file.src_uri.endswith('.md') and file.abs_src_path:
            text = pathlib.Path(file.abs_src_path).read_text(encoding='utf-8')
            for m in _LINK.finditer(text):
                path = _outside_target(file.src_uri, m.group('target'))
                if path is not None and (_ROOT / path).exists():
                    wanted.add(path)
                    if (_ROOT / path).is_dir():  # the listing links to every file in it
                        wanted.update(f'{path}/{p.name}' for p in (_ROOT / path).iterdir()
                                      if p.is_file() and not p.name.startswith('.')
                                      and p.suffix in ('.py', '.md', '.txt', '.sh'))
    for path in sorted(wanted):
        files.append(File.generated(config, _source_uri(path), content=_source_page(path),
                                    inclusion=InclusionLevel.NOT_IN_NAV))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Rewrite relative links that leave ``docs_dir`` into links to the generated pages."""
    page_dir = posixpath.dirname(page.file.src_uri)

    def rewrite(m: re.Match) -> str:
        path = _outside_target(page.file.src_uri, m.group('target'))
        if path is None or not (_ROOT / path).exists():
            return m.group(0)
        target = posixpath.relpath(_source_uri(path), page_dir or '.')
        return f'{m.group(1)}{target}{m.group("rest")}'

    return _LINK.sub(rewrite, markdown)


def write_family_pages() -> None:
    """Write ``docs/api/functions/<family>.md`` for every family (run this file)."""
    out = _ROOT / 'docs' / 'api' / 'functions'
    out.mkdir(exist_ok=True)
    for family in _FAMILIES:
        (out / f'{family}.md').write_text(_family_page(family), encoding='utf-8')


if __name__ == '__main__':
    write_family_pages()
