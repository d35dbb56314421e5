"""``Trainer``: the training half of ``Model`` (compile, fit, evaluate, predict, saving).

The training step is define-by-run, as in any chainlet loop::

    outputs = model(x, training=True)            # ordinary Variables and FunctionNodes
    loss = sum(weight * loss_fn(y, out)) + sum(model.losses)
    model.cleargrads(); loss.backward(); optimizer.update()

Everything that does not change between batches (the resolved losses and metrics, the list of
layers, their constraints and regularizers) is worked out once, so the per-batch Python work is
the forward pass, one backward and the optimizer's one ``update()`` call.

Which weights train is read at every step: a layer frozen after ``compile`` (``layer.trainable =
False``) stops being updated at the next batch (its parameters' update rules are disabled).
"""
from __future__ import annotations

import json
import math
import os
from typing import Any, Optional

import numpy

import chainlet
from chainlet import Variable, backend
from chainlet.keras.engine.tree import flatten


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

    def _take(self, index: Any, xp: Any) -> tuple:
        conv = xp.asarray
        x = _pack(self.x_template, [conv(a[index]) for a in self.xs])
        ys = None if self.ys is None else [None if a is None else conv(a[index])
                                           for a in self.ys]
        sws = None if self.sws is None else [None if a is None else conv(a[index])
                                             for a in self.sws]
        return x, ys, sws

    def num_batches(self, batch_size: int) -> int:
        return -(-self.n // batch_size)


def _is_dataset(x: Any) -> bool:
    return hasattr(x, '__getitem__') and hasattr(x, '__len__') and \
        not isinstance(x, (list, tuple, dict, str, numpy.ndarray)) and not backend.is_array(x)


def _is_iterator(x: Any) -> bool:
    from chainlet.dataset.iterator import Iterator
    return isinstance(x, Iterator) or (hasattr(x, '__next__') and not _is_dataset(x))


def _split_example_batch(batch: Any) -> tuple:
    """``(x, y, sample_weight)`` from an iterator's item (a list of examples or a tuple)."""
    if isinstance(batch, list) and batch and isinstance(batch[0], tuple):
        from chainlet.dataset.convert import concat_examples
        batch = concat_examples(batch)
    if isinstance(batch, tuple):
        if len(batch) == 1:
            return batch[0], None, None
        if len(batch) == 2:
            return batch[0], batch[1], None
        if len(batch) == 3:
            return batch
        raise ValueError(f'a data batch must be (x,), (x, y) or (x, y, sample_weight); got a '
                         f'tuple of {len(batch)}')
    return batch, None, None


class _Compiled:
    """What ``compile`` resolves once the output structure is known (at the first batch)."""

    def __init__(self, losses: list, weights: list, metrics: list, names: list) -> None:
        self.losses = losses            # per output: Loss or None
        self.weights = weights          # per output: float
        self.metrics = metrics          # list of (output_index, log_name, Metric)
        self.output_names = names
        self.multi = len(names) > 1


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
        d['_loss_total'] = 0.0
        d['_loss_count'] = 0

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
                a dict (by output name); a single loss applies to every output.
            loss_weights: Weights of the per-output losses (list or dict).
            metrics: Metric names/functions/objects; a flat list applies to every output, a
                list of lists or a dict gives them per output. ``'accuracy'`` is resolved
                from the loss and the shapes (see :mod:`chainlet.keras.metrics`).
            weighted_metrics: Metrics that also receive the sample weights.
            run_eagerly, steps_per_execution, jit_compile, auto_scale_loss: Accepted for
                compatibility; chainlet always runs eagerly.
        """
        from chainlet.keras import optimizers
        d = self.__dict__
        d['optimizer'] = optimizers.get(optimizer)
        d['loss'] = loss
        d['_compile_args'] = {'loss': loss, 'loss_weights': loss_weights, 'metrics': metrics,
                              'weighted_metrics': weighted_metrics}
        d['_compiled_spec'] = None
        d['_train_cache'] = None
        d['_compiled'] = True
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
        if all(v is None for v in loss_objs) and ys is not None:
            raise ValueError(f'Model "{self.name}": no loss to optimize; pass loss= to '
                             f'compile()')
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
        self.__dict__['_compiled_spec'] = spec
        return spec

    @property
    def metrics(self) -> list:
        """The metric objects (available once the model has seen data after compile)."""
        spec = self._compiled_spec
        return [] if spec is None else [m for _, _, m, _ in spec.metrics]

    @property
    def metrics_names(self) -> list:
        """``['loss', <metric names>...]``."""
        spec = self._compiled_spec
        names = ['loss']
        if spec is not None:
            if spec.multi:
                names += [f'{n}_loss' for n, l in zip(spec.output_names, spec.losses)
                          if l is not None]
            names += [name for _, name, _, _ in spec.metrics]
        return names

    def reset_metrics(self) -> None:
        """Reset the loss tracker and every metric."""
        self.__dict__['_loss_total'] = 0.0
        self.__dict__['_loss_count'] = 0
        self.__dict__['_output_loss_totals'] = None
        for m in self.metrics:
            m.reset_state()

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

    def _compute_loss(self, spec: _Compiled, outs: list, ys: list, sws: Optional[list],
                      cache: Optional[_TrainCache]) -> tuple:
        total = None
        per_output = []
        if ys is None:
            if any(fn is not None for fn in spec.losses):
                raise ValueError(f'Model "{self.name}" was compiled with a loss, but no targets '
                                 f'were given: pass y (or (x, y) batches), or compile without '
                                 f'loss= to train on the losses added with add_loss only')
            ys = [None] * len(spec.losses)
        for i, loss_fn in enumerate(spec.losses):
            if loss_fn is None or ys[i] is None:
                per_output.append(None)
                continue
            sw = None if sws is None else sws[i]
            value = loss_fn(ys[i], outs[i]) if sw is None else loss_fn(ys[i], outs[i], sw)
            per_output.append(value)
            if spec.weights[i] != 1.0:
                value = value * spec.weights[i]
            total = value if total is None else total + value
        extra = self._extra_losses(cache)
        for value in extra:
            total = value if total is None else total + value
        if total is None:
            raise ValueError(f'Model "{self.name}": no loss to compute; the targets do not '
                             f'match any output with a loss')
        return total, per_output

    def _extra_losses(self, cache: Optional[_TrainCache]) -> list:
        layers = cache.layers if cache is not None else self._flatten_layers()
        regularized = cache.regularized if cache is not None else [
            (p, r) for layer in layers for p, r in layer._weight_regularizers]
        out = [loss for layer in layers for loss in layer._call_losses]
        out += [reg(p) for p, reg in regularized]
        out = [v if isinstance(v, Variable) else Variable(
            backend.get_array_module(v).asarray(v), requires_grad=False) for v in out]
        return [v if v.ndim == 0 else chainlet.functions.sum(v) for v in out]

    def _track(self, spec: _Compiled, loss: Variable, per_output: list, outs: list, ys: list,
               sws: Optional[list], x: Any = None) -> None:
        # Each batch's loss counts with its number of samples (as Keras's loss tracker), so the
        # reported loss is the mean over samples, sample weights included, and a partial last
        # batch is not over-weighted; a plain mean of batch means would be.
        d = self.__dict__
        n = _batch_size_of(x, outs)
        d['_loss_total'] = d['_loss_total'] + loss.array * n
        d['_loss_count'] += n
        if spec.multi:
            totals = d.get('_output_loss_totals') or [0.0] * len(per_output)
            d['_output_loss_totals'] = [t if v is None else t + v.array * n
                                        for t, v in zip(totals, per_output)]
        for i, _, metric, weighted in spec.metrics:
            if ys is None or ys[i] is None:
                continue
            sw = sws[i] if (weighted and sws is not None) else None
            metric.update_state(ys[i], outs[i].array, sw)

    def _logs(self) -> dict:
        d = self.__dict__
        count = d['_loss_count']
        logs = {'loss': float(d['_loss_total']) / count if count else 0.0}
        spec = self._compiled_spec
        if spec is None:
            return logs
        totals = d.get('_output_loss_totals')
        if spec.multi and totals is not None and count:
            for name, t, fn in zip(spec.output_names, totals, spec.losses):
                if fn is not None:
                    logs[f'{name}_loss'] = float(t) / count
        for _, name, metric, _ in spec.metrics:
            logs[name] = float(metric.result())
        return logs

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

    def train_step(self, x: Any, ys: list, sws: Optional[list] = None) -> None:
        """One define-by-run step: forward (``training=True``), loss, backward, update."""
        outs = self._outputs_list(self(x, training=True))
        spec = self._resolve(ys, outs)
        cache = self._train_cache
        if cache is None:
            cache = self._prepare_train()
        loss, per_output = self._compute_loss(spec, outs, ys, sws, cache)
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
        self._track(spec, loss, per_output, outs, ys, sws, x)

    def test_step(self, x: Any, ys: list, sws: Optional[list] = None) -> None:
        """Forward in inference mode and update the loss tracker and metrics."""
        with chainlet.no_backprop_mode():
            outs = self._outputs_list(self(x, training=False))
            spec = self._resolve(ys, outs)
            loss, per_output = self._compute_loss(spec, outs, ys, sws, self._train_cache)
        self._track(spec, loss, per_output, outs, ys, sws, x)

    def predict_step(self, x: Any) -> Any:
        """Forward in inference mode, without building a graph; returns arrays."""
        with chainlet.no_backprop_mode():
            out = self(x, training=False)
        return _map_arrays(out)

    # -------------------------------------------------------------------- fit

    def fit(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
            epochs: int = 1, verbose: Any = 'auto', callbacks: Any = None,
            validation_split: float = 0.0, validation_data: Any = None, shuffle: Any = True,
            class_weight: Optional[dict] = None, sample_weight: Any = None,
            initial_epoch: int = 0, steps_per_epoch: Optional[int] = None,
            validation_steps: Optional[int] = None, validation_batch_size: Optional[int] = None,
            validation_freq: Any = 1, communicator: Any = None) -> Any:
        """Train for ``epochs`` epochs; returns a :class:`~chainlet.keras.callbacks.History`.

        Args:
            x: Inputs: an array, a list or dict (by input name) of arrays, a chainlet dataset of
                ``(x, y)`` examples, or an iterator of batches (a chainlet iterator, or a
                generator of ``(x, y)`` / ``(x, y, sample_weight)`` tuples).
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
            steps_per_epoch: Batches per epoch (needed for endless iterators).
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
            if _is_dataset(x) or _is_iterator(x):
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
            if not isinstance(source, _Data):
                raise ValueError('fit: class_weight is only supported for array inputs')
            source.sws = self._class_sample_weights(class_weight, source.ys) \
                if source.sws is None else [s * c for s, c in zip(
                    source.sws, self._class_sample_weights(class_weight, source.ys))]
        if isinstance(source, _Data):
            steps = source.num_batches(batch_size)
            if steps_per_epoch is not None:
                steps = min(steps, int(steps_per_epoch))
        else:
            steps = steps_per_epoch
        cbs = callbacks_mod.CallbackList(callbacks, add_history=True, add_progbar=verbose > 0,
                                         model=self, verbose=verbose, epochs=epochs,
                                         steps=steps)
        self.__dict__['_train_cache'] = None
        self.stop_training = False
        begin_hooks = cbs.has_batch_hooks('on_train_batch_begin')
        end_hooks = cbs.has_batch_hooks('on_train_batch_end')
        xp = self.xp
        cbs.call('on_train_begin', {})
        logs: dict = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbs.call('on_epoch_begin', epoch, {})
            for step, (bx, bys, bsws) in enumerate(
                    self._iterate(source, batch_size, shuffle, xp, steps_per_epoch)):
                if begin_hooks:
                    cbs.call('on_train_batch_begin', step, {})
                self.train_step(bx, bys, bsws)
                if end_hooks:
                    cbs.call('on_train_batch_end', step, self._logs())
                if self.stop_training:
                    break
            logs = self._logs()
            if val_source is not None and _should_validate(epoch, validation_freq):
                val_logs = self._run_evaluation(val_source, validation_batch_size or batch_size,
                                                validation_steps, cbs)
                logs.update({f'val_{k}': v for k, v in val_logs.items()})
            if plan is not None:
                logs = plan.average_logs(logs)
            cbs.call('on_epoch_end', epoch, logs)
            if self.stop_training:
                break
        cbs.call('on_train_end', logs)
        self.__dict__['history'] = cbs.history
        return cbs.history

    def _make_source(self, x: Any, y: Any, sample_weight: Any, where: str) -> Any:
        if x is None:
            raise ValueError(f'{where}: x is required')
        if _is_dataset(x):
            from chainlet.dataset.convert import concat_examples
            examples = [x[i] for i in range(len(x))]
            if not examples:
                raise ValueError(f'{where}: the dataset is empty')
            batch = concat_examples(examples) if isinstance(examples[0], tuple) else \
                (numpy.asarray(examples),)
            bx, by, bsw = _split_example_batch(tuple(batch))
            return _Data(self, bx, by if y is None else y,
                         bsw if sample_weight is None else sample_weight, where)
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
                 steps: Optional[int]):
        if isinstance(source, _Data):
            for i, batch in enumerate(source.batches(batch_size, shuffle, xp)):
                if steps is not None and i >= steps:
                    return
                yield batch
            return
        yield from self._iterate_iterator(source, xp, steps)

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
            bx, by, bsw = _split_example_batch(item)
            bx = self._input_template(bx)
            bx = _pack(bx, [xp.asarray(self._cast_input_array(i, _to_array(a)))
                            for i, a in enumerate(flatten(bx))])
            ys = None if by is None else [None if a is None else xp.asarray(a)
                                          for a in self._target_list(by, 'fit')]
            sws = None if bsw is None else [None if a is None else xp.asarray(a)
                                            for a in self._per_output(bsw, 'sample_weight')]
            yield bx, ys, sws
            count += 1
            if isinstance(it, Iterator) and getattr(it, 'is_new_epoch', False) and steps is None:
                return

    # --------------------------------------------------------------- evaluate

    def _run_evaluation(self, source: Any, batch_size: int, steps: Optional[int],
                        cbs: Any) -> dict:
        # Validation and evaluate share the trackers of training, so save the training ones.
        d = self.__dict__
        saved = (d['_loss_total'], d['_loss_count'], d.get('_output_loss_totals'),
                 [(m.__dict__.copy()) for m in self.metrics])
        self.reset_metrics()
        cbs.call('on_test_begin', {})
        begin = cbs.has_batch_hooks('on_test_batch_begin')
        end = cbs.has_batch_hooks('on_test_batch_end')
        for step, (bx, bys, bsws) in enumerate(self._iterate(source, batch_size, False,
                                                             self.xp, steps)):
            if begin:
                cbs.call('on_test_batch_begin', step, {})
            self.test_step(bx, bys, bsws)
            if end:
                cbs.call('on_test_batch_end', step, self._logs())
        logs = self._logs()
        cbs.call('on_test_end', logs)
        d['_loss_total'], d['_loss_count'], d['_output_loss_totals'] = saved[:3]
        for m, state in zip(self.metrics, saved[3]):
            m.__dict__.update(state)
        return logs

    def evaluate(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
                 verbose: Any = 'auto', sample_weight: Any = None, steps: Optional[int] = None,
                 callbacks: Any = None, return_dict: bool = False, **kwargs: Any) -> Any:
        """Loss and metrics in inference mode (the loss is the mean over all samples, with
        their sample weights, as Keras; not a mean of per-batch means).

        Returns:
            The loss alone when there are no metrics, else ``[loss, metric...]`` in
            :attr:`metrics_names` order; a dict with ``return_dict=True``.
        """
        from chainlet.keras import callbacks as callbacks_mod
        self._require_compiled('evaluating')
        if kwargs:
            raise TypeError(f'evaluate: unexpected keyword argument(s) {sorted(kwargs)}')
        batch_size = _check_batch_size('evaluate', batch_size, 32)
        source = self._make_source(x, y, sample_weight, 'evaluate')
        cbs = callbacks_mod.CallbackList(callbacks, model=self, verbose=_verbose(verbose),
                                         epochs=1, steps=steps)
        logs = self._run_evaluation(source, batch_size, steps, cbs)
        return _format_result(logs, self.metrics_names, return_dict)

    def predict(self, x: Any, batch_size: Optional[int] = None, verbose: Any = 'auto',
                steps: Optional[int] = None, callbacks: Any = None) -> Any:
        """Outputs for ``x`` in inference mode (dropout off, running statistics), as NumPy
        arrays concatenated over batches, in the structure of the model's outputs."""
        from chainlet.keras import callbacks as callbacks_mod
        batch_size = _check_batch_size('predict', batch_size, 32)
        source = self._make_source(x, None, None, 'predict')
        cbs = callbacks_mod.CallbackList(callbacks, model=self, verbose=_verbose(verbose),
                                         epochs=1, steps=steps)
        cbs.call('on_predict_begin', {})
        begin = cbs.has_batch_hooks('on_predict_batch_begin')
        end = cbs.has_batch_hooks('on_predict_batch_end')
        chunks: list = []
        template = None
        for step, (bx, _, _) in enumerate(self._iterate(source, batch_size, False, self.xp,
                                                        steps)):
            if begin:
                cbs.call('on_predict_batch_begin', step, {})
            out = self.predict_step(bx)
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
        bx, bys, bsws = data._take(slice(None), self.xp)
        self.reset_metrics()
        self.train_step(bx, bys, bsws)
        return _format_result(self._logs(), self.metrics_names, return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      return_dict: bool = False) -> Any:
        """Loss and metrics of one batch in inference mode."""
        self._require_compiled('evaluating')
        data = _Data(self, x, y, sample_weight, 'test_on_batch')
        bx, bys, bsws = data._take(slice(None), self.xp)
        self.reset_metrics()
        self.test_step(bx, bys, bsws)
        return _format_result(self._logs(), self.metrics_names, return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        """Outputs for one batch, as NumPy arrays."""
        data = _Data(self, x, None, None, 'predict_on_batch')
        bx, _, _ = data._take(slice(None), self.xp)
        return _map_arrays(self.predict_step(bx), to_cpu=True)

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


def _format_result(logs: dict, names: list, return_dict: bool) -> Any:
    if return_dict:
        return logs
    values = [logs[n] for n in names if n in logs]
    return values[0] if len(values) == 1 else values


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
