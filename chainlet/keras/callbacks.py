"""Keras callbacks (``from chainlet.keras import callbacks``): hooks into ``fit``, ``evaluate``
and ``predict``.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    >>> model.compile('sgd', 'mse')
    >>> stop = keras.callbacks.EarlyStopping(monitor='loss', patience=0, min_delta=1e9)
    >>> history = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=5, verbose=0,
    ...                     callbacks=[stop])
    >>> len(history.history['loss']), stop.stopped_epoch
    (2, 1)
"""
from __future__ import annotations

import collections
import csv
import math
import os
import sys
import time
import warnings
from typing import Any, Callable, Optional, cast

import numpy

from chainlet.keras import config


class Callback:
    """Base class of callbacks; override the hooks you need.

    Attributes:
        model: The model being trained (set by :meth:`set_model`).
        params: ``{'verbose', 'epochs', 'steps'}`` (set by :meth:`set_params`).
    """

    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict = {}

    def set_params(self, params: dict) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self.model = model

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        """Called at the start of ``fit``."""

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        """Called at the end of ``fit`` (``logs``: the last epoch's logs)."""

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        """Called at the start of every epoch (0-based)."""

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        """Called at the end of every epoch; ``logs`` hold ``loss``, metrics and ``val_*``."""

    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called before each training batch."""

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called after each training batch; ``logs`` hold the running epoch averages."""

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        """Called at the start of ``evaluate`` (and of validation in ``fit``)."""

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        """Called at the end of ``evaluate``."""

    def on_test_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called before each evaluation batch."""

    def on_test_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called after each evaluation batch."""

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        """Called at the start of ``predict``."""

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        """Called at the end of ``predict``."""

    def on_predict_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called before each prediction batch."""

    def on_predict_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Called after each prediction batch (``logs['outputs']``)."""

    # Keras 2 names
    def on_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Alias kept for Keras 2 code: called by ``on_train_batch_begin``."""

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """Alias kept for Keras 2 code: called by ``on_train_batch_end``."""


_HOOKS = ('on_train_begin', 'on_train_end', 'on_epoch_begin', 'on_epoch_end',
          'on_train_batch_begin', 'on_train_batch_end', 'on_test_begin', 'on_test_end',
          'on_test_batch_begin', 'on_test_batch_end', 'on_predict_begin', 'on_predict_end',
          'on_predict_batch_begin', 'on_predict_batch_end', 'on_batch_begin', 'on_batch_end')


def _overrides(cb: Callback, hook: str) -> bool:
    return getattr(type(cb), hook, None) is not getattr(Callback, hook) or \
        hook in getattr(cb, '__dict__', {})


class CallbackList:
    """Calls a hook on every callback; batch hooks only on callbacks that define them, so that
    a fit without batch-level callbacks pays nothing per batch.

    Args:
        callbacks: Callbacks (a ``History`` is added when ``add_history``).
        add_history: Add a :class:`History` if none is given.
        add_progbar: Add a :class:`ProgbarLogger` if none is given (``verbose`` > 0).
        model: The model.
        **params: ``verbose``, ``epochs``, ``steps``.
    """

    def __init__(self, callbacks: Any = None, add_history: bool = False,
                 add_progbar: bool = False, model: Any = None, **params: Any) -> None:
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(f'callbacks: expected keras Callback objects, got '
                                f'{type(cb).__name__}')
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            # after the user's callbacks, so that it prints what they add to the logs
            self.callbacks.append(ProgbarLogger())
        self.history: Optional[History] = None
        if add_history:
            found = [c for c in self.callbacks if isinstance(c, History)]
            if found:
                self.history = found[0]
            else:
                self.history = History()
                self.callbacks.append(self.history)
        self.params = params
        for cb in self.callbacks:
            cb.set_params(params)
            if model is not None:
                cb.set_model(model)
        self._batch = {h: [getattr(c, h) for c in self.callbacks if _overrides(c, h)]
                       for h in _HOOKS if 'batch' in h}
        for old, new in (('on_batch_begin', 'on_train_batch_begin'),
                         ('on_batch_end', 'on_train_batch_end')):
            self._batch[new] = self._batch[new] + self._batch[old]

    def has_batch_hooks(self, hook: str) -> bool:
        """Whether any callback defines the batch hook ``hook``."""
        return bool(self._batch[hook])

    def call(self, hook: str, *args: Any) -> None:
        """Call ``hook`` on every callback that has it."""
        if 'batch' in hook:
            for fn in self._batch[hook]:
                fn(*args)
            return
        for cb in self.callbacks:
            getattr(cb, hook)(*args)

    def __iter__(self):
        return iter(self.callbacks)


class History(Callback):
    """Records the epoch logs: ``history.history['loss']``, ``['val_loss']``...

    ``model.fit`` returns this object.

    Attributes:
        history: Dict from log name to the list of its values, one per epoch.
        epoch: The epoch numbers.
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict = {}
        self.epoch: list = []

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


