"""mkdocs hooks for the documentation site (``hooks:`` in ``mkdocs.yml``).

The pages under ``docs/`` link to files beside that folder (``../examples/train_vae.py``,
``../README.md``) so that they read correctly in the repository, where ``tests/test_project.py``
checks that every such link exists. mkdocs only knows the files under ``docs_dir`` and reports
those links as broken; on the built site they become links to the same file in the repository
(``repo_url``), so no information is lost and ``mkdocs build --strict`` still fails on a link
that is really broken.
"""
from __future__ import annotations

import posixpath
import re
from typing import Any

# A Markdown inline link or image target: ](target) or ](target "title").
_LINK = re.compile(r'(\]\()(?P<target>[^)\s#]+)(?P<rest>(?:#[^)\s]*)?(?:\s+"[^"]*")?\))')


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Rewrite relative links that leave ``docs_dir`` into links to the repository."""
    repo = (config.get('repo_url') or '').rstrip('/')
    page_dir = posixpath.dirname(page.file.src_uri)

    def rewrite(m: re.Match) -> str:
        target = m.group('target')
        if re.match(r'^[a-z][a-z0-9+.-]*:', target) or target.startswith('/'):
            return m.group(0)
        path = posixpath.normpath(posixpath.join('docs', page_dir, target))
        if path == 'docs' or path.startswith('docs/') or not repo:
            return m.group(0)
        kind = 'tree' if target.endswith('/') else 'blob'
        return f'{m.group(1)}{repo}/{kind}/main/{path}{m.group("rest")}'

    return _LINK.sub(rewrite, markdown)
