"""Flattening and rebuilding nested structures (lists, tuples, dicts) of tensors.

The one place that fixes the facade's leaf order (sequences in order, dicts by sorted key):
layers, the functional graph, the trainer's data adapters and the public ``keras.tree`` all
build on these helpers, which are unchecked and cheap because they run on every call and batch.
"""
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


def pack(template: Any, leaves: Any) -> Any:
    """Rebuild ``template``'s lists, tuples and dicts from ``leaves`` in :func:`flatten`'s
    order (no checks: the caller flattened the same template)."""
    # A module-level recursion, not a nested closure: a closure that calls itself is a reference
    # cycle (function -> cell -> function), which left garbage behind at every batch.
    return _build(template, iter(leaves))


def _build(t: Any, it: Any) -> Any:
    if isinstance(t, dict):
        built = {k: _build(t[k], it) for k in sorted(t)}
        return {k: built[k] for k in t}
    if isinstance(t, (list, tuple)):
        return type(t)(_build(v, it) for v in t)
    return next(it)
