"""``Trainer``: the training half of ``Model`` (compile, fit, evaluate, predict, saving).

The training step is define-by-run, as in any chainlet loop::

    outputs = model(x, training=True)            # ordinary Variables and FunctionNodes
    loss = sum(weight * loss_fn(y, out)) + sum(model.losses)
    model.cleargrads(); loss.backward(); optimizer.update()

It is Keras 3's ``train_step(data)`` (``data`` = ``x``, ``(x, y)`` or ``(x, y, sample_weight)``,
y in the structure the user gave), built from the same overridable pieces as in Keras:
``compute_loss`` (compiled losses + ``model.losses``), the loss tracker (a ``Mean`` named
``loss``), ``compute_metrics`` (the compiled metrics as one ``compile_metrics`` metric) and
``get_metrics_result``. ``fit``/``evaluate``/``predict`` only feed batches to
``train_step``/``test_step``/``predict_step`` and hand their logs to callbacks, so a subclass
overriding any of them keeps the rest of ``fit`` (callbacks, validation, ``History``).

Everything that does not change between batches (the resolved losses and metrics, the list of
layers, their constraints and regularizers, the metric list) is worked out once, so the
per-batch Python work is the forward pass, one backward and the optimizer's one ``update()``
call, plus a few dictionary look-ups.

Which weights train is read at every step: a layer frozen after ``compile`` (``layer.trainable =
False``) stops being updated at the next batch (its parameters' update rules are disabled).
"""
from __future__ import annotations

import json
import math
import os
import warnings
from typing import Any, Optional

import numpy

import chainlet
from chainlet import Variable, backend
from chainlet.keras.engine.tree import flatten
from chainlet.keras.utils import pack_x_y_sample_weight, unpack_x_y_sample_weight


def _is_array_like(x: Any) -> bool:
    return isinstance(x, (numpy.ndarray, Variable)) or backend.is_array(x) or \
        isinstance(x, (int, float, numpy.generic))


def _to_array(x: Any) -> Any:
    if isinstance(x, Variable):
        return x.array
    if backend.is_array(x):
        return x
    return numpy.asarray(x)


def _pack(template: Any, leaves: Any) -> Any:
    """Rebuild ``template``'s structure from ``leaves`` in :func:`flatten`'s order."""
    # A module-level recursion, not a nested closure: a closure that calls itself is a reference
    # cycle (function -> cell -> function), which left garbage behind at every batch.
    return _build(template, iter(leaves))


def _build(t: Any, it: Any) -> Any:
    if isinstance(t, dict):
        built = {k: _build(t[k], it) for k in sorted(t)}
        return {k: built[k] for k in t}
    if isinstance(t, (list, tuple)):
        return type(t)(_build(v, it) for v in t)
    return next(it)


class _Data:
    """Arrays of one ``fit``/``evaluate``/``predict`` call, sliced into batches.

    Attributes:
        xs, ys, sws: Flat lists of arrays (inputs, targets per output, sample weights per output
            or ``None``).
        n: Number of samples.
    """

    def __init__(self, model: Any, x: Any, y: Any = None, sample_weight: Any = None,
                 where: str = 'fit') -> None:
        self.x_template = model._input_template(x)
        self.xs = [_to_array(a) for a in flatten(self.x_template)]
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

    def subset(self, start: int, stop: int) -> '_Data':
        new = object.__new__(_Data)
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
            yield self._take(index, xp)

    def _take(self, index: Any, xp: Any) -> Any:
        """The Keras ``data`` of one batch: ``x``, ``(x, y)`` or ``(x, y, sample_weight)``."""
        conv = xp.asarray
        x = _pack(self.x_template, [conv(a[index]) for a in self.xs])
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


def _is_dataset(x: Any) -> bool:
    """A chainlet dataset: indexable examples (not batches)."""
    from chainlet.keras.utils import PyDataset
    return hasattr(x, '__getitem__') and hasattr(x, '__len__') and \
        not isinstance(x, PyDataset) and not _is_array_container(x)


def _is_iterator(x: Any) -> bool:
    from chainlet.dataset.iterator import Iterator
    return isinstance(x, Iterator) or (hasattr(x, '__next__') and not _is_dataset(x))


def _is_reiterable(x: Any) -> bool:
    """A ``keras.utils.PyDataset`` or an iterable of batches that starts over at each
    ``iter()`` (a PyTorch ``DataLoader``, any object with ``__iter__`` but no ``__next__``)."""
    from chainlet.keras.utils import PyDataset
    if isinstance(x, PyDataset):
        return True
    return hasattr(x, '__iter__') and not hasattr(x, '__next__') and \
        not hasattr(x, '__getitem__') and not _is_array_container(x)


class _Batches:
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


def _split_example_batch(batch: Any) -> tuple:
    """``(x, y, sample_weight)`` from an iterator's item: a list of example tuples (a chainlet
    iterator), or Keras's ``x`` / ``(x,)`` / ``(x, y)`` / ``(x, y, sample_weight)`` (a list,
    as PyTorch's ``DataLoader`` collates, reads like a tuple)."""
    if isinstance(batch, list) and batch and isinstance(batch[0], tuple):
        from chainlet.dataset.convert import concat_examples
        batch = concat_examples(batch)
    return unpack_x_y_sample_weight(batch)


class _Compiled:
    """What ``compile`` resolves once the output structure is known (at the first batch)."""

    def __init__(self, losses: list, weights: list, metrics: list, names: list) -> None:
        self.losses = losses            # per output: Loss or None
        self.weights = weights          # per output: float
        self.metrics = metrics          # list of (output_index, log_name, Metric, weighted)
        self.output_names = names
        self.multi = len(names) > 1
        # Keras's per-output loss trackers (``<output>_loss``), for several outputs only.
        self.loss_trackers: list = []


class _TrainCache:
    """Per-model lists gathered once: layers, weight regularizers, constraints."""

    def __init__(self, model: Any) -> None:
        self.layers = model._flatten_layers()
        self.regularized = [(p, r) for layer in self.layers
                            for p, r in layer._weight_regularizers]
        self.constraints = [(p, c) for layer in self.layers
                            for p, c in layer.__dict__.get('_constraints', [])]
        self.signature: Any = None

    def trainable_signature(self) -> tuple:
        return tuple((layer._trainable, len(layer._non_trainable_ids)) for layer in self.layers)


