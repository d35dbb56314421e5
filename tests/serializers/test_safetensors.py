"""save_safetensors / load_safetensors: round trips, interop with the safetensors package, key
checks, corruption and the optional-dependency contract."""
import io
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import Chain, serializers
from chainlet.serializers import (CorruptFileError, SafetensorsDeserializer,
                                  SerializationKeyError, load_npz, load_safetensors,
                                  read_safetensors, save_npz, save_safetensors,
                                  write_safetensors)

from serializer_models import X, Affine, Exploding, FakeOptimizer, Snapshot, make_net


def test_missing_package_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, 'safetensors', None)
    with pytest.raises(ImportError, match=r'pip install "chainlet-dl\[safetensors\]"'):
        save_safetensors(tmp_path / 'm.safetensors', make_net(1))
    with pytest.raises(ImportError, match=r'load_safetensors.*chainlet-dl\[safetensors\]'):
        load_safetensors(tmp_path / 'm.safetensors', make_net(1))
    assert not os.listdir(tmp_path)


def test_import_chainlet_does_not_import_safetensors():
    code = ('import sys, chainlet, chainlet.serializers, chainlet.keras; '
            'print(any(m.split(".")[0] == "safetensors" and sys.modules[m] is not None '
            'for m in list(sys.modules)))')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == 'False'


try:
    import safetensors.numpy as st
except ImportError:  # CI runs without the extra: only the tests above run there
    st = None
needs_safetensors = pytest.mark.skipif(st is None, reason='safetensors is not installed')


def all_arrays(link):
    return {name: p.array.copy() for name, p in link.namedparams()}


@needs_safetensors
def test_round_trip_path_identical_predictions(tmp_path):
    src, dst = make_net(1), make_net(2)
    path = tmp_path / 'model.safetensors'
    save_safetensors(path, src)
    assert not np.allclose(src(X).array, dst(X).array)
    dst.tag, dst.rate, dst.nothing = 'other', 9.0, 'set'
    load_safetensors(str(path), dst)
    np.testing.assert_array_equal(src(X).array, dst(X).array)
    for name, arr in all_arrays(src).items():
        np.testing.assert_array_equal(arr, dict(dst.namedparams())[name].array)
    assert dst.l1.count == 1 and type(dst.l1.count) is int
    np.testing.assert_array_equal(dst.l1.avg, np.ones(4, np.float32))
    assert dst.tag == 'v1' and dst.rate == 0.5 and dst.nothing is None
    assert sorted(os.listdir(tmp_path)) == ['model.safetensors']  # no temporary left behind


@needs_safetensors
def test_round_trip_file_objects():
    src, dst = make_net(3), make_net(4, lazy=True)
    buf = io.BytesIO()
    save_safetensors(buf, src)
    buf.seek(0)
    load_safetensors(buf, dst)
    assert dst.l1.W.shape == (3, 4)  # uninitialized parameters take the stored shape
    np.testing.assert_array_equal(src(X).array, dst(X).array)


@needs_safetensors
def test_file_is_read_by_the_safetensors_package_with_the_npz_keys(tmp_path):
    path = tmp_path / 'm.safetensors'
    save_safetensors(path, make_net(1), metadata={'format': 'pt'})
    loaded = st.load_file(str(path))
    # the numeric values are tensors under save_npz's keys; scalars are 0-d tensors
    assert sorted(loaded) == ['l1/W', 'l1/avg', 'l1/b', 'l1/count', 'l2/W', 'l2/avg', 'l2/b',
                              'l2/count', 'rate']
    assert loaded['l1/count'].shape == () and loaded['l1/count'] == 1
    np.testing.assert_array_equal(loaded['l2/W'], make_net(1).l2.W.array)
    npz = io.BytesIO()
    save_npz(npz, make_net(1))
    npz.seek(0)
    assert set(np.load(npz).files) - {'__chainlet__/none_keys'} == set(loaded) | {'tag'}
    with st.safe_open(str(path), framework='numpy') as f:
        meta = f.metadata()
    assert meta['format'] == 'pt'
    assert json.loads(meta['__chainlet__/none_keys']) == ['nothing']
    assert json.loads(meta['__chainlet__/strings'])['tag']['values'] == ['v1']


