"""Keras files from elsewhere: HDF5 that reads other files, crafted archives, full disks.

``load_weights('x.weights.h5')`` and ``load_model('x.h5')`` read HDF5 through the serializers'
one safe reader; ``.keras`` and ``.npz`` archives are checked before anything is allocated; and
``.h5`` saves on a full disk raise ``OSError`` instead of crashing the process.
"""
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

from chainlet import keras, serializers

SECRET = b'top secret bytes' * 4  # 64 bytes: 16 float32


def _model():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(4, use_bias=False)])


def _kernel_key(path):
    h5py = pytest.importorskip('h5py')
    keys = []
    with h5py.File(path, 'r') as f:
        f.visititems(lambda name, obj: keys.append(name) if isinstance(obj, h5py.Dataset)
                     and obj.shape == (4, 4) else None)
    return keys[0]


def _redirect_kernel(path, tmp_path, how):
    """Replace the (4, 4) kernel of the HDF5 file ``path`` by one that reads another file."""
    h5py = pytest.importorskip('h5py')
    key = _kernel_key(path)
    secret = tmp_path / 'secret.bin'
    secret.write_bytes(SECRET)
    other = tmp_path / 'other.h5'
    with h5py.File(other, 'w') as f:
        f['K'] = np.frombuffer(SECRET, np.float32).reshape(4, 4)
    with h5py.File(path, 'a') as f:
        del f[key]
        if how == 'external storage':
            f.create_dataset(key, shape=(4, 4), dtype='<f4', external=[(str(secret), 0, 64)])
        else:
            f[key] = h5py.ExternalLink(str(other), '/K')
    return key


@pytest.mark.parametrize('how', ['external storage', 'external link'])
@pytest.mark.parametrize('kind', ['weights', 'model'])
def test_h5_files_that_read_other_files_are_refused(tmp_path, kind, how):
    pytest.importorskip('h5py')
    model = _model()
    path = str(tmp_path / ('m.weights.h5' if kind == 'weights' else 'm.h5'))
    model.save_weights(path) if kind == 'weights' else model.save(path)
    key = _redirect_kernel(path, tmp_path, how)
    before = [w.copy() for w in model.get_weights()]
    with pytest.raises(serializers.UnsafeFileError, match=how) as info:
        model.load_weights(path) if kind == 'weights' else keras.models.load_model(path)
    assert isinstance(info.value, ValueError)
    assert os.path.basename(path) in str(info.value) and key in str(info.value)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_keras_legacy_h5_weights_are_read_through_the_safe_reader(tmp_path):
    h5py = pytest.importorskip('h5py')
    from chainlet.keras.applications import imagenet_utils
    secret = tmp_path / 'secret.bin'
    secret.write_bytes(SECRET)
    path = tmp_path / 'legacy.h5'
    with h5py.File(path, 'w') as f:  # Keras 2's layout: layer_names / weight_names
        f.attrs['layer_names'] = [b'dense']
        g = f.create_group('dense')
        g.attrs['weight_names'] = [b'dense/kernel:0']
        g.create_dataset('dense/kernel:0', shape=(4, 4), dtype='<f4',
                         external=[(str(secret), 0, 64)])
    model = _model()
    with pytest.raises(serializers.UnsafeFileError, match="legacy.h5.*external storage"):
        imagenet_utils.load_weights(model, str(path), 'x.h5', 'https://example.invalid',
                                    'test')


FULL_DISK = textwrap.dedent("""
    import resource, signal, sys
    from chainlet import keras
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    how, target = sys.argv[1], sys.argv[2]
    model = keras.Sequential([keras.Input((100,)), keras.layers.Dense(1000)])
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
    try:
        getattr(model, how)(target)
    except OSError as e:
        print('OSError:', e, flush=True)
        sys.exit(0)
    print('no error', flush=True)
""")


@pytest.mark.parametrize('how, name', [('save', 'm.h5'), ('save_weights', 'm.weights.h5'),
                                       ('save', 'm.keras'), ('save_weights', 'm.weights.npz')])
def test_save_on_a_full_disk_raises_oserror_and_keeps_the_old_file(tmp_path, how, name):
    # HDF5 wrote to disk itself and crashed the process (SIGSEGV) when a write failed.
    if name.endswith('.h5'):
        pytest.importorskip('h5py')
    target = tmp_path / name
    target.write_bytes(b'the old file')
    script = tmp_path / 'full_disk.py'
    script.write_text(FULL_DISK)
    proc = subprocess.run([sys.executable, str(script), how, str(target)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f'exit {proc.returncode}: {proc.stderr[-2000:]}'
    assert 'OSError:' in proc.stdout and str(target) in proc.stdout, proc.stdout
    assert target.read_bytes() == b'the old file'
    assert sorted(os.listdir(tmp_path)) == ['full_disk.py', name]


def _rewrite_keras(src, dst, **members):
    with zipfile.ZipFile(src) as z:
        content = {n: z.read(n) for n in z.namelist()}
    content.update(members)
    with zipfile.ZipFile(dst, 'w') as z:
        for n, data in content.items():
            z.writestr(n, data)
    return str(dst)


def _huge_npz():
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"
    header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
    import io
    import struct
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as z:
        z.writestr('W.npy', b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) +
                   header.encode() + bytes(16))
    return buf.getvalue()


CRAFTED_KERAS = {
    'deeply nested config': ({'config.json': b'[' * 100_000 + b']' * 100_000},
                             'not valid JSON.*RecursionError'),
    'config of the wrong kind': ({'config.json': b'[1, 2]'}, 'config is a list'),
    'config with a number for a dict': (
        {'config.json': json.dumps({'class_name': 'Sequential', 'config': 5}).encode()},
        'config is malformed.*TypeError'),
    'weights with a huge header': ({'model.weights.npz': _huge_npz()},
                                   r"'W' of the member model.weights.npz of .*m.keras' claims"),
}


@pytest.mark.parametrize('case', sorted(CRAFTED_KERAS))
def test_crafted_keras_archives_are_malformed_not_memory_or_recursion_errors(tmp_path, case):
    good = tmp_path / 'good.keras'
    _model().save(str(good))
    members, expected = CRAFTED_KERAS[case]
    path = _rewrite_keras(good, tmp_path / 'm.keras', **members)
    with pytest.raises(ValueError, match=expected) as info:
        keras.models.load_model(path)
    assert 'm.keras' in str(info.value)


def test_crafted_weights_npz_is_refused(tmp_path):
    path = tmp_path / 'm.weights.npz'
    path.write_bytes(_huge_npz())
    with pytest.raises(serializers.CorruptFileError, match=r"'W' of .*m.weights.npz' claims"):
        _model().load_weights(str(path))
