"""The one atomic-write helper (chainlet._atomic): leftovers of killed saves are cleaned."""
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from chainlet import _atomic, serializers
from chainlet.training import _files
from chainlet.training.extensions import snapshot_writers

from serializer_models import make_net

# The child starts a save of ``target``, and SIGKILLs itself once the temporary file holds data:
# no ``except``/``finally`` runs, exactly as under the out-of-memory killer.
KILLED_SAVE = textwrap.dedent("""
    import os, signal, sys
    import numpy as np, chainlet
    from chainlet import serializers
    from chainlet.training.extensions import snapshot_writers
    kind, target = sys.argv[1], sys.argv[2]
    link = chainlet.Link()
    with link.init_scope():
        link.W = chainlet.Parameter(np.zeros((64, 64), np.float32))

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    if kind == 'npz':
        os.fsync = die              # the archive is written, the process dies before the rename
        serializers.save_npz(target, link)
    elif kind == 'hdf5':
        os.fsync = die
        serializers.save_hdf5(target, link)
    elif kind == 'snapshot':
        def savefun(path, obj):
            with open(path, 'wb') as f:
                f.write(b'partial snapshot')
            die()
        folder, name = os.path.split(target)
        snapshot_writers.SimpleWriter(savefun=savefun)(name, folder, link)
    elif kind == 'snapshot_npz':    # the default savefun, save_npz, inside the writer
        os.fsync = die
        folder, name = os.path.split(target)
        snapshot_writers.SimpleWriter()(name, folder, link)
    elif kind == 'text':
        from chainlet.training._files import write_text_atomic
        os.fsync = die
        write_text_atomic(target, 'log')
    elif kind == 'safetensors':
        os.fsync = die
        serializers.save_safetensors(target, link)
    elif kind.startswith('keras'):             # keras-<how>-<extension>
        from chainlet import keras
        _, how, ext = kind.split('-')
        model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(64)])
        os.fsync = die
        getattr(model, how)(target + ext)
""")

# Every save path of every format: the Keras facade's too (``keras-<method>-<extension>``).
KERAS_KINDS = ['keras-save-.keras', 'keras-save-.h5', 'keras-save-.npz',
               'keras-save_weights-.weights.h5', 'keras-save_weights-.weights.npz',
               'keras-save_weights-.safetensors']
ALL_KINDS = ['npz', 'hdf5', 'safetensors', 'snapshot', 'snapshot_npz', 'text'] + KERAS_KINDS


def _needs(kind):
    if kind == 'hdf5' or kind.endswith('.h5'):
        pytest.importorskip('h5py')
    if 'safetensors' in kind:
        pytest.importorskip('safetensors')


def _file_of(kind, target):
    return f'{target}{kind.split("-")[2]}' if kind.startswith('keras') else str(target)


def _kill_during_save(tmp_path, kind, target):
    script = tmp_path / 'killed_save.py'
    script.write_text(KILLED_SAVE)
    proc = subprocess.run([sys.executable, str(script), kind, str(target)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def _save(kind, target):
    if kind == 'npz':
        serializers.save_npz(target, make_net(1))
    elif kind == 'hdf5':
        serializers.save_hdf5(target, make_net(1))
    elif kind == 'safetensors':
        serializers.save_safetensors(target, make_net(1))
    elif kind in ('snapshot', 'snapshot_npz'):
        folder, name = os.path.split(target)
        snapshot_writers.SimpleWriter()(name, folder, make_net(1))
    elif kind.startswith('keras'):
        from chainlet import keras
        _, how, ext = kind.split('-')
        model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(64)])
        getattr(model, how)(f'{target}{ext}')
    else:
        _files.write_text_atomic(str(target), 'log')


@pytest.mark.parametrize('kind', ALL_KINDS)
def test_leftovers_of_killed_saves_are_removed_by_the_next_save(tmp_path, kind):
    _needs(kind)
    out = tmp_path / 'out'
    out.mkdir()
    target = out / 'model'
    for _ in range(3):
        _kill_during_save(tmp_path, kind, target)
    # Each killed save removed the leftover of the one before: they never pile up.
    leftovers = os.listdir(out)
    assert len(leftovers) == 1 and _atomic.is_temp_name(leftovers[0]), leftovers
    _save(kind, target)
    assert os.listdir(out) == [os.path.basename(_file_of(kind, target))]


@pytest.mark.parametrize('umask, mode', [(0o022, 0o644), (0o027, 0o640)])
@pytest.mark.parametrize('kind', ALL_KINDS)
def test_every_format_gets_the_mode_of_a_plain_open(tmp_path, kind, umask, mode):
    # safetensors' own writer created its file 0o600 whatever the umask.
    _needs(kind)
    old = os.umask(umask)
    try:
        _save(kind, tmp_path / 'model')
    finally:
        os.umask(old)
    assert os.stat(_file_of(kind, tmp_path / 'model')).st_mode & 0o777 == mode


def test_temporaries_of_live_writers_other_hosts_and_other_files_are_kept(tmp_path):
    target = tmp_path / 'model.npz'
    live = _atomic.temp_name(target)  # this process: still running
    other_host = str(tmp_path / '.model.npz.otherhost-1.0123456789ab.tmp')
    other_file = _atomic.temp_name(tmp_path / 'other.npz').replace(f'-{os.getpid()}.',
                                                                   '-999999999.')
    for path in (live, other_host, other_file):
        open(path, 'wb').close()
    serializers.save_npz(target, make_net(1))
    assert sorted(os.listdir(tmp_path)) == sorted(
        ['model.npz'] + [os.path.basename(p) for p in (live, other_host, other_file)])
    # The same name with a process id that does not exist is a leftover and goes.
    dead = live.replace(f'-{os.getpid()}.', '-999999999.')
    os.rename(live, dead)
    assert _atomic.remove_stale_temps(target) == [dead]


def test_new_files_get_the_umask_permissions_and_replaced_files_keep_theirs(tmp_path):
    old = os.umask(0o022)
    try:
        target = tmp_path / 'a.txt'
        _atomic.write_text(target, 'one')
        assert os.stat(target).st_mode & 0o777 == 0o644
        os.chmod(target, 0o600)
        _atomic.write_bytes(target, b'two')
        assert os.stat(target).st_mode & 0o777 == 0o600
        assert target.read_bytes() == b'two'
    finally:
        os.umask(old)


def test_failed_write_removes_its_temporary_and_keeps_the_target(tmp_path):
    target = tmp_path / 'a.txt'
    _atomic.write_text(target, 'old')
    with pytest.raises(ValueError, match='boom'):
        with _atomic.atomic_path(target) as tmp:
            with open(tmp, 'w') as f:
                f.write('new')
            raise ValueError('boom')
    assert os.listdir(tmp_path) == ['a.txt'] and target.read_text() == 'old'


def test_missing_folder_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match='does not exist'):
        _atomic.write_text(tmp_path / 'nope' / 'a.txt', 'x')


def test_symlink_target_is_written_through(tmp_path):
    real = tmp_path / 'real.npz'
    link = tmp_path / 'link.npz'
    serializers.save_npz(real, make_net(1))
    os.symlink(real, link)
    serializers.save_npz(link, make_net(2))
    assert os.path.islink(link)
    with np.load(real) as f:
        assert len(f.files) > 0
