"""Data adapters: what ``fit``/``evaluate``/``predict`` accept, turned into Keras ``data`` batches.

Every kind of input ends up as an iterator of Keras ``data`` items (``x``, ``(x, y)`` or
``(x, y, sample_weight)``) with arrays on the model's device:

* arrays (NumPy, CuPy, ``Variable``, anything with ``__array__``; a list or a dict of them):
  an :class:`ArrayData` that slices batches (shuffled or not) and holds out a validation split;
* a chainlet dataset (indexable examples): concatenated once into an :class:`ArrayData`;
* a re-iterable source of batches (``keras.utils.PyDataset``, a PyTorch ``DataLoader``): a
  :class:`Batches`, read anew at every epoch (or, with ``steps_per_epoch``, read on across
  epochs until it runs out, as Keras does);
* an iterator (a chainlet iterator, a generator): read as it comes.

The model is asked only about its structure (input template, targets per output, input dtypes)
through the trainer's structure methods, so a subclass that overrides them changes the
adapters too.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy

from chainlet import Variable, backend
from chainlet.keras.engine.tree import flatten, pack
from chainlet.keras.utils import pack_x_y_sample_weight, unpack_x_y_sample_weight


def to_array(x: Any) -> Any:
    """The array of ``x`` (a ``Variable``'s data, a device array as is, else ``numpy.asarray``)."""
    if isinstance(x, Variable):
        return x.array
    if backend.is_array(x):
        return x
    return numpy.asarray(x)


class ArrayData:
    """Arrays of one ``fit``/``evaluate``/``predict`` call, sliced into batches.

    Attributes:
        xs, ys, sws: Flat lists of arrays (inputs, targets per output, sample weights per output
            or ``None``).
        n: Number of samples.
    """

    def __init__(self, model: Any, x: Any, y: Any = None, sample_weight: Any = None,
                 where: str = 'fit') -> None:
        self.x_template = model._input_template(x)
        self.xs = [to_array(a) for a in flatten(self.x_template)]
        self.ys = model._target_list(y, where) if y is not None else None
        self.sws = model._per_output(sample_weight, 'sample_weight') \
            if sample_weight is not None else None
        # Batches give y (and sample weights) back in the structure the user used: one array
        # for a single output, else a list in output order or a dict by output name.
        self.y_names = model._output_names_list(len(self.ys)) \
            if isinstance(y, dict) and self.ys is not None else None
        self.xs = [model._cast_input_array(i, a) for i, a in enumerate(self.xs)]
        counts = {'x': sorted({len(a) for a in self.xs if getattr(a, 'ndim', 0)})}
        if self.ys is not None:
            counts['y'] = sorted({len(a) for a in self.ys if a is not None})
        if self.sws is not None:
            counts['sample_weight'] = sorted({len(a) for a in self.sws if a is not None})
        sizes = {n for v in counts.values() for n in v}
        if len(sizes) > 1:
            detail = ', '.join(f'{k} sizes: {", ".join(map(str, v))}' for k, v in counts.items())
            raise ValueError(f'{where}: data cardinality is ambiguous: {detail}. Make sure all '
                             f'arrays contain the same number of samples.')
        if not sizes:
            raise ValueError(f'{where}: no input data was given (x has no arrays)')
        self.n = sizes.pop()

    def subset(self, start: int, stop: int) -> 'ArrayData':
        new = object.__new__(ArrayData)
        new.x_template = self.x_template
        new.xs = [a[start:stop] for a in self.xs]
        new.ys = None if self.ys is None else [None if a is None else a[start:stop]
                                               for a in self.ys]
        new.sws = None if self.sws is None else [None if a is None else a[start:stop]
                                                 for a in self.sws]
        new.y_names = self.y_names
        new.n = stop - start
        return new

    def batches(self, batch_size: int, shuffle: Any = False, xp: Any = numpy):
        """Yield ``(x, ys, sws)`` batches; the last partial batch is included."""
        n = self.n
        if shuffle == 'batch':
            order = numpy.arange(n)
            full = n // batch_size * batch_size
            blocks = order[:full].reshape(-1, batch_size)
            numpy.random.shuffle(blocks)
            order = numpy.concatenate([blocks.reshape(-1), order[full:]])
        elif shuffle:
            order = numpy.random.permutation(n)
        else:
            order = None
        for start in range(0, n, batch_size):
            if order is None:
                index: Any = slice(start, start + batch_size)
            else:
                index = order[start:start + batch_size]
            yield self.take(index, xp)

    def take(self, index: Any, xp: Any) -> Any:
        """The Keras ``data`` of one batch: ``x``, ``(x, y)`` or ``(x, y, sample_weight)``."""
        conv = xp.asarray
        x = pack(self.x_template, [conv(a[index]) for a in self.xs])
        if self.ys is None:
            return pack_x_y_sample_weight(x)
        y = self._structure([None if a is None else conv(a[index]) for a in self.ys])
        if self.sws is None:
            return (x, y)
        return (x, y, self._structure([None if a is None else conv(a[index])
                                       for a in self.sws]))

    def _structure(self, arrays: list) -> Any:
        if self.y_names is not None:
            return dict(zip(self.y_names, arrays))
        return arrays[0] if len(arrays) == 1 else arrays

    def num_batches(self, batch_size: int) -> int:
        return -(-self.n // batch_size)


def _is_array_container(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict, str, numpy.ndarray, Variable)) or \
        backend.is_array(x) or hasattr(x, '__array__')


def is_dataset(x: Any) -> bool:
    """A chainlet dataset: indexable examples (not batches)."""
    from chainlet.keras.utils import PyDataset
    return hasattr(x, '__getitem__') and hasattr(x, '__len__') and \
        not isinstance(x, PyDataset) and not _is_array_container(x)


def is_iterator(x: Any) -> bool:
    from chainlet.dataset.iterator import Iterator
    return isinstance(x, Iterator) or (hasattr(x, '__next__') and not is_dataset(x))


def is_reiterable(x: Any) -> bool:
    """A ``keras.utils.PyDataset`` or an iterable of batches that starts over at each
    ``iter()`` (a PyTorch ``DataLoader``, any object with ``__iter__`` but no ``__next__``)."""
    from chainlet.keras.utils import PyDataset
    if isinstance(x, PyDataset):
        return True
    return hasattr(x, '__iter__') and not hasattr(x, '__next__') and \
        not hasattr(x, '__getitem__') and not _is_array_container(x)


def is_batch_source(x: Any) -> bool:
    """Whether ``x`` yields its own batches (dataset, iterator, re-iterable), as opposed to
    arrays that the adapter slices."""
    return is_reiterable(x) or is_iterator(x) or is_dataset(x)


class Batches:
    """A re-iterable source of batches: a new pass at every epoch, or, with
    ``steps_per_epoch``, one pass continued across epochs until it runs out (as Keras)."""

    def __init__(self, source: Any) -> None:
        from chainlet.keras.utils import PyDataset
        self.source = source
        self.py_dataset = isinstance(source, PyDataset)
        self._current: Any = None

    def __len__(self) -> int:
        return len(self.source)

    def has_len(self) -> bool:
        try:
            len(self.source)
        except TypeError:
            return False
        return True

    def _new_iterator(self) -> Any:
        if self.py_dataset:
            ds = self.source
            ds.on_epoch_begin()
            return (ds[i] for i in range(len(ds)))
        return iter(self.source)

    def epoch(self, steps: Optional[int], restart: bool = False):
        """Yield the raw batches of one epoch (``restart``: from the beginning even with
        ``steps``, as evaluation does)."""
        if steps is None or restart or self._current is None:
            self._current = self._new_iterator()
        it, count = self._current, 0
        while steps is None or count < steps:
            try:
                item = next(it)
            except StopIteration:
                self._current = None
                break
            yield item
            count += 1
        if self.py_dataset and (steps is None or self._current is None):
            self.source.on_epoch_end()


def split_example_batch(batch: Any) -> tuple:
    """``(x, y, sample_weight)`` from an iterator's item: a list of example tuples (a chainlet
    iterator), or Keras's ``x`` / ``(x,)`` / ``(x, y)`` / ``(x, y, sample_weight)`` (a list,
    as PyTorch's ``DataLoader`` collates, reads like a tuple)."""
    if isinstance(batch, list) and batch and isinstance(batch[0], tuple):
        from chainlet.dataset.convert import concat_examples
        batch = concat_examples(batch)
    return unpack_x_y_sample_weight(batch)


def make_source(model: Any, x: Any, y: Any, sample_weight: Any, where: str) -> Any:
    """The adapter of ``x`` (and ``y``, ``sample_weight``): an :class:`ArrayData`, a
    :class:`Batches` or the iterator itself. Raises ``ValueError`` when ``y`` or
    ``sample_weight`` is given with a source that yields its own batches."""
    if x is None:
        raise ValueError(f'{where}: x is required')
    if is_batch_source(x):
        if y is not None:
            raise ValueError(f'{where}: y must not be given when x is a dataset, a '
                             f'generator or an iterable of batches (they yield the '
                             f'targets); got y of type {type(y).__name__}')
        if sample_weight is not None:
            raise ValueError(f'{where}: sample_weight must not be given when x is a '
                             f'dataset, a generator or an iterable of batches; yield '
                             f'(x, y, sample_weight) batches instead')
    if is_reiterable(x):
        return Batches(x)
    if is_dataset(x):
        from chainlet.dataset.convert import concat_examples
        examples = [x[i] for i in range(len(x))]
        if not examples:
            raise ValueError(f'{where}: the dataset is empty')
        batch = concat_examples(examples) if isinstance(examples[0], tuple) else \
            (numpy.asarray(examples),)
        bx, by, bsw = split_example_batch(tuple(batch))
        return ArrayData(model, bx, by, bsw, where)
    if is_iterator(x):
        return x
    return ArrayData(model, x, y, sample_weight, where)


def validation_source(model: Any, data: Any) -> Any:
    """The adapter of ``fit``'s ``validation_data`` (a tuple of arrays or any source)."""
    if isinstance(data, tuple):
        if len(data) == 2:
            return ArrayData(model, data[0], data[1], None, 'validation_data')
        if len(data) == 3:
            return ArrayData(model, data[0], data[1], data[2], 'validation_data')
        raise ValueError(f'fit: validation_data must be (x_val, y_val) or (x_val, y_val, '
                         f'sample_weight_val); got a tuple of {len(data)}')
    return make_source(model, data, None, None, 'validation_data')


def split_validation(source: Any, validation_split: float) -> tuple:
    """``(train, validation)`` adapters: the last ``N - floor(N * (1 - s))`` samples of an
    :class:`ArrayData` held out (before shuffling, as Keras)."""
    if not isinstance(source, ArrayData):
        raise ValueError('fit: validation_split is only supported for array inputs; '
                         'give validation_data for datasets and iterators')
    n_train = int(math.floor(source.n * (1.0 - validation_split)))
    if n_train == 0 or n_train == source.n:
        raise ValueError(f'fit: validation_split={validation_split} leaves '
                         f'{n_train} training and {source.n - n_train} validation '
                         f'samples out of {source.n}; both must be non-empty')
    return source.subset(0, n_train), source.subset(n_train, source.n)


def steps_per_epoch_of(source: Any, batch_size: int, steps_per_epoch: Optional[int]) -> Any:
    """Batches per epoch, or ``None`` when the source does not know its length."""
    if isinstance(source, ArrayData):
        steps = source.num_batches(batch_size)
        return steps if steps_per_epoch is None else min(steps, int(steps_per_epoch))
    if steps_per_epoch is None and isinstance(source, Batches) and source.has_len():
        return len(source)
    return steps_per_epoch


def iterate(model: Any, source: Any, batch_size: int, shuffle: Any, xp: Any,
            steps: Optional[int], restart: bool = False):
    """Yield Keras ``data`` batches (``x``, ``(x, y)`` or ``(x, y, sample_weight)``)."""
    if isinstance(source, ArrayData):
        for i, batch in enumerate(source.batches(batch_size, shuffle, xp)):
            if steps is not None and i >= steps:
                return
            yield batch
        return
    if isinstance(source, Batches):
        for item in source.epoch(steps, restart):
            yield convert_batch(model, item, xp)
        return
    yield from _iterate_iterator(model, source, xp, steps)


def convert_batch(model: Any, item: Any, xp: Any) -> Any:
    """An item of a generator or loader as a ``data`` tuple of arrays on ``xp``, inputs
    cast as the model's ``_cast_input_array`` does, the structure of ``y`` kept."""
    bx, by, bsw = split_example_batch(item)
    bx = model._input_template(bx)
    bx = pack(bx, [xp.asarray(model._cast_input_array(i, to_array(a)))
                   for i, a in enumerate(flatten(bx))])

    def conv(v: Any) -> Any:
        if v is None:
            return None
        return pack(v, [None if a is None else xp.asarray(to_array(a)) for a in flatten(v)])
    return pack_x_y_sample_weight(bx, conv(by), conv(bsw))


def _iterate_iterator(model: Any, it: Any, xp: Any, steps: Optional[int]):
    from chainlet.dataset.iterator import Iterator
    count = 0
    while steps is None or count < steps:
        try:
            item = next(it)
        except StopIteration:
            if isinstance(it, Iterator) and hasattr(it, 'reset'):
                it.reset()
            return
        yield convert_batch(model, item, xp)
        count += 1
        if isinstance(it, Iterator) and getattr(it, 'is_new_epoch', False) and steps is None:
            return


def check_batch_size(where: str, batch_size: Any, default: int) -> int:
    """``batch_size`` checked to be a positive int (``default`` for ``None``)."""
    if batch_size is None:
        return default
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, numpy.integer)) or \
            batch_size <= 0:
        raise ValueError(f'{where}: batch_size must be a positive int, got {batch_size!r}')
    return int(batch_size)


__all__ = ['ArrayData', 'Batches', 'check_batch_size', 'convert_batch', 'is_batch_source',
           'is_dataset', 'is_iterator', 'is_reiterable', 'iterate', 'make_source', 'pack',
           'split_example_batch', 'split_validation', 'steps_per_epoch_of', 'to_array',
           'validation_source']
