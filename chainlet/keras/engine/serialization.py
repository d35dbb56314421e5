"""Configs of layers and models (Keras's format), and the files that hold them.

A functional model's config follows Keras: ``{'name', 'trainable', 'layers': [{'module',
'class_name', 'config', 'name', 'inbound_nodes'}...], 'input_layers', 'output_layers'}``. Each
inbound node is ``{'args': [...], 'kwargs': {...}}`` where every symbolic tensor is written as
``{'class_name': '__keras_tensor__', 'config': {'keras_history': [layer_name, node_index,
tensor_index]}}``; node indexes count only the nodes that belong to the model, so a layer also
used elsewhere serializes the same way.

Files: ``.npz`` (weights under stable keys, plus ``__config__`` for a whole model), ``.keras``
(a zip of ``config.json`` and ``model.weights.npz``), ``.h5`` (needs h5py) and ``.safetensors``
(needs safetensors; the config in the header's metadata, tensor CRC-32s beside it). A whole-model
file also holds the optimizer's state under ``__optimizer__/`` keys (Keras's
``include_optimizer``). Every write goes through :func:`chainlet.serializers.atomic_path`
(temporary file, fsync, rename; the umask's usual mode). Every read verifies checksums (the
zip CRC-32 of ``.npz``/``.keras`` members; fletcher32, HDF5 metadata checksums and CRC-32
attributes in ``.h5``), and a file that is empty, truncated, corrupted or of another format
raises :class:`chainlet.serializers.CorruptFileError` naming the path.
"""
from __future__ import annotations

import inspect
import io
import json
import os
import struct
import tokenize
import zipfile
import zlib
from typing import TYPE_CHECKING, Any, Callable, Optional, cast

import numpy

from chainlet import backend
from chainlet.keras.engine.keras_tensor import KerasHistory, KerasTensor
from chainlet.keras.engine.tree import map_structure
from chainlet.serializers import (CorruptFileError, DictionarySerializer, NpzDeserializer,
                                  UnsafeFileError, atomic_path, check_npz, check_zip,
                                  open_hdf5, read_safetensors, write_hdf5, write_safetensors)

if TYPE_CHECKING:
    from chainlet.keras.engine.base_layer import Layer

FORMAT_VERSION = 1


# ---------------------------------------------------------------- layers

def serialize_layer(layer: Any) -> dict:
    """``{'module', 'class_name', 'config', 'registered_name', 'name'}`` for ``layer``
    (Keras's layout), plus ``build_config`` when the layer was built by a call (so that a
    subclassed model or a custom layer outside a functional graph is rebuilt before its
    weights load). Objects in the config (layers, regularizers, functions) are serialized
    with :func:`chainlet.keras.saving.serialize_keras_object`."""
    from chainlet.keras.engine.sequential import Sequential
    from chainlet.keras.engine.model import Model
    from chainlet.keras.saving import serialization_lib
    from chainlet.keras.saving.object_registration import _registered_name_or_none
    # a subclass that became functional is saved under the class its author wrote
    cls = getattr(type(layer), '_functional_base', type(layer))
    class_name = cls.__name__
    if cls is Model and layer._is_graph_network:
        class_name = 'Functional'
    builtin = cls.__module__.startswith('chainlet.keras')
    out = {'module': cls.__module__, 'class_name': class_name,
           'config': serialization_lib._config_values(layer.get_config()),
           'registered_name': _registered_name_or_none(cls, builtin),
           'name': layer.name}
    if isinstance(layer, Sequential) and layer._is_graph_network and layer._stack:
        first = layer._stack[0]
        if not hasattr(first, 'batch_shape') and first._batch_input_shape is None:
            out['build_config'] = {'input_shape': list(layer.inputs[0].shape)}
    elif not getattr(layer, '_is_graph_network', False):
        build_config = layer.get_build_config()
        if build_config is not None:
            out['build_config'] = _plain(build_config)
    return out


def _with_registry(custom_objects: Optional[dict]) -> dict:
    """``custom_objects`` merged with the registry and the active scopes (which win, as in
    Keras's lookup order), for code that only looks in a ``custom_objects`` dict."""
    from chainlet.keras.saving import object_registration as reg
    merged = dict(custom_objects or {})
    merged.update(reg.get_custom_objects())
    merged.update(reg._scope_objects())
    return merged


