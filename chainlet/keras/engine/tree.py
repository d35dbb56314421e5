"""Flattening and rebuilding nested structures (lists, tuples, dicts) of tensors."""
from __future__ import annotations

from typing import Any, Callable


def flatten(structure: Any) -> list:
    """Leaves of ``structure`` in a deterministic order (dicts by sorted key)."""
    out: list = []
    stack = [structure]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(item[k] for k in sorted(item, reverse=True))
        else:
            out.append(item)
    return out


def map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    """Apply ``fn`` to every leaf, keeping lists, tuples and dicts."""
    if isinstance(structure, dict):
        return {k: map_structure(fn, v) for k, v in structure.items()}
    if isinstance(structure, tuple) and hasattr(structure, '_fields'):
        return type(structure)(*[map_structure(fn, v) for v in structure])
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure(fn, v) for v in structure)
    return fn(structure)
