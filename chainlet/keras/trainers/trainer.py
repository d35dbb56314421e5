"""``Trainer``: the training half of ``Model`` (compile, fit, evaluate, predict).

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

The other jobs live in sibling modules: :mod:`.data_adapters` turns the inputs into batches,
:mod:`.compile_utils` resolves ``compile``'s arguments and holds the loss and metric
containers, :mod:`.saving` reads and writes weights and configs. A data-parallel ``fit``
(``communicator=``) runs through a strategy object from :mod:`chainlet.distributed` (see
:meth:`Trainer.fit`), so the facade itself does not depend on the distributed package.

Everything that does not change between batches (the resolved losses and metrics, the list of
layers, their constraints and regularizers, the metric list) is worked out once, so the
per-batch Python work is the forward pass, one backward and the optimizer's one ``update()``
call, plus a few attribute look-ups.

Which weights train is read at every step: a layer frozen after ``compile`` (``layer.trainable =
False``) stops being updated at the next batch (its parameters' update rules are disabled).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Iterator, Optional, cast

import numpy

import chainlet
from chainlet import Variable, backend
from chainlet.keras import config
from chainlet.keras.engine.tree import flatten
from chainlet.keras.trainers import compile_utils, data_adapters
from chainlet.keras.trainers.compile_utils import CompiledSpec, TrainCache, batch_size_of
from chainlet.keras.trainers.data_adapters import ArrayData, to_array
from chainlet.keras.trainers.saving import SavingMixin
from chainlet.keras.utils import unpack_x_y_sample_weight

if TYPE_CHECKING:
    from types import ModuleType

    from chainlet import Parameter
    from chainlet.keras.callbacks import History


class Trainer(SavingMixin):
    """Mixin giving ``Model`` its training methods."""

    # Read on every batch; class-level defaults keep them ordinary attributes even for a model
    # whose state was not set up by ``__init__`` (a subclass that skips it).
    _fit_strategy: Any = None
    _compute_loss_has_training: Optional[bool] = None

    if TYPE_CHECKING:
        # From the Layer/Link side of ``class Model(Trainer, Layer)`` (and, for input_names,
        # a functional model).
        input_names: list

        def cleargrads(self) -> None: ...

        def params(self, include_uninit: bool = True) -> Iterator[Parameter]: ...

        def _flatten_layers(self, include_self: bool = True) -> list: ...

        @property
        def trainable_weights(self) -> list: ...

        @property
        def xp(self) -> ModuleType: ...

    def __init__(self) -> None:
        self._compiled = False
        # None until compile(), then a keras.optimizers object (user code may set its own).
        self.optimizer: Any = None
        self.loss = None
        self.stop_training = False
        self.history: Optional[History] = None  # the History callback of the last fit()
        self._compile_args: Optional[dict] = None
        self._compiled_spec: Optional[CompiledSpec] = None
        self._train_cache: Optional[TrainCache] = None
        self._loss_tracker: Any = None
        self._compile_metrics: Any = None
        self._metrics_cache: Optional[list] = None
        # (y, targets per output) of the last batch: compute_loss and compute_metrics both
        # convert the same batch targets
        self._targets_memo: list = [None, None]

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
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        self._compile_args = {'loss': loss, 'loss_weights': loss_weights, 'metrics': metrics,
                              'weighted_metrics': weighted_metrics}
        self._compiled_spec = None
        self._train_cache = None
        self._loss_tracker = metrics_mod.Mean(name='loss')
        self._compile_metrics = None if metrics is None and weighted_metrics is None else \
            compile_utils.CompileMetrics(self)
        self._metrics_cache = None
        self._compiled = True
        self._run_eagerly = bool(run_eagerly)
        self.stop_training = False
        if self.built or getattr(self, '_is_graph_network', False):
            self.optimizer.build(self)

    @property
    def run_eagerly(self) -> bool:
        """What ``compile(run_eagerly=...)`` or an assignment set; chainlet always runs
        eagerly (define-by-run), so it changes nothing."""
        return getattr(self, '_run_eagerly', False)

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        self._run_eagerly = bool(value)

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
        names = getattr(self, 'output_names', None)
        if names and len(names) == n:
            nested = getattr(self, '_nested_outputs', None)
            if isinstance(nested, dict):
                return sorted(nested)
            return list(names)
        return ['output'] if n == 1 else [f'output_{i + 1}' for i in range(n)]

    def _num_outputs(self) -> Optional[int]:
        outputs = getattr(self, 'outputs', None)
        return len(outputs) if outputs else None

    def _input_template(self, x: Any) -> Any:
        """``x`` arranged as the model's call expects (dicts of functional models by name)."""
        if isinstance(x, dict) and getattr(self, '_is_graph_network', False):
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
        inputs = getattr(self, 'inputs', None)
        if not inputs or i >= len(inputs) or not hasattr(a, 'dtype'):
            return a
        want = numpy.dtype(inputs[i].dtype)
        if a.dtype.kind in 'biuf' and want.kind == 'f' and a.dtype != want:
            return a.astype(want)
        return a

    def _target_list(self, y: Any, where: str) -> list:
        # compute_loss and compute_metrics both convert the same batch targets
        memo = self._targets_memo  # mutated in place: no attribute write on the hot path
        if memo[0] is y and memo[1] is not None:
            return memo[1]
        out = self._target_list_uncached(y, where)
        memo[0], memo[1] = y, out
        return out

    def _target_list_uncached(self, y: Any, where: str) -> list:
        n = self._num_outputs()
        if isinstance(y, dict):
            names = self._output_names_list(n or len(y))
            unknown = sorted(set(y) - set(names))
            if unknown:
                raise ValueError(f'{where}: unknown target key(s) {unknown}; the outputs are '
                                 f'{names}')
            return [None if y.get(k) is None else to_array(y[k]) for k in names]
        if isinstance(y, (list, tuple)) and (n or 1) > 1:
            if len(y) != n:
                raise ValueError(f'{where}: the model has {n} outputs but y has {len(y)} '
                                 f'arrays')
            return [None if v is None else to_array(v) for v in y]
        if n is not None and n > 1:
            raise ValueError(f'{where}: the model has {n} outputs; give y as a list or a dict '
                             f'of {n} arrays')
        return [to_array(y)]

    def _per_output(self, value: Any, what: str) -> list:
        n = self._num_outputs() or 1
        if isinstance(value, dict):
            names = self._output_names_list(n)
            return [None if value.get(k) is None else to_array(value[k]) for k in names]
        if isinstance(value, (list, tuple)) and n > 1:
            if len(value) != n:
                raise ValueError(f'{what}: expected {n} entries (one per output), got '
                                 f'{len(value)}')
            return [None if v is None else to_array(v) for v in value]
        return [to_array(value)] * n

    def _outputs_list(self, outputs: Any) -> list:
        if isinstance(outputs, dict):
            return [outputs[k] for k in sorted(outputs)]
        if isinstance(outputs, (list, tuple)):
            return list(outputs)
        return [outputs]

    # ------------------------------------------------------------ compiled spec

    def _resolve(self, ys: Optional[list], outputs: list) -> CompiledSpec:
        """The compiled spec, resolved at the first batch (see :func:`compile_utils.resolve`)."""
        spec = self._compiled_spec
        if spec is not None:
            return spec
        # cast: compile() set the arguments (a compiled spec is only resolved after it).
        spec = compile_utils.resolve(self, cast(dict, self._compile_args), ys, outputs)
        self._compiled_spec = spec
        self._metrics_cache = None
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
        cached = self._metrics_cache
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
        self._metrics_cache = out
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
        metrics = self._metrics_cache
        if metrics is None or type(self).metrics is not Trainer.metrics:
            metrics = self.metrics   # the list itself, not a copy, on the hot path
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
        for value in self._extra_losses(self._train_cache):
            total = value if total is None else total + value
        if total is None:
            raise ValueError(f'Model "{self.name}": no loss to compute. Provide a `loss` '
                             f'argument in `compile()`, add losses with add_loss(), or '
                             f'override compute_loss()')
        return total

    def _compiled_losses(self, x: Any, y: Any, y_pred: Any, sample_weight: Any) -> Any:
        """The weighted sum of the compiled per-output losses (``None`` if there are none)."""
        return compile_utils.compiled_loss_sum(self, x, y, y_pred, sample_weight)

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
        has = self._compute_loss_has_training
        if has is None:
            import inspect
            params = inspect.signature(self.compute_loss).parameters
            has = 'training' in params or \
                any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
            self._compute_loss_has_training = has
        if has:
            return self.compute_loss(x, y, y_pred, sample_weight, training=training)
        return self.compute_loss(x, y, y_pred, sample_weight)

    def _extra_losses(self, cache: Optional[TrainCache]) -> list:
        return compile_utils.extra_losses(self, cache)

    def _class_sample_weights(self, class_weight: dict, ys: list) -> list:
        return compile_utils.class_sample_weights(class_weight, ys)

    # ------------------------------------------------------------------ steps

    def _prepare_train(self) -> TrainCache:
        cache = TrainCache(self)
        self._train_cache = cache
        self.optimizer.build(self)
        return cache

    def _sync_trainable(self, cache: TrainCache) -> None:
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
        self._loss_tracker.update_state(loss, sample_weight=batch_size_of(x, [y_pred]))
        self.cleargrads()
        loss.backward()
        strategy = self._fit_strategy
        if strategy is not None:  # data-parallel fit: average the gradients over processes
            strategy.after_backward()
        self._sync_trainable(cache)
        self.optimizer.update()
        for p, constraint in cache.constraints:
            out = constraint(p.array)
            if out is not None and out is not p.array:
                backend.copyto(p.array, to_array(out))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data: Any) -> dict:
        """Forward one batch in inference mode, update the loss tracker and the metrics and
        return the logs (``evaluate`` runs it in no-backprop mode)."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self._compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                  training=False)
        self._loss_tracker.update_state(loss, sample_weight=batch_size_of(x, [y_pred]))
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
        batch_size = data_adapters.check_batch_size('fit', batch_size, 32)
        verbose = _verbose(verbose)
        if not isinstance(validation_split, (int, float)) or not 0 <= validation_split < 1:
            raise ValueError(f'fit: validation_split must be a number in [0, 1), got '
                             f'{validation_split!r}')
        if isinstance(validation_data, list):  # Keras reads a list as (x, y[, sample_weight])
            validation_data = tuple(validation_data)
        strategy = None
        if communicator is not None:
            if data_adapters.is_batch_source(x):
                raise ValueError('fit: communicator= needs array inputs (x, y), got a dataset '
                                 'or an iterator')
            strategy = _data_parallel_strategy(communicator)
            x, y, sample_weight, validation_data = strategy.distribute_data(
                self, x, y, sample_weight, validation_data)
            verbose = strategy.verbose(verbose)
        self._fit_strategy = strategy
        source = data_adapters.make_source(self, x, y, sample_weight, 'fit')
        val_source = None
        if validation_data is not None:
            val_source = data_adapters.validation_source(self, validation_data)
        elif validation_split:
            source, val_source = data_adapters.split_validation(source, validation_split)
        if class_weight is not None:
            if not isinstance(source, ArrayData) or source.ys is None:
                raise ValueError('fit: class_weight is only supported for array inputs with '
                                 'targets')
            weights = self._class_sample_weights(class_weight, source.ys)
            source.sws = weights if source.sws is None else \
                [s * c for s, c in zip(source.sws, weights)]
        # keras.config's caps for quick trial runs, as Keras applies them
        max_epochs = config.max_epochs()
        if max_epochs is not None:
            epochs = min(epochs, max_epochs)
        cap = config.max_steps_per_epoch()
        if cap is not None and (steps_per_epoch is None or cap < steps_per_epoch):
            steps_per_epoch = cap
        steps = data_adapters.steps_per_epoch_of(source, batch_size, steps_per_epoch)
        cbs = callbacks_mod.CallbackList(callbacks, add_history=True, add_progbar=verbose > 0,
                                         model=self, verbose=verbose, epochs=epochs,
                                         steps=steps)
        self._train_cache = None
        self._metrics_cache = None
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
                    data_adapters.iterate(self, source, batch_size, shuffle, xp, steps_per_epoch)):
                if begin_hooks:
                    cbs.call('on_train_batch_begin', step, {})
                logs = self.train_step(data)
                if end_hooks:
                    cbs.call('on_train_batch_end', step, _pythonify(logs))
                if self.stop_training:
                    break
            if step < 0 and not isinstance(source, ArrayData):
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
            if strategy is not None:
                epoch_logs = strategy.reduce_logs(epoch_logs)
            cbs.call('on_epoch_end', epoch, epoch_logs)
            if self.stop_training:
                break
        cbs.call('on_train_end', epoch_logs)
        self._targets_memo[:] = [None, None]
        self.history = cbs.history
        return cbs.history

    # --------------------------------------------------------------- evaluate

    def _run_evaluation(self, source: Any, batch_size: int, steps: Optional[int],
                        cbs: Any) -> dict:
        self.reset_metrics()
        cbs.call('on_test_begin', {})
        begin = cbs.has_batch_hooks('on_test_batch_begin')
        end = cbs.has_batch_hooks('on_test_batch_end')
        logs = None
        batches = data_adapters.iterate(self, source, batch_size, False, self.xp, steps,
                                        restart=True)
        for step, data in enumerate(batches):
            if begin:
                cbs.call('on_test_batch_begin', step, {})
            with chainlet.no_backprop_mode():
                logs = self.test_step(data)
            if end:
                cbs.call('on_test_batch_end', step, _pythonify(logs))
        logs = self._epoch_logs(logs)
        self._targets_memo[:] = [None, None]
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
        batch_size = data_adapters.check_batch_size('evaluate', batch_size, 32)
        source = data_adapters.make_source(self, x, y, sample_weight, 'evaluate')
        self._metrics_cache = None
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
        batch_size = data_adapters.check_batch_size('predict', batch_size, 32)
        if data_adapters.is_batch_source(x):
            source = data_adapters.make_source(self, x, None, None, 'predict')
        else:
            source = ArrayData(self, x, None, None, 'predict')
        cbs = callbacks_mod.CallbackList(callbacks, model=self, verbose=_verbose(verbose),
                                         epochs=1, steps=steps)
        cbs.call('on_predict_begin', {})
        begin = cbs.has_batch_hooks('on_predict_batch_begin')
        end = cbs.has_batch_hooks('on_predict_batch_end')
        chunks: list = []
        template = None
        batches = data_adapters.iterate(self, source, batch_size, False, self.xp, steps,
                                        restart=True)
        for step, data in enumerate(batches):
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
        return data_adapters.pack(template, merged)

    # --------------------------------------------------------- batch methods

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: Optional[dict] = None, return_dict: bool = False) -> Any:
        """One training step on one batch; returns its loss (and metrics) as in
        :meth:`evaluate`. The metrics are those of this batch alone."""
        self._require_compiled('training')
        data = ArrayData(self, x, y, sample_weight, 'train_on_batch')
        if class_weight is not None:  # combined with sample_weight as in fit
            # cast: with y=None this fails in class_sample_weights (TypeError), as before.
            weights = self._class_sample_weights(class_weight, cast(list, data.ys))
            data.sws = weights if data.sws is None else \
                [s * c for s, c in zip(data.sws, weights)]
        batch = data.take(slice(None), self.xp)
        self._metrics_cache = None
        self.reset_metrics()
        logs = self._epoch_logs(self.train_step(batch))
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      return_dict: bool = False) -> Any:
        """Loss and metrics of one batch in inference mode."""
        self._require_compiled('evaluating')
        data = ArrayData(self, x, y, sample_weight, 'test_on_batch')
        batch = data.take(slice(None), self.xp)
        self._metrics_cache = None
        self.reset_metrics()
        with chainlet.no_backprop_mode():
            logs = self._epoch_logs(self.test_step(batch))
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def predict_on_batch(self, x: Any) -> Any:
        """Outputs for one batch, as NumPy arrays."""
        data = ArrayData(self, x, None, None, 'predict_on_batch')
        with chainlet.no_backprop_mode():
            out = self.predict_step(data.take(slice(None), self.xp))
        return _map_arrays(out, to_cpu=True)


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


def _verbose(verbose: Any) -> int:
    if verbose == 'auto':
        return 1
    if verbose not in (0, 1, 2, True, False):
        raise ValueError(f"verbose must be 0, 1, 2 or 'auto', got {verbose!r}")
    return int(verbose)


def _data_parallel_strategy(communicator: Any) -> Any:
    """The strategy that runs ``fit`` data-parallel over ``communicator``.

    The trainer talks to it through four calls: ``distribute_data(model, x, y, sample_weight,
    validation_data)`` (this process's shard, the model synchronized), ``verbose(v)``,
    ``after_backward()`` (average the gradients) and ``reduce_logs(logs)``. An object that
    already has them (a strategy built by hand) is used as it is; a communicator gets
    ``chainlet.distributed.KerasDataParallel``, imported only here, when it is asked for.
    """
    if hasattr(communicator, 'distribute_data') and hasattr(communicator, 'after_backward'):
        return communicator
    import chainlet.distributed
    return chainlet.distributed.KerasDataParallel(communicator)


def _should_validate(epoch: int, freq: Any) -> bool:
    if isinstance(freq, int):
        return (epoch + 1) % freq == 0
    return (epoch + 1) in set(freq)


__all__ = ['Trainer']
