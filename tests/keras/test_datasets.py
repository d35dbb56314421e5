"""keras.datasets offline: every loader reads small files the test writes in Keras's format,
served from a ``file://`` origin into a temporary ``KERAS_HOME``; caching, checksums, the
offline message and the restricted unpickler."""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import pathlib
import pickle
import tarfile

import numpy as np
import pytest

from chainlet.dataset.download import ChecksumMismatchError
from chainlet.keras import datasets
from chainlet.keras.datasets import _files


@pytest.fixture
def origin(tmp_path, monkeypatch):
    """An origin folder served as file://, a fresh KERAS_HOME, and a ``publish(name, bytes)``
    that puts a file at the origin and records its digest."""
    src = tmp_path / 'origin'
    src.mkdir()
    monkeypatch.setenv('KERAS_HOME', str(tmp_path / 'home'))
    monkeypatch.setattr(_files, 'ORIGIN_FOLDER', src.as_uri() + '/')
    monkeypatch.setattr(_files, 'CIFAR_ORIGIN_FOLDER', src.as_uri() + '/')
    hashes = dict(_files.HASHES)
    monkeypatch.setattr(_files, 'HASHES', hashes)

    def publish(name: str, data: bytes, md5: bool = False) -> None:
        (src / name).write_bytes(data)
        algorithm = hashlib.md5 if md5 else hashlib.sha256
        hashes[name] = algorithm(data).hexdigest()
    publish.src = src
    publish.home = tmp_path / 'home'
    return publish


def _npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _objects(lists):
    out = np.empty(len(lists), dtype=object)
    for i, x in enumerate(lists):
        out[i] = x
    return out


def test_mnist_load_cache_and_keras_home(origin):
    rng = np.random.default_rng(0)
    arrays = dict(x_train=rng.integers(0, 256, (5, 28, 28), dtype=np.uint8),
                  y_train=np.arange(5, dtype=np.uint8),
                  x_test=rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
                  y_test=np.array([7, 1], np.uint8))
    origin('mnist.npz', _npz(**arrays))
    (x_train, y_train), (x_test, y_test) = datasets.mnist.load_data()
    np.testing.assert_array_equal(x_train, arrays['x_train'])
    np.testing.assert_array_equal(y_test, [7, 1])
    assert x_train.dtype == np.uint8 and x_test.shape == (2, 28, 28)
    assert (origin.home / 'datasets' / 'mnist.npz').exists()
    (origin.src / 'mnist.npz').unlink()  # the cached copy is used from now on
    np.testing.assert_array_equal(datasets.mnist.load_data()[0][1], np.arange(5))


def test_checksums_and_offline_message(origin):
    origin('mnist.npz', _npz(x_train=np.zeros(1), y_train=np.zeros(1), x_test=np.zeros(1),
                             y_test=np.zeros(1)))
    _files.HASHES['mnist.npz'] = '0' * 64
    with pytest.raises(ChecksumMismatchError):
        datasets.mnist.load_data()
    assert not (origin.home / 'datasets' / 'mnist.npz').exists()
    (origin.src / 'mnist.npz').unlink()
    with pytest.raises(OSError, match=r'cannot download .*put the file at .*mnist\.npz'):
        datasets.mnist.load_data()
    # a damaged cached file is downloaded again
    data = _npz(x_train=np.ones(2), y_train=np.ones(2), x_test=np.ones(1), y_test=np.ones(1))
    origin('mnist.npz', data)
    cached = origin.home / 'datasets' / 'mnist.npz'
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(b'garbage')
    assert datasets.mnist.load_data()[0][0].tolist() == [1.0, 1.0]
    assert cached.read_bytes() == data


def test_md5_digest_of_word_index(origin):
    index = {'the': 1, 'movie': 2}
    origin('imdb_word_index.json', json.dumps(index).encode(), md5=True)
    assert datasets.imdb.get_word_index() == index
    origin('reuters_word_index.json', b'{"oil": 1}', md5=True)
    _files.HASHES['reuters_word_index.json'] = 'f' * 32
    with pytest.raises(ChecksumMismatchError, match='MD5'):
        datasets.reuters.get_word_index()
    assert not (origin.home / 'datasets' / 'reuters_word_index.json').exists()
    assert not [p for p in (origin.home / 'datasets').iterdir() if p.name.startswith('.')]


def _idx(data: np.ndarray, header: int) -> bytes:
    return gzip.compress(b'\0' * header + data.astype(np.uint8).tobytes())