@needs_safetensors
def test_file_written_by_the_safetensors_package_loads_into_a_model(tmp_path):
    class MLP(Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(3, 4)
                self.l2 = L.Linear(4, 2)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

    rng = np.random.RandomState(0)
    weights = {'l1/W': rng.randn(4, 3).astype(np.float32), 'l1/b': rng.randn(4),
               'l2/W': rng.randn(2, 4).astype(np.float32), 'l2/b': np.zeros(2, np.float32)}
    path = tmp_path / 'foreign.safetensors'
    st.save_file(weights, str(path))
    arrays, metadata = read_safetensors(path)
    assert metadata == {} and sorted(arrays) == sorted(weights)
    model = MLP()
    load_safetensors(path, model)
    np.testing.assert_array_equal(model.l1.W.array, weights['l1/W'])
    assert model.l1.b.dtype == np.float32  # float64 in the file, cast on copy
    np.testing.assert_allclose(model.l1.b.array, weights['l1/b'].astype(np.float32))
    expected = np.maximum(X @ weights['l1/W'].T + weights['l1/b'], 0) @ weights['l2/W'].T
    np.testing.assert_allclose(model(X).array, expected, rtol=1e-5, atol=1e-6)


@needs_safetensors
def test_strict_message_matches_load_npz_and_modifies_nothing():
    class Other(Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = Affine(3, 4)
                self.l3 = Affine(4, 2)

    messages = {}
    for save, load in ((save_npz, load_npz), (save_safetensors, load_safetensors)):
        buf = io.BytesIO()
        save(buf, make_net(1))
        buf.seek(0)
        dst = Other()
        before = all_arrays(dst)
        with pytest.raises(SerializationKeyError) as info:
            load(buf, dst)
        messages[load.__name__] = str(info.value)
        for name, arr in before.items():
            np.testing.assert_array_equal(arr, dict(dst.namedparams())[name].array)
    assert messages['load_safetensors'] == messages['load_npz'].replace('load_npz',
                                                                        'load_safetensors')
    assert "missing keys ['l3/W', 'l3/b', 'l3/avg', 'l3/count']" in messages['load_npz']


@needs_safetensors
def test_strict_false_path_and_ignore_names(tmp_path):
    path = tmp_path / 'snapshot_iter_2'  # no suffix is needed
    model = make_net(1)
    opt = FakeOptimizer(model)
    opt.step()
    opt.step()
    save_safetensors(path, Snapshot(model, opt))
    assert 'updater/optimizer:main/l1/W/m' in st.load_file(str(path))
    model2 = make_net(2)
    opt2 = FakeOptimizer(model2)
    snap2 = Snapshot(model2, opt2)
    load_safetensors(path, snap2)
    assert snap2.iteration == 0 and opt2.t == 2
    np.testing.assert_array_equal(opt2.state['/l1/W']['m'], opt.state['/l1/W']['m'])

    model3 = make_net(3)
    load_safetensors(path, model3, path='updater/model:main')
    np.testing.assert_array_equal(model(X).array, model3(X).array)
    child = Affine(4, 2)
    with pytest.raises(KeyError, match="pass path='updater/model:main/l1/'"):
        load_safetensors(path, child)
    child = make_net(4)
    w_before = child.l1.W.array.copy()
    load_safetensors(path, child, path='updater/model:main/',
                     ignore_names=['updater/model:main/l1/W', lambda k: k.endswith('tag')])
    np.testing.assert_array_equal(child.l1.W.array, w_before)
    np.testing.assert_array_equal(child.l2.W.array, model.l2.W.array)

    extra = chainlet.Chain()
    with extra.init_scope():
        extra.l1 = Affine(3, 4)
        extra.l9 = Affine(4, 2)
    load_safetensors(path, extra, path='updater/model:main/', strict=False)
    np.testing.assert_array_equal(extra.l1.W.array, model.l1.W.array)


@needs_safetensors
def test_real_optimizer_round_trip(tmp_path):
    from chainlet import optimizers
    model = make_net(1)
    opt = optimizers.Adam()
    opt.setup(model)
    for _ in range(2):
        model.cleargrads()
        F.sum(model(X)).backward()
        opt.update()
    save_safetensors(tmp_path / 'opt.safetensors', opt)
    model2 = make_net(1)
    opt2 = optimizers.Adam()
    opt2.setup(model2)
    load_safetensors(tmp_path / 'opt.safetensors', opt2)
    assert opt2.t == opt.t == 2
    for (_, p1), (_, p2) in zip(model.namedparams(), model2.namedparams()):
        for key, value in p1.update_rule.state.items():
            np.testing.assert_array_equal(value, p2.update_rule.state[key])


@needs_safetensors
def test_values_of_every_kind_round_trip():
    values = {
        'f16': np.arange(6, dtype=np.float16).reshape(2, 3),
        'c64': np.array([1 + 2j], np.complex64),
        'b': np.array([True, False]),
        'u64': np.array([2 ** 63], np.uint64),
        'big_endian': np.arange(3, dtype='>f4'),
        'strided': np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2],
        'empty': np.zeros((0, 3), np.float32),
        'int': 7, 'float': 2.5, 'np_scalar': np.float32(1.5),
        'text': 'h\u00e9llo', 'texts': np.array([['a', 'bc'], ['', 'd']]),
        'raw': b'\x00\xff', 'none': None,
    }
    buf = io.BytesIO()
    write_safetensors(buf, values, {'note': 'x'})
    buf.seek(0)
    arrays, metadata = read_safetensors(buf)
    assert metadata == {'note': 'x'}
    assert sorted(arrays) == sorted(values)
    for key, value in values.items():
        if value is None:
            assert arrays[key] is None
            continue
        expected = np.asarray(value)
        assert arrays[key].shape == expected.shape, key
        np.testing.assert_array_equal(arrays[key], expected)
        assert arrays[key].dtype.newbyteorder('=') == expected.dtype.newbyteorder('='), key
    assert arrays['text'].item() == 'h\u00e9llo' and arrays['raw'].item() == b'\x00\xff'


@needs_safetensors
def test_scalar_and_string_targets_are_converted():
    buf = io.BytesIO()
    write_safetensors(buf, {'n': 3, 'r': 0.25, 's': 'abc'})
    buf.seek(0)
    arrays, _ = read_safetensors(buf)
    d = SafetensorsDeserializer({k: v for k, v in arrays.items() if k != 's'},
                                metadata={'__chainlet__/strings': json.dumps(
                                    {'s': {'dtype': '<U3', 'shape': [], 'values': ['abc']}})})
    assert d('n', 0) == 3 and type(d('n', 0)) is int
    assert d('r', 1.0) == 0.25 and d('s', 'x') == 'abc'
    with pytest.raises(TypeError, match="'r' has dtype float64.*int"):
        d('r', 0)
    d = SafetensorsDeserializer({'v': np.zeros(3)})
    with pytest.raises(ValueError, match=r"'v' has shape \(3,\).*\(4,\)") as info:
        d('v', np.zeros(4))
    assert 'SafetensorsDeserializer' in str(info.value)


@needs_safetensors
def test_values_the_format_cannot_store_raise_before_writing(tmp_path):
    path = tmp_path / 'm.safetensors'
    save_safetensors(path, make_net(1))
    before = path.read_bytes()
    with pytest.raises(TypeError, match=r"'z' has dtype complex128.*safetensors cannot store"):
        write_safetensors(path, {'a': np.ones(2), 'z': np.ones(2, np.complex128)})
    with pytest.raises(TypeError, match='without pickle'):
        write_safetensors(path, {'o': {'a': 1}})
    with pytest.raises(ValueError, match="'__metadata__' is reserved"):
        write_safetensors(path, {'__metadata__': np.ones(2)})
    with pytest.raises(ValueError, match='reserved'):
        write_safetensors(path, {'a': np.ones(2)}, {'__chainlet__/crc32': '{}'})
    with pytest.raises(TypeError, match='argument metadata'):
        write_safetensors(path, {'a': np.ones(2)}, {'k': 1})
    with pytest.raises(RuntimeError, match='midway'):
        save_safetensors(path, Exploding())
    assert path.read_bytes() == before and os.listdir(tmp_path) == ['m.safetensors']


def _write_raw(path, header, data):
    text = json.dumps(header).encode()
    text += b' ' * (-len(text) % 8)
    path.write_bytes(struct.pack('<Q', len(text)) + text + data)


@needs_safetensors
def test_corrupt_files_raise_corrupt_file_error_naming_the_file(tmp_path):
    path = tmp_path / 'm.safetensors'
    save_safetensors(path, make_net(1))
    good = path.read_bytes()
    for bad in (b'', b'garbage!', good[:len(good) - 5], good[:12]):
        path.write_bytes(bad)
        with pytest.raises(CorruptFileError, match=r"load_safetensors\('.*m.safetensors'\)"):
            load_safetensors(path, make_net(2))
        with pytest.raises(CorruptFileError):
            load_safetensors(io.BytesIO(bad), make_net(2))
    # a flipped bit in the last tensor's data fails its CRC-32 and changes nothing
    flipped = bytearray(good)
    flipped[-1] ^= 0x01
    path.write_bytes(bytes(flipped))
    dst = make_net(2)
    before = all_arrays(dst)
    with pytest.raises(CorruptFileError, match='fails its CRC-32 check'):
        load_safetensors(path, dst)
    for name, arr in before.items():
        np.testing.assert_array_equal(arr, dict(dst.namedparams())[name].array)
    with pytest.raises(FileNotFoundError):
        load_safetensors(tmp_path / 'absent.safetensors', make_net(2))
    with pytest.raises(IsADirectoryError):
        load_safetensors(tmp_path, make_net(2))
    assert isinstance(CorruptFileError('x'), ValueError) and isinstance(CorruptFileError('x'),
                                                                        OSError)


@needs_safetensors
def test_loads_are_lazy_only_requested_tensors_are_read(tmp_path):
    # safe_open memory-maps the file: a damaged tensor outside the loaded sub-tree is never read
    path = tmp_path / 'm.safetensors'
    model = make_net(1)
    save_safetensors(path, model)
    raw = bytearray(path.read_bytes())
    (size,) = struct.unpack('<Q', raw[:8])
    header = json.loads(raw[8:8 + size])
    begin = header['l1/W']['data_offsets'][0]
    raw[8 + size + begin] ^= 0xFF
    path.write_bytes(bytes(raw))
    child = Affine(4, 2)
    load_safetensors(path, child, path='l2/')
    np.testing.assert_array_equal(child.W.array, model.l2.W.array)
    with pytest.raises(CorruptFileError, match="'l1/W'.*CRC-32"):
        load_safetensors(path, make_net(2))


@needs_safetensors
def test_dtype_numpy_lacks_raises_a_clear_error(tmp_path):
    path = tmp_path / 'bf16.safetensors'
    _write_raw(path, {'W': {'dtype': 'BF16', 'shape': [2], 'data_offsets': [0, 4]}},
               b'\x80\x3f\x00\x40')
    link = chainlet.Link()
    with link.init_scope():
        link.W = chainlet.Parameter(np.zeros(2, np.float32))
    try:
        np.dtype('bfloat16')  # known once ml_dtypes (which onnx uses) has been imported
        numpy_knows_bfloat16 = True
    except TypeError:
        numpy_knows_bfloat16 = False
    if numpy_knows_bfloat16:
        # Then the values load (little-endian 0x3f80 and 0x4000 are 1.0 and 2.0), cast to the
        # parameter's dtype.
        load_safetensors(path, link)
        np.testing.assert_array_equal(link.W.array, [1.0, 2.0])
        return
    with pytest.raises(TypeError, match="'W' in .* has dtype BF16, which NumPy cannot"):
        load_safetensors(path, link)


@needs_safetensors
def test_bad_chainlet_metadata_is_corrupt(tmp_path):
    path = tmp_path / 'm.safetensors'
    st.save_file({'W': np.ones(2)}, str(path), metadata={'__chainlet__/none_keys': '[oops'})
    with pytest.raises(CorruptFileError, match='not valid JSON'):
        load_safetensors(path, make_net(1))


@needs_safetensors
@pytest.mark.gpu
def test_cupy_arrays_are_saved_from_and_loaded_into_the_device(tmp_path):
    cupy = pytest.importorskip('cupy')
    if not chainlet.backend.gpu_available():
        pytest.skip('no CUDA device')
    src = make_net(1).to_device('@cupy:0')
    save_safetensors(tmp_path / 'g.safetensors', src)
    dst = make_net(2, lazy=True).to_device('@cupy:0')
    load_safetensors(tmp_path / 'g.safetensors', dst)
    assert isinstance(dst.l1.W.array, cupy.ndarray) and isinstance(dst.l1.avg, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(dst.l2.W.array), cupy.asnumpy(src.l2.W.array))


def test_public_names():
    for name in ('save_safetensors', 'load_safetensors', 'write_safetensors',
                 'read_safetensors', 'SafetensorsDeserializer'):
        assert hasattr(serializers, name)
    assert issubclass(SafetensorsDeserializer, serializers.Deserializer)


@needs_safetensors
def test_trainer_snapshot_round_trip(tmp_path):
    from chainlet import training
    from chainlet.training import extensions

    def make():
        np.random.seed(0)
        model = L.Classifier(L.Linear(4, 3))
        opt = chainlet.optimizers.Adam().setup(model)
        data = chainlet.datasets.TupleDataset(np.random.rand(20, 4).astype(np.float32),
                                              np.random.randint(0, 3, 20).astype(np.int32))
        updater = training.updaters.StandardUpdater(
            chainlet.iterators.SerialIterator(data, 5), opt)
        trainer = training.Trainer(updater, (2, 'epoch'), out=str(tmp_path))
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.snapshot(filename='snap_{.updater.iteration}',
                                           savefun=save_safetensors), trigger=(2, 'epoch'))
        return trainer, model

    trainer, model = make()
    trainer.run()
    resumed, model2 = make()
    load_safetensors(tmp_path / 'snap_8', resumed)  # the trainer's log is a string entry
    assert resumed.updater.iteration == 8
    np.testing.assert_array_equal(model.predictor.W.array, model2.predictor.W.array)
    assert resumed.get_extension('LogReport').log == trainer.get_extension('LogReport').log
