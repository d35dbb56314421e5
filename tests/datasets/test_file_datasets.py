"""Datasets read from files: images (paths, labels, zip archives), pickles, text lines."""
import io
import multiprocessing
import pickle
import zipfile

import numpy as np
import pytest

import chainlet
from chainlet.datasets import (ImageDataset, LabeledImageDataset, LabeledZippedImageDataset,
                               MultiZippedImageDataset, PickleDataset, PickleDatasetWriter,
                               TextDataset, ZippedImageDataset, open_pickle_dataset,
                               open_pickle_dataset_writer)

Image = pytest.importorskip('PIL.Image')


def _png(array):
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format='PNG')
    return buffer.getvalue()


@pytest.fixture
def images(tmp_path):
    rng = np.random.RandomState(0)
    arrays = {'grey.png': rng.randint(0, 256, (4, 5)).astype(np.uint8),
              'sub/rgb.png': rng.randint(0, 256, (4, 5, 3)).astype(np.uint8),
              'rgba.png': rng.randint(0, 256, (2, 3, 4)).astype(np.uint8)}
    (tmp_path / 'sub').mkdir()
    for name, a in arrays.items():
        (tmp_path / name).write_bytes(_png(a))
    return tmp_path, arrays


def _chw(a):
    return (a[:, :, None] if a.ndim == 2 else a).transpose(2, 0, 1)


def test_image_dataset_from_list_and_from_file(images):
    root, arrays = images
    names = list(arrays)
    ds = ImageDataset(names, root=str(root))
    assert len(ds) == 3
    for i, name in enumerate(names):
        x = ds[i]
        assert x.dtype == np.float32
        np.testing.assert_array_equal(x, _chw(arrays[name]))
    assert ds[0].shape == (1, 4, 5) and ds[1].shape == (3, 4, 5) and ds[2].shape == (4, 2, 3)
    (root / 'list.txt').write_text('\n'.join(names) + '\n')
    from_file = ImageDataset(str(root / 'list.txt'), root=str(root), dtype=np.float64)
    assert len(from_file) == 3 and from_file[1].dtype == np.float64
    np.testing.assert_array_equal(from_file[1], ds[1])


def test_image_dataset_default_dtype_follows_config(images):
    root, arrays = images
    with chainlet.using_config('dtype', np.float16):
        assert ImageDataset(['grey.png'], root=str(root))[0].dtype == np.float16


def test_labeled_image_dataset(images):
    root, arrays = images
    ds = LabeledImageDataset([('grey.png', 3), ('sub/rgb.png', 7)], root=str(root),
                             label_dtype=np.int64)
    x, t = ds[1]
    np.testing.assert_array_equal(x, _chw(arrays['sub/rgb.png']))
    assert t.dtype == np.int64 and t.shape == () and int(t) == 7
    (root / 'pairs.txt').write_text('grey.png 3\nsub/rgb.png   7\n')
    from_file = LabeledImageDataset(str(root / 'pairs.txt'), root=str(root))
    assert [int(from_file[i][1]) for i in range(2)] == [3, 7]
    assert from_file[0][1].dtype == np.int32
    (root / 'bad.txt').write_text('grey.png 3\nsub/rgb.png\n')
    with pytest.raises(ValueError, match='invalid format at line 1'):
        LabeledImageDataset(str(root / 'bad.txt'))


def _zip(path, members):
    with zipfile.ZipFile(path, 'w') as zf:
        zf.writestr('dir/', b'')
        for name, a in members.items():
            zf.writestr(name, _png(a))


def test_zipped_image_datasets(tmp_path):
    rng = np.random.RandomState(1)
    a = {f'a{i}.png': rng.randint(0, 256, (3, 3)).astype(np.uint8) for i in range(3)}
    b = {f'dir/b{i}.png': rng.randint(0, 256, (3, 3)).astype(np.uint8) for i in range(2)}
    _zip(tmp_path / 'a.zip', a)
    _zip(tmp_path / 'b.zip', b)
    za = ZippedImageDataset(str(tmp_path / 'a.zip'))
    assert len(za) == 3  # the directory entry is not an example
    np.testing.assert_array_equal(za[2], _chw(a['a2.png']))
    np.testing.assert_array_equal(za.get_example('a1.png'), _chw(a['a1.png']))
    clone = pickle.loads(pickle.dumps(za))
    np.testing.assert_array_equal(clone[0], za[0])
    multi = MultiZippedImageDataset([str(tmp_path / 'a.zip'), str(tmp_path / 'b.zip')])
    assert len(multi) == 5
    np.testing.assert_array_equal(multi[3], _chw(b['dir/b0.png']))
    np.testing.assert_array_equal(multi[-1], _chw(b['dir/b1.png']))
    (tmp_path / 'labels.txt').write_text('dir/b1.png 1\ndir/b0.png 0\n')
    labeled = LabeledZippedImageDataset(str(tmp_path / 'b.zip'), str(tmp_path / 'labels.txt'))
    x, t = labeled[0]
    np.testing.assert_array_equal(x, _chw(b['dir/b1.png']))
    assert int(t) == 1 and t.dtype == np.int32


