"""``ParallelUpdater``: data-parallel training over several devices within one process.

Example (explicit copies; the updated parameters are copied back to them):
    >>> import copy, numpy as np, chainlet.links as L
    >>> from chainlet import iterators, optimizers, training
    >>> model = L.Classifier(L.Linear(2, 2))
    >>> other = copy.deepcopy(model)
    >>> data = [(np.array([i, 1 - i], np.float32), np.int32(i % 2)) for i in range(4)]
    >>> updater = training.updaters.ParallelUpdater(
    ...     iterators.SerialIterator(data, 4), optimizers.SGD().setup(model),
    ...     models={'main': model, 'second': other})
    >>> updater.update()
    >>> bool((model.predictor.W.array == other.predictor.W.array).all())
    True
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Optional

from chainlet import _config
from chainlet import backend
from chainlet.dataset.convert import _call_converter, concat_examples
from chainlet.link import Link
from chainlet.training.updaters.standard_updater import (
    StandardUpdater, _is_deserializer, call_with_arrays, unscale_grads)


class ParallelUpdater(StandardUpdater):
    """Synchronous data-parallel updater: one model copy per device, one optimizer step.

    Each :meth:`update` draws one batch from the ``'main'`` iterator and deals it out to the
    models in turn (with ``n`` models, model ``i`` gets examples ``i, i + n, i + 2n, ...``),
    converting each part with ``converter(part, device)`` for that model's device. Every model
    computes the loss of its part (``loss_func`` or the model itself is called with the arrays)
    and back-propagates it. The gradients of the other models are then **added** into the
    main model's (moved to the main device), the ``'main'`` optimizer updates the main model,
    and the updated parameters (and persistents) are copied back to the other models.

    Because the gradients are summed, not averaged, a loss that is a mean over its part gives
    the main model the sum of the per-part mean gradients: with two equal halves, twice the
    gradient of the mean loss over the whole batch. This is Chainer's behaviour; scale the
    learning rate accordingly when porting from a one-device setup.

    Observations are reported as by :class:`StandardUpdater`: the main model's under
    ``main/...`` (e.g. ``main/loss``, the loss of the main model's part). Inside a
    :class:`~chainlet.training.Trainer` each other model is registered as an observer under
    its name in ``devices`` (or ``models``), so it reports ``second/loss`` and so on. When
    calling :meth:`update` under a reporter of your own, register those models yourself.

    Args:
        iterator: The training iterator, or a dict of iterators with a ``'main'`` entry.
        optimizer: The optimizer of the main model, or a dict of optimizers with a
            ``'main'`` entry.
        converter: ``converter(batch, device)`` turning one part of the batch into arrays on
            that part's device.
        models: A dict from names to models, with ``'main'`` being the main optimizer's
            target; the others must have the same structure. They are used where they are
            (not moved). ``None``: build them from ``devices``.
        devices: A dict from names to device specs (``'@numpy'``, ``'@cupy:0'``, ...) with
            a ``'main'`` entry. Without ``models``, the main model is moved to
            ``devices['main']`` and each other name gets a deep copy of it moved to its
            device. With ``models``, the keys must be those of ``models`` (``None``: each
            model's own device). The same device may appear more than once.
        loss_func: Called with each part's arrays instead of the model. It is the same
            callable for every part (as in Chainer), so its gradients go to whichever
            parameters it uses; leave it ``None`` to let each model compute its own part.
        loss_scale: Multiply each loss by this factor before backward and divide the summed
            gradients by it before the update (for float16 training).
        auto_new_epoch: Call ``optimizer.new_epoch(auto=True)`` when an epoch ends.

    Raises:
        ValueError: Neither ``models`` nor ``devices`` is given, a dict lacks ``'main'``,
            ``models['main']`` is not the optimizer's target, the keys of ``devices`` and
            ``models`` differ, or a device spec is invalid.
        TypeError: ``models`` or ``devices`` is not a dict, or a model is not a Link.

    Example:
        >>> import tempfile, numpy as np, chainlet.links as L
        >>> from chainlet import iterators, optimizers, training
        >>> x = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
        >>> t = np.array([0, 1, 0, 1, 0, 1], np.int32)
        >>> model = L.Classifier(L.Linear(2, 2))
        >>> optimizer = optimizers.SGD(lr=0.1).setup(model)
        >>> it = iterators.SerialIterator(list(zip(x, t)), batch_size=6, shuffle=False)
        >>> updater = training.updaters.ParallelUpdater(
        ...     it, optimizer, devices={'main': '@numpy', 'second': '@numpy'})
        >>> trainer = training.Trainer(updater, (2, 'iteration'), out=tempfile.mkdtemp())
        >>> trainer.run()
        >>> sorted(trainer.observation)
        ['main/accuracy', 'main/loss', 'second/accuracy', 'second/loss']
    """

    def __init__(self, iterator: Any, optimizer: Any, converter: Callable = concat_examples,
                 models: Optional[dict] = None, devices: Optional[dict] = None,
                 loss_func: Optional[Callable] = None, loss_scale: Optional[float] = None,
                 auto_new_epoch: bool = True) -> None:
        super().__init__(iterator, optimizer, converter=converter, loss_func=loss_func,
                         loss_scale=loss_scale, auto_new_epoch=auto_new_epoch)
        if 'main' not in self._optimizers:
            raise ValueError(f"ParallelUpdater: argument optimizer: a dict of optimizers needs "
                             f"a 'main' entry, got keys {sorted(self._optimizers)}")
        target = self._optimizers['main'].target
        if models is None and devices is None:
            raise ValueError('ParallelUpdater: give either models or devices (a dict such as '
                             "{'main': '@cupy:0', 'second': '@cupy:1'})")
        if devices is not None:
            devices = _check_devices(devices)
        if models is None:  # so devices were given (checked above)
            assert devices is not None
            models = {'main': target}
            for name, device in devices.items():
                if name != 'main':
                    models[name] = copy.deepcopy(target).to_device(device)
            target.to_device(devices['main'])
        else:
            _check_models(models, target)
            if devices is None:
                devices = {name: backend.get_device(model.device)
                           for name, model in models.items()}
            elif set(devices) != set(models):
                raise ValueError(f'ParallelUpdater: argument devices: expected the keys of '
                                 f'models {sorted(models)}, got {sorted(devices)}')
        self._models: dict = dict(models)
        self._devices: dict = {name: devices[name] for name in self._models}
        self._copies_stale = False  # set by loading a snapshot (see serialize)

    def connect_trainer(self, trainer: Any) -> None:
        """Register each other model (and its child links) as an observer under its name."""
        main = self._optimizers['main'].target
        for name, model in self._models.items():
            if model is not main:
                trainer.reporter.add_observer(name, model)
                trainer.reporter.add_observers(name, model.namedlinks(skipself=True))

    def update_core(self) -> None:
        """Split one batch over the models, sum their gradients into the main model, update.
        """
        optimizer = self._optimizers['main']
        main = optimizer.target
        iterator = self._iterators['main']
        batch = iterator.next()
        n = len(self._models)
        if len(batch) < n:
            raise ValueError(f'ParallelUpdater.update: the batch has {len(batch)} examples, '
                             f'fewer than the {n} devices; use a batch size of at least {n}')
        in_arrays = {name: _call_converter(self.converter, batch[i::n], self._devices[name])
                     for i, name in enumerate(self._models)}
        others = [model for model in self._models.values() if model is not main]
        if self._copies_stale:
            self._copy_main_to_others()
            self._copies_stale = False
        for model in self._models.values():
            model.cleargrads()
        # The main model runs first so that copies whose parameters are still uninitialized
        # (lazy links) can take the main model's values instead of drawing their own.
        names = sorted(self._models, key=lambda name: self._models[name] is not main)
        losses = []
        with _config.force_backprop_mode():
            for name in names:
                model = self._models[name]
                if model is not main and any(p.array is None for p in model.params()):
                    model.copyparams(main)
                with backend.using_device(self._devices[name]):
                    losses.append(call_with_arrays(self.loss_func or model, in_arrays[name]))
        for name, loss in zip(names, losses):
            with backend.using_device(self._devices[name]):
                loss.backward(loss_scale=self.loss_scale)
        del losses
        with backend.using_device(self._devices['main']):
            for model in others:
                main.addgrads(model)
            unscale_grads(main, self.loss_scale)
        optimizer.update()
        self._copy_main_to_others()
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def _copy_main_to_others(self) -> None:
        # Link.copyparams copies across devices (cupy.copyto accepts arrays on two GPUs).
        main = self._optimizers['main'].target
        for model in self._models.values():
            if model is not main:
                model.copyparams(main)

    def serialize(self, serializer: Any) -> None:
        """Save or load the state as :class:`StandardUpdater` does (the main model only).

        After loading, the other models take the main model's parameters at the next
        update (a deserializer may fill the arrays only when it finishes), so a resumed run
        starts from the same values everywhere.
        """
        super().serialize(serializer)
        if _is_deserializer(serializer):
            self._copies_stale = True


def _check_devices(devices: Any) -> dict:
    if not isinstance(devices, dict):
        raise TypeError(f"ParallelUpdater: argument devices: expected a dict such as "
                        f"{{'main': '@cupy:0', 'second': '@cupy:1'}}, got "
                        f"{type(devices).__name__}")
    if 'main' not in devices:
        raise ValueError(f"ParallelUpdater: argument devices: needs a 'main' entry, got keys "
                         f"{sorted(devices)}")
    resolved = {}
    for name, spec in devices.items():
        try:
            resolved[name] = backend.get_device(spec)
        except (TypeError, ValueError, RuntimeError) as e:
            raise type(e)(f'ParallelUpdater: argument devices: entry {name!r}: {e}') from e
    return resolved


def _check_models(models: Any, target: Any) -> None:
    if not isinstance(models, dict):
        raise TypeError(f'ParallelUpdater: argument models: expected a dict from names to '
                        f'links, got {type(models).__name__}')
    if 'main' not in models:
        raise ValueError(f"ParallelUpdater: argument models: needs a 'main' entry, got keys "
                         f"{sorted(models)}")
    for name, model in models.items():
        if not isinstance(model, Link):
            raise TypeError(f'ParallelUpdater: argument models: expected Links, got '
                            f'{type(model).__name__} for {name!r}')
    if models['main'] is not target:
        raise ValueError("ParallelUpdater: argument models: models['main'] must be the main "
                         "optimizer's target")
