"""The word-index encoding shared by ``imdb`` and ``reuters`` (Keras's conventions: 0 pads,
``start_char`` starts a sequence, ``oov_char`` replaces words outside the kept vocabulary,
real words are shifted by ``index_from``)."""
from __future__ import annotations

from typing import Any, Optional


def shuffled(rng: Any, *arrays: Any) -> list:
    """The arrays permuted by one shuffle of ``rng`` (``numpy.random.RandomState``)."""
    indices = list(range(len(arrays[0])))
    rng.shuffle(indices)
    return [list(a[indices]) for a in arrays]


def shift(xs: list, start_char: Optional[int], index_from: int) -> list:
    """Add ``index_from`` to every word and put ``start_char`` in front."""
    head = [] if start_char is None else [start_char]
    return [head + [int(w) + index_from for w in x] for x in xs]


def cut(xs: list, num_words: Optional[int], skip_top: int, oov_char: Optional[int]) -> list:
    """Replace (or with ``oov_char=None`` drop) the words outside ``[skip_top, num_words)``;
    ``num_words`` defaults to the largest index."""
    if not num_words:
        num_words = max((max(x) for x in xs if x), default=0)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]
