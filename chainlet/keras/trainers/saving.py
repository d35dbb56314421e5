"""Saving glue of the trainer: weights as named arrays, ``save``/``load_weights``, configs.

A model's weights are addressed by stable keys (paths of class-based names made unique within
each parent, as Keras 3: ``dense/vars/0``, ``dense_1/vars/1``...), so a file saved from one
instance loads into a rebuilt one. The file formats and the atomic writes live in
:mod:`chainlet.keras.engine.serialization`; this mixin gives ``Model`` the methods that read
and write its trainer state (weights, compile arguments, optimizer).
"""
from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Iterator, Optional, cast

import numpy

from chainlet import backend
from chainlet.keras.trainers.data_adapters import to_array

if TYPE_CHECKING:
    from chainlet import Link, Parameter


class SavingMixin:
    """``get_weights``/``set_weights``, ``save_weights``/``load_weights``, ``save``,
    ``to_json``, compile configs, ``summary`` and ``count_params`` for ``Model``."""

    if TYPE_CHECKING:
        # What the mixin reads from the rest of ``Model``: the Layer/Link side
        # (``class Model(Trainer, Layer)``) and the Trainer side (set by Trainer.__init__).
        name: str
        built: bool
        _weights: list
        _compiled: bool
        _compile_args: Optional[dict]
        optimizer: Any

        def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

        def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]: ...

        def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]: ...

        def compile(self, *args: Any, **kwargs: Any) -> None: ...

    def _weight_entries(self) -> list:
        """``(key, layer, param)`` for every weight, in layer order, keys stable across
        rebuilds: paths of class-based names made unique within each parent (as Keras 3)."""
        out: list = []
        seen: set = set()

        def walk(layer: Any, prefix: str) -> None:
            from chainlet.keras.engine.base_layer import Layer, to_snake_case
            own = [p for p in layer._own_weights(None)]
            for j, p in enumerate(own):
                if id(p) not in seen:
                    seen.add(id(p))
                    out.append((f'{prefix}vars/{j}', layer, p))
            children = layer.layers if hasattr(layer, 'layers') and \
                isinstance(getattr(type(layer), 'layers', None), property) else \
                [c for _, c in layer._child_items()]
            used: dict = {}
            for child in children:
                base = to_snake_case(type(child).__name__)
                k = used.get(base, 0)
                used[base] = k + 1
                name = base if k == 0 else f'{base}_{k}'
                if isinstance(child, Layer):
                    walk(child, f'{prefix}{name}/')
                else:  # a plain chainlet link inside a layer
                    for pname, p in child.namedparams():
                        if id(p) not in seen:
                            seen.add(id(p))
                            out.append((f'{prefix}{name}{pname}', layer, p))
            for _, child in layer._child_items():
                if not isinstance(child, Layer) and child not in children:
                    for pname, p in child.namedparams():
                        if id(p) not in seen:
                            seen.add(id(p))
                            out.append((f'{prefix}link{pname}', layer, p))
        walk(self, '')
        return out

    def get_weights(self) -> list:
        """All weights as NumPy arrays, layer by layer (each layer's in its own order)."""
        return [backend.to_cpu(p.array).copy() for _, _, p in self._weight_entries()]

    def set_weights(self, weights: list) -> None:
        """Set all weights from arrays in :meth:`get_weights` order; a shape mismatch names
        the layer and the weight."""
        entries = self._weight_entries()
        weights = list(weights)
        if len(weights) != len(entries):
            raise ValueError(f'Model "{self.name}": set_weights expected a list of '
                             f'{len(entries)} arrays, got {len(weights)}')
        for (_, layer, p), w in zip(entries, weights):
            w = numpy.asarray(backend.to_cpu(to_array(w)))
            if tuple(w.shape) != tuple(p.shape):
                raise ValueError(f'Layer "{layer.name}": weight "{p.name}" has shape '
                                 f'{tuple(p.shape)}, the provided array has shape '
                                 f'{tuple(w.shape)}')
        for (_, _, p), w in zip(entries, weights):
            backend.copyto(p.array, numpy.asarray(backend.to_cpu(to_array(w))).astype(p.dtype))

    def _weights_dict(self) -> dict:
        return {key: backend.to_cpu(p.array) for key, _, p in self._weight_entries()}

    def _load_weights_dict(self, arrays: Any, where: str) -> None:
        entries = self._weight_entries()
        keys = {key for key, _, _ in entries}
        stored = {k for k in arrays.keys() if not k.startswith('__')}
        missing = sorted(keys - stored)
        unexpected = sorted(stored - keys)
        if missing or unexpected:
            raise ValueError(f'{where}: the file does not match model "{self.name}": missing '
                             f'weights {missing[:10]}, unexpected weights {unexpected[:10]}')
        for key, layer, p in entries:
            w = numpy.asarray(arrays[key])
            if tuple(w.shape) != tuple(p.shape):
                raise ValueError(f'{where}: layer "{layer.name}": weight "{p.name}" has shape '
                                 f'{tuple(p.shape)}, the file has shape {tuple(w.shape)}')
        for key, _, p in entries:
            backend.copyto(p.array, numpy.asarray(arrays[key]).astype(p.dtype))

    def _require_built(self, where: str) -> None:
        if not self.built and not self._weights:
            raise ValueError(f'Model "{self.name}": {where}: the model has not been built yet; '
                             f'build it first (call it on data, fit it, or model.build('
                             f'input_shape))')

    def save_weights(self, filepath: str, overwrite: bool = True) -> None:
        """Save the weights to ``.npz`` (``numpy.savez``; one key per weight), ``.h5`` (needs
        h5py) or ``.safetensors`` (needs safetensors; PyTorch tooling reads it). The write is
        atomic."""
        from chainlet.keras.engine import serialization
        self._require_built('save_weights')
        filepath = os.fspath(filepath)
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f'save_weights: {filepath} exists and overwrite=False')
        serialization.write_arrays(filepath, self._weights_dict(), where='save_weights')

    def load_weights(self, filepath: str, skip_mismatch: bool = False) -> None:
        """Load weights saved by :meth:`save_weights` (or :meth:`save`)."""
        from chainlet.keras.engine import serialization
        self._require_built('load_weights')
        arrays = serialization.read_arrays(os.fspath(filepath), where='load_weights')
        self._load_weights_dict(arrays, f'load_weights({filepath!r})')

    def save(self, filepath: str, overwrite: bool = True, include_optimizer: bool = True) -> None:
        """Save architecture, weights and compile settings in one file: ``.keras`` (a zip
        with ``config.json`` and ``model.weights.npz``), ``.npz``, ``.h5`` or ``.safetensors``
        (the config in its metadata). Atomic (see
        :mod:`chainlet.keras.engine.serialization`).

        Args:
            filepath: The file to write.
            overwrite: Replace an existing file (else ``FileExistsError``).
            include_optimizer: Save the optimizer's iteration count and state (moments...),
                which ``load_model`` restores so that training resumes where it stopped.
        """
        from chainlet.keras.engine import serialization
        self._require_built('save')
        filepath = os.fspath(filepath)
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f'save: {filepath} exists and overwrite=False')
        serialization.save_model(self, filepath, include_optimizer=include_optimizer)

    def export(self, filepath: str, format: str = 'tf_saved_model',  # noqa: A002 (Keras's name)
               verbose: Optional[bool] = None, input_signature: Any = None,
               **kwargs: Any) -> None:
        """Export the model for inference: ``format='onnx'`` writes an ONNX file (Keras 3's
        method; TensorFlow's and OpenVINO's formats are not available in chainlet).

        Args:
            filepath: The ``.onnx`` file to write (atomically).
            format: ``'onnx'``.
            verbose: Print where the file was written (default ``True``, as Keras).
            input_signature: One entry per model input with ``shape`` and ``dtype`` (a
                ``KerasTensor``, an ``InputSpec``, an array); ``None`` uses ``model.inputs``,
                whose names become the graph's input names. A ``None`` batch dimension is
                traced with 2 rows and exported as dynamic.
            **kwargs: Passed to :func:`chainlet.onnx.export` (``opset_version``,
                ``input_names``, ``output_names``...).
        """
        if format != 'onnx':
            raise ValueError(f'Model "{self.name}": export: argument format: chainlet exports '
                             f"format='onnx' only, got {format!r}")
        from chainlet import onnx as chainlet_onnx
        specs = input_signature if input_signature is not None else getattr(self, 'inputs', None)
        if not specs:
            raise ValueError(f'Model "{self.name}": export: the model has no symbolic inputs; '
                             f'pass input_signature=[keras.InputSpec(shape=..., dtype=...)]')
        specs = list(specs) if isinstance(specs, (list, tuple)) else [specs]
        example = []
        for spec in specs:
            shape = tuple(2 if d is None else int(d) for d in spec.shape)
            example.append(numpy.zeros(shape, dtype=getattr(spec, 'dtype', None) or 'float32'))
        names = [getattr(spec, 'name', None) for spec in specs]
        if 'input_names' not in kwargs and all(isinstance(n, str) for n in names) \
                and len(set(names)) == len(names):
            kwargs['input_names'] = names  # the model's Input names, as Keras's export
        model = self

        class _Packed:  # the facade takes several inputs as one list
            namedparams, namedlinks = model.namedparams, model.namedlinks

            def __call__(self, *xs: Any) -> Any:
                return model(list(xs) if len(xs) > 1 else xs[0])

        chainlet_onnx.export(_Packed(), example, os.fspath(filepath), **kwargs)
        if verbose is None or verbose:
            print(f"Saved artifact at '{os.fspath(filepath)}'.")

    def to_json(self, **kwargs: Any) -> str:
        """The architecture as JSON (``keras.models.model_from_json`` reads it back)."""
        from chainlet.keras.engine import serialization
        return json.dumps(serialization.model_json_dict(self), default=serialization.json_default,
                          **kwargs)

    def get_compile_config(self) -> Optional[dict]:
        """The arguments of :meth:`compile`, serialized (``None`` if not compiled)."""
        if not self._compiled:
            return None
        from chainlet.keras import optimizers
        from chainlet.keras.engine import serialization
        args = cast(dict, self._compile_args)  # cast: compile() set it (self._compiled)
        return {'optimizer': optimizers.serialize(self.optimizer),
                'loss': serialization.serialize_loss_arg(args['loss']),
                'loss_weights': args['loss_weights'],
                'metrics': serialization.serialize_metric_arg(args['metrics']),
                'weighted_metrics': serialization.serialize_metric_arg(
                    args['weighted_metrics'])}

    def compile_from_config(self, config: dict, custom_objects: Optional[dict] = None) -> None:
        """Compile with the output of :meth:`get_compile_config`."""
        from chainlet.keras import optimizers
        from chainlet.keras.engine import serialization
        self.compile(optimizer=optimizers.deserialize(config['optimizer'], custom_objects),
                     loss=serialization.deserialize_loss_arg(config.get('loss'),
                                                             custom_objects),
                     loss_weights=config.get('loss_weights'),
                     metrics=serialization.deserialize_metric_arg(config.get('metrics'),
                                                                  custom_objects),
                     weighted_metrics=serialization.deserialize_metric_arg(
                         config.get('weighted_metrics'), custom_objects))

    # ---------------------------------------------------------------- summary

    def summary(self, line_length: Optional[int] = None, positions: Optional[list] = None,
                print_fn: Any = None, expand_nested: bool = False,
                show_trainable: bool = False) -> None:
        """Print a table of the layers: name (type), output shape, parameter count, and for
        functional models the layers each one is connected to; then the parameter totals."""
        from chainlet.keras import utils
        utils.print_summary(self, line_length=line_length, positions=positions,
                            print_fn=print_fn, show_trainable=show_trainable)

    def count_params(self) -> int:
        """Number of scalars in all weights."""
        self._require_built('count_params')
        return int(sum(p.size for _, _, p in self._weight_entries() if p.array is not None))


__all__ = ['SavingMixin']
