"""Utilities (``from chainlet.keras import utils``): one-hot targets, sequence padding, seeding,
``PyDataset`` (batches for ``fit``), Keras's ``(x, y, sample_weight)`` packing, model summary and
Graphviz plots.

Example:
    >>> from chainlet.keras import utils
    >>> utils.to_categorical([0, 2, 1], num_classes=3)
    array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 1., 0.]], dtype=float32)
"""
from __future__ import annotations

import os
import random
import sys
from typing import Any, Callable, Optional

import numpy

from chainlet.keras.backend import clear_session, is_keras_tensor  # noqa: F401
from chainlet.keras.backend import standardize_dtype  # noqa: F401
from chainlet.keras.config import (disable_interactive_logging,  # noqa: F401
                                   enable_interactive_logging, is_interactive_logging_enabled)
from chainlet.keras.image_utils import (  # noqa: F401  (Keras 3 publishes them here)
    array_to_img, img_to_array, load_img, normalize, save_img)
from chainlet.keras.progbar import Config, Progbar  # noqa: F401


def to_categorical(x: Any, num_classes: Optional[int] = None) -> numpy.ndarray:
    """One-hot encode integer class labels (float32; a trailing axis of size 1 is dropped).

    Args:
        x: Integer labels of any shape.
        num_classes: Number of classes (``max(x) + 1`` by default).
    """
    x = numpy.asarray(x)
    if x.dtype.kind == 'f':
        if not numpy.all(x == numpy.round(x)):
            raise ValueError('to_categorical: x must hold integer class labels')
    x = x.astype(numpy.int64)
    if x.ndim > 1 and x.shape[-1] == 1:
        x = x.reshape(x.shape[:-1])
    if num_classes is None:
        num_classes = int(x.max()) + 1 if x.size else 0
    if x.size and (x.min() < 0 or x.max() >= num_classes):
        raise ValueError(f'to_categorical: labels must be in [0, {num_classes}), got values in '
                         f'[{x.min()}, {x.max()}]')
    out = numpy.zeros(x.shape + (num_classes,), numpy.float32)
    numpy.put_along_axis(out, x[..., None], 1.0, axis=-1)
    return out


def set_random_seed(seed: int) -> None:
    """Seed Python's ``random``, NumPy's global state and, if CuPy is loaded, CuPy's.

    Initializers, dropout and ``fit``'s shuffling draw from these, so a CPU run is
    reproducible after this call.
    """
    if not isinstance(seed, (int, numpy.integer)) or isinstance(seed, bool):
        raise TypeError(f'set_random_seed: seed must be an int, got {type(seed).__name__}')
    random.seed(int(seed))
    numpy.random.seed(int(seed) % (2 ** 32))
    cupy = sys.modules.get('cupy')
    if cupy is not None:
        cupy.random.seed(int(seed))


