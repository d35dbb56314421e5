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

__all__ = ['MAP_TO_NONE', 'assert_same_paths', 'assert_same_structure', 'flatten',
           'flatten_with_path', 'is_nested', 'lists_to_tuples', 'map_shape_structure',
           'map_structure', 'map_structure_up_to', 'pack_sequence_as', 'traverse']


class MAP_TO_NONE:
    """Returned by :func:`traverse`'s function to put ``None`` in place of a subtree."""


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


def map_structure(func: Callable[..., Any], *structures: Any, none_is_leaf: bool = True) -> Any:
    """Apply ``func`` to the leaves of one or more structures of the same nesting.

    Args:
        func: called with one leaf from each structure.
        *structures: structures with the same nesting.
        none_is_leaf: Whether ``None`` leaves of the first structure are passed to ``func``;
            if not, they stay ``None``.

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
    return pack_sequence_as(structures[0], [
        None if not none_is_leaf and leaves[0] is None else func(*leaves)
        for leaves in zip(*flat)])


def map_structure_up_to(shallow_structure: Any, func: Callable[..., Any],
                        *structures: Any) -> Any:
    """Like :func:`map_structure`, but ``func`` gets the sub-structures of ``structures``
    found at the leaves of ``shallow_structure``.

    Example:
        >>> from chainlet import keras
        >>> keras.tree.map_structure_up_to((None, None), len, ([1, 2], [3]))
        (2, 1)
    """
    def split(shallow: Any, node: Any) -> list:
        if not is_nested(shallow):
            return [node]
        if not is_nested(node) or isinstance(shallow, dict) != isinstance(node, dict) or \
                len(_children(shallow)) != len(_children(node)):
            raise ValueError(f'keras.tree.map_structure_up_to: {node!r} does not match the '
                             f'shallow structure {shallow!r}')
        if isinstance(shallow, dict) and sorted(shallow) != sorted(node):
            raise ValueError(f'keras.tree.map_structure_up_to: keys {sorted(node)} differ '
                             f'from the shallow structure\'s {sorted(shallow)}')
        return [part for s, n in zip(_children(shallow), _children(node))
                for part in split(s, n)]
    parts = [split(shallow_structure, s) for s in structures]
    return pack_sequence_as(shallow_structure, [func(*p) for p in zip(*parts)])


def map_shape_structure(func: Callable[[Any], Any], structure: Any) -> Any:
    """:func:`map_structure` where lists and tuples of ints and ``None`` (shapes) are leaves.

    Example:
        >>> from chainlet import keras
        >>> keras.tree.map_shape_structure(len, {'a': (None, 3), 'b': [(2,), (4, 5)]})
        {'a': 2, 'b': [1, 2]}
    """
    def is_shape(x: Any) -> bool:
        return isinstance(x, (list, tuple)) and all(isinstance(e, (int, type(None))) for e in x)

    def walk(node: Any) -> Any:
        if is_shape(node) or not is_nested(node):
            return func(node)
        return _rebuild(node, [walk(c) for c in _children(node)])
    return walk(structure)


def traverse(func: Callable[[Any], Any], structure: Any, top_down: bool = True) -> Any:
    """Apply ``func`` to every subtree, depth first (Keras's ``tree.traverse``).

    Top down, ``func`` sees a node before its children: ``None`` means "go on into it", any
    other value replaces the node (its children are not visited), :class:`MAP_TO_NONE`
    replaces it by ``None``. Bottom up, ``func`` sees each node rebuilt from its traversed
    children: ``None`` keeps it, any other value replaces it.

    Example:
        >>> from chainlet import keras
        >>> keras.tree.traverse(lambda x: x * 10 if isinstance(x, int) else None, [1, (2,)])
        [10, (20,)]
    """
    def result(value: Any, default: Any) -> Any:
        if value is None:
            return default
        return None if value is MAP_TO_NONE else value

    def walk(node: Any) -> Any:
        if top_down:
            value = func(node)
            if value is not None:
                return result(value, node)
            if not is_nested(node):
                return node
            return _rebuild(node, [walk(c) for c in _children(node)])
        rebuilt = _rebuild(node, [walk(c) for c in _children(node)]) if is_nested(node) \
            else node
        return result(func(rebuilt), rebuilt)
    return walk(structure)


def assert_same_paths(a: Any, b: Any) -> None:
    """Check that ``a`` and ``b`` have the same paths (:func:`flatten_with_path`), whatever
    the kinds of their containers.

    Raises:
        ValueError: The paths differ (the message lists those only in one of them).
    """
    paths_a = {p for p, _ in flatten_with_path(a)}
    paths_b = {p for p, _ in flatten_with_path(b)}
    if paths_a != paths_b:
        raise ValueError(f'keras.tree.assert_same_paths: the structures have different paths: '
                         f'only in a: {sorted(map(str, paths_a - paths_b))}, only in b: '
                         f'{sorted(map(str, paths_b - paths_a))}')


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