def _layer_class(class_name: str, custom_objects: Optional[dict],
                 registered_name: Optional[str] = None,
                 module: Optional[str] = None) -> type[Layer]:
    from chainlet import keras
    from chainlet.keras.saving.object_registration import get_registered_object
    for key in (registered_name, class_name):
        found = get_registered_object(key, custom_objects) if key else None
        if found is not None:
            return found
    if class_name == 'Functional':
        return keras.Model
    namespaces = [keras.layers, keras]
    if module and module.startswith('chainlet.keras.'):  # chainlet.keras's own modules only
        import importlib
        try:
            namespaces.append(importlib.import_module(module))
        except ImportError:
            pass
    for namespace in namespaces:
        cls = getattr(namespace, class_name, None)
        if isinstance(cls, type) and issubclass(cls, keras.Layer):
            return cls
    raise ValueError(f'Unknown layer: {class_name}; pass it in custom_objects '
                     f'(e.g. load_model(path, custom_objects={{"{class_name}": '
                     f'{class_name}}})) or register it with '
                     f'@keras.saving.register_keras_serializable()')


def _shape_from_json(shape: Any) -> Any:
    if isinstance(shape, (list, tuple)) and all(s is None or isinstance(s, int)
                                                for s in shape):
        return tuple(shape)
    if isinstance(shape, dict):
        return {k: _shape_from_json(v) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)):
        return [_shape_from_json(s) for s in shape]
    return shape


def deserialize_layer(config: dict, custom_objects: Optional[dict] = None) -> Any:
    """Create a layer from :func:`serialize_layer`'s output.

    Custom classes are found through ``registered_name`` or ``class_name`` in
    ``custom_objects``, the active :class:`chainlet.keras.saving.CustomObjectScope` and the
    registry of :func:`chainlet.keras.saving.register_keras_serializable`.

    Raises:
        ValueError: ``Unknown layer: X; pass it in custom_objects`` for a class that is neither
            a chainlet.keras layer nor in ``custom_objects`` nor registered.
    """
    if not isinstance(config, dict) or 'class_name' not in config:
        raise ValueError(f'deserialize_layer: expected a dict with class_name and config, got '
                         f'{config!r}')
    from chainlet.keras.saving.object_registration import CustomObjectScope
    cls = _layer_class(config['class_name'], custom_objects, config.get('registered_name'),
                       config.get('module'))
    cfg = dict(config.get('config') or {})
    # Callable[..., Any]: Model.from_config (and custom ones) also take custom_objects=.
    from_config: Callable[..., Any] = cls.from_config
    with CustomObjectScope(custom_objects):
        if 'custom_objects' in inspect.signature(from_config).parameters:
            layer = from_config(cfg, custom_objects=_with_registry(custom_objects))
        else:
            layer = from_config(cfg)
        build = config.get('build_config')
        if build and not layer.built:
            layer.build_from_config({k: _shape_from_json(v) for k, v in build.items()})
    return layer


# ------------------------------------------------------------- functional

def _node_indexes(model: Any) -> dict:
    """``(id(layer), old node index) -> new index`` counting only the model's nodes."""
    member = {id(n) for n in model._nodes}
    mapping: dict = {}
    for layer in model.layers:
        k = 0
        for i, node in enumerate(layer._inbound_nodes):
            if id(node) in member:
                mapping[(id(layer), i)] = k
                k += 1
    return mapping


def _tensor_ref(t: KerasTensor, mapping: dict) -> list:
    # a tensor of a model's graph was made by a layer, so it has a history
    layer, node_index, tensor_index = cast(KerasHistory, t._keras_history)
    return [layer.name, mapping.get((id(layer), node_index), node_index), tensor_index]


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def functional_config(model: Any) -> dict:
    """Keras's config of a functional ``model`` (see the module docstring)."""
    mapping = _node_indexes(model)
    member = {id(n) for n in model._nodes}

    def encode(x: Any) -> Any:
        if isinstance(x, KerasTensor):
            return {'class_name': '__keras_tensor__',
                    'config': {'keras_history': _tensor_ref(x, mapping)}}
        return x
    layers = []
    for layer in model.layers:
        entry = serialize_layer(layer)
        nodes = []
        from chainlet.keras.engine.input_layer import InputLayer
        if not isinstance(layer, InputLayer):
            for node in layer._inbound_nodes:
                if id(node) in member:
                    nodes.append({'args': _plain(map_structure(encode, list(node.call_args))),
                                  'kwargs': _plain(map_structure(encode, node.call_kwargs))})
        entry['inbound_nodes'] = nodes
        layers.append(entry)

    def refs(structure: Any) -> Any:
        if isinstance(structure, KerasTensor):
            return _tensor_ref(structure, mapping)
        if isinstance(structure, dict):
            return {k: refs(v) for k, v in structure.items()}
        return [refs(t) for t in structure]
    return {'name': model.name, 'trainable': model.trainable, 'layers': layers,
            'input_layers': refs(model._nested_inputs),
            'output_layers': refs(model._nested_outputs)}


