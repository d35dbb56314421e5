"""docs/keras_layers.md's table lists exactly the public layers of ``chainlet.keras.layers``."""
from __future__ import annotations

import inspect
import pathlib
import re

from chainlet.keras import layers
from chainlet.keras.engine.base_layer import Layer

PAGE = pathlib.Path(__file__).resolve().parents[1] / 'docs' / 'keras_layers.md'


def _table_names() -> set[str]:
    text = PAGE.read_text(encoding='utf-8')
    section = text.split('## What is there', 1)[1].split('\n## ', 1)[0]
    rows = [line for line in section.splitlines() if line.startswith('| ')][1:]  # no header
    return {name for row in rows for name in re.findall(r'`(\w+)`', row)}


def _public_layers() -> set[str]:
    names = set()
    for name in dir(layers):
        obj = getattr(layers, name)
        if name.startswith('_'):
            continue
        if inspect.isclass(obj) and issubclass(obj, Layer):
            names.add(name)
        elif inspect.isfunction(obj) and name in {'add', 'subtract', 'multiply', 'average',
                                                  'maximum', 'minimum', 'concatenate', 'dot'}:
            names.add(name)
    return names


def test_the_layer_table_matches_the_module():
    listed, public = _table_names(), _public_layers()
    assert not public - listed, f'layers missing from the table in {PAGE.name}: ' \
                                f'{sorted(public - listed)}'
    assert not listed - public, f'names in the table of {PAGE.name} that chainlet.keras.layers ' \
                                f'does not have: {sorted(listed - public)}'
