"""MNIST / Fashion-MNIST / CIFAR loaders on tiny files in the original formats, served locally.

The tests generate IDX gzip files and a CIFAR ``tar.gz`` of pickled batches, serve them from
a loopback HTTP server (or a ``file://`` URL) and patch the checksum tables with their
digests, so the real download, verification, parsing and caching code runs without internet.
"""
import contextlib
import gzip
import hashlib
import http.server
import io
import os
import pathlib
import pickle
import struct
import tarfile
import threading

import numpy as np
import pytest

import chainlet
from chainlet.dataset import ChecksumMismatchError, download
from chainlet.datasets import (TupleDataset, get_cifar10, get_cifar100, get_fashion_mnist,
                               get_mnist)
from chainlet.datasets import cifar, mnist

MNIST_NAMES = {'train': ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),
               'test': ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')}


def idx_bytes(array):
    header = bytes([0, 0, 0x08, array.ndim]) + b''.join(struct.pack('>I', d)
                                                        for d in array.shape)
    return gzip.compress(header + array.astype(np.uint8).tobytes())


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def make_mnist(folder, n_train=5, n_test=3, seed=0):
    """Write tiny MNIST-format files; return {name: bytes} and the arrays."""
    rng = np.random.RandomState(seed)
    arrays = {}
    files = {}
    for split, n in (('train', n_train), ('test', n_test)):
        x = rng.randint(0, 256, size=(n, 28, 28)).astype(np.uint8)
        x[0, 0, 0] = 255
        y = rng.randint(0, 10, size=n).astype(np.uint8)
        arrays[split] = (x, y)
        image_name, label_name = MNIST_NAMES[split]
        files[image_name] = idx_bytes(x)
        files[label_name] = idx_bytes(y)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files, arrays


def cifar_tar(folder, n_per_batch=2, seed=0, name='cifar-10-python.tar.gz'):
    rng = np.random.RandomState(seed)
    members = {}
    xs, ys = [], []
    for member in [f'cifar-10-batches-py/data_batch_{i}' for i in range(1, 6)] + \
            ['cifar-10-batches-py/test_batch']:
        x = rng.randint(0, 256, size=(n_per_batch, 3072)).astype(np.uint8)
        y = rng.randint(0, 10, size=n_per_batch).tolist()
        # protocol 2 and latin-1 friendly keys, like the Python 2 originals
        payload = pickle.dumps({'batch_label': 'b', 'data': x, 'labels': y,
                                'filenames': ['f'] * n_per_batch}, protocol=2)
        # the original files were written with NumPy 1 (numpy.core), keep one like that
        members[member] = payload.replace(b'numpy._core.', b'numpy.core.') \
            if member.endswith('_1') else payload
        xs.append(x)
        ys.append(y)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode='w:gz') as tar:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = buffer.getvalue()
    (folder / name).write_bytes(data)
    return data, (np.concatenate(xs[:5]), np.concatenate(ys[:5])), (xs[5], np.array(ys[5]))


@contextlib.contextmanager
def serve(folder):
    """Serve ``folder`` on 127.0.0.1; yields the base URL and a list of requested paths."""
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(folder), **kwargs)

        def do_GET(self):
            requests.append(self.path)
            super().do_GET()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.server_address[1]}/', requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def root(tmp_path, monkeypatch):
    cache = tmp_path / 'cache'
    monkeypatch.setenv('CHAINLET_DATASET_ROOT', str(cache))
    return cache


@pytest.fixture
def mnist_files(tmp_path, monkeypatch):
    src = tmp_path / 'mirror'
    src.mkdir()
    files, arrays = make_mnist(src)
    for name, data in files.items():
        monkeypatch.setitem(mnist.MNIST_SHA256, name, sha256(data))
    return src, files, arrays