def _is_ref(x: Any) -> bool:
    return isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and \
        isinstance(x[1], int) and isinstance(x[2], int)


def functional_from_config(cls: type, config: dict,
                           custom_objects: Optional[dict] = None) -> Any:
    """Rebuild a functional model of class ``cls`` from :func:`functional_config`'s output."""
    from chainlet.keras.engine.input_layer import InputLayer
    created: dict = {}
    pending: dict = {}
    order = []
    for entry in config['layers']:
        layer = deserialize_layer(entry, custom_objects)
        name = entry.get('name', layer.name)
        created[name] = layer
        order.append(name)
        if not isinstance(layer, InputLayer):
            pending[name] = list(entry.get('inbound_nodes', []))

    def tensor(ref: list) -> KerasTensor:
        name, node_index, tensor_index = ref
        layer = created.get(name)
        if layer is None:
            raise ValueError(f'from_config: a node refers to layer {name!r}, which is not in '
                             f'the config')
        if node_index >= len(layer._inbound_nodes):
            raise LookupError(name)
        return layer._inbound_nodes[node_index].output_tensors[tensor_index]

    def decode(x: Any) -> Any:
        if isinstance(x, dict):
            if x.get('class_name') == '__keras_tensor__':
                return tensor(x['config']['keras_history'])
            return {k: decode(v) for k, v in x.items()}
        if isinstance(x, list):
            return [decode(v) for v in x]
        return x

    while any(pending.values()):
        progressed = False
        for name in order:
            queue = pending.get(name)
            if not queue:
                continue
            node = queue[0]
            try:
                if isinstance(node, dict):
                    args = decode(node.get('args', []))
                    kwargs = decode(node.get('kwargs', {}))
                else:  # Keras 2 style: [[layer_name, node_index, tensor_index, kwargs], ...]
                    tensors = [tensor(ref[:3]) for ref in node]
                    kwargs = node[0][3] if node and len(node[0]) > 3 else {}
                    args = [tensors[0] if len(tensors) == 1 else tensors]
            except LookupError:
                continue
            created[name](*args, **kwargs)
            queue.pop(0)
            progressed = True
        if not progressed:
            stuck = sorted(n for n, q in pending.items() if q)
            raise ValueError(f'from_config: cannot rebuild the graph; the nodes of layers '
                             f'{stuck} depend on tensors that are never created')

    def refs_to_tensors(structure: Any) -> Any:
        if _is_ref(structure):
            return tensor(structure)
        if isinstance(structure, dict):
            return {k: refs_to_tensors(v) for k, v in structure.items()}
        return [refs_to_tensors(s) for s in structure]
    inputs = refs_to_tensors(config['input_layers'])
    outputs = refs_to_tensors(config['output_layers'])
    model = cls(inputs=inputs, outputs=outputs, name=config.get('name'))
    if config.get('trainable') is False:
        model.trainable = False
    return model


# ------------------------------------------------------------------ JSON

def json_default(value: Any) -> Any:
    """``json.dumps(default=...)`` for NumPy scalars, arrays, tuples and dtypes."""
    if isinstance(value, numpy.generic):
        return value.item()
    if isinstance(value, numpy.ndarray):
        return value.tolist()
    if isinstance(value, numpy.dtype):
        return value.name
    if isinstance(value, slice):
        return {'__slice__': [value.start, value.stop, value.step]}
    raise TypeError(f'cannot serialize {type(value).__name__} to JSON: {value!r}; give the '
                    f'layer a get_config() that returns plain values')


def model_json_dict(model: Any) -> dict:
    """``{'class_name', 'config', 'module', 'format_version'}`` for ``to_json``/``save``."""
    out = serialize_layer(model)
    out['format_version'] = FORMAT_VERSION
    out['backend'] = 'chainlet'
    return out


def model_from_dict(data: dict, custom_objects: Optional[dict] = None) -> Any:
    """Inverse of :func:`model_json_dict`."""
    return deserialize_layer(data, custom_objects)


