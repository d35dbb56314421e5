"""``StandardUpdater``: one optimizer step per iteration, optionally over several micro-batches.

Example:
    >>> import numpy as np, chainlet, chainlet.links as L
    >>> from chainlet import iterators, optimizers, training
    >>> x = np.random.RandomState(0).rand(8, 3).astype(np.float32)
    >>> t = (x.sum(axis=1) > 1.5).astype(np.int32)
    >>> model = L.Classifier(L.Linear(3, 2))
    >>> optimizer = optimizers.SGD(lr=0.1).setup(model)
    >>> it = iterators.SerialIterator(list(zip(x, t)), batch_size=4)
    >>> updater = training.updaters.StandardUpdater(it, optimizer)
    >>> updater.update()
    >>> updater.iteration, updater.epoch_detail, optimizer.t
    (1, 0.5, 1)
"""
from __future__ import annotations

import numbers
import warnings
from typing import Any, Callable, Optional

from chainlet.dataset.convert import _call_converter, concat_examples
from chainlet.training._updater import Updater


def call_with_arrays(func: Callable, in_arrays: Any) -> Any:
    """Call ``func`` with a converted batch: a tuple is spread, a dict passed as keywords."""
    if isinstance(in_arrays, tuple):
        return func(*in_arrays)
    if isinstance(in_arrays, dict):
        return func(**in_arrays)
    return func(in_arrays)


def unscale_grads(link: Any, loss_scale: Optional[float]) -> None:
    """Divide every gradient of ``link`` by ``loss_scale`` in place (nothing when ``None``)."""
    if loss_scale is None:
        return
    inverse = 1.0 / float(loss_scale)
    for param in link.params():
        grad = param.grad
        if grad is not None:
            grad *= inverse


def _is_deserializer(serializer: Any) -> bool:
    from chainlet.serializers import Deserializer
    return isinstance(serializer, Deserializer)


def serialize_order_sampler(iterator: Any, serializer: Any) -> None:
    """Save or load the state of ``iterator``'s order sampler (its random generator).

    Iterators save their position and current order but not the sampler's random state; a
    sampler with a ``serialize`` method (``ShuffleOrderSampler`` has one) saves it, so a resumed
    run shuffles later epochs as an uninterrupted one would.
    """
    sampler = getattr(iterator, 'order_sampler', None)
    if sampler is None or not hasattr(sampler, 'serialize'):
        return
    try:
        sampler.serialize(serializer)
    except KeyError:
        if not _is_deserializer(serializer):
            raise
        # Chainer does not save samplers: its snapshots load, and the sampler goes on from
        # its current random state.
        warnings.warn('StandardUpdater: the snapshot has no state of the order sampler (a '
                      'Chainer snapshot); later epochs are shuffled from its current state',
                      stacklevel=3)