def test_fashion_mnist(origin):
    rng = np.random.default_rng(1)
    x_train = rng.integers(0, 256, (3, 28, 28))
    x_test = rng.integers(0, 256, (2, 28, 28))
    origin('train-labels-idx1-ubyte.gz', _idx(np.array([1, 2, 3]), 8))
    origin('train-images-idx3-ubyte.gz', _idx(x_train, 16))
    origin('t10k-labels-idx1-ubyte.gz', _idx(np.array([9, 0]), 8))
    origin('t10k-images-idx3-ubyte.gz', _idx(x_test, 16))
    (a, b), (c, d) = datasets.fashion_mnist.load_data()
    np.testing.assert_array_equal(a, x_train)
    np.testing.assert_array_equal(c, x_test)
    assert b.tolist() == [1, 2, 3] and d.tolist() == [9, 0] and a.dtype == np.uint8
    assert (origin.home / 'datasets' / 'fashion-mnist' / 't10k-labels-idx1-ubyte.gz').exists()


def _tar(members: dict) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w:gz') as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _batch(data, **labels) -> bytes:
    d = {b'data': data}
    d.update({k.encode(): v for k, v in labels.items()})
    return pickle.dumps(d)


def test_cifar10_layout_and_labels(origin):
    rng = np.random.default_rng(2)
    batches = [rng.integers(0, 256, (2, 3072), dtype=np.uint8) for _ in range(6)]
    members = {f'cifar-10-batches-py/data_batch_{i + 1}': _batch(batches[i], labels=[i, i + 1])
               for i in range(5)}
    members['cifar-10-batches-py/test_batch'] = _batch(batches[5], labels=[3, 4])
    origin('cifar-10-python.tar.gz', _tar(members))
    (x_train, y_train), (x_test, y_test) = datasets.cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_test.shape == (2, 32, 32, 3)
    assert y_train.shape == (10, 1) and y_train.dtype == np.uint8
    assert y_train[:, 0].tolist() == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5]
    # a row is 1024 red, 1024 green, 1024 blue values in row-major order
    row = batches[0][1]
    assert x_train[1, 3, 5].tolist() == [row[3 * 32 + 5], row[1024 + 3 * 32 + 5],
                                         row[2048 + 3 * 32 + 5]]
    assert y_test[:, 0].tolist() == [3, 4]
    assert (origin.home / 'datasets' / 'cifar-10-batches-py' / 'test_batch').exists()


def test_cifar100_label_modes(origin):
    data = np.arange(2 * 3072, dtype=np.int64).reshape(2, 3072) % 256
    members = {'cifar-100-python/train': _batch(data.astype(np.uint8), fine_labels=[5, 99],
                                                coarse_labels=[1, 19]),
               'cifar-100-python/test': _batch(data[:1].astype(np.uint8), fine_labels=[7],
                                               coarse_labels=[2])}
    origin('cifar-100-python.tar.gz', _tar(members))
    (x, y), (xt, yt) = datasets.cifar100.load_data()
    assert x.shape == (2, 32, 32, 3) and y[:, 0].tolist() == [5, 99] and yt.tolist() == [[7]]
    (_, y), _ = datasets.cifar100.load_data(label_mode='coarse')
    assert y[:, 0].tolist() == [1, 19]
    with pytest.raises(ValueError, match='label_mode'):
        datasets.cifar100.load_data(label_mode='medium')


def test_unsafe_tar_member_is_refused(origin):
    origin('cifar-10-python.tar.gz', _tar({'../evil': b'x'}))
    with pytest.raises(ValueError, match='unsafe member'):
        datasets.cifar10.load_data()
    assert not (origin.home / 'datasets' / 'cifar-10-batches-py').exists()


def _reference_encode(xs, num_words, skip_top, start_char, oov_char, index_from):
    out = []
    for x in xs:
        seq = ([] if start_char is None else [start_char]) + [w + index_from for w in x]
        out.append(seq)
    top = num_words or max(max(s) for s in out)
    if oov_char is None:
        return [[w for w in s if skip_top <= w < top] for s in out]
    return [[w if skip_top <= w < top else oov_char for w in s] for s in out]


IMDB_TRAIN = [[1, 5, 2], [7, 3], [4, 4, 4, 4], [2], [9, 8, 7, 6, 5]]
IMDB_TEST = [[3, 3], [1, 2, 3, 4, 5, 6], [8]]


@pytest.fixture
def imdb_file(origin):
    origin('imdb.npz', _npz(x_train=_objects(IMDB_TRAIN), y_train=np.array([1, 0, 1, 0, 1]),
                            x_test=_objects(IMDB_TEST), y_test=np.array([0, 1, 1])))


def _shuffled(n, rng):
    idx = np.arange(n)
    rng.shuffle(idx)
    return idx