def serialize_loss_arg(loss: Any) -> Any:
    from chainlet.keras import losses
    if isinstance(loss, dict):
        return {k: serialize_loss_arg(v) for k, v in loss.items()}
    if isinstance(loss, (list, tuple)):
        return [serialize_loss_arg(v) for v in loss]
    if inspect.isfunction(loss):
        from chainlet.keras.saving.object_registration import get_registered_name
        return get_registered_name(loss)
    return losses.serialize(loss)


def deserialize_loss_arg(loss: Any, custom_objects: Optional[dict] = None) -> Any:
    from chainlet.keras import losses
    if loss is None:
        return None
    if isinstance(loss, dict) and 'class_name' in loss:
        return losses.deserialize(loss, custom_objects)
    if isinstance(loss, dict):
        return {k: deserialize_loss_arg(v, custom_objects) for k, v in loss.items()}
    if isinstance(loss, list):
        return [deserialize_loss_arg(v, custom_objects) for v in loss]
    if isinstance(loss, str):
        from chainlet.keras.saving.object_registration import get_registered_object
        found = get_registered_object(loss, custom_objects)
        if found is not None:
            return found
    return loss


def serialize_metric_arg(metrics: Any) -> Any:
    from chainlet.keras import metrics as metrics_mod
    if metrics is None or isinstance(metrics, str):
        return metrics
    if isinstance(metrics, dict):
        return {k: serialize_metric_arg(v) for k, v in metrics.items()}
    if isinstance(metrics, (list, tuple)):
        return [serialize_metric_arg(v) for v in metrics]
    if isinstance(metrics, metrics_mod.Metric):
        return metrics_mod.serialize(metrics)
    if inspect.isfunction(metrics):
        from chainlet.keras.saving.object_registration import get_registered_name
        return get_registered_name(metrics)
    return getattr(metrics, '__name__', repr(metrics))


def deserialize_metric_arg(metrics: Any, custom_objects: Optional[dict] = None) -> Any:
    from chainlet.keras import metrics as metrics_mod
    if metrics is None:
        return None
    if isinstance(metrics, dict) and 'class_name' in metrics:
        return metrics_mod.deserialize(metrics, custom_objects)
    if isinstance(metrics, dict):
        return {k: deserialize_metric_arg(v, custom_objects) for k, v in metrics.items()}
    if isinstance(metrics, list):
        return [deserialize_metric_arg(v, custom_objects) for v in metrics]
    if isinstance(metrics, str):
        from chainlet.keras.saving.object_registration import get_registered_object
        found = get_registered_object(metrics, custom_objects)
        if found is not None:
            return found
    return metrics


# ----------------------------------------------------------------- files

_ZIP_MAGIC = b'PK\x03\x04'
_HDF5_MAGIC = b'\x89HDF\r\n\x1a\n'
# Prefix of the optimizer's arrays in a file of model.save; load_weights skips '__' keys.
OPTIMIZER_PREFIX = '__optimizer__/'
# First member of every .npz written here: the list of all keys. The zip CRC-32 covers each
# member's bytes but not the central directory, where one flipped byte can silently drop the
# entries that follow; checking the list turns that into an error.
_MANIFEST = '__keys__'


def atomic_write(filepath: str, write: Callable[[Any], None], mode: str = 'wb') -> None:
    """Call ``write(f)`` on a temporary file next to ``filepath``, then move it into place.

    A thin adapter over :func:`chainlet.serializers.atomic_path`, the one atomic write of every
    chainlet save path: the file gets the umask's usual mode, is flushed to disk before the
    rename, and a failed (or killed) write leaves the previous file intact.
    """
    with atomic_path(os.fspath(filepath)) as tmp:
        with open(tmp, mode) as f:
            write(f)


def _import_h5py(where: str) -> Any:
    try:
        import h5py
    except ImportError as e:
        raise ImportError(f'{where}: .h5 files need h5py; install it with '
                          f'pip install "chainlet-dl[hdf5]" (or use a .npz file)') from e
    return h5py


def _is_h5(filepath: str) -> bool:
    return filepath.endswith('.h5') or filepath.endswith('.hdf5')


def _crc(data: Any) -> int:
    return zlib.crc32(numpy.ascontiguousarray(data).tobytes()) & 0xFFFFFFFF


