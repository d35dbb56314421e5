"""chainlet.dataset.TabularDataset and chainlet.dataset.tabular: views, composition, errors."""
import itertools

import numpy as np
import pytest

from chainlet.dataset import TabularDataset, tabular


class Table(TabularDataset):
    """Columns of a (n_keys, size) array; records every request it receives."""

    def __init__(self, size=6, keys=('a', 'b', 'c'), mode=tuple, as_array=False, seed=0):
        self.data = np.random.RandomState(seed).uniform(size=(len(keys), size))
        self._keys, self._mode, self._as_array = keys, mode, as_array
        self.requests = []

    def __len__(self):
        return self.data.shape[1]

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.requests.append((indices, key_indices))
        data = self.data if indices is None else self.data[:, indices]
        if key_indices is not None:
            data = data[list(key_indices)]
        return tuple(data) if self._as_array else tuple(list(d) for d in data)


def columns(output):
    return [np.asarray(col) for col in output]


# ---------------------------------------------------------------- base class

@pytest.mark.parametrize('mode', [tuple, dict])
def test_fetch_get_example_iteration_and_getitem(mode):
    t = Table(mode=mode)
    fetched = t.fetch()
    if mode is tuple:
        assert isinstance(fetched, tuple) and len(fetched) == 3
        np.testing.assert_array_equal(columns(fetched), t.data)
        assert t[2] == tuple(t.data[:, 2])
    else:
        assert list(fetched) == ['a', 'b', 'c']
        np.testing.assert_array_equal(fetched['b'], t.data[1])
        assert t[2] == dict(zip('abc', t.data[:, 2]))
    assert t.requests[0] == (None, None) and t.requests[-1] == ([2], None)
    assert list(t) == [t.get_example(i) for i in range(6)]
    assert t[-1] == t.get_example(5)
    assert t[1:3] == [t.get_example(1), t.get_example(2)]
    with pytest.raises(IndexError, match='Table'):
        t[6]


def test_mode_none_presents_bare_values():
    t = Table(keys=('a',), mode=None)
    np.testing.assert_array_equal(t.fetch(), t.data[0])
    assert t[4] == t.data[0, 4]
    assert isinstance(t.convert(t.fetch()), np.ndarray)


def test_unknown_mode_is_reported():
    t = Table(mode=list)
    with pytest.raises(ValueError, match='mode must be tuple, dict or None'):
        t.fetch()


@pytest.mark.parametrize('mode', [tuple, dict])
def test_convert_turns_columns_into_arrays(mode):
    t = Table(mode=mode)
    out = t.convert(t.fetch())
    cols = out if mode is tuple else tuple(out.values())
    assert all(isinstance(c, np.ndarray) and c.dtype == np.float64 for c in cols)
    np.testing.assert_array_equal(np.stack(cols), t.data)
    same = np.arange(3)
    assert t.convert((same,))[0] is same          # arrays are not copied
    assert t.convert(([],))[0].shape == (0,)      # an empty column is an empty array


def test_astuple_asdict():
    t = Table(mode=None, keys=('a',))
    assert t.astuple().mode is tuple and t.astuple()[1] == (t.data[0, 1],)
    d = Table().asdict()
    assert d.mode is dict and d.keys == ('a', 'b', 'c') and len(d) == 6
    assert d[0] == dict(zip('abc', d._dataset.data[:, 0]))
    assert d.astuple().mode is tuple


# ---------------------------------------------------------------- slice

@pytest.mark.parametrize('indices', [
    slice(None), slice(1, 5, 2), slice(None, None, -1), slice(4, None, -3), [3, -1, 0],
    [np.int32(2), np.int64(1)], np.array([5, 1]), [True, False, True, False, False, True],
    np.array([False] * 5 + [True]), [False, 3, True], [],
])
def test_slice_rows_match_numpy(indices):
    t = Table(as_array=True)
    view = t.slice[indices]
    expected = t.data[:, indices]
    assert len(view) == expected.shape[1]
    np.testing.assert_array_equal(columns(view.fetch()), expected)
    requested = t.requests[-1][0]
    assert isinstance(requested, slice if isinstance(indices, slice) else list)


