"""TupleDataset, DictDataset, SubDataset, splits, TransformDataset, ConcatenatedDataset."""
import numpy as np
import pytest

from chainlet import datasets
from chainlet.dataset import DatasetMixin
from chainlet.datasets import (ConcatenatedDataset, DictDataset, SubDataset, TransformDataset,
                               TupleDataset, split_dataset, split_dataset_n,
                               split_dataset_n_random, split_dataset_random)


class Squares(DatasetMixin):
    def __len__(self):
        return 6

    def get_example(self, i):
        return i * i


def test_dataset_mixin_indexing():
    d = Squares()
    assert d[3] == 9 and d[-1] == 25
    assert d[1:5:2] == [1, 9] and d[::-2] == [25, 9, 1]
    assert d[[0, -1]] == [0, 25] and d[np.array([2, 3])] == [4, 9]
    assert d[np.array([True, False] * 3)] == [0, 4, 16]
    assert d[np.int64(2)] == 4 and d[[]] == []
    with pytest.raises(IndexError, match='Squares: index 6 is out of range'):
        d[6]
    with pytest.raises(IndexError, match='index -7'):
        d[[0, -7]]
    with pytest.raises(TypeError, match='Squares'):
        d['a']


def test_tuple_dataset():
    x = np.arange(10).reshape(5, 2)
    t = [10, 11, 12, 13, 14]
    ds = TupleDataset(x, t)
    assert len(ds) == 5 and ds.datasets[1] is t
    a, b = ds[-2]
    assert a.tolist() == [6, 7] and b == 13
    sliced = ds[1:4:2]
    assert [(a.tolist(), b) for a, b in sliced] == [([2, 3], 11), ([6, 7], 13)]
    fancy = ds[np.array([4, 0])]
    assert [(a.tolist(), b) for a, b in fancy] == [([8, 9], 14), ([0, 1], 10)]
    assert ds[[]] == []
    with pytest.raises(IndexError, match='TupleDataset: index 5'):
        ds[5]
    with pytest.raises(ValueError, match=r'lengths \[5, 4\]'):
        TupleDataset(x, t[:4])
    with pytest.raises(ValueError, match='no datasets'):
        TupleDataset()


def test_dict_dataset():
    ds = DictDataset(x=np.arange(3.0), y=['a', 'b', 'c'])
    assert len(ds) == 3 and ds[2] == {'x': 2.0, 'y': 'c'}
    assert ds[[0, 2]] == [{'x': 0.0, 'y': 'a'}, {'x': 2.0, 'y': 'c'}]
    assert ds[1:] == [{'x': 1.0, 'y': 'b'}, {'x': 2.0, 'y': 'c'}]
    with pytest.raises(IndexError, match='DictDataset: index -4'):
        ds[-4]
    with pytest.raises(ValueError, match='same length'):
        DictDataset(x=[1], y=[1, 2])


def test_sub_dataset():
    base = list('abcdefgh')
    sub = SubDataset(base, 2, 6)
    assert len(sub) == 4 and sub[:] == list('cdef') and sub[-1] == 'f'
    with pytest.raises(IndexError, match='SubDataset: index 4'):
        sub[4]
    order = np.arange(8)[::-1]
    assert SubDataset(base, 0, 3, order)[:] == list('hgf')
    assert SubDataset(base, 2, 6, subset_size=2)[:] == list('cd')
    with pytest.raises(ValueError, match='start <= finish'):
        SubDataset(base, 3, 9)
    with pytest.raises(ValueError, match='order'):
        SubDataset(base, 0, 2, order=[0, 1])
    with pytest.raises(ValueError, match='subset_size'):
        SubDataset(base, 0, 2, subset_size=3)
    with pytest.raises(TypeError, match='start'):
        SubDataset(base, 1.0, 2)


def test_split_dataset_and_random():
    base = list(range(10))
    a, b = split_dataset(base, 3)
    assert a[:] == [0, 1, 2] and b[:] == list(range(3, 10))
    a, b = split_dataset(base, 0)
    assert len(a) == 0 and len(b) == 10
    with pytest.raises(ValueError, match='split_at'):
        split_dataset(base, 11)
    with pytest.raises(TypeError, match='split_at'):
        split_dataset(base, 2.5)
    a1, b1 = split_dataset_random(base, 6, seed=0)
    a2, b2 = split_dataset_random(base, 6, seed=0)
    a3, _ = split_dataset_random(base, 6, seed=1)
    assert a1[:] == a2[:] and b1[:] == b2[:] and a1[:] != a3[:]
    assert (len(a1), len(b1)) == (6, 4) and sorted(a1[:] + b1[:]) == base
    np.testing.assert_array_equal(a1[:] + b1[:], np.random.RandomState(0).permutation(10))


def test_split_dataset_n():
    parts = split_dataset_n(list(range(11)), 3)
    # Chainer's rule: equal parts, the remainder (9, 10) is left out
    assert [p[:] for p in parts] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    with pytest.raises(ValueError, match='at least 1'):
        split_dataset_n([1], 0)
    random_parts = split_dataset_n_random(list(range(11)), 3, seed=4)
    assert [len(p) for p in random_parts] == [3, 3, 3]
    flat = [x for p in random_parts for x in p[:]]
    assert len(set(flat)) == 9 and set(flat) <= set(range(11)) and flat != list(range(9))
    assert flat == [x for p in split_dataset_n_random(list(range(11)), 3, seed=4) for x in p[:]]


def test_get_cross_validation_datasets():
    # Chainer: test folds are taken from the end of the order; each train part wraps around.
    folds = datasets.get_cross_validation_datasets(list(range(10)), 3)
    assert [(tr[:], te[:]) for tr, te in folds] == [
        ([0, 1, 2, 3, 4, 5], [6, 7, 8, 9]),
        ([6, 7, 8, 9, 0, 1, 2], [3, 4, 5]),
        ([3, 4, 5, 6, 7, 8, 9], [0, 1, 2])]
    rand = datasets.get_cross_validation_datasets_random(list(range(10)), 3, seed=0)
    tests = [x for _, te in rand for x in te[:]]
    assert sorted(tests) == list(range(10)) and tests != list(range(10))
    assert all(len(tr) + len(te) == 10 for tr, te in rand)
    with pytest.raises(ValueError, match='n_fold'):
        datasets.get_cross_validation_datasets([1, 2], 0)


def test_transform_and_concatenated():
    calls = []

    def twice(x):
        calls.append(x)
        return 2 * x

    t = TransformDataset([1, 2, 3], twice)
    assert len(t) == 3 and t[-1] == 6 and t[[0, 1]] == [2, 4] and calls == [3, 1, 2]
    with pytest.raises(TypeError, match='callable'):
        TransformDataset([1], 5)
    tuples = TransformDataset(TupleDataset(np.arange(3), np.arange(3)), lambda e: (e[0], -e[1]))
    assert tuples[2] == (2, -2)
    c = ConcatenatedDataset([0, 1], [], (2, 3, 4), Squares())
    assert len(c) == 11 and c[:] == [0, 1, 2, 3, 4, 0, 1, 4, 9, 16, 25] and c[-6] == 0
    with pytest.raises(IndexError, match='ConcatenatedDataset: index 11'):
        c[11]
    assert len(ConcatenatedDataset()) == 0


def test_mixin_is_exported_from_datasets():
    assert datasets.DatasetMixin is DatasetMixin