def _write_h5(h5: Any, arrays: dict, config: Optional[str]) -> None:
    # libver v110+: object headers and the chunk indexes carry HDF5's metadata checksums (with
    # v108 the chunk index is an unchecked version-1 B-tree, where a flipped filter-mask bit
    # silently skips the checksum filter); fletcher32 checksums the data of every chunked
    # dataset. Datasets that cannot be chunked (0-d or
    # empty) and the config get a CRC-32 attribute instead, so that every byte a load uses is
    # verified (a flipped byte must not load as a wrong weight).
    for key, value in arrays.items():
        value = numpy.asarray(value)
        if value.ndim and value.size:
            h5.create_dataset(key, data=value, fletcher32=True)
        else:
            h5.create_dataset(key, data=value).attrs['crc32'] = _crc(value)
    if config is not None:
        h5.attrs['model_config'] = config
        h5.attrs['model_config_crc32'] = zlib.crc32(config.encode()) & 0xFFFFFFFF


def write_arrays(filepath: str, arrays: dict, where: str, config: Optional[str] = None) -> None:
    """Write ``arrays`` (key -> array) and an optional JSON ``config`` atomically.

    ``.h5`` datasets are written with checksums (see :func:`_write_h5`); ``.npz`` members carry
    the zip format's CRC-32. Both are verified by :func:`read_arrays`.
    """
    if _is_h5(filepath):
        _import_h5py(where)
        # built in memory and written with Python I/O: a full disk is an OSError, not the
        # SIGSEGV of HDF5 writing to disk itself
        write_hdf5(filepath, lambda h5: _write_h5(h5, arrays, config), where,
                   libver=('v110', 'latest'))
        return
    if filepath.endswith('.safetensors'):
        # the config goes to the header's str-to-str metadata; tensors carry CRC-32s there
        write_safetensors(filepath, arrays, None if config is None else {'__config__': config})
        return
    if not filepath.endswith('.npz'):
        raise ValueError(f'{where}: unsupported file extension in {filepath!r}; use .npz, '
                         f'.weights.npz, .h5, .safetensors or (for whole models) .keras')
    payload = dict(arrays)
    if config is not None:
        payload['__config__'] = config

    def write_npz(f: Any) -> None:
        _savez(f, payload)
    atomic_write(filepath, write_npz)


def _savez(f: Any, arrays: dict) -> None:
    # dict[str, Any]: the values are arrays; a narrower type makes mypy match **payload
    # against savez's keyword parameters (allow_pickle: bool).
    payload: dict[str, Any] = {_MANIFEST: numpy.array(json.dumps(sorted(arrays)))}
    payload.update((key, numpy.asarray(value)) for key, value in arrays.items())
    numpy.savez(f, **payload)


def _corrupt(where: str, filepath: str, kind: str, detail: str) -> CorruptFileError:
    return CorruptFileError(f'{where}: cannot read {filepath!r} as a {kind} file: {detail}; '
                            f'the file is truncated, corrupted or not written by chainlet.keras')


def _check_magic(where: str, filepath: str, kind: str, magic: bytes) -> None:
    with open(filepath, 'rb') as f:
        head = f.read(len(magic))
    if not head:
        raise _corrupt(where, filepath, kind, 'the file is empty')
    if head != magic:
        raise _corrupt(where, filepath, kind, f'it starts with {head!r}, not the {kind} '
                       f'signature {magic!r}')


def _flatten_h5(group: Any, prefix: str = '') -> dict:
    out = {}
    for key, item in group.items():
        path = f'{prefix}{key}'
        if hasattr(item, 'keys'):
            out.update(_flatten_h5(item, path + '/'))
        elif item is None:  # a damaged link table can leave a name without its object
            raise ValueError(f'the entry {path!r} has no object')
        else:
            value = item[()]
            crc = item.attrs.get('crc32')
            if crc is not None and _crc(value) != int(crc):
                raise ValueError(f'dataset {path!r} fails its CRC-32 check')
            out[path] = value
    return out


def _read_h5(filepath: str, where: str) -> dict:
    with open_hdf5(filepath, where) as h5:
        out = _flatten_h5(h5)
        if 'model_config' in h5.attrs:
            config = h5.attrs['model_config']
            config = config.decode() if isinstance(config, bytes) else str(config)
            crc = h5.attrs.get('model_config_crc32')
            if crc is not None and zlib.crc32(config.encode()) & 0xFFFFFFFF != int(crc):
                raise ValueError('the model config fails its CRC-32 check')
            out['__config__'] = config
    return out


