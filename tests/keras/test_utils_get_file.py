"""keras.utils.get_file (offline: file:// origins) and the registry names keras.utils publishes."""
import hashlib
import io
import pathlib
import tarfile
import zipfile

import pytest

from chainlet import keras


def _src(tmp_path, name, data):
    p = tmp_path / 'origin' / name
    p.parent.mkdir(exist_ok=True)
    p.write_bytes(data)
    return p.as_uri()


def test_downloads_once_into_the_cache_and_checks_the_hash(tmp_path):
    data = b'hello'
    uri = _src(tmp_path, 'a.txt', data)
    cache = tmp_path / 'cache'
    path = keras.utils.get_file('a.txt', uri, file_hash=hashlib.sha256(data).hexdigest(),
                                cache_dir=str(cache))
    assert pathlib.Path(path) == cache / 'datasets' / 'a.txt'
    assert pathlib.Path(path).read_bytes() == data
    md5 = keras.utils.get_file(origin=uri, md5_hash=hashlib.md5(data).hexdigest(),
                               cache_dir=str(cache), cache_subdir='other')
    assert pathlib.Path(md5).name == 'a.txt' and pathlib.Path(md5).read_bytes() == data
    with pytest.raises(ValueError, match='mismatch|expected|SHA-256|MD5'):
        keras.utils.get_file('b.txt', uri, file_hash='0' * 64, cache_dir=str(cache))
    assert not (cache / 'datasets' / 'b.txt').exists()
    assert sorted(p.name for p in (cache / 'datasets').iterdir()) == ['a.txt']  # no leftovers


@pytest.mark.parametrize('kind', ['tar.gz', 'zip'])
def test_extract(tmp_path, kind):
    buf = io.BytesIO()
    if kind == 'zip':
        with zipfile.ZipFile(buf, 'w') as zf:
            zf.writestr('d/x.txt', 'x')
    else:
        with tarfile.open(fileobj=buf, mode='w:gz') as tar:
            info = tarfile.TarInfo('d/x.txt')
            info.size = 1
            tar.addfile(info, io.BytesIO(b'x'))
    uri = _src(tmp_path, f'arch.{kind}', buf.getvalue())
    out = keras.utils.get_file(f'arch.{kind}', uri, extract=True, cache_dir=str(tmp_path / 'c'))
    assert pathlib.Path(out, 'd', 'x.txt').read_text() == 'x'
    assert out.endswith('arch_extracted')


def test_unsafe_archive_member_is_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        zf.writestr('../evil.txt', 'x')
    uri = _src(tmp_path, 'evil.zip', buf.getvalue())
    with pytest.raises(ValueError, match='unsafe member'):
        keras.utils.get_file('evil.zip', uri, extract=True, cache_dir=str(tmp_path / 'c'))
    assert not (tmp_path / 'c' / 'evil.txt').exists()


def test_bad_arguments_name_themselves(tmp_path):
    with pytest.raises(ValueError, match='origin'):
        keras.utils.get_file('a.txt')
    with pytest.raises(ValueError, match='hash_algorithm'):
        keras.utils.get_file('a.txt', 'file:///x', hash_algorithm='sha1')
    with pytest.raises(ValueError, match='md5'):
        keras.utils.get_file('a.txt', 'file:///x', file_hash='ab', hash_algorithm='md5')


def test_offline_error_says_where_to_put_the_file(tmp_path):
    with pytest.raises(OSError, match='put the file at'):
        keras.utils.get_file('a.txt', (tmp_path / 'missing.txt').as_uri(),
                             cache_dir=str(tmp_path / 'c'))


def test_registry_names_are_published_in_utils():
    assert keras.utils.register_keras_serializable is keras.saving.register_keras_serializable
    assert keras.utils.get_custom_objects is keras.saving.get_custom_objects
    assert keras.utils.custom_object_scope is keras.saving.custom_object_scope
    with pytest.raises(AttributeError, match='no attribute'):
        keras.utils.not_a_name
