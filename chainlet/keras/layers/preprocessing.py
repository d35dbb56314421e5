"""Preprocessing layers: ``Normalization``, ``CategoryEncoding``, ``IntegerLookup``,
``StringLookup`` and ``TextVectorization`` (Keras 3's names, arguments and index layout).

Design: these layers learn their state from data with ``adapt(data)`` (NumPy arrays, lists, or an
iterable of batches such as a ``keras.utils.PyDataset`` yielding ``x`` or ``(x, y)``), or take
it from constructor arguments. ``Normalization`` is affine and written with chainlet functions,
so gradients flow through it; the encoding and lookup layers map values to integers or count
vectors, which have no gradient, and compute on arrays (NumPy or CuPy, following the input).
The lookup layers' index layout is Keras's: ``[mask token] + [OOV indices] + vocabulary``; string
inputs are NumPy arrays of ``str`` (or lists), and a vocabulary learned by ``adapt`` is sorted by
decreasing frequency, ties by value.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> lookup = keras.layers.StringLookup(vocabulary=['a', 'b'])
    >>> lookup(np.array([['a', 'c', 'b']])).array
    array([[1, 0, 2]])
    >>> norm = keras.layers.Normalization()
    >>> norm.adapt(np.array([[0.0], [2.0]]))
    >>> norm(np.array([[1.0], [3.0]])).array
    array([[0.],
           [2.]], dtype=float32)
"""
from __future__ import annotations

import collections
import numbers
import re
from typing import Any, Iterable, Optional

import numpy

import chainlet
import chainlet.functions as F
from chainlet import Variable
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.keras_tensor import KerasTensor

__all__ = ['CategoryEncoding', 'IntegerLookup', 'Normalization', 'StringLookup',
           'TextVectorization']

_OUTPUT_MODES = ('int', 'one_hot', 'multi_hot', 'count')


def _batches(data: Any) -> Iterable:
    """The host arrays of ``data``: one array or list, or the ``x`` of each batch of an
    iterable of batches (``x`` or ``(x, y, ...)``)."""
    if isinstance(data, (Variable, numpy.ndarray, list)) or chainlet.backend.is_array(data):
        yield numpy.asarray(chainlet.backend.to_cpu(_array(data)))
        return
    if not hasattr(data, '__iter__') and not hasattr(data, '__getitem__'):
        raise TypeError(f'adapt: expected an array, a list or an iterable of batches, got '
                        f'{type(data).__name__}')
    batches = data
    if hasattr(data, '__getitem__') and hasattr(data, '__len__'):
        batches = (data[i] for i in range(len(data)))  # a PyDataset: batches by index
    for batch in batches:
        if isinstance(batch, tuple):
            batch = batch[0]
        yield numpy.asarray(chainlet.backend.to_cpu(_array(batch)))


def _array(x: Any) -> Any:
    """The array under ``x`` (a Variable, a NumPy/CuPy array, or a list)."""
    if isinstance(x, Variable):
        return x.array
    if chainlet.backend.is_array(x):
        return x
    return numpy.asarray(x)


def _encode(indices: Any, depth: int, output_mode: str, name: str, dtype: str) -> Any:
    """One-hot, multi-hot or count vectors of integer ``indices`` in ``[0, depth)``."""
    xp = chainlet.backend.get_array_module(indices)
    if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= depth):
        raise ValueError(f'{name}: input values must lie in [0, {depth}), got values in '
                         f'[{int(indices.min())}, {int(indices.max())}]')
    if output_mode == 'one_hot':
        if indices.ndim >= 1 and indices.shape[-1] == 1:
            indices = indices[..., 0]
        out = xp.zeros(indices.shape + (depth,), dtype=dtype)
        xp.put_along_axis(out, indices[..., None].astype('int64'), 1, axis=-1)
        return out
    if indices.ndim == 0 or indices.ndim == 1:
        indices = indices.reshape(-1, 1) if indices.ndim == 1 else indices.reshape(1, 1)
    flat = indices.reshape(-1, indices.shape[-1]).astype('int64')
    out = xp.zeros((flat.shape[0], depth), dtype=dtype)
    rows = xp.repeat(xp.arange(flat.shape[0]), flat.shape[1])
    if output_mode == 'count':
        xp.add.at(out, (rows, flat.reshape(-1)), 1)
    else:
        out[rows, flat.reshape(-1)] = 1
    return out.reshape(indices.shape[:-1] + (depth,))