def test_mnist_download_parse_cache(root, mnist_files, monkeypatch):
    src, files, arrays = mnist_files
    with serve(src) as (url, requests):
        monkeypatch.setenv('CHAINLET_MNIST_URL', url)
        train, test = get_mnist()
        assert sorted(requests) == sorted('/' + n for n in files)
    assert isinstance(train, TupleDataset) and (len(train), len(test)) == (5, 3)
    x, t = train[0]
    assert x.shape == (784,) and x.dtype == np.float32 and t.dtype == np.int32
    np.testing.assert_allclose(x, arrays['train'][0][0].reshape(-1) / 255., rtol=1e-6)
    assert x.max() == 1.0
    assert [int(t) for _, t in test[:]] == arrays['test'][1].tolist()
    folder = root / 'mnist'
    assert sorted(os.listdir(folder)) == sorted(list(files) + ['test.npz', 'train.npz'])

    # the server is gone: a second call reads the cache
    train2, _ = get_mnist(ndim=3, scale=2.0, dtype=np.float64)
    x2, _ = train2[0]
    assert x2.shape == (1, 28, 28) and x2.dtype == np.float64 and x2.max() == 2.0
    np.testing.assert_allclose(x2.reshape(-1), x * 2, rtol=1e-6)


def test_mnist_conventions_from_file_url(root, mnist_files, monkeypatch):
    src, _, arrays = mnist_files
    monkeypatch.setenv('CHAINLET_MNIST_URL', src.as_uri())
    images, test_images = get_mnist(withlabel=False, ndim=2)
    assert isinstance(images, np.ndarray) and images.shape == (5, 28, 28)
    assert test_images.shape == (3, 28, 28)
    rgb, _ = get_mnist(ndim=3, rgb_format=True, label_dtype=np.int64)
    x, t = rgb[1]
    assert x.shape == (3, 28, 28) and t.dtype == np.int64
    np.testing.assert_array_equal(x[0], x[2])
    with chainlet.using_config('dtype', np.float16):
        half, _ = get_mnist(withlabel=False)
    assert half.dtype == np.float16
    with pytest.raises(ValueError, match='ndim'):
        get_mnist(ndim=4)
    with pytest.raises(ValueError, match='rgb_format'):
        get_mnist(ndim=1, rgb_format=True)
    with pytest.raises(TypeError, match='floating'):
        get_mnist(dtype=np.int32)


def test_checksum_mismatch_deletes_the_download(root, mnist_files, monkeypatch):
    src, _, _ = mnist_files
    monkeypatch.setitem(mnist.MNIST_SHA256, 'train-images-idx3-ubyte.gz', '0' * 64)
    monkeypatch.setenv('CHAINLET_MNIST_URL', src.as_uri())
    with pytest.raises(ChecksumMismatchError, match='train-images-idx3-ubyte.gz.*SHA-256'):
        get_mnist()
    folder = root / 'mnist'
    assert 'train-images-idx3-ubyte.gz' not in os.listdir(folder)
    assert not [n for n in os.listdir(folder) if n.startswith('.') or n.endswith('.npz')]


def test_corrupted_gzip_names_the_file(root, mnist_files, monkeypatch):
    src, _, _ = mnist_files
    bad = b'this is not gzip'
    (src / 'train-labels-idx1-ubyte.gz').write_bytes(bad)
    monkeypatch.setitem(mnist.MNIST_SHA256, 'train-labels-idx1-ubyte.gz', sha256(bad))
    monkeypatch.setenv('CHAINLET_MNIST_URL', src.as_uri())
    with pytest.raises(ValueError, match='train-labels-idx1-ubyte.gz.*gzip'):
        get_mnist()
    assert not (root / 'mnist' / 'train.npz').exists()


