"""Files from elsewhere: HDF5 that reads other files, crafted headers, saves on a full disk.

A model file downloaded from the internet must never make a loader read another local file
(HDF5 external storage, external links, virtual datasets) nor allocate what the file cannot
hold (a bare ``MemoryError``/``RecursionError``); and a save that runs out of disk must be an
``OSError`` naming the file, never a crash of the process.
"""
import io
import json
import os
import struct
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import chainlet
from chainlet import serializers

SECRET = b'top secret bytes' * 4  # 64 bytes: a (4, 4) float32 dataset


def _link():
    link = chainlet.Link()
    with link.init_scope():
        link.W = chainlet.Parameter(np.zeros((4, 4), np.float32))
    return link


def _secret(tmp_path):
    path = tmp_path / 'secret.txt'
    path.write_bytes(SECRET)
    return path


def _write_external_storage(h5py, path, secret):
    with h5py.File(path, 'w') as f:
        f.create_dataset('W', shape=(4, 4), dtype='<f4', external=[(str(secret), 0, 64)])


def _write_external_link(h5py, path, other):
    with h5py.File(other, 'w') as f:
        f['W'] = np.frombuffer(SECRET, np.float32).reshape(4, 4)
    with h5py.File(path, 'w') as f:
        f['W'] = h5py.ExternalLink(str(other), '/W')


def _write_virtual(h5py, path, other):
    with h5py.File(other, 'w') as f:
        f['W'] = np.frombuffer(SECRET, np.float32).reshape(4, 4)
    layout = h5py.VirtualLayout(shape=(4, 4), dtype='<f4')
    layout[:] = h5py.VirtualSource(str(other), 'W', shape=(4, 4))
    with h5py.File(path, 'w') as f:
        f.create_virtual_dataset('W', layout)


def _write_soft_to_external(h5py, path, other):
    # A soft link whose target lies behind an external link: found before the external link.
    with h5py.File(other, 'w') as f:
        f['W'] = np.frombuffer(SECRET, np.float32).reshape(4, 4)
    with h5py.File(path, 'w') as f:
        f['W'] = h5py.SoftLink('/zz/W')
        f['zz'] = h5py.ExternalLink(str(other), '/')


CRAFTED_HDF5 = {  # case: (writer, expected message, the entry the message names)
    'external storage': (_write_external_storage, 'external storage', "'/W'"),
    'external link': (_write_external_link, 'external link', "'/W'"),
    'virtual dataset': (_write_virtual, 'virtual dataset', "'/W'"),
    'soft link to another file': (_write_soft_to_external, 'external link', "'/zz'"),
}


@pytest.mark.parametrize('case', sorted(CRAFTED_HDF5))
def test_load_hdf5_refuses_files_that_read_other_files(tmp_path, case):
    h5py = pytest.importorskip('h5py')
    write, expected, entry = CRAFTED_HDF5[case]
    path = tmp_path / 'model.h5'
    other = _secret(tmp_path) if case == 'external storage' else tmp_path / 'other.h5'
    write(h5py, path, other)
    link = _link()
    with pytest.raises(serializers.UnsafeFileError, match=expected) as info:
        serializers.load_hdf5(str(path), link)
    assert isinstance(info.value, ValueError)
    assert 'model.h5' in str(info.value) and entry in str(info.value)
    assert not link.W.array.any()  # nothing of the secret reached the weights
    # A deserializer on a group the caller opened checks the file as well.
    with h5py.File(path, 'r') as f:
        with pytest.raises(serializers.UnsafeFileError):
            serializers.HDF5Deserializer(f).load(link)
    assert not link.W.array.any()


def test_soft_links_inside_the_file_load_and_dangling_ones_are_malformed(tmp_path):
    h5py = pytest.importorskip('h5py')
    path = tmp_path / 'model.h5'
    with h5py.File(path, 'w') as f:
        f['data/W'] = np.full((4, 4), 2, np.float32)
        f['W'] = h5py.SoftLink('/data/W')
    link = _link()
    serializers.load_hdf5(str(path), link, strict=False)
    assert (link.W.array == 2).all()
    with h5py.File(path, 'a') as f:
        f['gone'] = h5py.SoftLink('/nowhere')
    with pytest.raises(serializers.CorruptFileError, match="'/gone'.*'/nowhere'"):
        serializers.load_hdf5(str(path), link)


