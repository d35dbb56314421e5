"""IMDB movie reviews labeled by sentiment, as word indexes (``keras.datasets.imdb``).

Example:
    >>> from chainlet.keras.datasets import imdb
    >>> callable(imdb.load_data) and callable(imdb.get_word_index)
    True
"""
from __future__ import annotations

import json
from typing import Any, Optional

import numpy

from chainlet.keras.datasets import _files, _sequences


def load_data(path: str = 'imdb.npz', num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, seed: int = 113, start_char: Optional[int] = 1,
              oov_char: Optional[int] = 2, index_from: int = 3, **kwargs: Any) -> tuple:
    """Load the 25,000 + 25,000 IMDB reviews (words ranked by frequency).

    Args:
        path: File name in the cache.
        num_words: Keep the ``num_words`` most frequent words (others become ``oov_char``).
        skip_top: Also replace the ``skip_top`` most frequent words.
        maxlen: Drop the sequences of ``maxlen`` words or more.
        seed: Seed of the shuffle (training and test sets are shuffled separately).
        start_char: Index that starts every sequence (``None``: none).
        oov_char: Index of replaced words (``None``: they are removed).
        index_from: Offset added to real word indexes.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: object arrays of lists of ints, and int
        label arrays (1 positive, 0 negative).
    """
    if kwargs:
        raise TypeError(f'imdb.load_data: unexpected keyword argument(s) {sorted(kwargs)}')
    local = _files.get_file(path, _files.ORIGIN_FOLDER + 'imdb.npz', _files.HASHES['imdb.npz'],
                            where='imdb.load_data')
    f = _files.load_npz(local)
    rng = numpy.random.RandomState(seed)
    x_train, y_train = _sequences.shuffled(rng, f['x_train'], f['y_train'])
    x_test, y_test = _sequences.shuffled(rng, f['x_test'], f['y_test'])
    x_train = _sequences.shift(x_train, start_char, index_from)
    x_test = _sequences.shift(x_test, start_char, index_from)
    if maxlen:
        x_train, y_train = _files.remove_long_seq(maxlen, x_train, y_train)
        x_test, y_test = _files.remove_long_seq(maxlen, x_test, y_test)
        if not x_train or not x_test:
            raise ValueError(f'imdb.load_data: after filtering for sequences shorter than '
                             f'maxlen={maxlen}, no sequence was kept; increase maxlen')
    xs = _sequences.cut(x_train + x_test, num_words, skip_top, oov_char)
    n = len(x_train)
    return ((_files.object_array(xs[:n]), numpy.asarray(y_train)),
            (_files.object_array(xs[n:]), numpy.asarray(y_test)))


def get_word_index(path: str = 'imdb_word_index.json') -> dict:
    """``{word: index}`` of the IMDB vocabulary (add ``index_from`` to match ``load_data``)."""
    local = _files.get_file(path, _files.ORIGIN_FOLDER + 'imdb_word_index.json',
                            _files.HASHES['imdb_word_index.json'], where='imdb.get_word_index')
    with open(local) as f:
        return json.load(f)