def test_imdb_default_encoding_and_shuffle(imdb_file):
    (x_train, y_train), (x_test, y_test) = datasets.imdb.load_data()
    rng = np.random.RandomState(113)
    i_train, i_test = _shuffled(5, rng), _shuffled(3, rng)
    expected = _reference_encode([IMDB_TRAIN[i] for i in i_train] +
                                 [IMDB_TEST[i] for i in i_test], None, 0, 1, 2, 3)
    assert x_train.dtype == object and list(x_train) == expected[:5]
    assert list(x_test) == expected[5:]
    assert y_train.tolist() == [[1, 0, 1, 0, 1][i] for i in i_train]
    assert y_test.tolist() == [[0, 1, 1][i] for i in i_test]


def test_imdb_vocabulary_and_length_options(imdb_file):
    (x_train, _), (x_test, _) = datasets.imdb.load_data(num_words=8, skip_top=5, seed=0)
    for seq in list(x_train) + list(x_test):
        assert all(w == 2 or 5 <= w < 8 for w in seq[1:])
    (x_train, y_train), _ = datasets.imdb.load_data(maxlen=4)
    # the length counts start_char: only [7, 3] and [2] are shorter than 4 with it
    assert all(len(s) < 4 for s in x_train) and len(x_train) == len(y_train) == 2
    (x_train, _), _ = datasets.imdb.load_data(start_char=None, oov_char=None, index_from=0,
                                              num_words=5)
    assert all(all(w < 5 for w in s) for s in x_train)
    with pytest.raises(ValueError, match='increase maxlen'):
        datasets.imdb.load_data(maxlen=2)
    # one length for all sequences: still an object array of lists
    (x_train, _), _ = datasets.imdb.load_data(maxlen=3)
    assert x_train.ndim == 1


def test_restricted_unpickler_refuses_other_globals(origin):
    class Sneaky:
        def __reduce__(self):
            return (os.getcwd, ())
    origin('imdb.npz', _npz(x_train=_objects([Sneaky()]), y_train=np.zeros(1),
                            x_test=_objects([[1]]), y_test=np.zeros(1)))
    with pytest.raises(pickle.UnpicklingError, match='refusing to load'):
        datasets.imdb.load_data()


def test_reuters_split_and_labels(origin):
    xs = [[i % 5 + 1] * (i % 4 + 1) for i in range(10)]
    origin('reuters.npz', _npz(x=_objects(xs), y=np.arange(10)))
    (x_train, y_train), (x_test, y_test) = datasets.reuters.load_data(test_split=0.3)
    assert len(x_train) == 7 and len(x_test) == 3
    idx = _shuffled(10, np.random.RandomState(113))
    assert y_train.tolist() + y_test.tolist() == idx.tolist()
    # as in Keras, num_words defaults to the largest index, which itself becomes oov_char
    assert list(x_train[0]) == [1, 2, 2]
    (x_train, _), _ = datasets.reuters.load_data(test_split=0.3, num_words=100)
    assert list(x_train[0]) == [1] + [w + 3 for w in xs[idx[0]]]
    assert datasets.reuters.get_label_names()[3] == 'earn'
    with pytest.raises(ValueError, match='test_split'):
        datasets.reuters.load_data(test_split=1.0)


def test_housing_regressions(origin):
    x = np.arange(40, dtype=np.float64).reshape(10, 4)
    origin('boston_housing.npz', _npz(x=x, y=np.arange(10.0)))
    (x_train, y_train), (x_test, y_test) = datasets.boston_housing.load_data(test_split=0.2)
    idx = _shuffled(10, np.random.RandomState(113))
    np.testing.assert_array_equal(x_train, x[idx[:8]])
    np.testing.assert_array_equal(y_test, idx[8:])
    with pytest.raises(ValueError, match='test_split'):
        datasets.boston_housing.load_data(test_split=-0.1)
    cal = np.arange(700 * 8, dtype=np.float32).reshape(700, 8)
    origin('california_housing.npz', _npz(x=cal, y=np.arange(700, dtype=np.float32)))
    (x_train, y_train), (x_test, _) = datasets.california_housing.load_data()
    assert len(x_train) == 560 and len(x_test) == 140 and x_train.dtype == np.float32
    (x_train, y_train), (x_test, _) = datasets.california_housing.load_data(version='small',
                                                                            test_split=0.5)
    assert len(x_train) == len(x_test) == 300 and y_train.max() < 600
    with pytest.raises(ValueError, match='version'):
        datasets.california_housing.load_data(version='medium')


def test_cache_dir_default_and_fallback(monkeypatch, tmp_path):
    monkeypatch.delenv('KERAS_HOME', raising=False)
    monkeypatch.setenv('HOME', str(tmp_path))
    assert _files.cache_dir() == os.path.join(str(tmp_path), '.keras', 'datasets')
    blocked = tmp_path / 'blocked'
    blocked.write_text('a file, not a folder')
    monkeypatch.setenv('KERAS_HOME', str(blocked))
    assert pathlib.Path(_files.cache_dir()).parts[-2:] == ('.keras', 'datasets')