class StandardUpdater(Updater):
    """The standard updater: draw a batch, compute the loss, backprop, update.

    Each :meth:`update` takes the next batch of the ``'main'`` iterator, converts it with
    ``converter(batch, device)`` and calls ``optimizer.update(loss_func, *in_arrays)`` (a dict
    batch is passed as keywords), so the target link (or ``loss_func``) returns the loss.

    With ``accumulate=N`` one update runs N micro-batches instead: the gradients are cleared
    once, each micro-batch's loss is back-propagated scaled by ``1/N`` (so the gradients add up
    to those of the mean loss over the N micro-batches), and the optimizer makes one step. For
    equally sized micro-batches and a model without batch statistics this gives the update of
    one N times larger batch while holding only one micro-batch in memory. Scalar observations
    reported during the micro-batches (``main/loss``, ...) are averaged.

    Args:
        iterator: The dataset iterator, or a dict of iterators with a ``'main'`` entry.
        optimizer: The optimizer, or a dict of optimizers (the default :meth:`update_core`
            uses the ``'main'`` one).
        converter: ``converter(batch, device)`` turning a list of examples into arrays.
        device: Device to send the targets of the optimizers and the input arrays to
            (``None`` keeps everything where it is).
        loss_func: Loss function called with the arrays; the main optimizer's target if
            ``None``.
        loss_scale: Multiply the loss by this factor before backward and divide the
            gradients by it before the update (loss scaling for float16 training).
        auto_new_epoch: Call ``optimizer.new_epoch(auto=True)`` when an epoch ends.
        accumulate: Number of micro-batches per update (gradient accumulation).
        input_device: Device for the input arrays only (defaults to ``device``).

    Attributes:
        iteration (int): Number of completed updates.
        converter, loss_func, loss_scale, auto_new_epoch, accumulate: As given.
    """

    def __init__(self, iterator: Any, optimizer: Any, converter: Callable = concat_examples,
                 device: Any = None, loss_func: Optional[Callable] = None,
                 loss_scale: Optional[float] = None, auto_new_epoch: bool = True, *,
                 accumulate: int = 1, input_device: Any = None) -> None:
        owner = type(self).__name__  # subclasses' errors name the subclass
        iterators = iterator if isinstance(iterator, dict) else {'main': iterator}
        optimizers = optimizer if isinstance(optimizer, dict) else {'main': optimizer}
        # Only the iterator needs a 'main' entry (the epoch counters read it); a dict of
        # optimizers may use any names, as in a GAN updater that overrides update_core.
        if 'main' not in iterators:
            raise ValueError(f"{owner}: argument iterator: a dict of iterators needs a "
                             f"'main' entry, got keys {sorted(iterators)}")
        for name, opt in optimizers.items():
            if getattr(opt, 'target', None) is None:
                raise RuntimeError(f'{owner}: optimizer {name!r} has no target; call '
                                   f'optimizer.setup(model) first')
        if not callable(converter):
            raise TypeError(f'{owner}: argument converter: expected a callable, got '
                            f'{type(converter).__name__}')
        if isinstance(accumulate, bool) or not isinstance(accumulate, numbers.Integral) \
                or accumulate < 1:
            raise ValueError(f'{owner}: argument accumulate: expected a positive int, '
                             f'got {accumulate!r}')
        if loss_scale is not None and not loss_scale > 0:
            raise ValueError(f'{owner}: argument loss_scale: expected a positive '
                             f'number or None, got {loss_scale!r}')
        self._iterators: dict = iterators
        self._optimizers: dict = optimizers
        if device is not None:
            for opt in optimizers.values():
                opt.target.to_device(device)
        self.device: Any = device
        self.input_device: Any = device if input_device is None else input_device
        self.converter: Callable = converter
        self.loss_func: Optional[Callable] = loss_func
        self.loss_scale: Optional[float] = loss_scale
        self.accumulate: int = int(accumulate)
        self.iteration: int = 0
        self.auto_new_epoch: bool = auto_new_epoch
        if auto_new_epoch:
            for opt in optimizers.values():
                opt.use_auto_new_epoch = True
        # Epoch progress over the micro-batches of the last update (accumulate > 1 only).
        self._previous_epoch_detail: Optional[float] = None
        self._is_new_epoch: bool = False

    # -- progress (read by triggers and extensions) --

    @property
    def epoch(self) -> int:
        """Completed epochs of the main iterator."""
        return self._iterators['main'].epoch

    @property
    def epoch_detail(self) -> float:
        """Epochs as a float (``epoch`` plus the fraction of the current one)."""
        return self._iterators['main'].epoch_detail

    @property
    def previous_epoch_detail(self) -> Optional[float]:
        """``epoch_detail`` before the last update (``None`` before the first one)."""
        if self.accumulate > 1 and self._previous_epoch_detail is not None:
            return self._previous_epoch_detail
        return self._iterators['main'].previous_epoch_detail

    @property
    def is_new_epoch(self) -> bool:
        """True when the last update finished an epoch."""
        if self.accumulate > 1 and self._previous_epoch_detail is not None:
            return self._is_new_epoch
        return self._iterators['main'].is_new_epoch

    # -- access --

    def get_optimizer(self, name: str) -> Any:
        """The optimizer registered as ``name``."""
        try:
            return self._optimizers[name]
        except KeyError:
            owner = type(self).__name__
            raise KeyError(f'{owner}.get_optimizer: no optimizer named {name!r}; the '
                           f'updater has {sorted(self._optimizers)}') from None

    def get_all_optimizers(self) -> dict:
        """A new dict from names to optimizers."""
        return dict(self._optimizers)

    def get_iterator(self, name: str) -> Any:
        """The iterator registered as ``name``."""
        try:
            return self._iterators[name]
        except KeyError:
            owner = type(self).__name__
            raise KeyError(f'{owner}.get_iterator: no iterator named {name!r}; the '
                           f'updater has {sorted(self._iterators)}') from None

    # -- the update --

    def update(self) -> None:
        """Perform one update and increment :attr:`iteration`."""
        self.update_core()
        self.iteration += 1

    def update_core(self) -> None:
        """One update without touching :attr:`iteration` (override to customize)."""
        iterator = self._iterators['main']
        optimizer = self.get_optimizer('main')
        loss_func = self.loss_func or optimizer.target
        if self.accumulate == 1 and self.loss_scale is None:
            in_arrays = _call_converter(self.converter, iterator.next(), self.input_device)
            if isinstance(in_arrays, tuple):
                optimizer.update(loss_func, *in_arrays)
            elif isinstance(in_arrays, dict):
                optimizer.update(loss_func, **in_arrays)
            else:
                optimizer.update(loss_func, in_arrays)
            new_epoch = iterator.is_new_epoch
        else:
            new_epoch = self._update_accumulated(iterator, optimizer, loss_func)
        if self.auto_new_epoch and new_epoch:
            optimizer.new_epoch(auto=True)

    def _update_accumulated(self, iterator: Any, optimizer: Any, loss_func: Callable) -> bool:
        from chainlet import reporter as reporter_module
        n = self.accumulate
        scale = (1.0 if self.loss_scale is None else float(self.loss_scale)) / n
        stack = reporter_module._reporters()
        reporter = stack[-1] if stack and n > 1 else None
        summary = reporter_module.DictSummary()
        last_observation: dict = {}
        previous_detail = iterator.epoch_detail
        crossed = False
        optimizer.target.cleargrads()
        for _ in range(n):
            in_arrays = _call_converter(self.converter, iterator.next(), self.input_device)
            crossed = crossed or bool(iterator.is_new_epoch)
            if reporter is None:
                loss = call_with_arrays(loss_func, in_arrays)
            else:
                last_observation = {}
                with reporter.scope(last_observation):
                    loss = call_with_arrays(loss_func, in_arrays)
                summary.add(last_observation)
            loss.backward(loss_scale=None if scale == 1.0 else scale)
            del loss
        if reporter is not None:
            reporter.observation.update(last_observation)
            reporter.observation.update(summary.compute_mean())
        unscale_grads(optimizer.target, self.loss_scale)
        optimizer.update()
        self._previous_epoch_detail = previous_detail
        self._is_new_epoch = crossed
        return crossed

    # -- life cycle --

    def finalize(self) -> None:
        """Finalize every iterator (stops worker processes of parallel iterators)."""
        for iterator in self._iterators.values():
            finalize = getattr(iterator, 'finalize', None)
            if finalize is not None:
                finalize()

    def serialize(self, serializer: Any) -> None:
        """Save or load iterators (with their order sampler's random state), optimizers,
        models and :attr:`iteration`.

        The keys follow Chainer: ``iterator:main/...``, ``optimizer:main/...``,
        ``model:main/...`` and ``iteration``.
        """
        for name, iterator in self._iterators.items():
            iterator.serialize(serializer['iterator:' + name])
            serialize_order_sampler(iterator, serializer['order_sampler:' + name])
        for name, opt in self._optimizers.items():
            opt.serialize(serializer['optimizer:' + name])
            opt.target.serialize(serializer['model:' + name])
        iteration = serializer('iteration', self.iteration)
        if iteration is not None:  # a custom serializer may return nothing when saving
            self.iteration = int(iteration)