def pad_sequences(sequences: Any, maxlen: Optional[int] = None, dtype: Any = 'int32',
                  padding: str = 'pre', truncating: str = 'pre',
                  value: Any = 0.0) -> numpy.ndarray:
    """Pad (and truncate) sequences of different lengths into one array, as Keras.

    Args:
        sequences: A list of sequences (lists or arrays; the elements may themselves be
            arrays, all of one shape, which become the trailing axes of the result).
        maxlen: Length of the result's second axis (the longest sequence by default).
        dtype: Dtype of the result (``'int32'``; a string dtype such as ``object`` or ``str``
            for text).
        padding: ``'pre'`` (pad at the start) or ``'post'``.
        truncating: ``'pre'`` (drop values at the start of longer sequences) or ``'post'``.
        value: The padding value.

    Returns:
        An array of shape ``(len(sequences), maxlen) + element_shape``.

    Example:
        >>> from chainlet.keras import utils
        >>> utils.pad_sequences([[1, 2, 3], [4], [5, 6]], maxlen=2)
        array([[2, 3],
               [0, 4],
               [5, 6]], dtype=int32)
        >>> utils.pad_sequences([[1], [2, 3]], padding='post', value=-1)
        array([[ 1, -1],
               [ 2,  3]], dtype=int32)
    """
    if not hasattr(sequences, '__len__'):
        raise ValueError('pad_sequences: argument sequences: expected a list of sequences, got '
                         f'{type(sequences).__name__}')
    if padding not in ('pre', 'post'):
        raise ValueError(f"pad_sequences: argument padding: expected 'pre' or 'post', got "
                         f'{padding!r}')
    if truncating not in ('pre', 'post'):
        raise ValueError(f"pad_sequences: argument truncating: expected 'pre' or 'post', got "
                         f'{truncating!r}')
    lengths = []
    sample_shape: Optional[tuple] = None
    for i, seq in enumerate(sequences):
        if not hasattr(seq, '__len__'):
            raise ValueError(f'pad_sequences: sequences[{i}] is not a sequence: {seq!r}')
        lengths.append(len(seq))
        if sample_shape is None and len(seq):
            sample_shape = numpy.asarray(seq).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    elif isinstance(maxlen, bool) or int(maxlen) < 0:
        raise ValueError(f'pad_sequences: argument maxlen: expected an int >= 0, got {maxlen!r}')
    maxlen = int(maxlen)
    dt = numpy.dtype(dtype)
    if isinstance(value, str) and dt.kind not in 'OSU':
        raise ValueError(f'pad_sequences: value={value!r} is a string but dtype={dt} is not; '
                         f'use dtype=object (or str) to pad text')
    out = numpy.full((len(lengths), maxlen) + tuple(sample_shape), value, dtype=dt)
    for i, seq in enumerate(sequences):
        if not len(seq) or not maxlen:
            continue
        trunc = seq[-maxlen:] if truncating == 'pre' else seq[:maxlen]
        trunc = numpy.asarray(trunc, dtype=dt)
        if trunc.shape[1:] != tuple(sample_shape):
            raise ValueError(f'pad_sequences: sequences[{i}] has elements of shape '
                             f'{trunc.shape[1:]}, other sequences have elements of shape '
                             f'{tuple(sample_shape)}')
        if padding == 'post':
            out[i, :len(trunc)] = trunc
        else:
            out[i, maxlen - len(trunc):] = trunc
    return out


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """Keras's ``data`` of one batch: ``x`` (or ``(x,)`` when ``x`` is a list or tuple),
    ``(x, y)`` or ``(x, y, sample_weight)``."""
    if y is None:
        return (x,) if isinstance(x, (list, tuple)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data: Any) -> tuple:
    """``(x, y, sample_weight)`` from a batch ``data`` (missing parts are ``None``); a list is
    read as a tuple, as Keras does."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(f'Data is expected to be in format `x`, `(x,)`, `(x, y)`, or '
                     f'`(x, y, sample_weight)`, found a tuple of {len(data)} elements')


class PyDataset:
    """Base class of batch datasets for ``fit``/``evaluate``/``predict`` (Keras's
    ``keras.utils.PyDataset``).

    Subclasses implement ``__len__`` (the number of batches) and ``__getitem__(index)``
    returning one batch: ``x``, ``(x, y)`` or ``(x, y, sample_weight)``. ``on_epoch_begin`` and
    ``on_epoch_end`` are called around every pass.

    Args:
        workers, use_multiprocessing, max_queue_size: Accepted for compatibility; chainlet
            reads the batches in the calling thread, in order.

    Example:
        >>> import numpy as np
        >>> from chainlet.keras import utils
        >>> class Squares(utils.PyDataset):
        ...     def __init__(self, n, batch_size, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.x = np.arange(n, dtype=np.float32)[:, None]
        ...         self.batch_size = batch_size
        ...     def __len__(self):
        ...         return -(-len(self.x) // self.batch_size)
        ...     def __getitem__(self, i):
        ...         x = self.x[i * self.batch_size:(i + 1) * self.batch_size]
        ...         return x, x ** 2
        >>> ds = Squares(5, 2, workers=4, use_multiprocessing=True)
        >>> len(ds), ds[2][1].ravel().tolist()
        (3, [16.0])
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10) -> None:
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    @property
    def workers(self) -> int:
        return self.__dict__.get('_workers', 1)

    @workers.setter
    def workers(self, value: int) -> None:
        self._workers = value

    @property
    def use_multiprocessing(self) -> bool:
        return self.__dict__.get('_use_multiprocessing', False)

    @use_multiprocessing.setter
    def use_multiprocessing(self, value: bool) -> None:
        self._use_multiprocessing = value

    @property
    def max_queue_size(self) -> int:
        return self.__dict__.get('_max_queue_size', 10)

    @max_queue_size.setter
    def max_queue_size(self, value: int) -> None:
        self._max_queue_size = value

    def __getitem__(self, index: int) -> Any:
        raise TypeError(f'{type(self).__name__} must implement __getitem__(index)')

    def __len__(self) -> int:
        raise TypeError(f'{type(self).__name__} must implement __len__()')

    @property
    def num_batches(self) -> Optional[int]:
        """Number of batches (``len(self)``)."""
        return len(self)

    def on_epoch_begin(self) -> None:
        """Called before every pass."""

    def on_epoch_end(self) -> None:
        """Called after every pass (e.g. to shuffle)."""


# Keras 2's name.
Sequence = PyDataset


# ----------------------------------------------------------------- summary

def _format_shape(shape: Any) -> str:
    if isinstance(shape, list):
        return '[' + ', '.join(_format_shape(s) for s in shape) + ']'
    if isinstance(shape, dict):
        return '{' + ', '.join(f'{k}: {_format_shape(v)}' for k, v in shape.items()) + '}'
    return '(' + ', '.join('None' if s is None else str(s) for s in shape) + \
        (',)' if len(shape) == 1 else ')')


def _output_shape(layer: Any, model: Any) -> str:
    member = {id(n) for n in getattr(model, '_nodes', [])}
    nodes = [n for n in layer._inbound_nodes if id(n) in member]
    if not nodes:
        return '?'
    if len(nodes) > 1:  # a shared layer has one output per call
        return 'multiple'
    outs = nodes[0].output_tensors
    if len(outs) == 1:
        return _format_shape(outs[0].shape)
    return _format_shape([t.shape for t in outs])


def _param_counts(layer: Any) -> tuple:
    trainable = sum(int(p.size) for p in layer.trainable_weights if p.array is not None)
    total = sum(int(p.size) for p in layer.weights if p.array is not None)
    return total, trainable


def _connections(layer: Any, model: Any) -> list:
    member = {id(n) for n in model._nodes}
    out = []
    for node in layer._inbound_nodes:
        if id(node) not in member:
            continue
        for t in node.input_tensors:
            src, node_index, tensor_index = t._keras_history
            out.append(f'{src.name}[{node_index}][{tensor_index}]')
    return out


def print_summary(model: Any, line_length: Optional[int] = None,
                  positions: Optional[list] = None, print_fn: Optional[Callable] = None,
                  show_trainable: bool = False) -> None:
    """Print the summary table of ``model`` (see ``Model.summary``).

    Raises:
        ValueError: The model is not built yet (its layers have no weights or shapes).
    """
    print_fn = print_fn or print
    is_graph = bool(model.__dict__.get('_is_graph_network'))
    if not is_graph and not model.built:
        raise ValueError(f'Model "{model.name}" has not been built yet, so it has no summary. '
                         f'Build it first: give the first layer an input shape (keras.Input '
                         f'or input_shape=...), call model.build(input_shape), or call the '
                         f'model on a batch of data.')
    from chainlet.keras.engine.sequential import Sequential
    sequential = isinstance(model, Sequential)
    connected = is_graph and not sequential
    line_length = line_length or (98 if connected else 65)
    positions = list(positions or ([0.33, 0.55, 0.67, 1.0] if connected else [0.45, 0.85, 1.0]))
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    headers = ['Layer (type)', 'Output Shape', 'Param #']
    if connected:
        headers.append('Connected to')
    if show_trainable:
        headers.append('Trainable')
        positions.append(positions[-1] + 11)
        line_length = positions[-1]

    def row(fields: list) -> str:
        line = ''
        for i, field in enumerate(fields):
            if i > 0:
                line = line[:positions[i - 1] - 1] + ' '
            line += str(field)
            line = line[:positions[i]]
            line += ' ' * (positions[i] - len(line))
        return line.rstrip()

    print_fn(f'Model: "{model.name}"')
    print_fn('_' * line_length)
    print_fn(row(headers))
    print_fn('=' * line_length)
    layers = model.layers
    for layer in layers:
        shape = _output_shape(layer, model) if is_graph else '?'
        total, _ = _param_counts(layer)
        fields = [f'{layer.name} ({type(layer).__name__})', shape, f'{total:,}']
        conns = _connections(layer, model) if connected else []
        if connected:
            fields.append(conns[0] if conns else '')
        if show_trainable:
            fields.append('Y' if layer.trainable else 'N')
        print_fn(row(fields))
        for extra in conns[1:]:
            print_fn(row(['', '', '', extra]))
    print_fn('=' * line_length)
    entries = model._weight_entries()
    trainable_ids = {id(p) for p in model.trainable_weights}
    total = sum(int(p.size) for _, _, p in entries if p.array is not None)
    trainable = sum(int(p.size) for _, _, p in entries
                    if p.array is not None and id(p) in trainable_ids)
    print_fn(f'Total params: {total:,}')
    print_fn(f'Trainable params: {trainable:,}')
    print_fn(f'Non-trainable params: {total - trainable:,}')
    print_fn('_' * line_length)


# -------------------------------------------------------------- plot_model

def _dot_label(text: str) -> str:
    return text.replace('\\', '\\\\').replace('"', '\\"')


def model_to_dot(model: Any, show_shapes: bool = False, show_dtype: bool = False,
                 show_layer_names: bool = True, rankdir: str = 'TB',
                 dpi: int = 96) -> str:
    """The model's layer graph as Graphviz DOT text (one node per layer, one edge per
    connection)."""
    if rankdir not in ('TB', 'LR'):
        raise ValueError(f"model_to_dot: argument rankdir: expected 'TB' or 'LR', got "
                         f'{rankdir!r}')
    is_graph = bool(model.__dict__.get('_is_graph_network'))
    lines = [f'digraph "{_dot_label(model.name)}" {{', f'  graph [rankdir={rankdir}, '
             f'dpi={int(dpi)}];', '  node [shape=record];']
    layers = model.layers
    member = {id(n) for n in model._nodes} if is_graph else set()
    index = {id(layer): i for i, layer in enumerate(layers)}
    for i, layer in enumerate(layers):
        label = type(layer).__name__
        if show_layer_names:
            label = f'{layer.name}: {label}'
        if show_dtype:
            label += f' ({layer.dtype})'
        if show_shapes and is_graph:
            nodes = [n for n in layer._inbound_nodes if id(n) in member]
            ins = [t.shape for n in nodes for t in n.input_tensors]
            outs = [t.shape for n in nodes for t in n.output_tensors]
            fmt = lambda shapes: _format_shape(shapes[0]) if len(shapes) == 1 else \
                _format_shape(shapes) if shapes else '?'  # noqa: E731
            label = f'{{{_dot_label(label)}|{{input: {fmt(ins) if ins else fmt(outs)}|' \
                    f'output: {fmt(outs)}}}}}'
            lines.append(f'  layer{i} [label="{label}"];')
        else:
            lines.append(f'  layer{i} [label="{_dot_label(label)}"];')
    edges = set()
    if is_graph:
        for layer in layers:
            for node in layer._inbound_nodes:
                if id(node) not in member:
                    continue
                for t in node.input_tensors:
                    src = t._keras_history.layer
                    if id(src) in index:
                        edges.add((index[id(src)], index[id(layer)]))
    else:
        edges = {(i, i + 1) for i in range(len(layers) - 1)}
    for a, b in sorted(edges):
        lines.append(f'  layer{a} -> layer{b};')
    lines.append('}')
    return '\n'.join(lines) + '\n'


def plot_model(model: Any, to_file: str = 'model.dot', show_shapes: bool = False,
               show_dtype: bool = False, show_layer_names: bool = True, rankdir: str = 'TB',
               expand_nested: bool = False, dpi: int = 96, **kwargs: Any) -> str:
    """Write the model graph to ``to_file`` and return the DOT text.

    A ``.dot``/``.gv`` file gets the DOT text (no dependency). Other extensions (``.png``,
    ``.svg``, ``.pdf``) are rendered with the ``graphviz`` Python package and the Graphviz
    programs (``pip install "chainlet-dl[graphviz]"``). The write is atomic.
    """
    from chainlet.keras.engine.serialization import atomic_write
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir, dpi=dpi)
    to_file = os.fspath(to_file)
    ext = os.path.splitext(to_file)[1].lower().lstrip('.')
    if ext in ('dot', 'gv', ''):
        atomic_write(to_file, lambda f: f.write(dot), mode='w')
        return dot
    try:
        import graphviz
    except ImportError as e:
        raise ImportError(f'plot_model: writing .{ext} files needs the graphviz package and '
                          f'the Graphviz programs; install with pip install '
                          f'"chainlet-dl[graphviz]", or write a .dot file instead') from e
    data = graphviz.Source(dot).pipe(format=ext)
    atomic_write(to_file, lambda f: f.write(data))
    return dot