def _check_mode(name: str, output_mode: str, allowed: tuple) -> str:
    if output_mode not in allowed:
        raise ValueError(f'{name}: argument output_mode: expected one of {list(allowed)}, got '
                         f'{output_mode!r}')
    return output_mode


class Normalization(Layer):
    """Feature-wise standardization: ``(x - mean) / sqrt(variance)`` (or its inverse).

    Args:
        axis: The axis (or axes) that keep separate statistics, ``-1`` by default (one mean per
            feature); ``None`` for one scalar mean and variance.
        mean, variance: Fixed statistics (broadcastable to the kept axes); without them, call
            :meth:`adapt` before using the layer.
        invert: Undo the normalization (``x * sqrt(variance) + mean``).

    Shape:
        Output as input.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.Normalization(mean=2.0, variance=4.0)
        >>> layer(np.array([[4.0]])).array
        array([[1.]], dtype=float32)
    """

    def __init__(self, axis: Any = -1, mean: Any = None, variance: Any = None,
                 invert: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, numbers.Integral):
            axis = (int(axis),)
        self.axis = tuple(axis)
        if (mean is None) != (variance is None):
            raise ValueError(f'Normalization "{self.name}": pass both mean and variance or '
                             f'neither, got mean={mean!r}, variance={variance!r}')
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)

    def _kept_shape(self, input_shape: tuple) -> tuple:
        ndim = len(input_shape)
        axes = [a % ndim for a in self.axis]
        for a in axes:
            if input_shape[a] is None:
                raise ValueError(f'Normalization "{self.name}": axis {a} must have a known '
                                 f'size, the input shape is {input_shape}')
        return tuple(input_shape[a] if a in axes else 1 for a in range(ndim))

    def build(self, input_shape: Any) -> None:
        shape = self._kept_shape(tuple(input_shape))
        weight_shape = tuple(s for i, s in enumerate(shape) if i in
                             [a % len(shape) for a in self.axis])
        self.mean = self.add_weight(name='mean', shape=weight_shape, initializer='zeros',
                                    trainable=False)
        self.variance = self.add_weight(name='variance', shape=weight_shape,
                                        initializer='ones', trainable=False)
        self._broadcast_shape = shape[1:] if len(shape) > 1 else shape
        if self.input_mean is not None:
            self.mean.array[...] = numpy.broadcast_to(
                numpy.asarray(self.input_mean, dtype=self.mean.dtype), weight_shape)
            self.variance.array[...] = numpy.broadcast_to(
                numpy.asarray(self.input_variance, dtype=self.variance.dtype), weight_shape)

    def adapt(self, data: Any) -> None:
        """Compute the mean and variance of ``data`` over every axis but ``axis``."""
        total = None
        for batch in _batches(data):
            batch = numpy.asarray(batch, dtype='float64')
            if batch.ndim == 1 and self.axis == (-1,):
                batch = batch[:, None]
            self._maybe_build(self._note_build_shape((None,) + batch.shape[1:]))
            ndim = batch.ndim
            kept = [a % ndim for a in self.axis]
            reduce_axes = tuple(a for a in range(ndim) if a not in kept)
            n = numpy.prod([batch.shape[a] for a in reduce_axes]) if reduce_axes else 1
            s = batch.sum(axis=reduce_axes)
            ss = (batch ** 2).sum(axis=reduce_axes)
            total = (n, s, ss) if total is None else (total[0] + n, total[1] + s,
                                                      total[2] + ss)
        if total is None:
            raise ValueError(f'Normalization "{self.name}": adapt got no data')
        n, s, ss = total
        mean = s / n
        variance = numpy.maximum(ss / n - mean ** 2, 0.0)
        xp = chainlet.backend.get_array_module(self.mean.array)
        self.mean.array[...] = xp.asarray(mean.reshape(self.mean.shape), dtype=self.mean.dtype)
        self.variance.array[...] = xp.asarray(variance.reshape(self.variance.shape),
                                              dtype=self.variance.dtype)

    def call(self, inputs: Any) -> Any:
        x = inputs if isinstance(inputs, Variable) else Variable(_array(inputs))
        if x.dtype.kind != 'f':
            x = F.cast(x, self._dtype)
        # The statistics are state, not parameters: they enter as constant arrays, and the
        # gradient flows to the input only (an affine map).
        shape = self._kept_shape(tuple(x.shape))
        xp = x.xp
        mean = self.mean.array.reshape(shape).astype(x.dtype)
        std = xp.maximum(xp.sqrt(self.variance.array.reshape(shape)), 1e-7).astype(x.dtype)
        if self.invert:
            return x * std + mean
        return (x - mean) / std

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        mean, variance = self.input_mean, self.input_variance
        config.update(axis=list(self.axis) if self.axis else None,
                      mean=numpy.asarray(mean).tolist() if mean is not None else None,
                      variance=(numpy.asarray(variance).tolist()
                                if variance is not None else None),
                      invert=self.invert)
        return config