@pytest.mark.parametrize('keys, expected, mode', [
    (('c', 0), ('c', 'a'), tuple), ((-1,), ('c',), tuple), ('b', ('b',), None),
    (2, ('c',), None), ((), (), tuple), (['a', 'b'], ('a', 'b'), tuple),
])
def test_slice_keys(keys, expected, mode):
    t = Table()
    view = t.slice[:, keys]
    assert view.keys == expected and view.mode is mode
    positions = [('a', 'b', 'c').index(k) for k in expected]
    out = view.get_examples(None, None)
    assert len(out) == len(expected)
    for col, p in zip(out, positions):
        np.testing.assert_array_equal(col, t.data[p])
    assert t.requests[-1] == (slice(None), tuple(positions))


def test_slice_keeps_dict_mode_and_turns_none_into_tuple():
    assert Table(mode=dict).slice[:, ('a', 'b')].mode is dict
    assert Table(keys=('a',), mode=None).slice[:, ('a',)].mode is tuple
    assert Table(keys=('a',), mode=None).slice[:, 'a'].mode is None


@pytest.mark.parametrize('outer, inner', list(itertools.product(
    [slice(None), slice(1, None, 2), slice(4, None, -1), slice(5, 0, -2), [4, 0, 2, 2]],
    [None, slice(None), slice(1, None), slice(None, None, -1), slice(2, 0, -1),
     slice(5, 9), [1, 0], []])))
def test_slice_of_slice_composes_rows(outer, inner):
    t = Table(size=7, as_array=True)
    view = t.slice[outer]
    rows = np.arange(7)[outer]
    expected = rows if inner is None else rows[inner]
    out = view.get_examples(inner, (1,))
    np.testing.assert_array_equal(out[0], t.data[1, expected])
    sent = t.requests[-1][0]
    if isinstance(outer, slice) and (inner is None or isinstance(inner, slice)):
        assert isinstance(sent, slice)   # contiguous reads stay slices


def test_slice_of_keyed_slice_composes_keys():
    t = Table()
    view = t.slice[:, ('c', 'a', 'b')].slice[[1], (2, 0)]
    assert view.keys == ('b', 'c')
    assert view.get_examples(None, (1,))[0] == [t.data[2, 1]]
    assert t.requests[-1] == ([1], (2,))


@pytest.mark.parametrize('indices, error, match', [
    ([6, 0], IndexError, 'out of bounds'), ([-7], IndexError, 'out of bounds'),
    ([True] * 5, ValueError, 'one entry per row'), ([1.5], ValueError, 'not an integer'),
    (3, TypeError, 'rows must be'), ('ab', TypeError, 'rows must be'),
    (np.zeros((2, 2), int), IndexError, '1-d'),
])
def test_slice_bad_rows(indices, error, match):
    with pytest.raises(error, match=match):
        Table().slice[indices]


@pytest.mark.parametrize('keys, error', [
    ((3,), IndexError), (-4, IndexError), ('d', KeyError), (('a', 'z'), KeyError),
    ((True,), KeyError)])
def test_slice_bad_keys(keys, error):
    with pytest.raises(error):
        Table().slice[:, keys]


def test_slice_with_three_items_is_an_error():
    with pytest.raises(IndexError, match=r'\[indices, keys\]'):
        Table().slice[:, 'a', 'b']


# ---------------------------------------------------------------- concat

@pytest.mark.parametrize('indices', [
    None, slice(None), slice(2, 9), slice(1, None, 3), slice(None, None, -1),
    slice(8, 2, -2), slice(9, 0, -4), slice(9, 0, -5), slice(0, 10, 4), slice(6, 7),
    [0, 7, 3, 8, 8], [7, 6], [], slice(3, 3)])