def get_file(fname: Optional[str] = None, origin: Optional[str] = None, untar: bool = False,
             md5_hash: Optional[str] = None, file_hash: Optional[str] = None,
             cache_subdir: str = 'datasets', hash_algorithm: str = 'auto',
             extract: bool = False, archive_format: str = 'auto',
             cache_dir: Optional[str] = None, force_download: bool = False) -> str:
    """Keras's ``get_file``: the cached local path of ``origin``, downloading it when missing.

    The file goes to ``<cache_dir or $KERAS_HOME or ~/.keras>/<cache_subdir>/<fname>``; the
    download is atomic and checked against ``file_hash`` (SHA-256, or MD5 for 32 hex digits;
    ``md5_hash`` is Keras's older spelling) when one is given; a cached file that fails the check
    is downloaded again. With ``extract`` (or ``untar``) a ``.tar``/``.tar.gz``/``.zip`` archive is
    unpacked next to it into ``<fname without extension>_extracted`` (members that would land
    outside it are refused) and that folder's path is returned.

    Example:
        >>> import os, pathlib, tempfile
        >>> from chainlet.keras.utils import get_file
        >>> src = pathlib.Path(tempfile.mkdtemp()) / 'data.txt'
        >>> _ = src.write_text('hello')
        >>> path = get_file('data.txt', src.as_uri(), cache_dir=tempfile.mkdtemp())
        >>> pathlib.Path(path).read_text()
        'hello'
    """
    from chainlet.keras.datasets import _files
    if origin is None:
        raise ValueError('get_file: argument origin: expected the URL of the file, got None')
    fname = fname or os.path.basename(origin.rstrip('/').split('?')[0])
    if not fname:
        raise ValueError(f'get_file: argument fname: expected a file name, and none can be '
                         f'derived from origin {origin!r}')
    if hash_algorithm not in ('auto', 'md5', 'sha256'):
        raise ValueError(f"get_file: argument hash_algorithm: expected 'auto', 'md5' or "
                         f"'sha256', got {hash_algorithm!r}")
    digest = file_hash or md5_hash
    if digest is not None and hash_algorithm != 'auto' and \
            len(digest) != (32 if hash_algorithm == 'md5' else 64):
        raise ValueError(f'get_file: argument file_hash: expected a {hash_algorithm} hex digest, '
                         f'got {digest!r}')
    if cache_dir is not None:
        folder = os.path.join(os.path.expanduser(cache_dir), cache_subdir)
        os.makedirs(folder, exist_ok=True)
    else:
        folder = _files.cache_dir(cache_subdir)
    path = os.path.join(folder, fname)
    if force_download and os.path.exists(path):
        os.remove(path)
    path = _files.get_file(path, origin, digest, where='get_file')
    if not (extract or untar):
        return path
    target = os.path.splitext(path[:-3] if path.endswith('.tar.gz') else path)[0] + '_extracted'
    if not os.path.isdir(target) or force_download:
        _files.extract_archive(path, target, archive_format, where='get_file')
    return target


