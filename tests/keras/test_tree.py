"""keras.tree: Keras 3's nested-structure helpers (order: sequences in order, dicts by key)."""
from __future__ import annotations

import collections

import pytest

from chainlet import keras

tree = keras.tree


def test_flatten_order_and_none_leaf():
    assert tree.flatten({'b': [1, None], 'a': (2,)}) == [2, 1, None]
    assert tree.flatten(7) == [7]


def test_map_structure_several_structures_keeps_types():
    Point = collections.namedtuple('Point', 'x y')
    out = tree.map_structure(lambda a, b: a * b, [Point(1, 2), {'k': 3}],
                             [Point(10, 20), {'k': 30}])
    assert out == [Point(10, 40), {'k': 90}] and isinstance(out[0], Point)


def test_map_structure_mismatch_raises():
    with pytest.raises(ValueError, match='assert_same_structure'):
        tree.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match='keys'):
        tree.map_structure(lambda a, b: a, {'a': 1}, {'b': 1})


def test_pack_sequence_as_round_trip_and_count_check():
    structure = {'z': [0, (0, 0)], 'a': 0}
    flat = tree.flatten(structure)
    assert tree.pack_sequence_as(structure, range(len(flat))) == {'z': [1, (2, 3)], 'a': 0}
    with pytest.raises(ValueError, match='4 leaves'):
        tree.pack_sequence_as(structure, [1, 2])


def test_flatten_with_path_and_lists_to_tuples():
    assert tree.flatten_with_path([{'a': 1}, 2]) == [((0, 'a'), 1), ((1,), 2)]
    assert tree.lists_to_tuples({'a': [1, [2]]}) == {'a': (1, (2,))}
    assert tree.is_nested(()) and not tree.is_nested('ab')


def test_assert_same_structure_types():
    tree.assert_same_structure([1, (2,)], [3, (4,)])
    with pytest.raises(ValueError, match='types differ'):
        tree.assert_same_structure([1], (1,))
    tree.assert_same_structure([1], (1,), check_types=False)
