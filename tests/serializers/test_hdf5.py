import io
import os
import sys

import numpy as np
import pytest

from chainlet import serializers
from chainlet.serializers import CorruptFileError, HDF5Deserializer, HDF5Serializer

from serializer_models import X, Exploding, FakeOptimizer, Snapshot, make_net


def test_missing_h5py_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, 'h5py', None)
    with pytest.raises(ImportError, match=r'pip install "chainlet-dl\[hdf5\]"'):
        serializers.save_hdf5(tmp_path / 'm.h5', make_net(1))
    with pytest.raises(ImportError, match='load_hdf5'):
        serializers.load_hdf5(tmp_path / 'm.h5', make_net(1))


h5py = pytest.importorskip('h5py')


def test_round_trip_identical_predictions(tmp_path):
    src, dst = make_net(1), make_net(2, lazy=True)
    dst.tag, dst.nothing = 'other', 3
    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, src)
    serializers.load_hdf5(path, dst)
    np.testing.assert_array_equal(src(X).array, dst(X).array)
    assert dst.tag == 'v1' and dst.nothing is None and dst.l1.count == 1 and dst.rate == 0.5
    with h5py.File(path, 'r') as f:
        assert f['l1/W'].shape == (3, 4)
        assert f['nothing'].shape is None
    assert os.listdir(tmp_path) == ['model.h5']


def test_file_object_and_snapshot_path():
    model = make_net(1)
    opt = FakeOptimizer(model)
    opt.step()
    buf = io.BytesIO()
    serializers.save_hdf5(buf, Snapshot(model, opt), compression=None)
    buf.seek(0)
    model2 = make_net(2)
    serializers.load_hdf5(buf, model2, path='updater/model:main')
    np.testing.assert_array_equal(model(X).array, model2(X).array)
    buf.seek(0)
    opt2 = FakeOptimizer(make_net(3))
    serializers.load_hdf5(buf, opt2, path='updater/optimizer:main/')
    assert opt2.t == 1
    np.testing.assert_array_equal(opt2.state['/l1/W']['m'], opt.state['/l1/W']['m'])


def test_strict_lists_keys(tmp_path):
    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, make_net(1).l1)
    dst = make_net(2)
    before = dst.l1.W.array.copy()
    with pytest.raises(KeyError, match=r"load_hdf5\(.*model\.h5'\): missing keys "
                                       r"\[.*'tag'.*'l1/W'.*unexpected keys \['W'"):
        serializers.load_hdf5(path, dst)
    np.testing.assert_array_equal(dst.l1.W.array, before)
    serializers.load_hdf5(path, dst.l1, strict=True)
    np.testing.assert_array_equal(dst.l1.W.array, make_net(1).l1.W.array)


def test_failed_save_keeps_previous_file(tmp_path):
    path = tmp_path / 'model.h5'
    serializers.save_hdf5(path, make_net(1))
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match='midway'):
        serializers.save_hdf5(path, Exploding())
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ['model.h5']


@pytest.mark.parametrize('damage', ['truncate', 'garbage'])
def test_corrupted_file(tmp_path, damage):
    path = tmp_path / 'broken.h5'
    serializers.save_hdf5(path, make_net(1))
    data = path.read_bytes()
    data = data[:len(data) // 3] if damage == 'truncate' else b'\x00garbage' * 100
    path.write_bytes(data)
    with pytest.raises(CorruptFileError, match='broken.h5'):
        serializers.load_hdf5(path, make_net(2))


def test_serializer_and_deserializer_objects(tmp_path):
    with h5py.File(tmp_path / 'x.h5', 'w') as f:
        s = HDF5Serializer(f)
        w = np.arange(6, dtype=np.float32)
        assert s['a']('w', w) is w
        s('s', 'text')
        s('s', 'text2')  # writing a key twice replaces it
        s('i', 4)
    with h5py.File(tmp_path / 'x.h5', 'r') as f:
        d = HDF5Deserializer(f)
        out = np.zeros(6, np.float32)
        d['a']('w', out)
        np.testing.assert_array_equal(out, np.arange(6))
        assert d('s', '') == 'text2'
        assert d('i', 0) == 4
        with pytest.raises(KeyError, match="'missing'"):
            d('missing', 0)
        assert HDF5Deserializer(f, strict=False)('missing', 5) == 5


def test_child_deserializer_group_is_the_sub_group(tmp_path):
    path = str(tmp_path / 'g.h5')
    with h5py.File(path, 'w') as f:
        f.require_group('x').create_dataset('y', data=np.ones(2))
    with h5py.File(path, 'r') as f:
        d = HDF5Deserializer(f)
        assert d.group.name == '/' and d['x'].group.name == '/x'
        assert d['missing'].group is None
        np.testing.assert_array_equal(d['x']('y', None), [1, 1])