@pytest.mark.parametrize('as_array', [False, True])
def test_concat_rows_match_numpy(indices, as_array):
    a, b = Table(size=6, as_array=as_array), Table(size=4, seed=1, as_array=as_array)
    view = a.concat(b)
    assert len(view) == 10 and view.keys == a.keys and view.mode is tuple
    data = np.hstack((a.data, b.data))
    expected = data if indices is None else data[:, indices]
    out = view.get_examples(indices, None)
    assert len(out) == 3
    np.testing.assert_array_equal(np.reshape(columns(out), expected.shape), expected)


def test_concat_splits_requests_per_dataset():
    a, b = Table(size=10), Table(size=5)
    view = a.concat(b)
    view.get_examples(slice(13, 6, -2), None)
    assert a.requests[-1] == (slice(9, 6, -2), None)
    assert b.requests[-1] == (slice(3, None, -2), None)
    view.get_examples(slice(13, 2, -5), None)      # row 13 from b; rows 8, 3 from a
    assert a.requests[-1] == (slice(8, 2, -5), None)
    assert b.requests[-1] == (slice(3, None, -5), None)
    view.get_examples([3, 12, 4], (0,))
    assert a.requests[-1] == ([3, 4], (0,)) and b.requests[-1] == ([2], (0,))
    n_a, n_b = len(a.requests), len(b.requests)
    out = view.get_examples(slice(0, 4), None)     # only a is read, its answer kept as is
    assert len(b.requests) == n_b and len(a.requests) == n_a + 1 and out[0] == a.fetch()[0][:4]
    assert view.get_examples([], (1, 2)) == ([], [])


def test_concat_three_and_empty_datasets():
    parts = [Table(size=2), Table(size=0, seed=1), Table(size=3, seed=2)]
    view = parts[0].concat(*parts[1:])
    data = np.hstack([p.data for p in parts])
    np.testing.assert_array_equal(columns(view.get_examples([4, 0, 2], None)), data[:, [4, 0, 2]])
    np.testing.assert_array_equal(columns(view.fetch()), data)


def test_concat_errors():
    with pytest.raises(ValueError, match='same keys'):
        Table().concat(Table(keys=('a', 'c', 'b')))
    with pytest.raises(ValueError, match='same keys'):
        Table().concat(Table(keys=('a', 'b')))
    with pytest.raises(IndexError, match='out of bounds'):
        Table().concat(Table()).get_examples([12], None)


# ---------------------------------------------------------------- join

@pytest.mark.parametrize('key_indices', [None, (0, 4, 1), (4, 3), (2,), (3, 3), ()])
def test_join_routes_columns(key_indices):
    a, b = Table(), Table(keys=('d', 'e'), mode=dict, seed=1)
    view = a.join(b)
    assert view.keys == ('a', 'b', 'c', 'd', 'e') and view.mode is tuple and len(view) == 6
    data = np.vstack((a.data, b.data))
    out = view.get_examples([1, 2], key_indices)
    expected = data[:, [1, 2]] if key_indices is None else data[list(key_indices)][:, [1, 2]]
    np.testing.assert_array_equal(np.reshape(columns(out), expected.shape), expected)
    if key_indices == (3, 3):
        assert b.requests[-1] == ([1, 2], (0,)) and a.requests == []


def test_join_mode_rules():
    single = Table(keys=('x',), mode=None)
    assert single.join(Table(keys=('y',), mode=None)).mode is tuple
    assert single.join(Table(mode=dict)).mode is dict
    assert Table(mode=dict).join(Table(keys=('y',))).mode is dict


def test_join_errors():
    with pytest.raises(ValueError, match='same length'):
        Table().join(Table(size=5, keys=('d',)))
    with pytest.raises(ValueError, match=r"\['a'\]"):
        Table().join(Table(keys=('a', 'd')))