def _format_logs(logs: dict) -> str:
    parts = []
    for k, v in logs.items():
        if isinstance(v, (float, numpy.floating)):
            # cast: mypy joins abs() of float | numpy.floating to 'object'.
            big = abs(cast(float, v)) >= 1e-3
            parts.append(f'{k}: {v:.4f}' if big or v == 0 else f'{k}: {v:.4e}')
        else:
            parts.append(f'{k}: {v}')
    return ' - '.join(parts)


class ProgbarLogger(Callback):
    """Prints progress: a tqdm bar with ETA and running metrics (``verbose=1``) or one line per
    epoch (``verbose=2``). When the output is not a terminal (a file, a pipe, a notebook log),
    ``verbose=1`` prints plain lines too instead of redrawing a bar.

    tqdm is optional (``pip install "chainlet-dl[progress]"``): without it, plain lines are
    printed.

    Args:
        count_mode: Kept for Keras compatibility (``'steps'``).
        file: Where to print (``sys.stdout`` at the time of printing by default).
    """

    def __init__(self, count_mode: str = 'steps', file: Any = None) -> None:
        super().__init__()
        self._file = file
        self._bar: Any = None
        self._epoch = 0
        self._start = 0.0
        self._mode = 'train'

    @property
    def file(self) -> Any:
        return self._file if self._file is not None else sys.stdout

    def _verbose(self) -> int:
        return int(self.params.get('verbose', 1) or 0)

    def _interactive(self) -> bool:
        if not config.is_interactive_logging_enabled():
            return False
        isatty = getattr(self.file, 'isatty', None)
        try:
            return bool(isatty and isatty())
        except (ValueError, OSError):
            return False

    def _open_bar(self, total: Optional[int], desc: str) -> None:
        self._bar = None
        self._start = time.perf_counter()
        if self._verbose() != 1 or not self._interactive():
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self._bar = tqdm(total=total, desc=desc, file=self.file, unit='step', leave=True,
                         dynamic_ncols=True)

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._mode = 'train'

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._epoch = epoch
        if self._verbose():
            epochs = self.params.get('epochs')
            self._open_bar(self.params.get('steps'), f'Epoch {epoch + 1}/{epochs}')

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix_str(_format_logs(logs or {}), refresh=False)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        verbose = self._verbose()
        if not verbose:
            return
        seconds = time.perf_counter() - self._start
        line = _format_logs(logs or {})
        if self._bar is not None:
            self._bar.set_postfix_str(line)
            self._bar.close()
            self._bar = None
            return
        steps = self.params.get('steps')
        epochs = self.params.get('epochs')
        prefix = f'Epoch {epoch + 1}/{epochs}'
        count = f'{steps}/{steps} - ' if steps else ''
        print(f'{prefix} - {count}{seconds:.0f}s - {line}', file=self.file, flush=True)

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        self._test_start = time.perf_counter()

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        self._test_start = time.perf_counter()