def test_hdf5_dataset_claiming_more_than_the_file_holds_is_refused(tmp_path):
    h5py = pytest.importorskip('h5py')
    path = tmp_path / 'model.h5'
    with h5py.File(path, 'w') as f:  # no data written: 4 GiB of fill value in a tiny file
        f.create_dataset('W', shape=(2 ** 30,), dtype='f4')
    with pytest.raises(serializers.CorruptFileError, match=r"'/W'.*model.h5.*\(1073741824,\)"):
        serializers.load_hdf5(str(path), _link())


def test_hdf5_object_dataset_is_malformed(tmp_path):
    h5py = pytest.importorskip('h5py')
    path = tmp_path / 'model.h5'
    with h5py.File(path, 'w') as f:
        f.create_dataset('W', shape=(2,), dtype=h5py.ref_dtype)
    with pytest.raises(serializers.CorruptFileError, match="'/W'.*dtype"):
        serializers.load_hdf5(str(path), _link())


# --- full disk: the save fails with an OSError, never a crash --------------------------------

FULL_DISK = textwrap.dedent("""
    import resource, signal, sys
    import numpy as np, chainlet
    from chainlet import serializers
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    kind, target = sys.argv[1], sys.argv[2]
    link = chainlet.Link()
    with link.init_scope():
        link.W = chainlet.Parameter(np.random.RandomState(0).rand(400_000).astype(np.float32))
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
    try:
        if kind == 'hdf5':
            serializers.save_hdf5(target, link)
        elif kind == 'npz':
            serializers.save_npz(target, link, compression=False)
        elif kind == 'safetensors':
            serializers.save_safetensors(target, link)
    except OSError as e:
        print('OSError:', e, flush=True)
        sys.exit(0)
    print('no error', flush=True)
""")


@pytest.mark.parametrize('kind', ['hdf5', 'npz', 'safetensors'])
def test_save_on_a_full_disk_raises_oserror_and_keeps_the_old_file(tmp_path, kind):
    # HDF5 wrote to disk itself and crashed the process (SIGSEGV) when a write failed.
    pytest.importorskip({'hdf5': 'h5py', 'safetensors': 'safetensors'}.get(kind, 'numpy'))
    target = tmp_path / f'model.{kind}'
    target.write_bytes(b'the old file')
    script = tmp_path / 'full_disk.py'
    script.write_text(FULL_DISK)
    proc = subprocess.run([sys.executable, str(script), kind, str(target)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f'exit {proc.returncode}: {proc.stderr[-2000:]}'
    assert 'OSError:' in proc.stdout and str(target) in proc.stdout, proc.stdout
    assert target.read_bytes() == b'the old file'
    assert sorted(os.listdir(tmp_path)) == ['full_disk.py', target.name]


# --- crafted headers: a ValueError naming the file, never MemoryError or RecursionError ------

def _npy_header(shape, descr='<f4'):
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, shape)
    text += ' ' * ((64 - (10 + len(text) + 1) % 64) % 64) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(text)) + text.encode()


def _npz(tmp_path, name, members, compression=zipfile.ZIP_STORED):
    path = tmp_path / name
    with zipfile.ZipFile(path, 'w', compression) as z:
        for member, data in members.items():
            z.writestr(member, data)
    return path


def _safetensors(tmp_path, name, header, data=b''):
    path = tmp_path / name
    path.write_bytes(struct.pack('<Q', len(header)) + header + data)
    return path


def _raw(path, data):
    path.write_bytes(data)
    return path


def _pickled_object_array():
    buf = io.BytesIO()
    np.save(buf, np.array([{'a': 1}], dtype=object), allow_pickle=True)
    return buf.getvalue()


