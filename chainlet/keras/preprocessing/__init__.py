"""``keras.preprocessing``: Keras 3's legacy-compatible preprocessing namespace.

Design: the names live in :mod:`chainlet.keras.utils`; this package only re-exports them where
Keras 3 also offers them (``keras.preprocessing.sequence.pad_sequences``), so that programs
written against that spelling run unchanged.

Example:
    >>> from chainlet import keras
    >>> keras.preprocessing.sequence.pad_sequences([[1, 2], [3]], maxlen=3).tolist()
    [[0, 1, 2], [0, 0, 3]]
"""
from chainlet.keras.preprocessing import image, sequence  # noqa: F401

__all__ = ['image', 'sequence']
