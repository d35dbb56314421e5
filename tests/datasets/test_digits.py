"""get_digits: scikit-learn's bundled 8x8 digits as (train, test)."""
import numpy as np
import pytest

import chainlet
from chainlet.datasets import TupleDataset, get_digits

pytest.importorskip('sklearn')


def test_shapes_ranges_and_split():
    train, test = get_digits()
    assert isinstance(train, TupleDataset) and (len(train), len(test)) == (1438, 359)
    x, t = train[0]
    assert x.shape == (64,) and x.dtype == np.float32 and t.dtype == np.int32
    xs = np.stack([e[0] for e in train[:]])
    assert xs.min() == 0.0 and xs.max() == 1.0
    labels = [int(t) for _, t in train[:]] + [int(t) for _, t in test[:]]
    assert sorted(set(labels)) == list(range(10))
    # train and test are disjoint and cover the 1797 images
    from sklearn.datasets import load_digits
    raw = load_digits().data / 16.0
    all_x = np.concatenate([xs, np.stack([e[0] for e in test[:]])])
    assert sorted(map(tuple, all_x.round(4))) == sorted(map(tuple, raw.round(4)))


def test_ndim_scale_dtype_withlabel_seed():
    train, test = get_digits(withlabel=False, ndim=3, scale=16.0, dtype=np.float64)
    assert train.shape == (1438, 1, 8, 8) and train.dtype == np.float64
    assert train.max() == 16.0 and np.all(train == np.round(train))
    assert get_digits(withlabel=False, ndim=2)[0].shape == (1438, 8, 8)
    a, _ = get_digits(withlabel=False, seed=0)
    b, _ = get_digits(withlabel=False, seed=0)
    c, _ = get_digits(withlabel=False, seed=1)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    small_train, small_test = get_digits(test_ratio=0.5)
    assert (len(small_train), len(small_test)) == (899, 898)  # round(898.5) == 898
    with chainlet.using_config('dtype', np.float16):
        assert get_digits(withlabel=False)[0].dtype == np.float16


@pytest.mark.parametrize('kwargs', [{'ndim': 4}, {'test_ratio': 0}, {'test_ratio': 1.5}])
def test_errors(kwargs):
    with pytest.raises(ValueError, match='get_digits'):
        get_digits(**kwargs)


def test_missing_sklearn_message(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith('sklearn'):
            raise ImportError('no sklearn')
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, '__import__', fake_import)
    with pytest.raises(ImportError, match=r'pip install "chainlet-dl\[examples\]"'):
        get_digits()
