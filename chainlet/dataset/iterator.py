"""``Iterator``: the interface every dataset iterator follows.

An iterator yields minibatches (lists of examples) and exposes ``batch_size``, ``epoch``,
``epoch_detail``, ``previous_epoch_detail``, ``is_new_epoch`` and ``repeat``; it can be saved
and resumed with ``serialize(serializer)`` and releases its resources in ``finalize()``.
"""
from __future__ import annotations

from typing import Any


class Iterator:
    """Base class of dataset iterators.

    Subclasses implement ``__next__`` (returning a list of examples, or raising
    ``StopIteration`` at the end of a non-repeating sweep). An iterator is a context manager
    whose exit calls :meth:`finalize`.

    Example:
        >>> from chainlet.dataset import Iterator
        >>> class Count(Iterator):
        ...     def __init__(self):
        ...         self.i = 0
        ...     def __next__(self):
        ...         self.i += 1
        ...         if self.i > 2:
        ...             raise StopIteration
        ...         return [self.i]
        >>> with Count() as it:
        ...     list(it)
        [[1], [2]]
    """

    def __iter__(self) -> 'Iterator':
        return self

    def __next__(self) -> list:
        raise NotImplementedError

    def next(self) -> list:
        """Return the next batch (the same as ``next(iterator)``)."""
        return self.__next__()

    def finalize(self) -> None:
        """Release resources such as worker processes (nothing by default)."""

    def __enter__(self) -> 'Iterator':
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        self.finalize()

    def serialize(self, serializer: Any) -> None:
        """Save or load the iteration state through ``serializer`` (nothing by default)."""