# ---------------------------------------------------------------- transform

@pytest.mark.parametrize('in_mode', [tuple, dict, None])
@pytest.mark.parametrize('out_mode', [tuple, dict, None])
@pytest.mark.parametrize('batch', [False, True])
def test_transform_modes(in_mode, out_mode, batch):
    keys = ('a',) if in_mode is None else ('a', 'b', 'c')
    t = Table(keys=keys, mode=in_mode, as_array=True)
    seen = []

    def f(*args, **kwargs):
        seen.append((len(args), sorted(kwargs)))
        vals = args if in_mode is not dict else [kwargs[k] for k in keys]
        s = sum(vals)
        if out_mode is tuple:
            return s, s * 2
        if out_mode is dict:
            return {'y': s * 2, 'x': s}
        return s

    out_keys = 'x' if out_mode is None else ('x', 'y')
    view = (t.transform_batch if batch else t.transform)(out_keys, f)
    assert view.keys == (('x',) if out_mode is None else ('x', 'y')) and len(view) == 6
    assert view.mode is out_mode
    assert seen[0] == ((0, list(keys)) if in_mode is dict else (len(keys), []))
    total = t.data.sum(axis=0)
    out = view.get_examples([4, 1], None)
    np.testing.assert_allclose(out[0], total[[4, 1]])
    assert isinstance(out[0], np.ndarray if batch else list)
    if out_mode is not None:
        np.testing.assert_allclose(view.get_examples(slice(None, 2), (1,))[0], 2 * total[:2])


def test_transform_reads_all_source_columns_once_per_request():
    t = Table()
    view = t.transform(('s',), lambda a, b, c: (a + b + c,))
    view.slice[:, 's'].fetch()
    assert t.requests[-1] == (slice(None), None)


@pytest.mark.parametrize('batch', [False, True])
def test_transform_return_type_must_not_change(batch):
    calls = itertools.count()

    def f(a, b, c):
        return (a,) if next(calls) == 0 else {'a': a}

    view = (Table().transform_batch if batch else Table().transform)(('a',), f)
    view.get_examples([0], None)
    with pytest.raises(ValueError, match='must not change its return type'):
        view.get_examples([0], None)


def test_transform_batch_must_keep_length_and_dict_needs_keys():
    view = Table().transform_batch('a', lambda a, b, c: a + [0.0])
    with pytest.raises(ValueError, match='length'):
        view.fetch()
    view = Table().transform(('a', 'b'), lambda a, b, c: {'a': a})
    with pytest.raises(KeyError, match="'b'"):
        view.fetch()
    with pytest.raises(TypeError, match='callable'):
        Table().transform('a', 3)


def test_transform_mode_of_empty_dataset_and_converter_passthrough():
    assert Table(size=0).transform('x', lambda a, b, c: a).mode is tuple
    base = Table().with_converter(lambda d, e: ('converted', len(d)))
    view = base.transform(('d', 'e'), lambda a, b, c: (a, b))
    assert view.convert(view.fetch()) == ('converted', 6)


# ---------------------------------------------------------------- with_converter

@pytest.mark.parametrize('mode', [tuple, dict, None])
def test_with_converter(mode):
    keys = ('a',) if mode is None else ('a', 'b', 'c')
    t = Table(keys=keys, mode=mode)
    got = []
    view = t.with_converter(lambda *args, **kwargs: got.append((args, kwargs)) or 'ok')
    assert (view.keys, view.mode, len(view)) == (t.keys, t.mode, len(t))
    assert view.get_examples([1], None) == t.get_examples([1], None)
    assert view.convert(view.fetch()) == 'ok'
    args, kwargs = got[0]
    if mode is dict:
        assert args == () and sorted(kwargs) == ['a', 'b', 'c']
    else:
        assert kwargs == {} and len(args) == len(keys)
    # slices, concat and join keep the (first) converter
    assert view.slice[:2].convert(None) == 'ok'
    assert view.concat(t).convert(()) == 'ok'
    with pytest.raises(TypeError, match='callable'):
        t.with_converter(None)