def test_wrong_idx_header_and_count_mismatch(root, tmp_path, monkeypatch):
    src = tmp_path / 'm'
    src.mkdir()
    files, _ = make_mnist(src)
    files['train-labels-idx1-ubyte.gz'] = idx_bytes(np.zeros(4))  # 4 labels for 5 images
    (src / 'train-labels-idx1-ubyte.gz').write_bytes(files['train-labels-idx1-ubyte.gz'])
    truncated = gzip.compress(gzip.decompress(files['t10k-images-idx3-ubyte.gz'])[:-1])
    (src / 't10k-images-idx3-ubyte.gz').write_bytes(truncated)
    files['t10k-images-idx3-ubyte.gz'] = truncated
    for name, data in files.items():
        monkeypatch.setitem(mnist.MNIST_SHA256, name, sha256(data))
    monkeypatch.setenv('CHAINLET_MNIST_URL', src.as_uri())
    with pytest.raises(ValueError, match='5 images but .* 4 labels'):
        get_mnist()
    (src / 'train-labels-idx1-ubyte.gz').write_bytes(idx_bytes(np.zeros(5)))
    monkeypatch.setitem(mnist.MNIST_SHA256, 'train-labels-idx1-ubyte.gz',
                        sha256(idx_bytes(np.zeros(5))))
    os.remove(root / 'mnist' / 'train-labels-idx1-ubyte.gz')
    with pytest.raises(ValueError, match='t10k-images-idx3-ubyte.gz.*announces'):
        get_mnist()


def test_unreachable_mirror_is_an_oserror(root, monkeypatch, tmp_path):
    monkeypatch.setenv('CHAINLET_MNIST_URL', (tmp_path / 'nowhere').as_uri())
    with pytest.raises(OSError, match='get_mnist: could not download'):
        get_mnist()


def test_fashion_mnist_uses_its_own_folder_and_table(root, tmp_path, monkeypatch):
    src = tmp_path / 'f'
    src.mkdir()
    files, arrays = make_mnist(src, n_train=4, n_test=2, seed=1)
    for name, data in files.items():
        monkeypatch.setitem(mnist.FASHION_MNIST_SHA256, name, sha256(data))
    monkeypatch.setenv('CHAINLET_FASHION_MNIST_URL', src.as_uri())
    train, test = get_fashion_mnist(ndim=2)
    assert (len(train), len(test)) == (4, 2) and train[0][0].shape == (28, 28)
    assert (root / 'fashion-mnist' / 'train.npz').exists()
    assert [int(t) for _, t in train[:]] == arrays['train'][1].tolist()


def test_cifar10_download_parse_cache(root, tmp_path, monkeypatch):
    src = tmp_path / 'c'
    src.mkdir()
    data, (train_x, train_y), (test_x, test_y) = cifar_tar(src)
    monkeypatch.setitem(cifar.CIFAR10_SHA256, 'cifar-10-python.tar.gz', sha256(data))
    with serve(src) as (url, requests):
        monkeypatch.setenv('CHAINLET_CIFAR10_URL', url)
        train, test = get_cifar10()
        assert requests == ['/cifar-10-python.tar.gz']
    assert (len(train), len(test)) == (10, 2)
    x, t = train[3]
    assert x.shape == (3, 32, 32) and x.dtype == np.float32 and t.dtype == np.int32
    np.testing.assert_allclose(x.reshape(-1), train_x[3] / 255., rtol=1e-6)
    assert [int(t) for _, t in train[:]] == train_y.tolist()
    # from the cache, with the server gone
    flat, flat_test = get_cifar10(withlabel=False, ndim=1, scale=255.)
    assert flat.shape == (10, 3072) and flat_test.shape == (2, 3072)
    np.testing.assert_allclose(flat_test, test_x, rtol=1e-6)
    with pytest.raises(ValueError, match='ndim'):
        get_cifar10(ndim=2)


def test_cifar_missing_member_and_bad_archive(root, tmp_path, monkeypatch):
    src = tmp_path / 'c'
    src.mkdir()
    data, _, _ = cifar_tar(src, name='cifar-100-python.tar.gz')  # CIFAR-10 member names
    monkeypatch.setitem(cifar.CIFAR100_SHA256, 'cifar-100-python.tar.gz', sha256(data))
    monkeypatch.setenv('CHAINLET_CIFAR100_URL', src.as_uri())
    with pytest.raises(ValueError, match='cifar-100-python.tar.gz.*cifar-100-python/train'):
        get_cifar100()
    bad = b'\x1f\x8b not really'
    (src / 'cifar-10-python.tar.gz').write_bytes(bad)
    monkeypatch.setitem(cifar.CIFAR10_SHA256, 'cifar-10-python.tar.gz', sha256(bad))
    monkeypatch.setenv('CHAINLET_CIFAR10_URL', src.as_uri())
    with pytest.raises(ValueError, match='cifar-10-python.tar.gz'):
        get_cifar10()