def _compile_metrics_class() -> type:
    from chainlet.keras import metrics as metrics_mod

    class CompileMetrics(metrics_mod.Metric):
        """The metrics given to ``compile``, as one metric named ``compile_metrics`` whose
        result is a dict (as Keras 3); resolved at the first batch from the outputs."""

        def __init__(self, model: Any) -> None:
            super().__init__(name='compile_metrics')
            self._model = model

        @property
        def metrics(self) -> list:
            spec = self._model.__dict__.get('_compiled_spec')
            return [] if spec is None else [m for _, _, m, _ in spec.metrics]

        @property
        def built(self) -> bool:
            return self._model.__dict__.get('_compiled_spec') is not None

        def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
            model = self._model
            outs = model._outputs_list(y_pred)
            ys = None if y_true is None else model._target_list(y_true, 'compute_metrics')
            spec = model._resolve(ys, outs)
            if ys is None:
                return
            sws = None if sample_weight is None else \
                model._per_output(sample_weight, 'sample_weight')
            for i, _, metric, weighted in spec.metrics:
                if ys[i] is None:
                    continue
                sw = sws[i] if (weighted and sws is not None) else None
                out = outs[i]
                metric.update_state(ys[i], out.array if isinstance(out, Variable) else out, sw)

        def result(self) -> dict:
            spec = self._model.__dict__.get('_compiled_spec')
            if spec is None:
                return {}
            return {name: m.result() for _, name, m, _ in spec.metrics}

        def reset_state(self) -> None:
            for m in self.metrics:
                m.reset_state()

    return CompileMetrics