# ---------------------------------------------------------------- from_data

def test_from_data_documented_forms():
    ds = tabular.from_data([0, 1, 2])
    assert ds.mode is None and len(ds.keys) == 1 and ds[2] == 2
    ds = tabular.from_data(([0, 1, 2], np.array([3, 4, 5])))
    assert ds.mode is tuple and ds[0] == (0, 3)
    ds = tabular.from_data((('a', [0, 1, 2]), ('b', [3, 4, 5])))
    assert ds.keys == ('a', 'b') and ds[1] == (1, 4)
    ds = tabular.from_data({'a': [0, 1, 2], 'b': [3, 4, 5]})
    assert ds.mode is dict and ds[2] == {'a': 2, 'b': 5}
    ds = tabular.from_data(('sq', lambda i: i * i), size=10)
    assert ds.keys == ('sq',) and ds.mode is None and ds[5] == 25 and len(ds) == 10
    ds = tabular.from_data((('x', np.arange(4)), (('y', 'z'), lambda i: (i + 1, -i))))
    assert ds.keys == ('x', 'y', 'z') and ds[3] == (3, 4, -3)
    assert ds.slice[1:3, 'z'].fetch() == [-1, -2]


def test_from_data_argument_forms():
    ds = tabular.from_data(np.arange(5), ('b', list('abcde')))
    assert ds.mode is tuple and ds.keys[1] == 'b' and ds[4][1] == 'e'
    out = ds.slice[[1, 3]].fetch()
    assert isinstance(out[0], np.ndarray) and out[1] == ['b', 'd']
    assert tabular.from_data(a=np.arange(3)).mode is None
    ds = tabular.from_data(a=[1, 2], b=np.array([3, 4]))
    assert ds.mode is dict and ds[1] == {'a': 2, 'b': 4}


def test_from_data_unnamed_columns_get_unique_keys():
    a = tabular.from_data(np.arange(3), [1, 2, 3])
    b = tabular.from_data([4, 5, 6], np.arange(3))
    assert len(set(a.join(b).keys)) == 4


def test_from_data_errors():
    with pytest.raises(ValueError, match='needs a key'):
        tabular.from_data(lambda i: i, size=3)
    with pytest.raises(ValueError, match='size='):
        tabular.from_data(('a', lambda i: i))
    with pytest.raises(ValueError, match='same length'):
        tabular.from_data(([0, 1], [0, 1, 2]))
    with pytest.raises(TypeError, match='a list, an array or a callable'):
        tabular.from_data(('a', 'not a column'))
    with pytest.raises(TypeError, match='no data'):
        tabular.from_data()


# ---------------------------------------------------------------- DelegateDataset

@pytest.mark.parametrize('mode', [tuple, dict, None])
def test_delegate_dataset(mode):
    keys = ('a',) if mode is None else ('a', 'b', 'c')
    inner = Table(keys=keys, mode=mode).with_converter(lambda *a, **k: 'inner')
    ds = tabular.DelegateDataset(inner)
    assert isinstance(ds, TabularDataset) and ds.dataset is inner
    assert (len(ds), ds.keys, ds.mode) == (len(inner), inner.keys, inner.mode)
    assert ds[3] == inner[3]
    assert ds.convert(ds.fetch()) == 'inner'


def test_subclassing_delegate_dataset():
    class Squares(tabular.DelegateDataset):
        def __init__(self, n):
            super().__init__(tabular.from_data((('x', list(range(n))),
                                                ('y', lambda i: i * i))))

    ds = Squares(4)
    assert ds.keys == ('x', 'y') and list(ds) == [(0, 0), (1, 1), (2, 4), (3, 9)]
    x, y = ds.convert(ds.fetch())
    np.testing.assert_array_equal(y, [0, 1, 4, 9])