CRAFTED = {
    # name: (make(tmp_path) -> path, loader, expected message)
    'npz huge shape': (
        lambda t: _npz(t, 'm.npz', {'W.npy': _npy_header((2 ** 40,)) + bytes(16)}),
        serializers.load_npz, r"entry 'W' of .*m\.npz.*claims shape \(1099511627776,\)"),
    'npz compressed huge shape': (
        lambda t: _npz(t, 'm.npz', {'W.npy': _npy_header((2 ** 40,)) + bytes(16)},
                       zipfile.ZIP_DEFLATED),
        serializers.load_npz, r"entry 'W' of .*m\.npz.*claims shape"),
    'npz pickled objects': (
        lambda t: _npz(t, 'm.npz', {'W.npy': _pickled_object_array()}),
        serializers.load_npz, r"'W' of .*m\.npz.*pickled"),
    'npz broken header': (
        lambda t: _npz(t, 'm.npz', {
            'W.npy': _npy_header((4, 4)).replace(b'(4, 4)', b'((((((')}),
        serializers.load_npz, r"'W' of .*m\.npz"),
    'npz member claiming a huge size': (
        lambda t: _zip_with_claimed_size(t / 'm.npz', 'W.npy', 2 ** 40),
        serializers.load_npz, r"'W.npy' of .*m\.npz' claims 1099511627776 bytes"),
    'safetensors header length 2**60': (
        lambda t: _raw(t / 'm.safetensors', struct.pack('<Q', 2 ** 60) + b'{}'),
        serializers.load_safetensors, r"m\.safetensors.*header"),
    'safetensors huge shape': (
        lambda t: _safetensors(t, 'm.safetensors', json.dumps({'W': {
            'dtype': 'F32', 'shape': [2 ** 40, 2 ** 20], 'data_offsets': [0, 16]}}).encode(),
            bytes(16)),
        serializers.load_safetensors, r"m\.safetensors"),
    'safetensors nested header': (
        lambda t: _safetensors(t, 'm.safetensors', b'[' * 100_000 + b']' * 100_000),
        serializers.load_safetensors, r"m\.safetensors"),
    'safetensors huge string entry': (
        lambda t: _safetensors(t, 'm.safetensors', json.dumps({'__metadata__': {
            '__chainlet__/strings': json.dumps({'W': {
                'dtype': '<U100000000', 'shape': [1000], 'values': ['a'] * 1000}})}}).encode()),
        serializers.load_safetensors, r"'W' of .*m\.safetensors' is malformed"),
}


def _zip_with_claimed_size(path, member, size):
    # A stored member whose directory entries claim ``size`` uncompressed bytes.
    data = _npy_header((4, 4)) + bytes(64)
    with zipfile.ZipFile(path, 'w') as z:
        z.writestr(member, data)
    raw = bytearray(path.read_bytes())
    real = struct.pack('<I', len(data))
    # local header: uncompressed size at offset 22; central directory entry: at offset 24
    local = raw.index(b'PK\x03\x04')
    central = raw.index(b'PK\x01\x02')
    assert raw[local + 22:local + 26] == real and raw[central + 24:central + 28] == real
    fake = struct.pack('<I', min(size, 0xFFFFFFFF))
    raw[local + 22:local + 26] = fake
    raw[central + 24:central + 28] = fake
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize('case', sorted(CRAFTED))
@pytest.mark.parametrize('as_path', [True, False], ids=['path', 'file'])
def test_crafted_files_are_refused_as_malformed(tmp_path, case, as_path):
    make, loader, expected = CRAFTED[case]
    if 'safetensors' in case:
        pytest.importorskip('safetensors')
    path = make(tmp_path)
    if 'member claiming' in case:
        expected = expected.replace('1099511627776', str(0xFFFFFFFF))
    link = _link()
    if as_path:
        with pytest.raises(ValueError, match=expected):
            loader(str(path), link)
    else:
        with open(str(path), 'rb') as f:
            with pytest.raises(ValueError, match=expected.split(' of ')[0]):
                loader(f, link)
    assert not link.W.array.any()