def __getattr__(name: str) -> Any:
    # Keras 3 also publishes its object-registration helpers here; they live in keras.saving,
    # which imports this module, so they are fetched on first use.
    if name in _SAVING_NAMES:
        from chainlet.keras import saving
        return getattr(saving, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


_SAVING_NAMES = ('register_keras_serializable', 'get_custom_objects', 'custom_object_scope',
                 'CustomObjectScope', 'serialize_keras_object', 'deserialize_keras_object',
                 'get_registered_name', 'get_registered_object')

__all__ = ['get_file', 'to_categorical', 'set_random_seed', 'print_summary', 'model_to_dot',
           'plot_model', 'pad_sequences', 'pack_x_y_sample_weight', 'unpack_x_y_sample_weight',
           'PyDataset', 'Sequence', 'array_to_img', 'img_to_array', 'load_img', 'normalize',
           'save_img', 'Config', 'Progbar', 'clear_session', 'disable_interactive_logging',
           'enable_interactive_logging', 'get_source_inputs', 'is_interactive_logging_enabled',
           'is_keras_tensor', 'standardize_dtype']


def get_source_inputs(tensor: Any) -> list:
    """The ``keras.Input`` tensors a symbolic tensor was computed from (a list)."""
    from chainlet.keras.applications.imagenet_utils import source_inputs
    found = source_inputs(tensor)
    return found if isinstance(found, list) else [found]