def test_pickle_dataset_roundtrip(tmp_path):
    path = str(tmp_path / 'data.pkl')
    objects = [(1, 2.0, 'a'), np.arange(3), {'k': [1, 2]}, None]
    with open_pickle_dataset_writer(path, protocol=2) as w:
        for o in objects:
            w.write(o)
        w.flush()
    with open_pickle_dataset(path) as ds:
        assert len(ds) == 4
        assert ds[0] == objects[0] and ds[3] is None
        np.testing.assert_array_equal(ds[1], objects[1])
        assert ds[2] == objects[2]
        assert ds[::2][1] == objects[2]
        clone = pickle.loads(pickle.dumps(ds))  # reopens the file by path
        assert clone[2] == objects[2]
        clone.close()


def test_pickle_dataset_on_a_file_object_and_errors():
    buffer = io.BytesIO()
    w = PickleDatasetWriter(buffer)
    w.write('x')
    w.write('y')
    ds = PickleDataset(io.BytesIO(buffer.getvalue()))
    assert len(ds) == 2 and ds[1] == 'y' and ds[0] == 'x'

    class NoSeek(io.BytesIO):
        def seekable(self):
            return False
    with pytest.raises(ValueError, match='random access'):
        PickleDataset(NoSeek(buffer.getvalue()))


def _read_in_child(ds, queue):
    queue.put(ds[1])


@pytest.mark.skipif('fork' not in multiprocessing.get_all_start_methods(),
                    reason='needs the fork start method')
def test_pickle_dataset_reopens_its_file_in_a_forked_child(tmp_path):
    path = str(tmp_path / 'data.pkl')
    with open_pickle_dataset_writer(path) as w:
        for i in range(3):
            w.write(i)
    with open_pickle_dataset(path) as ds:
        fd = ds._reader.fileno()
        ctx = multiprocessing.get_context('fork')
        queue = ctx.Queue()
        child = ctx.Process(target=_read_in_child, args=(ds, queue))
        child.start()
        assert queue.get(timeout=30) == 1
        child.join(30)
        assert child.exitcode == 0
        assert ds[2] == 2 and ds._reader.fileno() == fd  # the parent's file is untouched


def test_text_dataset_single_and_parallel_files(tmp_path):
    en = tmp_path / 'en.txt'
    ja = tmp_path / 'ja.txt'
    en.write_text('one\ntwo\n\nfour\n', encoding='utf-8')
    ja.write_text('ichi\nni\nsan\nyon\n', encoding='utf-8')
    ds = TextDataset(str(en))
    assert len(ds) == 4 and ds[1] == 'two\n' and ds[2] == '\n' and ds[-1] == 'four\n'
    pair = TextDataset([str(en), str(ja)], encoding=['utf-8', 'utf-8'])
    assert pair[3] == ('four\n', 'yon\n')
    kept = TextDataset([str(en), str(ja)], filter_func=lambda a, b: a.strip() != '')
    assert len(kept) == 3 and kept[2] == ('four\n', 'yon\n')
    clone = pickle.loads(pickle.dumps(kept))
    assert clone[1] == ('two\n', 'ni\n')
    with pytest.raises(IndexError):
        ds.get_example(4)
    for d in (ds, pair, kept, clone):
        d.close()


def test_text_dataset_errors(tmp_path):
    a = tmp_path / 'a.txt'
    b = tmp_path / 'b.txt'
    a.write_text('1\n2\n')
    b.write_text('1\n')
    with pytest.raises(ValueError, match='different numbers of lines'):
        TextDataset([str(a), str(b)])
    with pytest.raises(ValueError, match='at least one text file'):
        TextDataset([])
    with pytest.raises(ValueError, match='must match the number of files'):
        TextDataset([str(a), str(a)], encoding=['utf-8'])
    latin = tmp_path / 'latin.txt'
    latin.write_bytes('caf\xe9\n'.encode('latin-1'))
    decoded = TextDataset(str(latin), encoding='latin-1')
    replaced = TextDataset(str(latin), encoding='utf-8', errors='replace')
    assert decoded[0] == 'caf\xe9\n' and replaced[0] == 'caf\ufffd\n'
    decoded.close()
    replaced.close()
