"""Compile utilities: what ``compile`` resolves, and the loss and metric containers.

``compile`` only records its arguments; they are resolved against the model's outputs at the
first batch (:func:`resolve`), when the number of outputs, their names and the shapes of
targets and predictions are known (``'accuracy'`` depends on them). The result, a
:class:`CompiledSpec`, holds per output the ``Loss`` and its weight, the metric objects with
their log names, and, for several outputs, Keras's per-output loss trackers.

* :func:`compiled_loss_sum`: the weighted sum of the compiled losses of one batch (Keras's
  ``CompileLoss``), updating the per-output trackers;
* :class:`CompileMetrics`: the compiled metrics as one metric named ``compile_metrics`` whose
  result is a dict (Keras 3's container);
* :class:`TrainCache`: the lists a training step needs that do not change between batches
  (layers, regularized weights, constraints).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

import chainlet
from chainlet import Variable, backend
from chainlet.keras import losses as losses_mod
from chainlet.keras import metrics as metrics_mod
from chainlet.keras.engine.tree import flatten
from chainlet.keras.trainers.data_adapters import to_array


class CompiledSpec:
    """What ``compile`` resolves once the output structure is known (at the first batch).

    Attributes:
        losses: Per output, a ``Loss`` or ``None``.
        weights: Per output, the loss weight (float).
        metrics: ``(output_index, log_name, Metric, weighted)`` tuples in compile order.
        output_names: Names of the outputs (log name prefixes for several outputs).
        multi: Whether there are several outputs.
        loss_trackers: Keras's per-output loss trackers (``<output>_loss``), several outputs
            only.
    """

    def __init__(self, losses: list, weights: list, metrics: list, names: list) -> None:
        self.losses = losses
        self.weights = weights
        self.metrics = metrics
        self.output_names = names
        self.multi = len(names) > 1
        self.loss_trackers: list = []


def resolve(model: Any, args: dict, ys: Optional[list], outputs: list) -> CompiledSpec:
    """Resolve ``compile``'s arguments ``args`` against one batch's targets and outputs.

    Args:
        model: The model (asked for its output names).
        args: ``loss``, ``loss_weights``, ``metrics``, ``weighted_metrics`` as given to
            ``compile``.
        ys: Targets per output (or ``None``).
        outputs: The model's outputs, one per output.

    Returns:
        A :class:`CompiledSpec`.
    """
    n = len(outputs)
    names = model._output_names_list(n)

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
    spec = CompiledSpec(loss_objs, weights, metrics, names)
    if spec.multi:
        spec.loss_trackers = [metrics_mod.Mean(name=f'{name}_loss')
                              for name, fn in zip(names, loss_objs) if fn is not None]
    return spec


class CompileMetrics(metrics_mod.Metric):
    """The metrics given to ``compile``, as one metric named ``compile_metrics`` whose
    result is a dict (as Keras 3); resolved at the first batch from the outputs.

    Args:
        model: The compiled model (its ``_compiled_spec`` holds the metric objects).
    """

    def __init__(self, model: Any) -> None:
        super().__init__(name='compile_metrics')
        self._model = model

    @property
    def metrics(self) -> list:
        spec = self._model._compiled_spec
        return [] if spec is None else [m for _, _, m, _ in spec.metrics]

    @property
    def built(self) -> bool:
        return self._model._compiled_spec is not None

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
        spec = self._model._compiled_spec
        if spec is None:
            return {}
        return {name: m.result() for _, name, m, _ in spec.metrics}

    def reset_state(self) -> None:
        for m in self.metrics:
            m.reset_state()


class TrainCache:
    """Per-model lists gathered once per ``fit``: layers, weight regularizers, constraints."""

    def __init__(self, model: Any) -> None:
        self.layers = model._flatten_layers()
        self.regularized = [(p, r) for layer in self.layers
                            for p, r in layer._weight_regularizers]
        self.constraints = [(p, c) for layer in self.layers
                            for p, c in getattr(layer, '_constraints', [])]
        self.signature: Any = None

    def trainable_signature(self) -> tuple:
        return tuple((layer._trainable, len(layer._non_trainable_ids)) for layer in self.layers)


def batch_size_of(x: Any, outs: list) -> int:
    """Samples in a batch: the first axis of its first input array (else of its first
    output), 1 for a scalar batch."""
    for a in flatten(x) if x is not None else []:
        a = to_array(a)
        if getattr(a, 'ndim', 0):
            return int(a.shape[0])
    for o in outs:
        if getattr(o, 'ndim', 0):
            return int(o.shape[0])
    return 1


def compiled_loss_sum(model: Any, x: Any, y: Any, y_pred: Any, sample_weight: Any) -> Any:
    """The weighted sum of the compiled per-output losses of one batch (``None`` if there
    are none); updates the per-output loss trackers."""
    outs = model._outputs_list(y_pred)
    ys = None if y is None else model._target_list(y, 'compute_loss')
    spec = model._resolve(ys, outs) if model._compiled else None
    total = None
    if spec is None:
        return total
    if ys is None:
        if any(fn is not None for fn in spec.losses):
            raise ValueError(f'Model "{model.name}" was compiled with a loss, but no '
                             f'targets were given: pass y (or (x, y) batches), or '
                             f'compile without loss= to train on the losses added '
                             f'with add_loss only')
        return total
    sws = None if sample_weight is None else model._per_output(sample_weight, 'sample_weight')
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
            tracker.update_state(value, sample_weight=batch_size_of(x, outs))
        if spec.weights[i] != 1.0:
            value = value * spec.weights[i]
        total = value if total is None else total + value
    return total


def as_scalar_losses(values: list) -> list:
    """Loss values as scalar ``Variable``s (arrays wrapped, non-scalars summed)."""
    out = [v if isinstance(v, Variable) else Variable(
        backend.get_array_module(v).asarray(v), requires_grad=False) for v in values]
    return [v if v.ndim == 0 else chainlet.functions.sum(v) for v in out]


def extra_losses(model: Any, cache: Optional[TrainCache]) -> list:
    """``add_loss`` losses of the last call and weight regularization, as scalars."""
    layers = cache.layers if cache is not None else model._flatten_layers()
    regularized = cache.regularized if cache is not None else [
        (p, r) for layer in layers for p, r in layer._weight_regularizers]
    out = [loss for layer in layers for loss in layer._call_losses]
    out += [reg(p) for p, reg in regularized]
    return as_scalar_losses(out)


def class_sample_weights(class_weight: dict, ys: list) -> list:
    """Per-sample weights from ``{class: weight}`` (labels or one-hot targets, one output)."""
    if len(ys) != 1:
        raise ValueError('class_weight is only supported for models with a single output')
    y = numpy.asarray(backend.to_cpu(ys[0]))
    labels = y.argmax(axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else \
        y.reshape(len(y), -1)[:, 0].round().astype(numpy.int64)
    table = numpy.ones(int(max(max(class_weight) + 1, labels.max() + 1)), numpy.float32)
    for k, v in class_weight.items():
        table[int(k)] = v
    return [table[labels]]


__all__ = ['CompileMetrics', 'CompiledSpec', 'TrainCache', 'as_scalar_losses', 'batch_size_of',
           'class_sample_weights', 'compiled_loss_sum', 'extra_losses', 'resolve']
