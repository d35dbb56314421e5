import io
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import Chain, Link, Parameter, serializers
from chainlet.serializers import (CorruptFileError, DictionarySerializer, NpzDeserializer,
                                  SerializationKeyError, load_npz, save_npz)

from serializer_models import X, Affine, Exploding, FakeOptimizer, Snapshot, make_net


def all_arrays(link):
    return {name: p.array.copy() for name, p in link.namedparams()}


def test_round_trip_path_identical_predictions(tmp_path):
    src, dst = make_net(1), make_net(2)
    path = tmp_path / 'model.npz'
    save_npz(path, src)
    assert not np.allclose(src(X).array, dst(X).array)
    dst.tag, dst.rate = 'other', 9.0
    load_npz(str(path), dst)
    np.testing.assert_array_equal(src(X).array, dst(X).array)
    for name, arr in all_arrays(src).items():
        np.testing.assert_array_equal(arr, dict(dst.namedparams())[name].array)
    assert dst.l1.count == 1 and type(dst.l1.count) is int
    np.testing.assert_array_equal(dst.l1.avg, np.ones(4, np.float32))
    assert dst.tag == 'v1' and dst.rate == 0.5 and dst.nothing is None
    assert sorted(os.listdir(tmp_path)) == ['model.npz']  # no temporary left behind


def test_round_trip_file_objects_and_compression():
    src = make_net(3)
    sizes = {}
    for compression in (True, False):
        buf = io.BytesIO()
        save_npz(buf, src, compression=compression)
        sizes[compression] = len(buf.getvalue())
        buf.seek(0)
        dst = make_net(4)
        load_npz(buf, dst)
        np.testing.assert_array_equal(src(X).array, dst(X).array)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED}


def test_file_written_is_a_plain_npz_without_pickle(tmp_path):
    path = tmp_path / 'm.npz'
    save_npz(path, make_net(1))
    with np.load(path, allow_pickle=False) as npz:
        assert sorted(npz.files) == sorted([
            'l1/W', 'l1/b', 'l1/count', 'l1/avg', 'l2/W', 'l2/b', 'l2/count', 'l2/avg',
            'tag', 'rate', '__chainlet__/none_keys'])
        assert list(npz['__chainlet__/none_keys']) == ['nothing']
        assert npz['tag'] == 'v1'


def test_uninitialized_parameters_are_initialized_from_file():
    src = make_net(5)
    buf = io.BytesIO()
    save_npz(buf, src)
    buf.seek(0)
    dst = make_net(6, lazy=True)
    assert not dst.l1.W.is_initialized
    load_npz(buf, dst)
    assert dst.l1.W.shape == (3, 4)
    np.testing.assert_array_equal(src(X).array, dst(X).array)