class CategoryEncoding(Layer):
    """Integer categories in ``[0, num_tokens)`` to one-hot, multi-hot or count vectors.

    Args:
        num_tokens: Number of categories (the output depth).
        output_mode: ``'multi_hot'`` (default: one vector per sample, a 1 for each category
            present), ``'one_hot'`` (one vector per value) or ``'count'``.

    Shape:
        ``(batch, k)`` -> ``(batch, num_tokens)`` (``one_hot``: ``(batch, k, num_tokens)``,
        or ``(batch, num_tokens)`` when ``k`` is 1).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.CategoryEncoding(4, output_mode='count')(np.array([[0, 2, 2]])).array
        array([[1., 0., 2., 0.]], dtype=float32)
    """

    def __init__(self, num_tokens: Optional[int] = None, output_mode: str = 'multi_hot',
                 sparse: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if num_tokens is None or not isinstance(num_tokens, numbers.Integral) or \
                num_tokens < 1:
            raise ValueError(f'CategoryEncoding: argument num_tokens: expected a positive int, '
                             f'got {num_tokens!r}')
        if sparse:
            raise ValueError('CategoryEncoding: sparse=True is not supported (chainlet arrays '
                             'are dense)')
        # Annotated: mypy defers this method (the numbers.Integral check) and would not know
        # the attributes' types in the methods it checks first.
        self.num_tokens: int = int(num_tokens)
        self.output_mode: str = _check_mode('CategoryEncoding', output_mode,
                                            ('one_hot', 'multi_hot', 'count'))
        self.sparse = False

    def call(self, inputs: Any) -> Any:
        x = _array(inputs)
        return Variable(_encode(x, self.num_tokens, self.output_mode,
                                f'CategoryEncoding "{self.name}"', self._dtype),
                        requires_grad=False)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return KerasTensor(self.compute_output_shape(tuple(inputs.shape)), self._dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = tuple(input_shape)
        if not input_shape:
            return (self.num_tokens,)
        if self.output_mode == 'one_hot' and input_shape[-1] != 1:
            return input_shape + (self.num_tokens,)
        return input_shape[:-1] + (self.num_tokens,)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(num_tokens=self.num_tokens, output_mode=self.output_mode, sparse=False)
        return config


class _Lookup(Layer):
    """Shared machinery of :class:`IntegerLookup` and :class:`StringLookup`."""

    _kind = ''

    def __init__(self, max_tokens: Optional[int], num_oov_indices: int, mask_token: Any,
                 oov_token: Any, vocabulary: Any, invert: bool, output_mode: str,
                 **kwargs: Any) -> None:
        kwargs.pop('vocabulary_dtype', None)
        kwargs.pop('idf_weights', None)
        kwargs.pop('sparse', None)
        kwargs.pop('pad_to_max_tokens', None)
        kwargs.pop('encoding', None)
        super().__init__(**kwargs)
        if not isinstance(num_oov_indices, numbers.Integral) or num_oov_indices < 0:
            raise ValueError(f'{self._kind}: argument num_oov_indices: expected an int >= 0, '
                             f'got {num_oov_indices!r}')
        # Annotated: mypy defers this method (the numbers.Integral check) and would not know
        # the attributes' types in the methods it checks first.
        self.output_mode: str = _check_mode(self._kind, output_mode, _OUTPUT_MODES)
        if invert and output_mode != 'int':
            raise ValueError(f'{self._kind}: invert=True needs output_mode="int", got '
                             f'{output_mode!r}')
        self.max_tokens: Optional[int] = max_tokens
        self.num_oov_indices: int = int(num_oov_indices)
        self.mask_token: Any = mask_token
        self.oov_token: Any = oov_token
        self.invert: bool = bool(invert)
        self._vocabulary: list = []
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)

    # -- vocabulary --

    def _convert(self, value: Any) -> Any:
        return value  # subclasses normalise values to int or str

    def set_vocabulary(self, vocabulary: Any) -> None:
        """Use ``vocabulary`` (a list of distinct values, or a path to a file with one per
        line) after the mask and OOV indices."""
        if isinstance(vocabulary, str):
            with open(vocabulary, encoding='utf-8') as f:
                vocabulary = [line.rstrip('\n') for line in f if line.rstrip('\n')]
        values = [self._convert(v) for v in numpy.asarray(vocabulary).reshape(-1).tolist()]
        if len(set(values)) != len(values):
            raise ValueError(f'{self._kind} "{self.name}": the vocabulary has repeated '
                             f'entries')
        reserved = [t for t in (self.mask_token, self.oov_token) if t is not None]
        clash = [v for v in values if v in reserved]
        if clash:
            raise ValueError(f'{self._kind} "{self.name}": the vocabulary must not contain the '
                             f'mask or OOV token, found {clash[:3]}')
        self._vocabulary = values

    def adapt(self, data: Any, steps: Optional[int] = None) -> None:
        """Learn the vocabulary from ``data``: values by decreasing frequency (ties by value),
        at most ``max_tokens`` indices in all."""
        counts: collections.Counter = collections.Counter()
        for i, batch in enumerate(_batches(data)):
            if steps is not None and i >= steps:
                break
            counts.update(self._convert(v) for v in numpy.asarray(batch).reshape(-1).tolist())
        for token in (self.mask_token, self.oov_token):
            counts.pop(token, None)
        tokens = sorted(counts, key=lambda t: (-counts[t], t))
        if self.max_tokens is not None:
            room = self.max_tokens - self.num_oov_indices - (self.mask_token is not None)
            tokens = tokens[:max(room, 0)]
        self._vocabulary = tokens

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The tokens in index order (mask and OOV tokens first unless excluded)."""
        if not include_special_tokens:
            return list(self._vocabulary)
        special = [] if self.mask_token is None else [self.mask_token]
        special += [self.oov_token] * self.num_oov_indices
        return special + list(self._vocabulary)

    def vocabulary_size(self) -> int:
        """The number of indices, mask and OOV indices included."""
        return len(self.get_vocabulary())

    # -- call --

    def _offset(self) -> int:
        return (self.mask_token is not None) + self.num_oov_indices

    def _oov_index(self, value: Any) -> int:
        if self.num_oov_indices == 0:
            raise ValueError(f'{self._kind} "{self.name}": the value {value!r} is not in the '
                             f'vocabulary and num_oov_indices is 0')
        base = self.mask_token is not None
        if self.num_oov_indices == 1:
            return base
        return base + self._oov_bucket(value) % self.num_oov_indices

    def _oov_bucket(self, value: Any) -> int:
        return int(value)

    def call(self, inputs: Any) -> Any:
        x = _array(inputs)
        xp = chainlet.backend.get_array_module(x)
        if self.invert:
            vocab = self.get_vocabulary()
            host = chainlet.backend.to_cpu(x)
            out = numpy.asarray([vocab[i] if 0 <= i < len(vocab) else self.oov_token
                                 for i in host.reshape(-1).tolist()])
            out = out.reshape(host.shape)
            # Strings are not numbers: a NumPy array; integers stay a (constant) Variable.
            return Variable(xp.asarray(out), requires_grad=False) if out.dtype.kind in 'iu' \
                else out
        table = {v: i + self._offset() for i, v in enumerate(self._vocabulary)}
        host = chainlet.backend.to_cpu(x)
        flat = []
        for value in host.reshape(-1).tolist():
            value = self._convert(value)
            if self.mask_token is not None and value == self.mask_token:
                flat.append(0)
            else:
                index = table.get(value)
                flat.append(self._oov_index(value) if index is None else index)
        indices = xp.asarray(numpy.asarray(flat, dtype='int64').reshape(host.shape))
        if self.output_mode != 'int':
            indices = _encode(indices, self.vocabulary_size(), self.output_mode,
                              f'{self._kind} "{self.name}"', 'float32')
        return Variable(indices, requires_grad=False)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        shape = tuple(inputs.shape)
        if self.output_mode == 'int':
            return KerasTensor(shape, 'int64')
        depth = self.vocabulary_size()
        if self.output_mode == 'one_hot' and (not shape or shape[-1] != 1):
            return KerasTensor(shape + (depth,), 'float32')
        return KerasTensor(shape[:-1] + (depth,), 'float32')

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(max_tokens=self.max_tokens, num_oov_indices=self.num_oov_indices,
                      mask_token=self.mask_token, oov_token=self.oov_token,
                      vocabulary=list(self._vocabulary) or None, invert=self.invert,
                      output_mode=self.output_mode)
        return config


class IntegerLookup(_Lookup):
    """Integer values to contiguous indices (``[mask] + [OOV] + vocabulary``) or to one-hot,
    multi-hot or count vectors over those indices.

    Args:
        max_tokens: Largest number of indices ``adapt`` may produce (mask and OOV included).
        num_oov_indices: Indices for values outside the vocabulary (``value % n`` picks one
            when there are several); 0 makes an unknown value an error.
        mask_token: A value mapped to index 0 (``None``: no mask index).
        oov_token: The value :meth:`get_vocabulary` shows for the OOV indices (``-1``).
        vocabulary: A list of integers (or a file of them, one per line).
        invert: Map indices back to values.
        output_mode: ``'int'``, ``'one_hot'``, ``'multi_hot'`` or ``'count'``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.IntegerLookup(vocabulary=[12, 36])
        >>> layer(np.array([12, 36, 5])).array
        array([1, 2, 0])
    """

    _kind = 'IntegerLookup'

    def __init__(self, max_tokens: Optional[int] = None, num_oov_indices: int = 1,
                 mask_token: Optional[int] = None, oov_token: int = -1,
                 vocabulary: Any = None, invert: bool = False, output_mode: str = 'int',
                 **kwargs: Any) -> None:
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         invert, output_mode, **kwargs)

    def _convert(self, value: Any) -> Any:
        return int(value)


class StringLookup(_Lookup):
    """Strings to contiguous indices (``[mask] + [OOV] + vocabulary``) or to one-hot,
    multi-hot or count vectors over those indices.

    Inputs are NumPy arrays of ``str`` (or nested lists of strings); bytes are decoded as
    UTF-8. Several OOV indices share unknown strings by a stable hash of their UTF-8 bytes
    (CRC-32, not Keras's FarmHash: the buckets differ).

    Args:
        max_tokens: Largest number of indices ``adapt`` may produce (mask and OOV included).
        num_oov_indices: Indices for strings outside the vocabulary; 0 makes one an error.
        mask_token: A string mapped to index 0 (``None``: no mask index).
        oov_token: The string :meth:`get_vocabulary` shows for OOV indices (``'[UNK]'``).
        vocabulary: A list of strings, or the path of a file with one per line.
        invert: Map indices back to strings.
        output_mode: ``'int'``, ``'one_hot'``, ``'multi_hot'`` or ``'count'``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.StringLookup(vocabulary=['a', 'b'], output_mode='one_hot')
        >>> layer(np.array(['b', 'z'])).array
        array([[0., 0., 1.],
               [1., 0., 0.]], dtype=float32)
    """

    _kind = 'StringLookup'

    def __init__(self, max_tokens: Optional[int] = None, num_oov_indices: int = 1,
                 mask_token: Optional[str] = None, oov_token: str = '[UNK]',
                 vocabulary: Any = None, invert: bool = False, output_mode: str = 'int',
                 **kwargs: Any) -> None:
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         invert, output_mode, **kwargs)

    def _convert(self, value: Any) -> Any:
        return value.decode('utf-8') if isinstance(value, bytes) else str(value)

    def _oov_bucket(self, value: Any) -> int:
        import zlib
        return zlib.crc32(value.encode('utf-8'))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # String arrays are not numbers: they go to call() as they are, never into Variables.
        if args and not isinstance(args[0], KerasTensor):
            x = args[0]
            if isinstance(x, (list, tuple)) or (isinstance(x, numpy.ndarray) and
                                                x.dtype.kind in 'USO'):
                return self.call(numpy.asarray(x))
        return super().__call__(*args, **kwargs)


_PUNCTUATION = re.compile(r'[!"#$%&()\*\+,\-\./:;<=>?@\[\\\]^_`{|}~\']')


class TextVectorization(Layer):
    """Strings to token indices or token-count vectors: standardize, split, form n-grams, then
    look tokens up in a vocabulary (``['', '[UNK]', ...]`` for ``output_mode='int'``,
    ``['[UNK]', ...]`` otherwise), as Keras's ``TextVectorization``.

    Args:
        max_tokens: Largest vocabulary size ``adapt`` may produce (special tokens included).
        standardize: ``'lower_and_strip_punctuation'`` (default), ``'lower'``,
            ``'strip_punctuation'``, ``None``, or a callable on one Python string.
        split: ``'whitespace'`` (default), ``'character'``, ``None`` (the whole string is one
            token), or a callable returning a list of tokens.
        ngrams: ``None``, an int ``n`` (1- to n-grams) or a tuple of n-gram orders.
        output_mode: ``'int'``, ``'multi_hot'``, ``'count'`` or ``'tf_idf'``.
        output_sequence_length: With ``'int'``, pad or cut every row to this length
            (otherwise rows are padded to the longest in the batch).
        pad_to_max_tokens: With the vector modes, make the output ``max_tokens`` wide.
        vocabulary: A list of tokens (or a file with one per line) instead of ``adapt``.
        idf_weights: With ``'tf_idf'`` and a given vocabulary, one weight per token.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.TextVectorization(output_sequence_length=4)
        >>> layer.adapt(["The cat sat.", "the cat!"])
        >>> layer.get_vocabulary()
        ['', '[UNK]', 'cat', 'the', 'sat']
        >>> layer(["the dog sat"]).array
        array([[3, 1, 4, 0]])
    """

    def __init__(self, max_tokens: Optional[int] = None,
                 standardize: Any = 'lower_and_strip_punctuation', split: Any = 'whitespace',
                 ngrams: Any = None, output_mode: str = 'int',
                 output_sequence_length: Optional[int] = None, pad_to_max_tokens: bool = False,
                 vocabulary: Any = None, idf_weights: Any = None, **kwargs: Any) -> None:
        kwargs.pop('sparse', None)
        kwargs.pop('ragged', None)
        kwargs.pop('encoding', None)
        super().__init__(**kwargs)
        self.output_mode = _check_mode('TextVectorization', output_mode,
                                       ('int', 'multi_hot', 'count', 'tf_idf'))
        if standardize not in (None, 'lower_and_strip_punctuation', 'lower',
                               'strip_punctuation') and not callable(standardize):
            raise ValueError(f'TextVectorization: argument standardize: expected None, '
                             f"'lower_and_strip_punctuation', 'lower', 'strip_punctuation' "
                             f'or a callable, got {standardize!r}')
        if split not in (None, 'whitespace', 'character') and not callable(split):
            raise ValueError(f"TextVectorization: argument split: expected None, 'whitespace', "
                             f"'character' or a callable, got {split!r}")
        if isinstance(ngrams, numbers.Integral):
            ngrams = tuple(range(1, int(ngrams) + 1))
        self.ngrams = tuple(ngrams) if ngrams is not None else None
        self.standardize, self.split = standardize, split
        self.max_tokens = max_tokens
        self.output_sequence_length = output_sequence_length
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self._lookup = StringLookup(max_tokens=max_tokens,
                                    mask_token='' if output_mode == 'int' else None,
                                    output_mode='int', name=f'{self.name}_lookup')
        self._idf: Optional[numpy.ndarray] = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- text to tokens --

    def _tokens(self, text: Any) -> list:
        text = text.decode('utf-8') if isinstance(text, bytes) else str(text)
        mode = self.standardize
        if callable(mode):
            text = mode(text)
        else:
            if mode in ('lower', 'lower_and_strip_punctuation'):
                text = text.lower()
            if mode in ('strip_punctuation', 'lower_and_strip_punctuation'):
                text = _PUNCTUATION.sub('', text)
        if callable(self.split):
            tokens = list(self.split(text))
        elif self.split == 'whitespace':
            tokens = text.split()
        elif self.split == 'character':
            tokens = list(text)
        else:
            tokens = [text]
        if self.ngrams is None:
            return tokens
        out: list[str] = []
        for n in self.ngrams:
            out.extend(' '.join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
        return out

    def _documents(self, data: Any) -> list:
        docs = []
        for batch in _batches(data):
            docs.extend(numpy.asarray(batch).reshape(-1).tolist())
        return docs

    # -- vocabulary --

    def adapt(self, data: Any, steps: Optional[int] = None) -> None:
        """Learn the vocabulary (and, for ``'tf_idf'``, the IDF weights) from strings."""
        docs = [self._tokens(d) for d in self._documents(data)]
        self._lookup.adapt([t for doc in docs for t in doc] or [''])
        if self.output_mode == 'tf_idf':
            vocab = self._lookup.get_vocabulary(include_special_tokens=False)
            df = collections.Counter(t for doc in docs for t in set(doc))
            idf = [numpy.log(1 + len(docs) / (1 + df[t])) for t in vocab]
            self._idf = numpy.asarray([numpy.mean(idf) if idf else 0.0] + idf, 'float32')

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Use ``vocabulary`` (tokens without the special ones, or a file of them)."""
        self._lookup.set_vocabulary(vocabulary)
        if self.output_mode == 'tf_idf':
            if idf_weights is None:
                raise ValueError('TextVectorization: output_mode="tf_idf" with a given '
                                 'vocabulary needs idf_weights')
            idf = numpy.asarray(idf_weights, 'float32').reshape(-1)
            self._idf = numpy.concatenate([[idf.mean()], idf]).astype('float32')

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The tokens in index order."""
        return self._lookup.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        """The number of indices, special tokens included."""
        return self._lookup.vocabulary_size()

    # -- call --

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Strings are not numbers: they go to call() as they are, never into Variables.
        if args and isinstance(args[0], (list, tuple, str, numpy.ndarray)):
            return self.call(args[0])
        return super().__call__(*args, **kwargs)

    def call(self, inputs: Any) -> Any:
        texts = numpy.asarray(inputs, dtype=object).reshape(-1).tolist() \
            if not isinstance(inputs, str) else [inputs]
        rows = []
        for text in texts:
            tokens = self._tokens(text)
            rows.append(chainlet.backend.to_cpu(
                self._lookup(numpy.asarray(tokens, dtype=object)).array)
                if tokens else numpy.zeros((0,), 'int64'))
        if self.output_mode == 'int':
            length = self.output_sequence_length
            if length is None:
                length = max([len(r) for r in rows] + [0])
            out = numpy.zeros((len(rows), length), 'int64')
            for i, r in enumerate(rows):
                r = numpy.asarray(r)[:length]
                out[i, :len(r)] = r
            return Variable(out, requires_grad=False)
        depth = self.vocabulary_size()
        if self.pad_to_max_tokens and self.max_tokens:
            depth = max(depth, int(self.max_tokens))
        out = numpy.zeros((len(rows), depth), 'float32')
        for i, r in enumerate(rows):
            numpy.add.at(out[i], numpy.asarray(r, 'int64'), 1)
        if self.output_mode == 'multi_hot':
            out = (out > 0).astype('float32')
        elif self.output_mode == 'tf_idf':
            if self._idf is None:
                raise ValueError(f'TextVectorization "{self.name}": call adapt() first')
            out[:, :len(self._idf)] *= self._idf
        return Variable(out, requires_grad=False)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(max_tokens=self.max_tokens,
                      standardize=self.standardize if not callable(self.standardize) else None,
                      split=self.split if not callable(self.split) else None,
                      ngrams=list(self.ngrams) if self.ngrams else None,
                      output_mode=self.output_mode,
                      output_sequence_length=self.output_sequence_length,
                      pad_to_max_tokens=self.pad_to_max_tokens,
                      vocabulary=self.get_vocabulary(include_special_tokens=False) or None,
                      idf_weights=(self._idf[1:].tolist()
                                   if self._idf is not None else None))
        return config