def _read_npz(data: bytes | str, source: str, where: str) -> dict:
    # The file is opened here, not by numpy.load, which leaks its handle when the zip is bad.
    with (io.BytesIO(data) if isinstance(data, bytes) else open(data, 'rb')) as stream:
        # Reading every member in full makes zipfile verify its CRC-32.
        with numpy.load(stream, allow_pickle=False) as npz:
            # sizes and .npy headers first: a crafted one must not reach an allocation
            check_npz(npz, source, where)
            out = {k: npz[k] for k in npz.files}
    if _MANIFEST in out:
        expected = set(json.loads(str(out.pop(_MANIFEST))))
        if expected != set(out):
            missing = sorted(expected - set(out))
            raise ValueError(f'the zip directory lists {len(out)} of its {len(expected)} '
                             f'members (missing {missing[:5]})')
    if '__config__' in out:
        out['__config__'] = str(out['__config__'])
    return out


# What a damaged file raises while it is parsed: h5py reports failed checksums as OSError,
# NumPy's .npy header parser can leak tokenize/syntax errors, zipfile reads a flipped flag as an
# unsupported (NotImplementedError) compression or encryption.
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, KeyError, ValueError, OSError,
                TypeError, RuntimeError, NotImplementedError, SyntaxError, tokenize.TokenError,
                struct.error)


def read_arrays(filepath: str, where: str) -> dict:
    """Read what :func:`write_arrays` (or :func:`save_model`) wrote, ``__config__`` included
    when present, verifying the checksums.

    Raises:
        FileNotFoundError: No file at ``filepath``.
        chainlet.serializers.CorruptFileError: (a ``ValueError`` and an ``OSError``) naming
            the file, when it is empty, truncated, corrupted or of another format.
    """
    if not os.path.exists(filepath):
        raise FileNotFoundError(f'{where}: no such file: {filepath}')
    if _is_h5(filepath):
        _import_h5py(where)
        _check_magic(where, filepath, 'HDF5', _HDF5_MAGIC)
        try:
            return _read_h5(filepath, where)
        except (UnsafeFileError, CorruptFileError):
            raise  # the safe reader's own errors name the file and the entry
        except _READ_ERRORS as e:
            raise _corrupt(where, filepath, 'HDF5', f'{type(e).__name__}: {e}') from e
    if filepath.endswith('.keras'):
        return read_keras_archive(filepath, where)[1]
    if filepath.endswith('.safetensors'):
        try:
            arrays, metadata = read_safetensors(filepath)
        except _READ_ERRORS as e:
            raise _corrupt(where, filepath, '.safetensors', f'{type(e).__name__}: {e}') from e
        if '__config__' in metadata:
            arrays['__config__'] = metadata['__config__']
        return arrays
    _check_magic(where, filepath, '.npz (zip)', _ZIP_MAGIC)
    try:
        return _read_npz(filepath, repr(filepath), where)
    except (UnsafeFileError, CorruptFileError):
        raise  # the archive checks name the file and the entry
    except _READ_ERRORS as e:
        raise _corrupt(where, filepath, '.npz (zip)', f'{type(e).__name__}: {e}') from e


def read_keras_archive(filepath: str, where: str) -> tuple:
    """``(config JSON text, arrays)`` of a ``.keras`` zip written by :func:`save_model`."""
    _check_magic(where, filepath, '.keras (zip)', _ZIP_MAGIC)
    try:
        with zipfile.ZipFile(filepath) as z:
            check_zip(z, repr(filepath), where)
            config = z.read('config.json').decode()
            arrays = _read_npz(z.read('model.weights.npz'),
                               f"the member model.weights.npz of {filepath!r}", where)
    except (UnsafeFileError, CorruptFileError):
        raise  # the archive checks name the file and the entry
    except (*_READ_ERRORS, UnicodeDecodeError) as e:
        raise _corrupt(where, filepath, '.keras (zip)', f'{type(e).__name__}: {e}') from e
    return config, arrays


def _optimizer_arrays(model: Any) -> dict:
    """The optimizer's iteration count and per-weight state (moments...), under
    :data:`OPTIMIZER_PREFIX` and the stable weight keys (empty if not compiled)."""
    keras_opt = model.__dict__.get('optimizer') if model.__dict__.get('_compiled') else None
    if keras_opt is None:
        return {}
    opt = keras_opt.chainlet_optimizer
    out: dict = {}
    serializer = DictionarySerializer(out, OPTIMIZER_PREFIX)
    serializer('iterations', numpy.asarray(opt.t))
    serializer('epoch', numpy.asarray(opt.epoch))
    for key, _, p in model._weight_entries():
        rule = getattr(p, 'update_rule', None)
        if rule is not None:
            rule.serialize(serializer[key])
    return {k: backend.to_cpu(numpy.asarray(v) if not backend.is_array(v) else v)
            for k, v in out.items()}


