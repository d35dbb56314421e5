"""``keras.tree``: utilities for nested structures (lists, tuples, namedtuples, dicts) of
leaves, as Keras 3 exposes them.

Design: the facade's own flattening (:mod:`chainlet.keras.engine.tree`) fixes the order, which
is Keras's: sequences in order, dicts by sorted key; ``None`` is a leaf. This module adds the
public helpers Keras programs call (several structures mapped together, packing a flat list
back into a structure, structure checks) on top of that order.
"""
from __future__ import annotations

from typing import Any, Callable

from chainlet.keras.engine.tree import flatten

__all__ = ['assert_same_structure', 'flatten', 'flatten_with_path', 'is_nested',
           'lists_to_tuples', 'map_structure', 'pack_sequence_as']


def is_nested(structure: Any) -> bool:
    """Whether ``structure`` is a list, tuple or dict (and so not a leaf).

    Example:
        >>> from chainlet import keras
        >>> keras.tree.is_nested([1, 2]), keras.tree.is_nested(3)
        (True, False)
    """
    return isinstance(structure, (list, tuple, dict))


def _children(structure: Any) -> list:
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def _rebuild(template: Any, children: list) -> Any:
    if isinstance(template, dict):
        values = dict(zip(sorted(template), children))
        return type(template)((k, values[k]) for k in template)
    if isinstance(template, tuple) and hasattr(template, '_fields'):
        return type(template)(*children)
    return type(template)(children)


def assert_same_structure(a: Any, b: Any, check_types: bool = True) -> None:
    """Raise ``ValueError`` unless ``a`` and ``b`` nest the same way (leaves may differ).

    Args:
        a, b: the structures to compare.
        check_types: also require the same container types at each level.
    """
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if is_nested(x) != is_nested(y):
            raise ValueError(f'keras.tree.assert_same_structure: {x!r} and {y!r} differ '
                             f'(one is nested, the other a leaf)')
        if not is_nested(x):
            continue
        if check_types and type(x) is not type(y):
            raise ValueError(f'keras.tree.assert_same_structure: container types differ: '
                             f'{type(x).__name__} and {type(y).__name__}')
        if isinstance(x, dict) != isinstance(y, dict) or len(x) != len(y) or (
                isinstance(x, dict) and sorted(x) != sorted(y)):
            raise ValueError(f'keras.tree.assert_same_structure: {x!r} and {y!r} have '
                             f'different lengths or keys')
        stack.extend(zip(_children(x), _children(y)))


def map_structure(func: Callable[..., Any], *structures: Any) -> Any:
    """Apply ``func`` to the leaves of one or more structures of the same nesting.

    Args:
        func: called with one leaf from each structure.
        *structures: structures with the same nesting.

    Returns:
        A structure like the first one, with ``func``'s results as leaves.

    Example:
        >>> from chainlet import keras
        >>> keras.tree.map_structure(lambda a, b: a + b, {'x': 1, 'y': (2, 3)},
        ...                          {'x': 10, 'y': (20, 30)})
        {'x': 11, 'y': (22, 33)}
    """
    if not structures:
        raise TypeError('keras.tree.map_structure: expected at least one structure')
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types=False)
    flat = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flat)])


def pack_sequence_as(structure: Any, flat_sequence: Any) -> Any:
    """Rebuild ``structure``'s nesting with the leaves of ``flat_sequence``, in
    :func:`flatten`'s order.

    Example:
        >>> from chainlet import keras
        >>> keras.tree.pack_sequence_as({'b': 0, 'a': [0, 0]}, [1, 2, 3])
        {'b': 3, 'a': [1, 2]}
    """
    flat_sequence = list(flat_sequence)
    n = len(flatten(structure))
    if n != len(flat_sequence):
        raise ValueError(f'keras.tree.pack_sequence_as: the structure has {n} leaves, the '
                         f'flat sequence {len(flat_sequence)}')
    leaves = iter(flat_sequence)

    # Recursion is fine here: it follows the nesting of the structure, which is shallow.
    def rebuild(node: Any) -> Any:
        if not is_nested(node):
            return next(leaves)
        return _rebuild(node, [rebuild(c) for c in _children(node)])

    return rebuild(structure)


def flatten_with_path(structure: Any) -> list:
    """``(path, leaf)`` pairs in :func:`flatten`'s order; a path is the tuple of indices and
    keys leading to the leaf.

    Example:
        >>> from chainlet import keras
        >>> keras.tree.flatten_with_path({'a': [5, 6]})
        [(('a', 0), 5), (('a', 1), 6)]
    """
    out = []
    stack: list[tuple[tuple, Any]] = [((), structure)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((path + (k,), node[k]) for k in sorted(node, reverse=True))
        elif isinstance(node, (list, tuple)):
            stack.extend((path + (i,), v) for i, v in reversed(list(enumerate(node))))
        else:
            out.append((path, node))
    return out


def lists_to_tuples(structure: Any) -> Any:
    """The same structure with every list turned into a tuple."""
    if isinstance(structure, dict):
        return type(structure)((k, lists_to_tuples(v)) for k, v in structure.items())
    if isinstance(structure, tuple) and hasattr(structure, '_fields'):
        return type(structure)(*[lists_to_tuples(v) for v in structure])
    if isinstance(structure, (list, tuple)):
        return tuple(lists_to_tuples(v) for v in structure)
    return structure