def test_strict_lists_missing_and_unexpected_keys_and_modifies_nothing():
    class Other(Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = Affine(3, 4)
                self.l3 = Affine(4, 2)

    buf = io.BytesIO()
    save_npz(buf, make_net(1))
    dst = Other()
    before = all_arrays(dst)
    avg_before = dst.l1.avg.copy()
    buf.seek(0)
    with pytest.raises(KeyError) as info:
        load_npz(buf, dst)
    msg = str(info.value)
    assert isinstance(info.value, SerializationKeyError)
    assert msg == ("load_npz(<BytesIO object>): missing keys ['l3/W', 'l3/b', 'l3/avg', "
                   "'l3/count']; unexpected keys ['l2/W', 'l2/avg', 'l2/b', 'l2/count', "
                   "'nothing', 'rate', 'tag'] (pass strict=False to ignore)")
    for name, arr in before.items():  # l1 exists in the file, but nothing was copied
        np.testing.assert_array_equal(arr, dict(dst.namedparams())[name].array)
    np.testing.assert_array_equal(dst.l1.avg, avg_before)
    buf.seek(0)
    load_npz(buf, dst, strict=False)
    np.testing.assert_array_equal(dst.l1.W.array, make_net(1).l1.W.array)
    np.testing.assert_array_equal(dst.l3.W.array, before['/l3/W'])


def test_strict_error_names_path_file(tmp_path):
    path = tmp_path / 'model.npz'
    save_npz(path, make_net(1))
    with pytest.raises(KeyError) as info:
        load_npz(path, make_net(1).l1)
    assert str(info.value) == (
        f"load_npz({str(path)!r}): missing keys ['W', 'b', 'avg', 'count']; unexpected keys "
        f"['l1/W', 'l1/avg', 'l1/b', 'l1/count', 'l2/W', 'l2/avg', 'l2/b', 'l2/count', "
        f"'nothing', 'rate', 'tag'] (pass strict=False to ignore, or pass path='l1/' to load "
        f"a sub-tree)")


def test_error_in_serialize_during_load_leaves_arrays_untouched():
    class Failing(Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = Affine(3, 4)

        def serialize(self, serializer):
            super().serialize(serializer)
            raise RuntimeError('boom')

    src = Failing()
    buf = io.BytesIO()
    save_npz(buf, src.l1)
    buf.seek(0)
    dst = Failing()
    before = dst.l1.W.array.copy()
    with pytest.raises(RuntimeError, match='boom'):
        load_npz(buf, dst, path='l1', strict=False)
    np.testing.assert_array_equal(dst.l1.W.array, before)


def test_optimizer_state_and_snapshot_paths(tmp_path):
    model = make_net(1)
    opt = FakeOptimizer(model)
    opt.step()
    opt.step()
    opt.lr = 0.123
    snap = Snapshot(model, opt)
    snap.iteration = 42
    path = tmp_path / 'snapshot_iter_42'
    save_npz(path, snap)
    with np.load(path) as npz:
        assert 'updater/model:main/l1/W' in npz.files
        assert 'updater/optimizer:main/l1/W/m' in npz.files

    model2 = make_net(2)
    opt2 = FakeOptimizer(model2)
    snap2 = Snapshot(model2, opt2)
    load_npz(path, snap2)
    assert snap2.iteration == 42 and opt2.t == 2 and opt2.lr == 0.123
    for name in opt.state:
        for key in ('m', 'v'):
            np.testing.assert_array_equal(opt.state[name][key], opt2.state[name][key])

    # Only the model out of the snapshot, with and without the trailing slash.
    for sub in ('updater/model:main/', 'updater/model:main', '/updater/model:main/'):
        model3 = make_net(3)
        load_npz(path, model3, path=sub)
        np.testing.assert_array_equal(model(X).array, model3(X).array)
    # One child link out of a saved chain.
    child = Affine(4, 2)
    load_npz(path, child, path='updater/model:main/l2/')
    np.testing.assert_array_equal(child.W.array, model.l2.W.array)
    assert child.count == 0


def test_real_optimizer_round_trip_if_available(tmp_path):
    optimizers = pytest.importorskip('chainlet.optimizers')
    model = make_net(1)
    opt = optimizers.Adam()
    opt.setup(model)
    for _ in range(2):
        model.cleargrads()
        F.sum(model(X)).backward()
        opt.update()
    save_npz(tmp_path / 'opt.npz', opt)
    model2 = make_net(1)
    opt2 = optimizers.Adam()
    opt2.setup(model2)
    load_npz(tmp_path / 'opt.npz', opt2)
    assert opt2.t == opt.t == 2
    for (n1, p1), (n2, p2) in zip(model.namedparams(), model2.namedparams()):
        for key, value in p1.update_rule.state.items():
            np.testing.assert_array_equal(value, p2.update_rule.state[key])


def test_real_linear_round_trip_if_available(tmp_path):
    L = pytest.importorskip('chainlet.links')
    if not hasattr(L, 'Linear'):
        pytest.skip('chainlet.links.Linear is not written yet')
    np.random.seed(0)
    src = chainlet.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2))
    dst = chainlet.Sequential(L.Linear(None, 4), F.relu, L.Linear(None, 2))
    save_npz(tmp_path / 'seq.npz', src)
    load_npz(tmp_path / 'seq.npz', dst)
    np.testing.assert_array_equal(src(X).array, dst(X).array)


def test_ignore_names():
    buf = io.BytesIO()
    save_npz(buf, make_net(1))
    dst = make_net(2)
    w_before = dst.l1.W.array.copy()
    b_before = dst.l2.b.array.copy()
    buf.seek(0)
    load_npz(buf, dst, ignore_names=['l1/W', lambda key: key.startswith('l2/b')])
    np.testing.assert_array_equal(dst.l1.W.array, w_before)
    np.testing.assert_array_equal(dst.l2.b.array, b_before)
    np.testing.assert_array_equal(dst.l2.W.array, make_net(1).l2.W.array)
    with pytest.raises(TypeError, match='ignore_names'):
        NpzDeserializer({}, ignore_names=[3])


@pytest.mark.parametrize('key', ['file', 'allow_pickle', 'compression'])
def test_keys_that_look_like_arguments(key):
    obj = Link()
    with obj.init_scope():
        setattr(obj, key, Parameter(np.arange(3, dtype=np.float32)))
    buf = io.BytesIO()
    save_npz(buf, obj)
    getattr(obj, key).array[...] = 0
    buf.seek(0)
    load_npz(buf, obj)
    np.testing.assert_array_equal(getattr(obj, key).array, [0, 1, 2])


