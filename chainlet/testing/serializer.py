"""Round trips through a serializer: ``save_and_load``, ``save_and_load_npz``,
``save_and_load_hdf5``.

Example:
    >>> import numpy as np, chainlet.links as L
    >>> from chainlet import testing
    >>> src, dst = L.Linear(2, 3), L.Linear(2, 3)
    >>> testing.save_and_load_npz(src, dst)
    >>> bool((src.W.array == dst.W.array).all())
    True
"""
from __future__ import annotations

import os
import tempfile
from typing import Any, Callable


def save_and_load(src: Any, dst: Any, filename: str, saver: Callable[[str, Any], Any],
                  loader: Callable[[str, Any], Any]) -> None:
    """Save ``src`` with ``saver`` and load the file into ``dst`` with ``loader``.

    The file lives in a temporary directory removed afterwards.

    Args:
        src: Object to save (anything with ``serialize``).
        dst: Object to load into.
        filename: File name used inside the temporary directory.
        saver: ``saver(path, obj)``, e.g. ``serializers.save_npz``.
        loader: ``loader(path, obj)``, e.g. ``serializers.load_npz``.
    """
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, filename)
        saver(path, src)
        loader(path, dst)


def save_and_load_npz(src: Any, dst: Any) -> None:
    """:func:`save_and_load` through an NPZ file."""
    from chainlet import serializers
    save_and_load(src, dst, 'tmp.npz', serializers.save_npz, serializers.load_npz)


def save_and_load_hdf5(src: Any, dst: Any) -> None:
    """:func:`save_and_load` through an HDF5 file (needs h5py)."""
    from chainlet import serializers
    save_and_load(src, dst, 'tmp.h5', serializers.save_hdf5, serializers.load_hdf5)