class EarlyStopping(Callback):
    """Stop training when ``monitor`` has stopped improving.

    Args:
        monitor: Log to watch (``'val_loss'``).
        min_delta: Smallest change that counts as an improvement.
        patience: Epochs without improvement before stopping.
        verbose: Print a line when stopping or restoring.
        mode: ``'min'``, ``'max'`` or ``'auto'`` (``max`` for names containing ``acc``,
            ``auc``, ``precision``, ``recall`` or ``f1``; ``min`` otherwise).
        baseline: Training stops if the value does not beat this within ``patience`` epochs.
        restore_best_weights: Restore the weights of the best epoch when training ends, whether
            it ended by stopping early or by running all epochs.
        start_from_epoch: Epochs to wait before monitoring starts.

    Attributes:
        stopped_epoch: The epoch at which training stopped (0 if it did not stop).
        best, best_epoch: The best value and its epoch.
    """

    def __init__(self, monitor: str = 'val_loss', min_delta: float = 0, patience: int = 0,
                 verbose: int = 0, mode: str = 'auto', baseline: Optional[float] = None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__()
        self.monitor = monitor
        self.patience = int(patience)
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(float(min_delta))
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = int(start_from_epoch)
        self.mode = _resolve_mode('EarlyStopping', mode, monitor)
        self.wait = 0
        self.stopped_epoch = 0
        self.best = math.inf if self.mode == 'min' else -math.inf
        self.best_weights: Optional[list] = None
        self.best_epoch = 0

    def _improved(self, value: float, reference: float) -> bool:
        if self.mode == 'min':
            return value < reference - self.min_delta
        return value > reference + self.min_delta

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = math.inf if self.mode == 'min' else -math.inf
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(f'EarlyStopping: the monitored value {self.monitor!r} is not in the '
                          f'logs (available: {sorted(logs or {})}); skipping', RuntimeWarning,
                          stacklevel=2)
            return
        if epoch < self.start_from_epoch:
            return
        value = float(value)
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._improved(value, self.best):
            self.best = value
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improved(value, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self.stopped_epoch > 0 and self.verbose:
            print(f'Epoch {self.stopped_epoch + 1}: early stopping')
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose:
                print(f'Restoring model weights from the end of the best epoch: '
                      f'{self.best_epoch + 1}.')
            self.model.set_weights(self.best_weights)


def _resolve_mode(where: str, mode: str, monitor: str) -> str:
    if mode not in ('auto', 'min', 'max'):
        raise ValueError(f"{where}: argument mode: expected 'auto', 'min' or 'max', got "
                         f'{mode!r}')
    if mode != 'auto':
        return mode
    name = monitor.lower()
    if any(k in name for k in ('acc', 'auc', 'precision', 'recall', 'f1')):
        return 'max'
    return 'min'


class ModelCheckpoint(Callback):
    """Save the model (or its weights) after epochs or every ``save_freq`` batches.

    ``filepath`` may hold templates filled from the epoch number (1-based) and the logs:
    ``'ckpt-{epoch:02d}-{val_loss:.2f}.npz'``. A file ending in ``.weights.npz``/``.weights.h5``
    (or ``save_weights_only=True``) gets the weights only. Saves are atomic.

    Args:
        filepath: Path template.
        monitor: Log compared by ``save_best_only``.
        verbose: Print a line at each save.
        save_best_only: Save only when ``monitor`` improves; when the value is missing from the
            logs, a warning is given and nothing is saved.
        save_weights_only: Save weights only (``model.save_weights``).
        mode: ``'auto'``, ``'min'`` or ``'max'`` (as in :class:`EarlyStopping`).
        save_freq: ``'epoch'`` or a number of batches.
        initial_value_threshold: Initial best value for ``save_best_only``.
    """

    def __init__(self, filepath: str, monitor: str = 'val_loss', verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = 'auto', save_freq: Any = 'epoch',
                 initial_value_threshold: Optional[float] = None) -> None:
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.mode = _resolve_mode('ModelCheckpoint', mode, monitor)
        if save_freq != 'epoch' and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(f"ModelCheckpoint: argument save_freq: expected 'epoch' or a "
                             f'positive int, got {save_freq!r}')
        self.save_freq = save_freq
        self.best = initial_value_threshold if initial_value_threshold is not None else (
            math.inf if self.mode == 'min' else -math.inf)
        self._batches = 0
        self._epoch = 0

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._epoch = epoch

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self.save_freq == 'epoch':
            return
        self._batches += 1
        if self._batches % self.save_freq == 0:
            self._save(self._epoch, logs or {}, batch=batch)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.save_freq == 'epoch':
            self._save(epoch, logs or {})

    def _save(self, epoch: int, logs: dict, batch: Optional[int] = None) -> None:
        try:
            path = self.filepath.format(epoch=epoch + 1, batch=batch, **logs)
        except KeyError as e:
            warnings.warn(f'ModelCheckpoint: the file path {self.filepath!r} names {e} which '
                          f'is not in the logs (available: {sorted(logs)}); checkpoint '
                          f'skipped', RuntimeWarning, stacklevel=3)
            return
        if self.save_best_only:
            value = logs.get(self.monitor)
            if value is None:
                warnings.warn(f'ModelCheckpoint: can save the best model only with '
                              f'{self.monitor!r} available in the logs (available: '
                              f'{sorted(logs)}); skipping', RuntimeWarning, stacklevel=3)
                return
            value = float(value)
            better = value < self.best if self.mode == 'min' else value > self.best
            if not better:
                if self.verbose:
                    print(f'Epoch {epoch + 1}: {self.monitor} did not improve from '
                          f'{self.best:.5f}')
                return
            if self.verbose:
                print(f'Epoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to '
                      f'{value:.5f}, saving model to {path}')
            self.best = value
        elif self.verbose:
            print(f'Epoch {epoch + 1}: saving model to {path}')
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        if self.save_weights_only or '.weights.' in os.path.basename(path):
            self.model.save_weights(path)
        else:
            self.model.save(path)


class CSVLogger(Callback):
    """Write the epoch logs to a CSV file (one row per epoch, ``epoch`` first).

    Args:
        filename: The CSV file.
        separator: Column separator.
        append: Append to an existing file instead of overwriting it.
    """

    def __init__(self, filename: str, separator: str = ',', append: bool = False) -> None:
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys: Optional[list] = None
        self._file: Any = None
        self._writer: Any = None

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        header_needed = True
        if self.append and os.path.exists(self.filename):
            with open(self.filename) as f:
                header_needed = not bool(f.readline().strip())
        self._file = open(self.filename, 'a' if self.append else 'w', newline='')
        self._header_needed = header_needed
        self.keys = None
        self._writer = None

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            self._writer = csv.DictWriter(self._file, fieldnames=['epoch'] + self.keys,
                                          delimiter=self.sep)
            if self._header_needed:
                self._writer.writeheader()
        row = collections.OrderedDict(epoch=epoch)
        for k in self.keys:
            v = logs.get(k, 'NA')
            row[k] = v
        self._writer.writerow(row)
        self._file.flush()

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class LearningRateScheduler(Callback):
    """Set the learning rate at the start of each epoch to ``schedule(epoch, lr)``.

    As in Keras, an optimizer created with a ``LearningRateSchedule`` as its learning rate
    cannot take a rate from this callback: training then stops with a ``TypeError`` at the
    first epoch. Use one or the other.

    Args:
        schedule: ``schedule(epoch, lr) -> new_lr`` (or ``schedule(epoch)``).
        verbose: Print the new rate.
    """

    def __init__(self, schedule: Callable, verbose: int = 0) -> None:
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        opt = _optimizer_of(self.model, 'LearningRateScheduler')
        lr = opt.learning_rate
        try:
            new = self.schedule(epoch, lr)
        except TypeError:
            new = self.schedule(epoch)
        new = float(new)
        if not math.isfinite(new):
            raise ValueError(f'LearningRateScheduler: the schedule returned {new!r} for epoch '
                             f'{epoch}; expected a finite float')
        _set_learning_rate(opt, new, 'LearningRateScheduler')
        if self.verbose:
            print(f'\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to '
                  f'{new}.')

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if logs is not None:
            logs['learning_rate'] = _optimizer_of(self.model, 'LearningRateScheduler') \
                .learning_rate


def _set_learning_rate(opt: Any, value: float, where: str) -> None:
    try:
        opt.learning_rate = value
    except TypeError as e:  # a LearningRateSchedule owns the rate
        raise TypeError(f'{where}: cannot set the learning rate: {e}') from e


def _optimizer_of(model: Any, where: str) -> Any:
    opt = getattr(model, 'optimizer', None)
    if opt is None:
        raise RuntimeError(f'{where}: the model has no optimizer; call compile() first')
    return opt


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by ``factor`` when ``monitor`` stops improving.

    Args:
        monitor: Log to watch.
        factor: Factor by which the rate is reduced (``< 1``).
        patience: Epochs without improvement before reducing.
        verbose: Print a line at each reduction.
        mode: ``'auto'``, ``'min'`` or ``'max'``.
        min_delta: Smallest change that counts as an improvement.
        cooldown: Epochs to wait after a reduction before counting again.
        min_lr: Lower bound of the rate.
    """

    def __init__(self, monitor: str = 'val_loss', factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = 'auto', min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0, **kwargs: Any) -> None:
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f'ReduceLROnPlateau: argument factor: expected a value < 1, got '
                             f'{factor}')
        if kwargs:
            raise TypeError(f'ReduceLROnPlateau: unexpected keyword argument(s) '
                            f'{sorted(kwargs)}')
        self.monitor = monitor
        self.factor = float(factor)
        self.patience = int(patience)
        self.verbose = verbose
        self.mode = _resolve_mode('ReduceLROnPlateau', mode, monitor)
        self.min_delta = float(min_delta)
        self.cooldown = int(cooldown)
        self.min_lr = float(min_lr)
        self._reset()

    def _reset(self) -> None:
        self.best = math.inf if self.mode == 'min' else -math.inf
        self.wait = 0
        self.cooldown_counter = 0

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._reset()

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs if logs is not None else {}
        opt = _optimizer_of(self.model, 'ReduceLROnPlateau')
        logs['learning_rate'] = opt.learning_rate
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f'ReduceLROnPlateau: the monitored value {self.monitor!r} is not in '
                          f'the logs (available: {sorted(logs)}); skipping', RuntimeWarning,
                          stacklevel=2)
            return
        value = float(value)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        improved = value < self.best - self.min_delta if self.mode == 'min' \
            else value > self.best + self.min_delta
        if improved:
            self.best = value
            self.wait = 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait >= self.patience:
            old = opt.learning_rate
            if old > self.min_lr:
                new = max(old * self.factor, self.min_lr)
                _set_learning_rate(opt, new, 'ReduceLROnPlateau')
                logs['learning_rate'] = new
                if self.verbose:
                    print(f'\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to '
                          f'{new}.')
                self.cooldown_counter = self.cooldown
                self.wait = 0


class TerminateOnNaN(Callback):
    """Stop training as soon as a batch gives a NaN or infinite loss.

    Args:
        raise_error: Raise ``RuntimeError`` instead of stopping quietly (Keras 3.11+).
    """

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = bool(raise_error)

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        loss = (logs or {}).get('loss')
        if loss is not None and not math.isfinite(float(loss)):
            if self.raise_error:
                raise RuntimeError(f'TerminateOnNaN: batch {batch} gave an invalid loss '
                                   f'({float(loss)})')
            print(f'Batch {batch}: Invalid loss, terminating training')
            self.model.stop_training = True


class LambdaCallback(Callback):
    """A callback made of functions: ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)``.

    Args:
        on_epoch_begin, on_epoch_end: ``f(epoch, logs)``.
        on_train_batch_begin, on_train_batch_end: ``f(batch, logs)`` (also accepted under
            the Keras 2 names ``on_batch_begin``, ``on_batch_end``).
        on_train_begin, on_train_end: ``f(logs)``.
        **kwargs: Any other hook by name.
    """

    def __init__(self, on_epoch_begin: Optional[Callable] = None,
                 on_epoch_end: Optional[Callable] = None,
                 on_train_begin: Optional[Callable] = None,
                 on_train_end: Optional[Callable] = None,
                 on_train_batch_begin: Optional[Callable] = None,
                 on_train_batch_end: Optional[Callable] = None, **kwargs: Any) -> None:
        super().__init__()
        given = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for hook, fn in given.items():
            if fn is None:
                continue
            if hook not in _HOOKS:
                raise TypeError(f'LambdaCallback: unknown hook {hook!r}; known hooks: '
                                f'{list(_HOOKS)}')
            setattr(self, hook, fn)


# Defined in its own module (it needs Callback, above); tensorboardX is imported only when a
# TensorBoard callback is made.
from chainlet.keras._tensorboard import TensorBoard  # noqa: E402

__all__ = ['Callback', 'CallbackList', 'History', 'ProgbarLogger', 'EarlyStopping',
           'ModelCheckpoint', 'CSVLogger', 'LearningRateScheduler', 'ReduceLROnPlateau',
           'TerminateOnNaN', 'LambdaCallback', 'TensorBoard']