def _restore_optimizer(model: Any, arrays: dict) -> None:
    """Put the state saved by :func:`_optimizer_arrays` back into ``model``'s optimizer."""
    if OPTIMIZER_PREFIX + 'iterations' not in arrays or model.__dict__.get('optimizer') is None:
        return
    keras_opt = model.optimizer
    keras_opt.build(model)
    opt = keras_opt.chainlet_optimizer
    opt.t = int(arrays[OPTIMIZER_PREFIX + 'iterations'])
    opt.epoch = int(arrays.get(OPTIMIZER_PREFIX + 'epoch', 0))
    state = {k: v for k, v in arrays.items() if k.startswith(OPTIMIZER_PREFIX)}
    for key, _, p in model._weight_entries():
        rule = getattr(p, 'update_rule', None)
        if rule is not None and f'{OPTIMIZER_PREFIX}{key}/t' in state:
            # strict=False: a rule saved before its first update has no state arrays yet
            rule.serialize(NpzDeserializer(state, f'{OPTIMIZER_PREFIX}{key}/', strict=False))


# Prefix of the arrays that layers with their own save_own_variables put in a model file.
OWN_PREFIX = '__own__/'
_HOOKS = ('save_own_variables', 'load_own_variables', 'save_assets', 'load_assets')


def _custom_state_layers(model: Any) -> list:
    """``(path, layer)`` for every layer (the model included) whose class overrides
    ``save_own_variables``/``load_own_variables`` or has ``save_assets``/``load_assets``;
    paths are class-based (``dense``, ``dense_1``, ``sequential/my_layer``), stable across
    rebuilds of the same architecture."""
    from chainlet.keras.engine.base_layer import Layer, to_snake_case
    out: list = []
    seen: set = set()

    def custom(layer: Any) -> bool:
        return any(getattr(type(layer), hook, None) is not getattr(Layer, hook, None)
                   for hook in _HOOKS)

    def walk(layer: Any, path: str) -> None:
        if id(layer) in seen:
            return
        seen.add(id(layer))
        if custom(layer):
            out.append((path, layer))
        children = layer.layers if isinstance(getattr(type(layer), 'layers', None),
                                              property) else \
            [c for _, c in layer._child_items()]
        used: dict = {}
        for child in children:
            if not isinstance(child, Layer):
                continue
            base = to_snake_case(type(child).__name__)
            k = used.get(base, 0)
            used[base] = k + 1
            walk(child, f'{path}{base if k == 0 else f"{base}_{k}"}/')
    walk(model, '')
    return out


def _own_variable_arrays(model: Any) -> dict:
    arrays: dict = {}
    for path, layer in _custom_state_layers(model):
        store: dict = {}
        layer.save_own_variables(store)
        for key, value in store.items():
            arrays[f'{OWN_PREFIX}{path}{key}'] = backend.to_cpu(
                value.array if hasattr(value, 'array') else numpy.asarray(value))
    return arrays


def _restore_own_variables(model: Any, arrays: dict) -> None:
    for path, layer in _custom_state_layers(model):
        prefix = f'{OWN_PREFIX}{path}'
        store = {k[len(prefix):]: v for k, v in arrays.items()
                 if k.startswith(prefix) and '/' not in k[len(prefix):]}
        layer.load_own_variables(store)


def _asset_files(model: Any) -> dict:
    """``{zip member name: bytes}`` of what the layers' ``save_assets`` write."""
    import tempfile
    files: dict = {}
    for path, layer in _custom_state_layers(model):
        if not callable(getattr(layer, 'save_assets', None)):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            layer.save_assets(tmp)
            for root, _, names in os.walk(tmp):
                for name in names:
                    full = os.path.join(root, name)
                    rel = os.path.relpath(full, tmp).replace(os.sep, '/')
                    with open(full, 'rb') as f:
                        files[f'assets/{path}{rel}'] = f.read()
    return files


def _load_assets(model: Any, filepath: str) -> None:
    import tempfile
    layers = [(p, layer) for p, layer in _custom_state_layers(model)
              if callable(getattr(layer, 'load_assets', None))]
    if not layers:
        return
    with zipfile.ZipFile(filepath) as z:
        members = [m for m in z.namelist() if m.startswith('assets/')]
        for path, layer in layers:
            prefix = f'assets/{path}'
            with tempfile.TemporaryDirectory() as tmp:
                for member in members:
                    rel = member[len(prefix):]
                    if not member.startswith(prefix) or '/' in rel or not rel:
                        continue
                    with open(os.path.join(tmp, rel), 'wb') as f:
                        f.write(z.read(member))
                layer.load_assets(tmp)


