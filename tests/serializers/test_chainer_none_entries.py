"""Files written by Chainer store ``None`` (an uninitialized parameter) as a pickled 0-d object
array; load_npz reads those without unpickling anything but NumPy's array constructors."""
import os
import pickle

import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet.serializers import CorruptFileError, load_npz


def _chainer_style_file(path, **arrays):
    # np.savez pickles object arrays, as Chainer's save_npz does for None values
    np.savez(path, **arrays)


def test_none_entries_of_a_chainer_file_load(tmp_path):
    path = str(tmp_path / 'lazy.npz')
    conv_b = np.arange(4, dtype=np.float32)
    _chainer_style_file(path, **{'0/W': np.array(None, dtype=object), '0/b': conv_b,
                                 '1/W': np.array(None, dtype=object),
                                 '1/b': np.zeros(2, np.float32)})
    model = chainlet.Sequential(L.Convolution2D(None, 4, 3), L.Linear(None, 2))
    load_npz(path, model)
    assert model[0].W.array is None and model[1].W.array is None
    np.testing.assert_array_equal(model[0].b.array, conv_b)


class _Evil:
    def __reduce__(self):
        return (os.system, ('echo should-not-run',))


@pytest.mark.parametrize('payload', [
    np.array([None, 1], dtype=object),            # an object array that is not None
    np.array(_Evil(), dtype=object),               # a pickle that would run code
])
def test_other_pickled_entries_are_refused(tmp_path, payload):
    path = str(tmp_path / 'bad.npz')
    _chainer_style_file(path, W=payload, b=np.zeros(2, np.float32))
    link = L.Linear(None, 2)
    with pytest.raises(CorruptFileError, match='pickled Python objects other than None'):
        load_npz(path, link)


def test_the_unpickler_refuses_globals():
    import io

    from chainlet.serializers.npz import _NoneArrayUnpickler
    data = pickle.dumps(_Evil())
    with pytest.raises(pickle.UnpicklingError, match='not allowed'):
        _NoneArrayUnpickler(io.BytesIO(data)).load()
