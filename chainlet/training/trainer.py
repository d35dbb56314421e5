"""``Trainer``: the training loop that runs an updater and calls extensions.

Example:
    >>> import tempfile, numpy as np, chainlet.links as L
    >>> from chainlet import iterators, optimizers, training
    >>> rng = np.random.RandomState(0)
    >>> x = rng.rand(16, 3).astype(np.float32)
    >>> t = (x.sum(axis=1) > 1.5).astype(np.int32)
    >>> model = L.Classifier(L.Linear(3, 2))
    >>> optimizer = optimizers.SGD(lr=0.5).setup(model)
    >>> it = iterators.SerialIterator(list(zip(x, t)), batch_size=4)
    >>> updater = training.updaters.StandardUpdater(it, optimizer)
    >>> trainer = training.Trainer(updater, (2, 'epoch'), out=tempfile.mkdtemp())
    >>> losses = []
    >>> trainer.extend(lambda tr: losses.append(float(tr.observation['main/loss'].array)),
    ...                name='record')
    >>> trainer.run()
    >>> len(losses), updater.iteration, updater.epoch
    (8, 8, 2)
"""
from __future__ import annotations

import collections
import os
import sys
import time
import traceback
from typing import Any, Optional

from chainlet import reporter as reporter_module
from chainlet.training import extension as extension_module
from chainlet.training import util

_ExtensionEntry = collections.namedtuple(
    '_ExtensionEntry', ('extension', 'priority', 'trigger', 'call_before_training'))


def _is_serializer(serializer: Any) -> bool:
    from chainlet.serializers import Serializer
    return isinstance(serializer, Serializer)


