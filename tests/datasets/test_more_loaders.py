"""PTB words, SVHN and Kuzushiji-MNIST loaders on tiny files in the original formats,
served from ``file://`` mirrors (no internet)."""
import gzip
import struct

import numpy as np
import pytest

from chainlet.datasets import (TupleDataset, get_kuzushiji_mnist, get_kuzushiji_mnist_labels,
                               get_ptb_words, get_ptb_words_vocabulary, get_svhn)
from chainlet.datasets import fashion_mnist, mnist


@pytest.fixture
def root(tmp_path, monkeypatch):
    cache = tmp_path / 'cache'
    monkeypatch.setenv('CHAINLET_DATASET_ROOT', str(cache))
    return cache


def test_ptb_words_and_vocabulary(root, tmp_path, monkeypatch):
    src = tmp_path / 'ptb'
    src.mkdir()
    (src / 'ptb.train.txt').write_text(' the cat sat \n the dog <unk> \n')
    (src / 'ptb.valid.txt').write_text(' the dog sat \n')
    (src / 'ptb.test.txt').write_text(' cat \n\n')
    monkeypatch.setenv('CHAINLET_PTB_URL', src.as_uri())
    vocab = get_ptb_words_vocabulary()
    assert vocab == {'the': 0, 'cat': 1, 'sat': 2, '<eos>': 3, 'dog': 4, '<unk>': 5}
    train, valid, test = get_ptb_words()
    assert train.dtype == np.int32
    assert train.tolist() == [0, 1, 2, 3, 0, 4, 5, 3]
    assert valid.tolist() == [0, 4, 2, 3]
    assert test.tolist() == [1, 3, 3]  # an empty line is an empty sentence
    assert (root / 'ptb' / 'vocab.txt').read_text().split('\n')[:2] == ['the', 'cat']
    (src / 'ptb.train.txt').write_text('changed\n')  # the caches are used from now on
    assert get_ptb_words_vocabulary() == vocab
    assert get_ptb_words()[0].tolist() == train.tolist()


def test_ptb_word_missing_from_the_vocabulary(root, tmp_path, monkeypatch):
    src = tmp_path / 'ptb'
    src.mkdir()
    (src / 'ptb.train.txt').write_text('a b\n')
    (src / 'ptb.valid.txt').write_text('c\n')
    (src / 'ptb.test.txt').write_text('a\n')
    monkeypatch.setenv('CHAINLET_PTB_URL', src.as_uri())
    with pytest.raises(ValueError, match="ptb.valid.txt has the word 'c'"):
        get_ptb_words()


def test_svhn(root, tmp_path, monkeypatch):
    scipy_io = pytest.importorskip('scipy.io')
    src = tmp_path / 'svhn'
    src.mkdir()
    rng = np.random.RandomState(0)
    raw = {}
    for split, n in (('train', 3), ('test', 2), ('extra', 1)):
        x = rng.randint(0, 256, (32, 32, 3, n)).astype(np.uint8)   # MATLAB's H, W, C, N
        y = np.array([[10], [3], [1]][:n], dtype=np.uint8)          # 10 stands for digit 0
        scipy_io.savemat(str(src / f'{split}_32x32.mat'), {'X': x, 'y': y})
        raw[split] = (x, y)
    monkeypatch.setenv('CHAINLET_SVHN_URL', src.as_uri())
    train, test = get_svhn()
    assert isinstance(train, TupleDataset) and len(train) == 3 and len(test) == 2
    x, t = train[0]
    assert x.shape == (3, 32, 32) and x.dtype == np.float32
    np.testing.assert_allclose(x, raw['train'][0][:, :, :, 0].transpose(2, 0, 1) / 255.,
                               rtol=1e-6)
    assert [int(train[i][1]) for i in range(3)] == [0, 3, 1]
    images, _, extra = get_svhn(withlabel=False, scale=2., dtype=np.float64, add_extra=True)
    assert images.dtype == np.float64 and images.shape == (3, 3, 32, 32)
    assert float(images.max()) <= 2.0 and extra.shape == (1, 3, 32, 32)


def _idx(array):
    header = bytes([0, 0, 0x08, array.ndim]) + b''.join(struct.pack('>I', d)
                                                        for d in array.shape)
    return gzip.compress(header + array.tobytes())


def test_kuzushiji_mnist(root, tmp_path, monkeypatch):
    src = tmp_path / 'kmnist'
    src.mkdir()
    rng = np.random.RandomState(0)
    for prefix, n in (('train', 4), ('t10k', 2)):
        (src / f'{prefix}-images-idx3-ubyte.gz').write_bytes(
            _idx(rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)))
        (src / f'{prefix}-labels-idx1-ubyte.gz').write_bytes(
            _idx(np.arange(n, dtype=np.uint8)))
    monkeypatch.setenv('CHAINLET_KUZUSHIJI_MNIST_URL', src.as_uri())
    train, test = get_kuzushiji_mnist(ndim=3, rgb_format=True)
    assert len(train) == 4 and len(test) == 2
    x, t = train[3]
    assert x.shape == (3, 28, 28) and int(t) == 3
    assert (root / 'kuzushiji-mnist' / 'train.npz').exists()
    with pytest.raises(ValueError, match='ndim'):
        get_kuzushiji_mnist(ndim=4)
    labels = get_kuzushiji_mnist_labels()
    assert len(labels) == 10 and labels[0] == ('o', '\u304a') and labels[9][0] == 'wo'


def test_fashion_mnist_module_path():
    assert fashion_mnist.get_fashion_mnist is mnist.get_fashion_mnist
    assert fashion_mnist.get_fashion_mnist_labels is mnist.get_fashion_mnist_labels