class Trainer:
    """Mixin giving ``Model`` its training methods."""

    def __init__(self) -> None:
        d = self.__dict__
        d['_compiled'] = False
        d['optimizer'] = None
        d['loss'] = None
        d['stop_training'] = False
        d['history'] = None
        d['_compile_args'] = None
        d['_compiled_spec'] = None
        d['_train_cache'] = None
        d['_loss_tracker'] = None
        d['_compile_metrics'] = None
        d['_metrics_cache'] = None
        d['_compute_loss_has_training'] = None

    # ------------------------------------------------------------------ compile

    def compile(self, optimizer: Any = 'rmsprop', loss: Any = None, loss_weights: Any = None,
                metrics: Any = None, weighted_metrics: Any = None, run_eagerly: bool = False,
                steps_per_execution: int = 1, jit_compile: Any = 'auto',
                auto_scale_loss: bool = True) -> None:
        """Configure training.

        Args:
            optimizer: Name (``'sgd'``, ``'rmsprop'``, ``'adam'``, ``'adamw'``, ``'adagrad'``),
                a ``keras.optimizers`` object or a chainlet optimizer.
            loss: Loss name, function or ``Loss``; for several outputs a list (by position) or
                a dict (by output name); a single loss applies to every output. May be left
                out when the losses come from ``add_loss`` or an overridden
                :meth:`compute_loss` / :meth:`train_step`.
            loss_weights: Weights of the per-output losses (list or dict).
            metrics: Metric names/functions/objects; a flat list applies to every output, a
                list of lists or a dict gives them per output. ``'accuracy'`` is resolved
                from the loss and the shapes (see :mod:`chainlet.keras.metrics`).
            weighted_metrics: Metrics that also receive the sample weights.
            run_eagerly, steps_per_execution, jit_compile, auto_scale_loss: Accepted for
                compatibility; chainlet always runs eagerly.
        """
        from chainlet.keras import metrics as metrics_mod
        from chainlet.keras import optimizers
        d = self.__dict__
        d['optimizer'] = optimizers.get(optimizer)
        d['loss'] = loss
        d['_compile_args'] = {'loss': loss, 'loss_weights': loss_weights, 'metrics': metrics,
                              'weighted_metrics': weighted_metrics}
        d['_compiled_spec'] = None
        d['_train_cache'] = None
        d['_loss_tracker'] = metrics_mod.Mean(name='loss')
        d['_compile_metrics'] = None if metrics is None and weighted_metrics is None else \
            _compile_metrics_class()(self)
        d['_metrics_cache'] = None
        d['_compiled'] = True
        d['stop_training'] = False
        if self.built or self.__dict__.get('_is_graph_network'):
            self.optimizer.build(self)

    @property
    def compiled(self) -> bool:
        """Whether :meth:`compile` was called."""
        return self._compiled

    def _require_compiled(self, where: str) -> None:
        if not self._compiled:
            raise RuntimeError(f'Model "{self.name}": you must compile the model before '
                               f'{where}: call model.compile(optimizer, loss)')

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradients of all weights (PyTorch's name for :meth:`cleargrads`, used by
        Keras's PyTorch-backend training steps)."""
        self.cleargrads()

    # --------------------------------------------------------------- structure

    def _output_names_list(self, n: int) -> list:
        names = self.__dict__.get('output_names')
        if names and len(names) == n:
            nested = self.__dict__.get('_nested_outputs')
            if isinstance(nested, dict):
                return sorted(nested)
            return list(names)
        return ['output'] if n == 1 else [f'output_{i + 1}' for i in range(n)]

    def _num_outputs(self) -> Optional[int]:
        outputs = self.__dict__.get('outputs')
        return len(outputs) if outputs else None

    def _input_template(self, x: Any) -> Any:
        """``x`` arranged as the model's call expects (dicts of functional models by name)."""
        if isinstance(x, dict) and self.__dict__.get('_is_graph_network'):
            names = self.input_names
            unknown = sorted(set(x) - set(names))
            missing = [n for n in names if n not in x]
            if missing or unknown:
                raise ValueError(f'Model "{self.name}": the input dict must have the keys '
                                 f'{names} (the input names); missing {missing}, unknown '
                                 f'{unknown}')
            values = [x[n] for n in names]
            return values[0] if len(values) == 1 else values
        if isinstance(x, tuple):
            x = list(x)
        return x

    def _cast_input_array(self, i: int, a: Any) -> Any:
        # Cast float (and, as Keras, integer and boolean) inputs to the Input's float dtype once
        # per call rather than once per batch.
        inputs = self.__dict__.get('inputs')
        if not inputs or i >= len(inputs) or not hasattr(a, 'dtype'):
            return a
        want = numpy.dtype(inputs[i].dtype)
        if a.dtype.kind in 'biuf' and want.kind == 'f' and a.dtype != want:
            return a.astype(want)
        return a

    def _target_list(self, y: Any, where: str) -> list:
        # compute_loss and compute_metrics both convert the same batch targets
        last = self.__dict__.get('_last_targets')
        if last is not None and last[0] is y:
            return last[1]
        out = self._target_list_uncached(y, where)
        self.__dict__['_last_targets'] = (y, out)
        return out

    def _target_list_uncached(self, y: Any, where: str) -> list:
        n = self._num_outputs()
        if isinstance(y, dict):
            names = self._output_names_list(n or len(y))
            unknown = sorted(set(y) - set(names))
            if unknown:
                raise ValueError(f'{where}: unknown target key(s) {unknown}; the outputs are '
                                 f'{names}')
            return [None if y.get(k) is None else _to_array(y[k]) for k in names]
        if isinstance(y, (list, tuple)) and (n or 1) > 1:
            if len(y) != n:
                raise ValueError(f'{where}: the model has {n} outputs but y has {len(y)} '
                                 f'arrays')
            return [None if v is None else _to_array(v) for v in y]
        if n is not None and n > 1:
            raise ValueError(f'{where}: the model has {n} outputs; give y as a list or a dict '
                             f'of {n} arrays')
        return [_to_array(y)]

    def _per_output(self, value: Any, what: str) -> list:
        n = self._num_outputs() or 1
        if isinstance(value, dict):
            names = self._output_names_list(n)
            return [None if value.get(k) is None else _to_array(value[k]) for k in names]
        if isinstance(value, (list, tuple)) and n > 1:
            if len(value) != n:
                raise ValueError(f'{what}: expected {n} entries (one per output), got '
                                 f'{len(value)}')
            return [None if v is None else _to_array(v) for v in value]
        return [_to_array(value)] * n

    def _outputs_list(self, outputs: Any) -> list:
        if isinstance(outputs, dict):
            return [outputs[k] for k in sorted(outputs)]
        if isinstance(outputs, (list, tuple)):
            return list(outputs)
        return [outputs]

    # ------------------------------------------------------------ compiled spec

    def _resolve(self, ys: Optional[list], outputs: list) -> _Compiled:
        spec = self._compiled_spec
        if spec is not None:
            return spec
        from chainlet.keras import losses as losses_mod
        from chainlet.keras import metrics as metrics_mod
        args = self._compile_args
        n = len(outputs)
        names = self._output_names_list(n)

        def per_output(value: Any, what: str, default: Any) -> list:
            if value is None:
                return [default] * n
            if isinstance(value, dict):
                unknown = sorted(set(value) - set(names))
                if unknown:
                    raise ValueError(f'compile: {what} has unknown output name(s) {unknown}; '
                                     f'the outputs are {names}')
                return [value.get(k, None if what == 'loss' else default) for k in names]
            if isinstance(value, (list, tuple)) and what != 'metrics':
                if n == 1 and len(value) == 1:
                    return list(value)
                if len(value) != n:
                    raise ValueError(f'compile: {what} has {len(value)} entries but the model '
                                     f'has {n} outputs')
                return list(value)
            return [value] * n

        loss_objs = [losses_mod.get(v) for v in per_output(args['loss'], 'loss', None)]
        weights = [1.0 if w is None else float(w)
                   for w in per_output(args['loss_weights'], 'loss_weights', 1.0)]
        metrics: list = []
        for group, weighted in ((args['metrics'], False), (args['weighted_metrics'], True)):
            if group is None:
                continue
            if isinstance(group, dict):
                per = [group.get(k, []) for k in names]
            elif isinstance(group, (list, tuple)) and group and \
                    all(isinstance(g, (list, tuple)) or g is None for g in group):
                if len(group) != n:
                    raise ValueError(f'compile: metrics has {len(group)} lists but the model '
                                     f'has {n} outputs')
                per = list(group)
            else:
                per = [group] * n
            for i, ids in enumerate(per):
                ids = [] if ids is None else ids if isinstance(ids, (list, tuple)) else [ids]
                y_shape = tuple(ys[i].shape) if ys is not None and ys[i] is not None else ()
                for ident in ids:
                    m = metrics_mod.get(ident, loss=loss_objs[i], y_true_shape=y_shape,
                                        y_pred_shape=tuple(outputs[i].shape))
                    if n > 1 and isinstance(ident, metrics_mod.Metric):
                        m = metrics_mod.get(type(ident).from_config(ident.get_config()))
                    name = m.name if n == 1 else f'{names[i]}_{m.name}'
                    metrics.append((i, name, m, weighted))
        spec = _Compiled(loss_objs, weights, metrics, names)
        if spec.multi:
            spec.loss_trackers = [metrics_mod.Mean(name=f'{name}_loss')
                                  for name, fn in zip(names, loss_objs) if fn is not None]
        self.__dict__['_compiled_spec'] = spec
        self.__dict__['_metrics_cache'] = None
        return spec

    # ---------------------------------------------------------------- metrics

    def _tracked_metrics(self) -> list:
        """Metric objects assigned as attributes of this model or of its (non-model) layers,
        as Keras tracks them."""
        from chainlet.keras import metrics as metrics_mod
        own = {id(self._loss_tracker), id(self._compile_metrics)}
        out, seen = [], set(own)
        for layer in self._flatten_layers():
            if layer is not self and isinstance(layer, Trainer):
                continue
            for value in layer.__dict__.values():
                if isinstance(value, metrics_mod.Metric) and id(value) not in seen:
                    seen.add(id(value))
                    out.append(value)
        return out

    @property
    def metrics(self) -> list:
        """Keras's list: the loss tracker (``Mean`` named ``loss``), the compiled metrics (one
        ``compile_metrics`` metric whose result is a dict), the per-output loss trackers of a
        multi-output model, then metrics assigned as attributes of the model and its layers.
        """
        d = self.__dict__
        cached = d.get('_metrics_cache')
        if cached is not None:
            return list(cached)
        out: list = []
        if self._compiled:
            out.append(self._loss_tracker)
            if self._compile_metrics is not None:
                out.append(self._compile_metrics)
            spec = self._compiled_spec
            if spec is not None:
                out.extend(spec.loss_trackers)
        out.extend(self._tracked_metrics())
        d['_metrics_cache'] = out
        return list(out)

    @property
    def metrics_names(self) -> list:
        """Names of :attr:`metrics` (``['loss', 'compile_metrics', ...]`` as Keras 3)."""
        return [m.name for m in self.metrics]

    def _flat_metric_names(self) -> list:
        names: list = []
        for m in self.metrics:
            sub = getattr(m, 'metrics', None) if m is self._compile_metrics else None
            if sub is not None:
                spec = self._compiled_spec
                names += [] if spec is None else [name for _, name, _, _ in spec.metrics]
            else:
                names.append(m.name)
        return names

    def reset_metrics(self) -> None:
        """Reset the state of every metric in :attr:`metrics` (the loss tracker included)."""
        for m in self.metrics:
            m.reset_state()

    def get_metrics_result(self) -> dict:
        """``{name: value}`` of every metric in :attr:`metrics` (a metric whose result is a
        dict, such as ``compile_metrics``, contributes its entries)."""
        out: dict = {}
        d = self.__dict__
        if d.get('_metrics_cache') is None or type(self).metrics is not Trainer.metrics:
            metrics = self.metrics
        else:
            metrics = d['_metrics_cache']   # the list itself, not a copy, on the hot path
        for m in metrics:
            value = m.result()
            if isinstance(value, dict):
                out.update(value)
            else:
                out[m.name] = value
        return out

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict:
        """Update the compiled metrics with one batch and return :meth:`get_metrics_result`.

        Override to add metrics of your own (call ``super().compute_metrics(...)`` first).
        """
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    # ------------------------------------------------------------------- loss

    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None,
                     sample_weight: Any = None, training: bool = True) -> Variable:
        """The total loss of one batch: the compiled losses (weighted by ``loss_weights``)
        plus :attr:`losses` (``add_loss``, activity and weight regularizers).

        Override it to compute the loss yourself; ``fit``/``evaluate`` call the override
        (with or without its ``training`` argument). Per-output loss trackers are updated
        here, as in Keras.

        Args:
            x: The batch's inputs (unused by this implementation).
            y: Targets (an array, or a list/dict per output), or ``None``.
            y_pred: The model's outputs for ``x``.
            sample_weight: Sample weights (an array, or a list/dict per output), or ``None``.
            training: Whether this is a training step (unused by this implementation).

        Returns:
            A scalar chainlet ``Variable``.

        Raises:
            ValueError: There is nothing to compute (no compiled loss and no added losses),
                or the model has a compiled loss but ``y`` is ``None``.
        """
        total = self._compiled_losses(x, y, y_pred, sample_weight)
        for value in self._extra_losses(self.__dict__.get('_train_cache')):
            total = value if total is None else total + value
        if total is None:
            raise ValueError(f'Model "{self.name}": no loss to compute. Provide a `loss` '
                             f'argument in `compile()`, add losses with add_loss(), or '
                             f'override compute_loss()')
        return total

    def _compiled_losses(self, x: Any, y: Any, y_pred: Any, sample_weight: Any) -> Any:
        """The weighted sum of the compiled per-output losses (``None`` if there are none)."""
        outs = self._outputs_list(y_pred)
        ys = None if y is None else self._target_list(y, 'compute_loss')
        spec = self._resolve(ys, outs) if self._compiled else None
        total = None
        if spec is not None:
            if ys is None:
                if any(fn is not None for fn in spec.losses):
                    raise ValueError(f'Model "{self.name}" was compiled with a loss, but no '
                                     f'targets were given: pass y (or (x, y) batches), or '
                                     f'compile without loss= to train on the losses added '
                                     f'with add_loss only')
            else:
                sws = None if sample_weight is None else \
                    self._per_output(sample_weight, 'sample_weight')
                trackers = iter(spec.loss_trackers)
                for i, loss_fn in enumerate(spec.losses):
                    if loss_fn is None:
                        continue
                    tracker = next(trackers, None)
                    if ys[i] is None:
                        continue
                    out = outs[i]
                    sw = None if sws is None else sws[i]
                    value = loss_fn(ys[i], out) if sw is None else loss_fn(ys[i], out, sw)
                    if tracker is not None:
                        tracker.update_state(value, sample_weight=_batch_size_of(x, outs))
                    if spec.weights[i] != 1.0:
                        value = value * spec.weights[i]
                    total = value if total is None else total + value
        return total

    @property
    def compiled_loss(self) -> Any:
        """Keras 2's ``compiled_loss(y, y_pred, sample_weight=None,
        regularization_losses=None)``: the compiled losses plus the given
        ``regularization_losses`` (kept for older custom training steps; Keras 3 code calls
        :meth:`compute_loss`)."""
        def compiled_loss(y: Any, y_pred: Any, sample_weight: Any = None,
                          regularization_losses: Any = None) -> Variable:
            total = self._compiled_losses(None, y, y_pred, sample_weight)
            for value in regularization_losses or []:
                value = value if isinstance(value, Variable) else Variable(
                    backend.get_array_module(value).asarray(value), requires_grad=False)
                value = value if value.ndim == 0 else chainlet.functions.sum(value)
                total = value if total is None else total + value
            if total is None:
                raise ValueError(f'Model "{self.name}".compiled_loss: no loss was compiled '
                                 f'and no regularization_losses were given')
            return total
        return compiled_loss

    @property
    def compiled_metrics(self) -> Any:
        """Keras 2's ``compiled_metrics``: the ``compile_metrics`` metric
        (``update_state(y, y_pred, sample_weight=None)``), or ``None`` without metrics."""
        return self._compile_metrics

    def _compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None,
                      sample_weight: Any = None, training: bool = True) -> Variable:
        """Call :meth:`compute_loss`, also an override written without ``training``."""
        d = self.__dict__
        has = d.get('_compute_loss_has_training')
        if has is None:
            import inspect
            params = inspect.signature(self.compute_loss).parameters
            has = 'training' in params or \
                any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
            d['_compute_loss_has_training'] = has
        if has:
            return self.compute_loss(x, y, y_pred, sample_weight, training=training)
        return self.compute_loss(x, y, y_pred, sample_weight)

    def _extra_losses(self, cache: Optional[_TrainCache]) -> list:
        layers = cache.layers if cache is not None else self._flatten_layers()
        regularized = cache.regularized if cache is not None else [
            (p, r) for layer in layers for p, r in layer._weight_regularizers]
        out = [loss for layer in layers for loss in layer._call_losses]
        out += [reg(p) for p, reg in regularized]
        out = [v if isinstance(v, Variable) else Variable(
            backend.get_array_module(v).asarray(v), requires_grad=False) for v in out]
        return [v if v.ndim == 0 else chainlet.functions.sum(v) for v in out]

    def _class_sample_weights(self, class_weight: dict, ys: list) -> list:
        if len(ys) != 1:
            raise ValueError('class_weight is only supported for models with a single output')
        y = numpy.asarray(backend.to_cpu(ys[0]))
        labels = y.argmax(axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else \
            y.reshape(len(y), -1)[:, 0].round().astype(numpy.int64)
        table = numpy.ones(int(max(max(class_weight) + 1, labels.max() + 1)), numpy.float32)
        for k, v in class_weight.items():
            table[int(k)] = v
        return [table[labels]]

    # ------------------------------------------------------------------ steps

    def _prepare_train(self) -> _TrainCache:
        cache = _TrainCache(self)
        self.__dict__['_train_cache'] = cache
        self.optimizer.build(self)
        return cache

    def _sync_trainable(self, cache: _TrainCache) -> None:
        sig = cache.trainable_signature()
        if sig == cache.signature:
            return
        trainable = {id(p) for p in self.trainable_weights}
        for p in self.params():
            rule = p.update_rule
            if rule is not None:
                rule.enabled = id(p) in trainable
        cache.signature = sig

    def train_step(self, data: Any) -> dict:
        """One training step on one batch ``data`` (``x``, ``(x, y)`` or
        ``(x, y, sample_weight)``): forward with ``training=True``, :meth:`compute_loss`,
        backward, one optimizer update, weight constraints; returns the metric logs
        (:meth:`compute_metrics`).

        Override it to customize ``fit`` (Keras's pattern): compute the loss, call
        ``loss.backward()``, apply the gradients (``self.optimizer.apply(grads, weights)`` or
        ``apply_gradients``), update the metrics and return ``{name: value}``.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=True)
        cache = self._train_cache
        if cache is None:
            cache = self._prepare_train()
        loss = self._compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                  training=True)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size_of(x, [y_pred]))
        self.cleargrads()
        loss.backward()
        grad_hook = self.__dict__.get('_grad_hook')
        if grad_hook is not None:  # data-parallel fit: average the gradients over processes
            grad_hook()
        self._sync_trainable(cache)
        self.optimizer.update()
        for p, constraint in cache.constraints:
            out = constraint(p.array)
            if out is not None and out is not p.array:
                backend.copyto(p.array, _to_array(out))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data: Any) -> dict:
        """Forward one batch in inference mode, update the loss tracker and the metrics and
        return the logs (``evaluate`` runs it in no-backprop mode)."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self._compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                  training=False)
        self._loss_tracker.update_state(loss, sample_weight=_batch_size_of(x, [y_pred]))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data: Any) -> Any:
        """The model's outputs for one batch in inference mode (``predict`` runs it in
        no-backprop mode and converts the outputs to NumPy)."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # ------------------------------------------------------------ logs helpers

    def _epoch_logs(self, logs: Any) -> dict:
        """Keras's rule: the model's metric results when the step returned the same keys
        (the usual case), else the step's own logs; Python numbers either way."""
        metric_logs = self.get_metrics_result()
        if isinstance(logs, dict) and set(logs) == set(metric_logs):
            return _pythonify(metric_logs)
        return _pythonify(logs if logs is not None else metric_logs)

    def _flatten_metrics_in_order(self, logs: dict) -> Any:
        names = self._flat_metric_names()
        results = [logs[n] for n in names if n in logs]
        results += [logs[k] for k in sorted(logs) if k not in names]
        return results[0] if len(results) == 1 else results

    def fit(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
            epochs: int = 1, verbose: Any = 'auto', callbacks: Any = None,
            validation_split: float = 0.0, validation_data: Any = None, shuffle: Any = True,
            class_weight: Optional[dict] = None, sample_weight: Any = None,
            initial_epoch: int = 0, steps_per_epoch: Optional[int] = None,
            validation_steps: Optional[int] = None, validation_batch_size: Optional[int] = None,
            validation_freq: Any = 1, communicator: Any = None) -> Any:
        """Train for ``epochs`` epochs; returns a :class:`~chainlet.keras.callbacks.History`.

        Args:
            x: Inputs: an array, a list or dict (by input name) of arrays; a chainlet dataset of
                ``(x, y)`` examples; an iterator of batches (a chainlet iterator, or a Python
                generator of ``x`` / ``(x, y)`` / ``(x, y, sample_weight)``); a re-iterable
                of such batches (a ``keras.utils.PyDataset``, a PyTorch ``DataLoader``: any
                object with ``__iter__``), read anew at every epoch. Batches may hold NumPy
                or CuPy arrays or any object with ``__array__`` (CPU torch tensors).
            y: Targets (array, or list/dict per output); ``None`` when ``x`` carries them.
            batch_size: Samples per batch (32). The last, partial batch is used too.
            epochs: Index of the last epoch (training runs ``initial_epoch..epochs-1``).
            verbose: 0 silent, 1 progress bar, 2 one line per epoch, ``'auto'`` = 1.
            callbacks: ``keras.callbacks.Callback`` objects.
            validation_split: Fraction ``0 <= s < 1`` of the data held out for validation:
                the last ``N - floor(N * (1 - s))`` samples, taken before shuffling.
            validation_data: ``(x_val, y_val)`` or ``(x_val, y_val, sample_weight_val)``, a
                dataset or an iterator; overrides ``validation_split``.
            shuffle: Shuffle the training samples each epoch (``'batch'``: shuffle batch-sized
                chunks, keeping each chunk's samples together).
            class_weight: ``{class: weight}`` turned into per-sample weights.
            sample_weight: Per-sample weights (array, or list/dict per output).
            initial_epoch: Epoch to start from (to resume training).
            steps_per_epoch: Batches per epoch (needed for endless iterators); a re-iterable
                source is then read on across epochs and restarted when it runs out.
            validation_steps: Batches per validation (iterators).
            validation_batch_size: Batch size of validation (``batch_size`` by default).
            validation_freq: Validate every this many epochs (or at the epochs in a list).
            communicator: A ``chainlet.distributed`` communicator: train data-parallel under
                ``mpiexec`` (array inputs only; see ``docs/distributed.md``).

        Returns:
            A ``History``: ``history.history`` maps ``loss``, metric names, ``val_loss``,
            ``val_<metric>`` to per-epoch values. The epoch loss is the mean over the
            epoch's samples (each batch's loss weighted by its size, as Keras).
        """
        from chainlet.keras import callbacks as callbacks_mod
        self._require_compiled('training')
        batch_size = _check_batch_size('fit', batch_size, 32)
        verbose = _verbose(verbose)
        if not isinstance(validation_split, (int, float)) or not 0 <= validation_split < 1:
            raise ValueError(f'fit: validation_split must be a number in [0, 1), got '
                             f'{validation_split!r}')
        if isinstance(validation_data, list):  # Keras reads a list as (x, y[, sample_weight])
            validation_data = tuple(validation_data)
        plan = None
        if communicator is not None:
            from chainlet.distributed.keras_support import prepare_fit
            if not isinstance(self._make_source(x, y, sample_weight, 'fit'), _Data):
                raise ValueError('fit: communicator= needs array inputs (x, y), got a dataset '
                                 'or an iterator')
            val_tuple = validation_data if isinstance(validation_data, tuple) else None
            plan = prepare_fit(self, communicator, x, y, sample_weight, val_tuple)
            x, y, sample_weight = plan.x, plan.y, plan.sample_weight
            if val_tuple is not None:
                validation_data = plan.validation_data
            verbose = plan.verbose(verbose)
        self.__dict__['_grad_hook'] = None if plan is None else plan.mean_grad
        source = self._make_source(x, y, sample_weight, 'fit')
        val_source = None
        if validation_data is not None:
            val_source = self._validation_source(validation_data)
        elif validation_split:
            if not isinstance(source, _Data):
                raise ValueError('fit: validation_split is only supported for array inputs; '
                                 'give validation_data for datasets and iterators')
            n_train = int(math.floor(source.n * (1.0 - validation_split)))
            if n_train == 0 or n_train == source.n:
                raise ValueError(f'fit: validation_split={validation_split} leaves '
                                 f'{n_train} training and {source.n - n_train} validation '
                                 f'samples out of {source.n}; both must be non-empty')
            val_source = source.subset(n_train, source.n)
            source = source.subset(0, n_train)
        if class_weight is not None:
            if not isinstance(source, _Data) or source.ys is None:
                raise ValueError('fit: class_weight is only supported for array inputs with '
                                 'targets')
            source.sws = self._class_sample_weights(class_weight, source.ys) \
                if source.sws is None else [s * c for s, c in zip(
                    source.sws, self._class_sample_weights(class_weight, source.ys))]
        if isinstance(source, _Data):
            steps = source.num_batches(batch_size)
            if steps_per_epoch is not None:
                steps = min(steps, int(steps_per_epoch))
        elif steps_per_epoch is None and isinstance(source, _Batches) and source.has_len():
            steps = len(source)
        else:
            steps = steps_per_epoch
        cbs = callbacks_mod.CallbackList(callbacks, add_history=True, add_progbar=verbose > 0,
                                         model=self, verbose=verbose, epochs=epochs,
                                         steps=steps)
        self.__dict__['_train_cache'] = None
        self.__dict__['_metrics_cache'] = None
        self.stop_training = False
        begin_hooks = cbs.has_batch_hooks('on_train_batch_begin')
        end_hooks = cbs.has_batch_hooks('on_train_batch_end')
        xp = self.xp
        cbs.call('on_train_begin', {})
        epoch_logs: dict = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbs.call('on_epoch_begin', epoch, {})
            logs = None
            step = -1
            for step, data in enumerate(
                    self._iterate(source, batch_size, shuffle, xp, steps_per_epoch)):
                if begin_hooks:
                    cbs.call('on_train_batch_begin', step, {})
                logs = self.train_step(data)
                if end_hooks:
                    cbs.call('on_train_batch_end', step, _pythonify(logs))
                if self.stop_training:
                    break
            if step < 0 and not isinstance(source, _Data):
                # an exhausted generator: stop rather than record an epoch without data
                warnings.warn(f'fit: the input ran out of data at epoch {epoch + 1}; '
                              f'interrupting training. Give a source that yields at least '
                              f'steps_per_epoch * epochs batches, or a re-iterable one (a '
                              f'PyDataset, a DataLoader) that is read anew at every epoch.',
                              stacklevel=2)
                break
            epoch_logs = self._epoch_logs(logs)
            if val_source is not None and _should_validate(epoch, validation_freq):
                val_logs = self._run_evaluation(val_source, validation_batch_size or batch_size,
                                                validation_steps, cbs)
                epoch_logs.update({f'val_{k}': v for k, v in val_logs.items()})
            if plan is not None:
                epoch_logs = plan.average_logs(epoch_logs)
            cbs.call('on_epoch_end', epoch, epoch_logs)
            if self.stop_training:
                break
        cbs.call('on_train_end', epoch_logs)
        self.__dict__['_last_targets'] = None
        self.__dict__['history'] = cbs.history
        return cbs.history

    def _make_source(self, x: Any, y: Any, sample_weight: Any, where: str) -> Any:
        if x is None:
            raise ValueError(f'{where}: x is required')
        if _is_reiterable(x) or _is_iterator(x) or _is_dataset(x):
            if y is not None:
                raise ValueError(f'{where}: y must not be given when x is a dataset, a '
                                 f'generator or an iterable of batches (they yield the '
                                 f'targets); got y of type {type(y).__name__}')
            if sample_weight is not None:
                raise ValueError(f'{where}: sample_weight must not be given when x is a '
                                 f'dataset, a generator or an iterable of batches; yield '
                                 f'(x, y, sample_weight) batches instead')
        if _is_reiterable(x):
            return _Batches(x)
        if _is_dataset(x):
            from chainlet.dataset.convert import concat_examples
            examples = [x[i] for i in range(len(x))]
            if not examples:
                raise ValueError(f'{where}: the dataset is empty')
            batch = concat_examples(examples) if isinstance(examples[0], tuple) else \
                (numpy.asarray(examples),)
            bx, by, bsw = _split_example_batch(tuple(batch))
            return _Data(self, bx, by, bsw, where)
        if _is_iterator(x):
            return x
        return _Data(self, x, y, sample_weight, where)

    def _validation_source(self, data: Any) -> Any:
        if isinstance(data, tuple):
            if len(data) == 2:
                return _Data(self, data[0], data[1], None, 'validation_data')
            if len(data) == 3:
                return _Data(self, data[0], data[1], data[2], 'validation_data')
            raise ValueError(f'fit: validation_data must be (x_val, y_val) or (x_val, y_val, '
                             f'sample_weight_val); got a tuple of {len(data)}')
        return self._make_source(data, None, None, 'validation_data')

    def _iterate(self, source: Any, batch_size: int, shuffle: Any, xp: Any,
                 steps: Optional[int], restart: bool = False):
        """Yield Keras ``data`` batches (``x``, ``(x, y)`` or ``(x, y, sample_weight)``)."""
        if isinstance(source, _Data):
            for i, batch in enumerate(source.batches(batch_size, shuffle, xp)):
                if steps is not None and i >= steps:
                    return
                yield batch
            return
        if isinstance(source, _Batches):
            for item in source.epoch(steps, restart):
                yield self._convert_batch(item, xp)
            return
        yield from self._iterate_iterator(source, xp, steps)

    def _convert_batch(self, item: Any, xp: Any) -> Any:
        """An item of a generator or loader as a ``data`` tuple of arrays on ``xp``, inputs
        cast as :meth:`_cast_input_array` does, the structure of ``y`` kept."""
        bx, by, bsw = _split_example_batch(item)
        bx = self._input_template(bx)
        bx = _pack(bx, [xp.asarray(self._cast_input_array(i, _to_array(a)))
                        for i, a in enumerate(flatten(bx))])

        def conv(v: Any) -> Any:
            if v is None:
                return None
            return _pack(v, [None if a is None else xp.asarray(_to_array(a))
                             for a in flatten(v)])
        return pack_x_y_sample_weight(bx, conv(by), conv(bsw))

    def _iterate_iterator(self, it: Any, xp: Any, steps: Optional[int]):
        from chainlet.dataset.iterator import Iterator
        count = 0
        while steps is None or count < steps:
            try:
                item = next(it)
            except StopIteration:
                if isinstance(it, Iterator) and hasattr(it, 'reset'):
                    it.reset()
                return
            yield self._convert_batch(item, xp)
            count += 1
            if isinstance(it, Iterator) and getattr(it, 'is_new_epoch', False) and steps is None:
                return

    # --------------------------------------------------------------- evaluate

    def _run_evaluation(self, source: Any, batch_size: int, steps: Optional[int],
                        cbs: Any) -> dict:
        self.reset_metrics()
        cbs.call('on_test_begin', {})
        begin = cbs.has_batch_hooks('on_test_batch_begin')
        end = cbs.has_batch_hooks('on_test_batch_end')
        logs = None
        for step, data in enumerate(self._iterate(source, batch_size, False, self.xp, steps,
                                                  restart=True)):
            if begin:
                cbs.call('on_test_batch_begin', step, {})
            with chainlet.no_backprop_mode():
                logs = self.test_step(data)
            if end:
                cbs.call('on_test_batch_end', step, _pythonify(logs))
        logs = self._epoch_logs(logs)
        self.__dict__['_last_targets'] = None
        cbs.call('on_test_end', logs)
        return logs

    def evaluate(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
                 verbose: Any = 'auto', sample_weight: Any = None, steps: Optional[int] = None,
                 callbacks: Any = None, return_dict: bool = False, **kwargs: Any) -> Any:
        """Loss and metrics in inference mode (the loss is the mean over all samples, with
        their sample weights, as Keras; not a mean of per-batch means). ``x`` takes the same
        kinds of data as :meth:`fit`.

        Returns:
            The loss alone when there are no metrics, else ``[loss, metric...]`` (the order
            of :attr:`metrics`, compiled metrics in compile order); a dict with
            ``return_dict=True``.
        """
        from chainlet.keras import callbacks as callbacks_mod
        self._require_compiled('evaluating')
        if kwargs:
            raise TypeError(f'evaluate: unexpected keyword argument(s) {sorted(kwargs)}')
        batch_size = _check_batch_size('evaluate', batch_size, 32)
        source = self._make_source(x, y, sample_weight, 'evaluate')
        self.__dict__['_metrics_cache'] = None
        cbs = callbacks_mod.CallbackList(callbacks, model=self, verbose=_verbose(verbose),
                                         epochs=1, steps=steps)
        logs = self._run_evaluation(source, batch_size, steps, cbs)
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def predict(self, x: Any, batch_size: Optional[int] = None, verbose: Any = 'auto',
                steps: Optional[int] = None, callbacks: Any = None) -> Any:
        """Outputs for ``x`` in inference mode (dropout off, running statistics), as NumPy
        arrays concatenated over batches, in the structure of the model's outputs. ``x``
        takes the same kinds of data as :meth:`fit` (targets in the batches are ignored)."""
        from chainlet.keras import callbacks as callbacks_mod
        batch_size = _check_batch_size('predict', batch_size, 32)
        if _is_reiterable(x) or _is_iterator(x) or _is_dataset(x):
            source = self._make_source(x, None, None, 'predict')
        else:
            source = _Data(self, x, None, None, 'predict')
        cbs = callbacks_mod.CallbackList(callbacks, model=self, verbose=_verbose(verbose),
                                         epochs=1, steps=steps)
        cbs.call('on_predict_begin', {})
        begin = cbs.has_batch_hooks('on_predict_batch_begin')
        end = cbs.has_batch_hooks('on_predict_batch_end')
        chunks: list = []
        template = None
        for step, data in enumerate(self._iterate(source, batch_size, False, self.xp, steps,
                                                  restart=True)):
            if begin:
                cbs.call('on_predict_batch_begin', step, {})
            with chainlet.no_backprop_mode():
                out = _map_arrays(self.predict_step(data))
            template = out
            chunks.append([backend.to_cpu(a) for a in flatten(out)])
            if end:
                cbs.call('on_predict_batch_end', step, {'outputs': out})
        cbs.call('on_predict_end', {})
        if template is None:
            raise ValueError('predict: the input has no samples')
        merged = [numpy.concatenate(parts, axis=0) for parts in zip(*chunks)]
        return _pack(template, merged)

    # --------------------------------------------------------- batch methods

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: Optional[dict] = None, return_dict: bool = False) -> Any:
        """One training step on one batch; returns its loss (and metrics) as in
        :meth:`evaluate`. The metrics are those of this batch alone."""
        self._require_compiled('training')
        data = _Data(self, x, y, sample_weight, 'train_on_batch')
        if class_weight is not None:  # combined with sample_weight as in fit
            weights = self._class_sample_weights(class_weight, data.ys)
            data.sws = weights if data.sws is None else \
                [s * c for s, c in zip(data.sws, weights)]
        batch = data._take(slice(None), self.xp)
        self.__dict__['_metrics_cache'] = None
        self.reset_metrics()
        logs = self._epoch_logs(self.train_step(batch))
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      return_dict: bool = False) -> Any:
        """Loss and metrics of one batch in inference mode."""
        self._require_compiled('evaluating')
        data = _Data(self, x, y, sample_weight, 'test_on_batch')
        batch = data._take(slice(None), self.xp)
        self.__dict__['_metrics_cache'] = None
        self.reset_metrics()
        with chainlet.no_backprop_mode():
            logs = self._epoch_logs(self.test_step(batch))
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def predict_on_batch(self, x: Any) -> Any:
        """Outputs for one batch, as NumPy arrays."""
        data = _Data(self, x, None, None, 'predict_on_batch')
        with chainlet.no_backprop_mode():
            out = self.predict_step(data._take(slice(None), self.xp))
        return _map_arrays(out, to_cpu=True)

    # ------------------------------------------------------------ weights I/O

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
            w = numpy.asarray(backend.to_cpu(_to_array(w)))
            if tuple(w.shape) != tuple(p.shape):
                raise ValueError(f'Layer "{layer.name}": weight "{p.name}" has shape '
                                 f'{tuple(p.shape)}, the provided array has shape '
                                 f'{tuple(w.shape)}')
        for (_, _, p), w in zip(entries, weights):
            backend.copyto(p.array, numpy.asarray(backend.to_cpu(_to_array(w))).astype(p.dtype))

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
        """Save the weights to ``.npz`` (``numpy.savez``; one key per weight) or ``.h5``
        (needs h5py). The write is atomic."""
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
        with ``config.json`` and ``model.weights.npz``), ``.npz`` or ``.h5``. Atomic (see
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
        args = self._compile_args
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


def _batch_size_of(x: Any, outs: list) -> int:
    """Samples in a batch: the first axis of its first input array (else of its first
    output), 1 for a scalar batch."""
    for a in flatten(x) if x is not None else []:
        a = _to_array(a)
        if getattr(a, 'ndim', 0):
            return int(a.shape[0])
    for o in outs:
        if getattr(o, 'ndim', 0):
            return int(o.shape[0])
    return 1


def _map_arrays(out: Any, to_cpu: bool = False) -> Any:
    def conv(v: Any) -> Any:
        a = v.array if isinstance(v, Variable) else v
        return backend.to_cpu(a) if to_cpu else a
    if isinstance(out, dict):
        return {k: _map_arrays(v, to_cpu) for k, v in out.items()}
    if isinstance(out, (list, tuple)):
        return type(out)(_map_arrays(v, to_cpu) for v in out)
    return conv(out)


def _pythonify(logs: Any) -> dict:
    """Logs as Python numbers (0-d arrays and Variables become floats, other arrays NumPy), a
    nested dict (such as ``compile_metrics``' result) flattened into the top level."""
    out: dict = {}
    if not logs:
        return out
    for key, value in logs.items():
        if isinstance(value, dict):
            out.update(_pythonify(value))
            continue
        if isinstance(value, Variable):
            value = value.array
        if backend.is_array(value) or isinstance(value, (numpy.ndarray, numpy.generic)):
            value = numpy.asarray(backend.to_cpu(value))
            value = float(value) if value.ndim == 0 else value
        out[key] = value
    return out


def _check_batch_size(where: str, batch_size: Any, default: int) -> int:
    if batch_size is None:
        return default
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, numpy.integer)) or \
            batch_size <= 0:
        raise ValueError(f'{where}: batch_size must be a positive int, got {batch_size!r}')
    return int(batch_size)


def _verbose(verbose: Any) -> int:
    if verbose == 'auto':
        return 1
    if verbose not in (0, 1, 2, True, False):
        raise ValueError(f"verbose must be 0, 1, 2 or 'auto', got {verbose!r}")
    return int(verbose)


def _should_validate(epoch: int, freq: Any) -> bool:
    if isinstance(freq, int):
        return (epoch + 1) % freq == 0
    return (epoch + 1) in set(freq)


__all__ = ['Trainer']