# -- atomic writes --

def test_failed_serialization_keeps_previous_file(tmp_path):
    path = tmp_path / 'model.npz'
    save_npz(path, make_net(1))
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match='midway'):
        save_npz(path, Exploding())
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ['model.npz']
    with pytest.raises(RuntimeError):
        save_npz(tmp_path / 'new.npz', Exploding())
    assert os.listdir(tmp_path) == ['model.npz']


def test_failed_write_and_failed_rename_keep_previous_file(tmp_path, monkeypatch):
    path = tmp_path / 'model.npz'
    save_npz(path, make_net(1))
    before = path.read_bytes()
    import numpy.lib.format as fmt

    calls = []
    original = fmt.write_array

    def failing_write(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise OSError('disk full')
        return original(*args, **kwargs)

    monkeypatch.setattr(fmt, 'write_array', failing_write)
    with pytest.raises(OSError, match='disk full'):
        save_npz(path, make_net(2))
    monkeypatch.setattr(fmt, 'write_array', original)
    assert path.read_bytes() == before

    def failing_replace(src, dst):
        raise OSError('rename failed')

    monkeypatch.setattr(os, 'replace', failing_replace)
    with pytest.raises(OSError, match='rename failed'):
        save_npz(path, make_net(2))
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ['model.npz']


def test_crash_during_save_keeps_previous_file(tmp_path):
    # A child process dies (os._exit, no cleanup) right before the rename.
    path = tmp_path / 'model.npz'
    save_npz(path, make_net(1))
    before = path.read_bytes()
    script = textwrap.dedent(f"""
        import os, numpy as np, chainlet
        from chainlet import serializers
        link = chainlet.Link()
        with link.init_scope():
            link.W = chainlet.Parameter(np.zeros((100, 100), np.float32))
        os.replace = lambda src, dst: os._exit(3)
        serializers.save_npz({str(path)!r}, link)
    """)
    proc = subprocess.run([sys.executable, '-c', script], capture_output=True)
    assert proc.returncode == 3, proc.stderr.decode()
    assert path.read_bytes() == before
    leftovers = [n for n in os.listdir(tmp_path) if n != 'model.npz']
    assert len(leftovers) == 1 and leftovers[0].startswith('.model.npz.')
    dst = make_net(2)
    load_npz(path, dst)
    np.testing.assert_array_equal(dst(X).array, make_net(1)(X).array)


def test_save_through_symlink_keeps_link(tmp_path):
    real = tmp_path / 'real.npz'
    save_npz(real, make_net(1))
    link = tmp_path / 'latest.npz'
    link.symlink_to(real)
    save_npz(link, make_net(2))
    assert link.is_symlink()
    dst = make_net(3)
    load_npz(real, dst)
    np.testing.assert_array_equal(dst(X).array, make_net(2)(X).array)


# -- corrupted files --

def saved_bytes():
    buf = io.BytesIO()
    save_npz(buf, make_net(1))
    return buf.getvalue()


@pytest.mark.parametrize('damage', ['truncate_half', 'truncate_tail', 'garbage', 'empty',
                                    'flip_data'])
def test_corrupted_file_gives_clear_error(tmp_path, damage):
    data = saved_bytes()
    path = tmp_path / 'broken.npz'
    if damage == 'truncate_half':
        data = data[:len(data) // 2]
    elif damage == 'truncate_tail':
        data = data[:-10]
    elif damage == 'garbage':
        data = bytes(np.random.RandomState(0).randint(0, 256, 500, dtype=np.uint8))
    elif damage == 'empty':
        data = b''
    else:  # damage the compressed payload of the first entry, keep the zip directory
        data = bytearray(data)
        for i in range(60, 90):
            data[i] ^= 0xFF
        data = bytes(data)
    path.write_bytes(data)
    with pytest.raises(CorruptFileError) as info:
        load_npz(path, make_net(2))
    assert isinstance(info.value, ValueError) and isinstance(info.value, OSError)
    assert 'broken.npz' in str(info.value)


def _rezip(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as archive:
        for name, payload in entries.items():
            archive.writestr(name, payload)
    return buf.getvalue()


@pytest.mark.parametrize('header_damage', [(b'}', b' '), (b"'descr'", b"'descr "),
                                           (b'(', b'['), (b'<f', b'\xff\xfe')])
def test_corrupted_npy_header_names_the_file(tmp_path, header_damage):
    # One damaged byte of an entry's .npy header, inside an otherwise valid zip (the CRC is
    # recomputed, as when a byte flips before archiving). NumPy 1.x leaked tokenize.TokenError.
    with zipfile.ZipFile(io.BytesIO(saved_bytes())) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    name = next(n for n in entries if b'{' in entries[n][:128])
    old, new = header_damage
    header_end = entries[name].index(b'\n') + 1
    entries[name] = entries[name][:header_end].replace(old, new, 1) + entries[name][header_end:]
    path = tmp_path / 'header.npz'
    path.write_bytes(_rezip(entries))
    with pytest.raises(CorruptFileError) as info:
        load_npz(path, make_net(2))
    assert 'header.npz' in str(info.value) and name[:-4] in str(info.value)


@pytest.mark.parametrize('field,value', [(6, 0x40), (8, 0x01)])
def test_damaged_zip_directory_names_the_file(tmp_path, field, value):
    # A flipped byte in the central directory: an unknown zip version (NotImplementedError)
    # or the "encrypted" flag (RuntimeError) inside zipfile.
    data = bytearray(saved_bytes())
    data[data.index(b'PK\x01\x02') + field] = value
    path = tmp_path / 'directory.npz'
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptFileError) as info:
        load_npz(path, make_net(2))
    assert 'directory.npz' in str(info.value)


def test_npy_file_is_rejected(tmp_path):
    path = tmp_path / 'single.npy'
    np.save(path, np.ones(3))
    with pytest.raises(CorruptFileError, match=r'single\.npy.*not an \.npz'):
        load_npz(path, make_net(1))


def test_missing_file_or_folder_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_npz(tmp_path / 'nope.npz', make_net(1))
    with pytest.raises(FileNotFoundError, match="folder .*nodir' does not exist"):
        save_npz(tmp_path / 'nodir' / 'm.npz', make_net(1))


class Boom:
    def __reduce__(self):
        return (os.system, ('echo pwned > /dev/null',))


def test_pickled_entries_are_never_loaded(tmp_path):
    path = tmp_path / 'evil.npz'
    np.savez(path, tag=np.array([Boom()], dtype=object))
    obj = Link()
    obj.add_persistent('tag', 'x')
    with pytest.raises(CorruptFileError, match=r"'tag'.*evil\.npz.*pickled"):
        load_npz(path, obj)


# -- the serializer objects themselves --

def test_dictionary_serializer_values():
    s = DictionarySerializer()
    w = np.arange(4, dtype=np.float32)
    assert s['a/']['b']('w', w) is w
    assert s('/n', 3) == 3
    assert s('v', chainlet.Variable(np.ones(2, np.float32))) is not None
    s('f', np.float32(1.5))
    s('none', None)
    assert sorted(s.target) == ['a/b/w', 'f', 'n', 'none', 'v']
    np.testing.assert_array_equal(s.target['a/b/w'], w)
    assert s.target['f'].dtype == np.float32
    assert s.target['none'].dtype == object and s.target['none'].item() is None
    with pytest.raises(TypeError, match=r"DictionarySerializer: the value of 'bad' is a dict"):
        s('bad', {'x': 1})


def test_serializer_save_and_deserializer_load_methods():
    # Chainer: Serializer.save(obj) and Deserializer.load(obj) call obj.serialize(self).
    src, dst = make_net(1), make_net(2)
    s = DictionarySerializer()
    s.save(src)
    NpzDeserializer(s.target).load(dst)
    np.testing.assert_array_equal(src(X).array, dst(X).array)


def test_npz_deserializer_rules():
    npz = {'w': np.arange(3.0), 'i': np.asarray(7), 'f': np.asarray(2.5), 'b': np.asarray(True),
           's': np.asarray('hello'), 'n': np.asarray(None), 'sub/x': np.asarray(1.0)}
    d = NpzDeserializer(npz)
    target = np.zeros(3, np.float32)
    assert d('w', target) is target
    np.testing.assert_array_equal(target, [0, 1, 2])
    loaded = d('w', None)
    np.testing.assert_array_equal(loaded, [0, 1, 2])
    assert d('i', 0) == 7 and type(d('i', 0)) is int
    assert d('i', 0.0) == 7.0 and type(d('i', 0.0)) is float
    assert d('f', 0.0) == 2.5
    assert d('b', False) is True
    assert d('s', '') == 'hello'
    assert d('n', 5) is None
    assert d['sub']('x', 0.0) == 1.0
    assert type(d('f', np.float64(0))) is np.float64
    with pytest.raises(TypeError, match='float32 without loss'):
        d('f', np.float32(0))
    with pytest.raises(TypeError, match=r"'f' has dtype float64.*int"):
        d('f', 0)
    with pytest.raises(KeyError, match=r"key 'missing' is not in"):
        d('missing', 1)
    assert NpzDeserializer(npz, strict=False)('missing', 1) == 1
    with pytest.raises(ValueError, match=r"'w' has shape \(3,\).*\(4,\)"):
        d('w', np.zeros(4))
    with pytest.raises(TypeError, match=r"'w' has dtype float64.*int32"):
        d('w', np.zeros(3, np.int32))
    with pytest.raises(TypeError, match='argument path'):
        NpzDeserializer(npz, path=3)


@pytest.mark.gpu
def test_load_into_cupy_arrays():
    cupy = pytest.importorskip('cupy')
    if not chainlet.backend.gpu_available():
        pytest.skip('no CUDA device')
    src = make_net(1)
    buf = io.BytesIO()
    save_npz(buf, src.to_device('@cupy:0'))
    buf.seek(0)
    dst = make_net(2, lazy=True).to_device('@cupy:0')
    load_npz(buf, dst)
    assert isinstance(dst.l1.W.array, cupy.ndarray) and isinstance(dst.l1.avg, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(dst.l2.W.array), cupy.asnumpy(src.l2.W.array))
    np.testing.assert_array_equal(cupy.asnumpy(dst.l1.avg), np.ones(4, np.float32))


def test_public_names():
    for name in ('save_npz', 'load_npz', 'save_hdf5', 'load_hdf5', 'DictionarySerializer',
                 'NpzDeserializer', 'HDF5Serializer', 'HDF5Deserializer', 'Serializer',
                 'Deserializer', 'AbstractSerializer'):
        assert hasattr(serializers, name)
    assert issubclass(NpzDeserializer, serializers.Deserializer)
    assert issubclass(DictionarySerializer, serializers.Serializer)


def test_extra_stored_keys_are_not_an_error_in_strict_mode():
    # Chainer's rule: strict loading fails only on keys the object asks for and the file
    # lacks; a file holding more (a parent chain read into one child) loads fine.
    buf = io.BytesIO()
    src = make_net(1)
    save_npz(buf, src)
    buf.seek(0)
    dst = make_net(2).l1
    load_npz(buf, dst, path='l1/')
    np.testing.assert_array_equal(dst.W.array, src.l1.W.array)
    buf.seek(0)
    bare = Chain()
    load_npz(buf, bare)  # asks for nothing: nothing is missing


def test_npz_serialize_returns_the_dict_save_npz_writes():
    from chainlet.serializers import npz
    src = make_net(1)
    target = npz.serialize(src)
    buf = io.BytesIO()
    save_npz(buf, src)
    buf.seek(0)
    with np.load(buf) as f:
        # None values ('nothing') are listed in one entry instead of pickled arrays
        assert set(f.files) - {npz.NONE_KEYS_ENTRY} == set(target) - {'nothing'}
    assert target['nothing'][()] is None
    np.testing.assert_array_equal(target['l1/W'], src.l1.W.array)


def test_missing_key_is_catchable_inside_serialize_and_the_rest_still_loads():
    # Chainer's pattern for reading older snapshots: serialize() catches the KeyError of a key
    # the old format lacks and falls back to a default.
    class Versioned:
        def __init__(self):
            self.w = np.zeros(2, np.float32)
            self.extra = 'unset'

        def serialize(self, serializer):
            serializer('w', self.w)
            try:
                self.extra = serializer('extra', self.extra)
            except KeyError:
                self.extra = 'default'

    buf = io.BytesIO()
    np.savez(buf, w=np.array([1, 2], np.float32))
    buf.seek(0)
    obj = Versioned()
    load_npz(buf, obj)
    assert obj.extra == 'default'
    np.testing.assert_array_equal(obj.w, [1, 2])


def test_uncaught_missing_key_lists_all_missing_keys_and_copies_nothing():
    class Two:
        def __init__(self):
            self.a = np.zeros(2, np.float32)

        def serialize(self, serializer):
            serializer('a', self.a)
            serializer('b', None)
            serializer('c', None)

    buf = io.BytesIO()
    np.savez(buf, a=np.ones(2, np.float32), z=np.ones(1))
    buf.seek(0)
    obj = Two()
    with pytest.raises(SerializationKeyError) as info:
        load_npz(buf, obj)
    assert str(info.value) == ("load_npz(<BytesIO object>): missing keys ['b', 'c']; "
                               "unexpected keys ['z'] (pass strict=False to ignore)")
    np.testing.assert_array_equal(obj.a, [0, 0])  # 'a' was found, but nothing was copied