class Trainer:
    """Run ``updater.update()`` until ``stop_trigger`` fires, calling extensions in between.

    Each iteration runs inside a reporter scope: a fresh :attr:`observation` dict receives
    every value reported during the update (a ``Classifier`` registered as the main target
    reports ``main/loss`` and ``main/accuracy``) and by the extensions. Then each extension
    whose trigger fires is called, highest priority first (registration order among equal
    priorities).

    Args:
        updater: The updater (e.g. :class:`~chainlet.training.updaters.StandardUpdater`).
        stop_trigger: When to stop: a trigger, a ``(length, unit)`` pair such as
            ``(20, 'epoch')``, or ``None`` (never; the loop ends only by an exception).
        out: Output folder for logs, snapshots and plots (created by :meth:`run`).
        extensions: Extensions to register right away (with their default settings).

    Attributes:
        updater: The updater.
        stop_trigger: The stop trigger.
        out (str): The output folder.
        observation (dict): Values reported in the current iteration.
        reporter: The :class:`~chainlet.reporter.Reporter` of the loop; the optimizers'
            targets are registered as observers under the optimizers' names (``main``) and
            their child links under ``main/<path>``.
    """

    def __init__(self, updater: Any, stop_trigger: Any = None, out: str = 'result',
                 extensions: Optional[list] = None) -> None:
        self.updater = updater
        self.stop_trigger = util.get_trigger(stop_trigger)
        self.observation: dict = {}
        self.out = out
        reporter = reporter_module.Reporter()
        for name, optimizer in updater.get_all_optimizers().items():
            reporter.add_observer(name, optimizer.target)
            reporter.add_observers(name, optimizer.target.namedlinks(skipself=True))
        self.reporter = reporter
        self._done = False
        self._extensions: collections.OrderedDict = collections.OrderedDict()
        self._start_at: Optional[float] = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time: Optional[float] = None
        updater.connect_trainer(self)
        for ext in extensions or ():
            self.extend(ext)

    @property
    def is_before_training(self) -> bool:
        """Whether no update has run yet (``updater.iteration == 0``), as in Chainer.

        :meth:`run` calls the extensions registered with ``call_before_training=True`` only
        then (not when it resumes from a snapshot), and ``LogReport``/``PlotReport`` log that
        call as an entry of its own.
        """
        return bool(getattr(self.updater, 'iteration', None) == 0)

    @property
    def elapsed_time(self) -> float:
        """Seconds of training so far, including the time before a snapshot it resumed from.

        Raises:
            RuntimeError: before :meth:`run` started.
        """
        if self._done and self._final_elapsed_time is not None:
            return self._final_elapsed_time
        if self._start_at is None:
            raise RuntimeError('Trainer.elapsed_time: training has not been started yet (call '
                               'run() first)')
        return time.perf_counter() - self._start_at + self._snapshot_elapsed_time

    def extend(self, extension: Any, name: Optional[str] = None, trigger: Any = None,
               priority: Optional[int] = None, *, call_before_training: bool = False,
               **kwargs: Any) -> None:
        """Register an extension.

        Args:
            extension: A callable ``extension(trainer)``, e.g. an
                :class:`~chainlet.training.Extension` or a function decorated with
                :func:`~chainlet.training.make_extension`.
            name: Registration name; defaults to the extension's ``name``, ``default_name``
                or ``__name__``. A taken name gets a suffix ``_1``, ``_2``, ...
            trigger: When to call it; defaults to the extension's ``trigger`` attribute, else
                every iteration. A ``(period, unit)`` pair becomes an ``IntervalTrigger``.
            priority: Order within an iteration (higher first); defaults to the extension's
                ``priority``, else :data:`~chainlet.training.PRIORITY_READER`.
            call_before_training: Also call the extension once before the first update (on a
                fresh start only, not when resuming).

        Raises:
            TypeError: no name can be found, or an unknown keyword argument was given.
            ValueError: the name is ``'training'``.
            RuntimeError: the training already finished.
        """
        if kwargs:
            if 'invoke_before_training' in kwargs:
                raise TypeError('Trainer.extend: invoke_before_training was removed in '
                                'Chainer 2; use call_before_training=True or an initializer')
            raise TypeError(f'Trainer.extend: unexpected keyword arguments {sorted(kwargs)}')
        if self._done:
            raise RuntimeError('Trainer.extend: the training already finished')
        if not callable(extension):
            raise TypeError(f'Trainer.extend: argument extension: expected a callable, got '
                            f'{type(extension).__name__}')
        if name is None:
            for attr in ('name', 'default_name', '__name__'):
                name = getattr(extension, attr, None)
                if name is not None:
                    break
            else:
                raise TypeError('Trainer.extend: the extension has no name, default_name or '
                                '__name__; pass name=')
        if name == 'training':
            raise ValueError('Trainer.extend: the name "training" is reserved; choose '
                             'another name')
        if trigger is None:
            trigger = getattr(extension, 'trigger', (1, 'iteration'))
        trigger = util.get_trigger(trigger)
        if priority is None:
            priority = getattr(extension, 'priority', extension_module.PRIORITY_READER)
        modified_name = name
        ordinal = 0
        while modified_name in self._extensions:
            ordinal += 1
            modified_name = f'{name}_{ordinal}'
        extension.name = modified_name
        self._extensions[modified_name] = _ExtensionEntry(extension, priority, trigger,
                                                          call_before_training)

    def get_extension(self, name: str) -> Any:
        """The extension registered as ``name``.

        Raises:
            ValueError: no extension has that name.
        """
        if name in self._extensions:
            return self._extensions[name].extension
        raise ValueError(f'Trainer.get_extension: no extension named {name!r}; registered: '
                         f'{list(self._extensions)}')

    def _sorted_extensions(self) -> list:
        # sorted() is stable, so equal priorities keep the registration order.
        names = sorted(self._extensions, key=lambda n: self._extensions[n].priority,
                       reverse=True)
        return [(name, self._extensions[name]) for name in names]

    def run(self, show_loop_exception_msg: bool = True) -> None:
        """Run the training loop until the stop trigger fires.

        First loads the newest snapshot of each ``snapshot(autoload=True)`` extension, then
        calls every extension's ``initialize(trainer)`` (except those whose trigger is
        ``finished``), then, on a fresh start (:attr:`is_before_training`), those marked
        ``call_before_training``, then loops. Loading first lets every ``initialize`` see the
        resumed state, so a schedule such as ``MultistepShift`` sets the resumed value before
        the first update. (Chainer 7.8.1 loads in the snapshot's own ``initialize``, whose
        priority -100 comes after the others, so its schedules start from stale values.)
        When the loop raises, every extension's ``on_error(trainer, exc, tb)`` runs and the
        exception propagates; in any case every ``finalize()`` and ``updater.finalize()`` run.

        Args:
            show_loop_exception_msg: Print the exception and its traceback to stderr before
                the extensions are finalized (useful when a finalizer hangs).

        Raises:
            RuntimeError: :meth:`run` was already called on this trainer.
        """
        if self._done:
            raise RuntimeError('Trainer.run: the training loop cannot run twice; build a new '
                               'Trainer (it can resume from a snapshot)')
        os.makedirs(self.out, exist_ok=True)
        extensions = self._sorted_extensions()
        self._start_at = time.perf_counter()
        for _, entry in extensions:
            # Looked up on the class, so that a mock extension does not get an extra call.
            if callable(getattr(type(entry.extension), 'autoload_snapshot', None)):
                entry.extension.autoload_snapshot(self)
        for _, entry in extensions:
            initializer = getattr(entry.extension, 'initialize', None)
            if initializer and not getattr(entry.trigger, 'finished', False):
                initializer(self)
        reporter = self.reporter
        if self.is_before_training:
            self.observation = {}
            with reporter.scope(self.observation):
                for _, entry in extensions:
                    if entry.call_before_training:
                        entry.extension(self)
        update = self.updater.update
        stop_trigger = self.stop_trigger
        try:
            while not stop_trigger(self):
                self.observation = {}
                with reporter.scope(self.observation):
                    update()
                    for _, entry in extensions:
                        if entry.trigger(self):
                            entry.extension(self)
        except Exception as e:
            if show_loop_exception_msg:
                print(f'Exception in main training loop: {e}', file=sys.stderr)
                print('Traceback (most recent call last):', file=sys.stderr)
                traceback.print_tb(sys.exc_info()[2], file=sys.stderr)
                print('Will finalize trainer extensions and updater before reraising the '
                      'exception.', file=sys.stderr)
            tb = sys.exc_info()[2]
            for _, entry in extensions:
                handler = getattr(entry.extension, 'on_error', None)
                if handler:
                    try:
                        handler(self, e, tb)
                    except Exception as he:
                        print(f'Extension {entry.extension.name!r}: on_error raised '
                              f'{type(he).__name__}: {he}', file=sys.stderr)
            raise
        finally:
            for _, entry in extensions:
                finalize = getattr(entry.extension, 'finalize', None)
                if finalize:
                    finalize()
            self.updater.finalize()
        self._final_elapsed_time = self.elapsed_time
        self._done = True

    def serialize(self, serializer: Any) -> None:
        """Save or load the whole training state.

        Stored: the updater (``updater/...``: iterators, optimizers, models, iteration), the
        stop trigger (``stop_trigger/...``), each extension and its trigger
        (``extensions/<name>/...``, ``extension_triggers/<name>/...``) and the elapsed time.
        A trainer built the same way and loaded from a snapshot continues exactly where the
        snapshot was taken.
        """
        self.updater.serialize(serializer['updater'])
        if hasattr(self.stop_trigger, 'serialize'):
            self.stop_trigger.serialize(serializer['stop_trigger'])
        s = serializer['extensions']
        t = serializer['extension_triggers']
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, 'serialize'):
                entry.extension.serialize(s[name])
            if hasattr(entry.trigger, 'serialize'):
                entry.trigger.serialize(t[name])
        if _is_serializer(serializer):
            started = self._done or self._start_at is not None
            elapsed = self.elapsed_time if started else self._snapshot_elapsed_time
            serializer('_snapshot_elapsed_time', elapsed)
        else:
            self._snapshot_elapsed_time = float(serializer('_snapshot_elapsed_time', 0.0))