def test_cifar_pickle_may_not_run_code(root, tmp_path, monkeypatch):
    class Evil:
        def __reduce__(self):
            return (os.system, ('echo pwned',))

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode='w:gz') as tar:
        for member in ['cifar-10-batches-py/data_batch_1']:
            payload = pickle.dumps({'data': Evil(), 'labels': []})
            info = tarfile.TarInfo(member)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    src = tmp_path / 'e'
    src.mkdir()
    (src / 'cifar-10-python.tar.gz').write_bytes(buffer.getvalue())
    monkeypatch.setitem(cifar.CIFAR10_SHA256, 'cifar-10-python.tar.gz',
                        sha256(buffer.getvalue()))
    monkeypatch.setenv('CHAINLET_CIFAR10_URL', src.as_uri())
    with pytest.raises(ValueError, match='not allowed'):
        get_cifar10()


def test_download_helpers(tmp_path, monkeypatch):
    monkeypatch.setenv('CHAINLET_DATASET_ROOT', str(tmp_path / 'r'))
    assert download.get_dataset_root() == str(tmp_path / 'r')
    download.set_dataset_root(tmp_path / 'other')
    try:
        assert download.get_dataset_directory('x') == str(tmp_path / 'other' / 'x')
        assert (tmp_path / 'other' / 'x').is_dir()
    finally:
        download.set_dataset_root(None)
    monkeypatch.delenv('CHAINLET_DATASET_ROOT')
    assert download.get_dataset_root().endswith(os.path.join('.chainlet', 'dataset'))
    src = tmp_path / 'a.bin'
    src.write_bytes(b'abc')
    target = tmp_path / 'dl' / 'a.bin'
    download.download_file(src.as_uri(), str(target), sha256(b'abc'))
    assert target.read_bytes() == b'abc' and download.file_sha256(str(target)) == sha256(b'abc')
    # a failing creator leaves nothing behind
    path = tmp_path / 'dl' / 'c.npz'

    def broken(p):
        pathlib.Path(p).write_bytes(b'partial')
        raise RuntimeError('interrupted')

    with pytest.raises(RuntimeError, match='interrupted'):
        download.cache_or_load_file(str(path), broken, np.load)
    assert sorted(os.listdir(tmp_path / 'dl')) == ['a.bin']


def test_downloads_and_caches_use_the_shared_atomic_write(tmp_path):
    # A killed download or conversion leaves a temporary file that no cleanup code removed;
    # the next write of the same target removes it (the writer's pid no longer runs), as every
    # other save path of chainlet does.
    import subprocess
    import sys
    from chainlet import _atomic
    dead = subprocess.run([sys.executable, '-c', 'import os; print(os.getpid())'],
                          capture_output=True, text=True, check=True)
    pid = int(dead.stdout)
    folder = tmp_path / 'dl'
    folder.mkdir()
    host = _atomic._host_tag()
    stale_dl = folder / f'.a.bin.{host}-{pid}.0123456789ab.tmp'
    stale_npz = folder / f'.c.npz.{host}-{pid}.0123456789ab.tmp.npz'
    stale_dl.write_bytes(b'x' * 1000)
    stale_npz.write_bytes(b'y' * 1000)
    src = tmp_path / 'a.bin'
    src.write_bytes(b'abc')
    download.download_file(src.as_uri(), str(folder / 'a.bin'), sha256(b'abc'))

    seen = []

    def create(p):  # numpy.savez appends '.npz' to a name without it: the temp keeps it
        seen.append(p)
        np.savez(p, x=np.arange(3))
        return 'created'

    assert download.cache_or_load_file(str(folder / 'c.npz'), create, np.load) == 'created'
    assert seen[0].endswith('.npz') and _atomic.is_temp_name(os.path.basename(seen[0]))
    assert sorted(os.listdir(folder)) == ['a.bin', 'c.npz']
    with np.load(folder / 'c.npz') as f:
        assert f['x'].tolist() == [0, 1, 2]
