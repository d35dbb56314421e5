"""Reuters newswires labeled over 46 topics, as word indexes (``keras.datasets.reuters``).

Example:
    >>> from chainlet.keras.datasets import reuters
    >>> len(reuters.get_label_names())
    46
"""
from __future__ import annotations

import json
from typing import Optional

import numpy

from chainlet.keras.datasets import _files, _sequences


def load_data(path: str = 'reuters.npz', num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, test_split: float = 0.2, seed: int = 113,
              start_char: Optional[int] = 1, oov_char: Optional[int] = 2,
              index_from: int = 3) -> tuple:
    """Load the 11,228 Reuters newswires (words ranked by frequency).

    Args:
        path: File name in the cache.
        num_words, skip_top, maxlen, seed, start_char, oov_char, index_from: As in
            :func:`chainlet.keras.datasets.imdb.load_data`.
        test_split: Fraction of the (shuffled) newswires that forms the test set.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: object arrays of lists of ints and int
        topic labels.
    """
    if not 0 <= test_split < 1:
        raise ValueError(f'reuters.load_data: argument test_split: expected a float in '
                         f'[0, 1), got {test_split!r}')
    local = _files.get_file(path, _files.ORIGIN_FOLDER + 'reuters.npz',
                            _files.HASHES['reuters.npz'], where='reuters.load_data')
    f = _files.load_npz(local)
    rng = numpy.random.RandomState(seed)
    xs, labels = _sequences.shuffled(rng, f['x'], f['y'])
    xs = _sequences.shift(xs, start_char, index_from)
    if maxlen:
        xs, labels = _files.remove_long_seq(maxlen, xs, labels)
    xs = _sequences.cut(xs, num_words, skip_top, oov_char)
    idx = int(len(xs) * (1 - test_split))
    labels = numpy.asarray(labels)
    return ((_files.object_array(xs[:idx]), labels[:idx]),
            (_files.object_array(xs[idx:]), labels[idx:]))


def get_word_index(path: str = 'reuters_word_index.json') -> dict:
    """``{word: index}`` of the Reuters vocabulary (add ``index_from`` to match
    ``load_data``)."""
    local = _files.get_file(path, _files.ORIGIN_FOLDER + 'reuters_word_index.json',
                            _files.HASHES['reuters_word_index.json'],
                            where='reuters.get_word_index')
    with open(local) as f:
        return json.load(f)


def get_label_names() -> tuple:
    """The 46 topic names, in label order."""
    return ('cocoa', 'grain', 'veg-oil', 'earn', 'acq', 'wheat', 'copper', 'housing',
            'money-supply', 'coffee', 'sugar', 'trade', 'reserves', 'ship', 'cotton', 'carcass',
            'crude', 'nat-gas', 'cpi', 'money-fx', 'interest', 'gnp', 'meal-feed', 'alum',
            'oilseed', 'gold', 'tin', 'strategic-metal', 'livestock', 'retail', 'ipi',
            'iron-steel', 'rubber', 'heat', 'jobs', 'lei', 'bop', 'zinc', 'orange', 'pet-chem',
            'dlr', 'gas', 'silver', 'wpi', 'hog', 'lead')