def save_model(model: Any, filepath: str, include_optimizer: bool = True) -> None:
    """Write architecture, weights and compile config of ``model`` to ``filepath`` (and, with
    ``include_optimizer``, the optimizer's iteration count and state).

    Layers that override ``save_own_variables`` store what it gives under ``__own__/`` keys;
    in a ``.keras`` file, what ``save_assets(folder)`` writes goes to ``assets/<layer path>``.
    """
    from chainlet.keras.saving import serialization_lib
    data = model_json_dict(model)
    compile_config = model.get_compile_config() if model.__dict__.get('_compiled') else None
    if compile_config is not None:
        # an override may return objects (losses, metrics, optimizers): serialize them
        data['compile_config'] = serialization_lib._config_values(compile_config)
    config = json.dumps(data, default=json_default)
    arrays = dict(model._weights_dict())
    arrays.update(_own_variable_arrays(model))
    if include_optimizer:
        arrays.update(_optimizer_arrays(model))
    if filepath.endswith('.keras'):
        buf = io.BytesIO()
        _savez(buf, arrays)
        assets = _asset_files(model)

        def write_zip(f: Any) -> None:
            with zipfile.ZipFile(f, 'w', compression=zipfile.ZIP_STORED) as z:
                z.writestr('metadata.json', json.dumps({'format_version': FORMAT_VERSION,
                                                        'backend': 'chainlet'}))
                z.writestr('config.json', config)
                z.writestr('model.weights.npz', buf.getvalue())
                for name, content in assets.items():
                    z.writestr(name, content)
        atomic_write(filepath, write_zip)
        return
    write_arrays(filepath, arrays, where='save', config=config)


def load_model(filepath: str, custom_objects: Optional[dict] = None,
               compile: bool = True) -> Any:
    """Read a model written by :func:`save_model`; with ``compile``, the optimizer's saved
    state (iteration count, moments) is restored too.

    Raises:
        FileNotFoundError: No file at ``filepath``.
        chainlet.serializers.CorruptFileError: The file is empty, truncated, corrupted or of
            another format (the message names it).
    """
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise FileNotFoundError(f'load_model: no such file: {filepath}')
    if filepath.endswith('.keras'):
        config, arrays = read_keras_archive(filepath, 'load_model')
    else:
        arrays = read_arrays(filepath, 'load_model')
        if '__config__' not in arrays:
            raise ValueError(f'load_model: {filepath} holds weights only (no model config); '
                             f'build the model and call model.load_weights instead')
        config = arrays['__config__']
    try:
        data = json.loads(config)
    except (ValueError, RecursionError) as e:  # RecursionError: nested too deeply
        raise _corrupt('load_model', filepath, 'model', f'its config is not valid JSON '
                       f'({type(e).__name__}: {e})') from e
    if not isinstance(data, dict):
        raise _corrupt('load_model', filepath, 'model', f'its config is a '
                       f'{type(data).__name__}, not a JSON object')
    from chainlet.keras.saving.object_registration import CustomObjectScope
    with CustomObjectScope(custom_objects):
        try:
            model = model_from_dict(data, custom_objects)
        except (TypeError, KeyError, AttributeError, IndexError, RecursionError) as e:
            # a config of the wrong shape (a number where a dict belongs, a missing entry)
            raise _corrupt('load_model', filepath, 'model', f'its config is malformed '
                           f'({type(e).__name__}: {e})') from e
        model._load_weights_dict(arrays, f'load_model({filepath!r})')
        if compile and data.get('compile_config'):
            if 'custom_objects' in inspect.signature(model.compile_from_config).parameters:
                model.compile_from_config(data['compile_config'],
                                          _with_registry(custom_objects))
            else:  # a user's override takes the config alone (Keras's signature)
                model.compile_from_config(data['compile_config'])
            _restore_optimizer(model, arrays)
        _restore_own_variables(model, arrays)
        if filepath.endswith('.keras'):
            _load_assets(model, filepath)
    return model


__all__ = ['serialize_layer', 'deserialize_layer', 'functional_config',
           'functional_from_config', 'save_model', 'load_model', 'write_arrays', 'read_arrays',
           'atomic_write', 'json_default', 'model_json_dict', 'model_from_dict',
           'read_keras_archive', 'OPTIMIZER_PREFIX']
