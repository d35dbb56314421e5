"""keras.preprocessing.sequence.pad_sequences is keras.utils.pad_sequences (Keras 3 keeps both
spellings)."""
from __future__ import annotations

from chainlet import keras


def test_preprocessing_sequence_pad_sequences_is_the_utils_function():
    assert keras.preprocessing.sequence.pad_sequences is keras.utils.pad_sequences
    out = keras.preprocessing.sequence.pad_sequences([[1, 2, 3], [4]], maxlen=2,
                                                     padding='post', truncating='post')
    assert out.tolist() == [[1, 2], [4, 0]]
