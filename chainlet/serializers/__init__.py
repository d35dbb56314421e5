"""Saving and loading links, optimizers and other objects with a ``serialize`` method.

``save_npz``/``load_npz`` use NumPy ``.npz`` archives (no extra dependency); ``save_hdf5``/
``load_hdf5`` use HDF5 and need ``pip install "chainlet-dl[hdf5]"``; ``save_safetensors``/
``load_safetensors`` use the ``.safetensors`` format (``pip install "chainlet-dl[safetensors]"``),
memory-mapped and readable by PyTorch tooling. Writes to a path are atomic,
reads never unpickle, and ``strict`` loading reports every missing and unexpected key at once.

Example:
    >>> import io, numpy as np, chainlet
    >>> from chainlet import serializers
    >>> class Model(chainlet.Chain):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.l1 = chainlet.Link()
    ...             with self.l1.init_scope():
    ...                 self.l1.W = chainlet.Parameter(np.full(2, 7, np.float32))
    >>> buf = io.BytesIO()
    >>> serializers.save_npz(buf, Model())
    >>> _ = buf.seek(0)
    >>> fresh = Model()
    >>> fresh.l1.W.array[...] = 0
    >>> serializers.load_npz(buf, fresh)
    >>> fresh.l1.W.array
    array([7., 7.], dtype=float32)
"""
from chainlet._atomic import atomic_path  # noqa: F401  (public for chainlet.keras's saves)
from chainlet.serializers._base import AbstractSerializer  # noqa: F401
from chainlet.serializers._base import CorruptFileError  # noqa: F401
from chainlet.serializers._base import Deserializer  # noqa: F401
from chainlet.serializers._base import SerializationKeyError  # noqa: F401
from chainlet.serializers._base import Serializer  # noqa: F401
from chainlet.serializers._base import UnsafeFileError  # noqa: F401
from chainlet.serializers.hdf5 import HDF5Deserializer  # noqa: F401
from chainlet.serializers.hdf5 import HDF5Serializer  # noqa: F401
from chainlet.serializers.hdf5 import load_hdf5  # noqa: F401
from chainlet.serializers.hdf5 import open_hdf5  # noqa: F401
from chainlet.serializers.hdf5 import save_hdf5  # noqa: F401
from chainlet.serializers.hdf5 import write_hdf5  # noqa: F401
from chainlet.serializers.npz import DictionarySerializer  # noqa: F401
from chainlet.serializers.npz import NpzDeserializer  # noqa: F401
from chainlet.serializers.npz import check_npz  # noqa: F401
from chainlet.serializers.npz import check_zip  # noqa: F401
from chainlet.serializers.npz import load_npz  # noqa: F401
from chainlet.serializers.npz import save_npz  # noqa: F401
from chainlet.serializers.safetensors import SafetensorsDeserializer  # noqa: F401
from chainlet.serializers.safetensors import load_safetensors  # noqa: F401
from chainlet.serializers.safetensors import read_safetensors  # noqa: F401
from chainlet.serializers.safetensors import save_safetensors  # noqa: F401
from chainlet.serializers.safetensors import write_safetensors  # noqa: F401
