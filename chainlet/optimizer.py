"""Optimizer base classes: ``Hyperparameter``, ``UpdateRule``, ``Optimizer``, ``GradientMethod``.

An optimizer is set up on a :class:`~chainlet.Link`; it gives every parameter an
:class:`UpdateRule` (stored as ``param.update_rule``) that knows how to update that one array
and keeps its state (moving averages and the like). The rules' hyperparameters fall back to the
optimizer's, so changing ``optimizer.lr`` changes every rule that does not override it.

Example:
    >>> import numpy as np, chainlet
    >>> from chainlet import optimizers
    >>> class Model(chainlet.Link):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.w = chainlet.Parameter(np.array([1.0, 2.0], np.float32))
    >>> model = Model()
    >>> opt = optimizers.SGD(lr=0.5).setup(model)
    >>> model.w.grad = np.array([1.0, -1.0], np.float32)
    >>> opt.update()
    >>> model.w.array
    array([0.5, 2.5], dtype=float32)
    >>> opt.t
    1
"""
from __future__ import annotations

import copy
import inspect
import warnings
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy

from chainlet import backend


class Hyperparameter:
    """A bag of hyperparameter values with an optional parent to fall back to.

    Reading an attribute that is not set here reads it from the parent (and so on up). Update
    rules get the optimizer's hyperparameter as their parent, so an override on a rule affects
    that rule only.

    Args:
        parent: The hyperparameter that provides the defaults, or ``None``.

    Example:
        >>> from chainlet.optimizer import Hyperparameter
        >>> base = Hyperparameter()
        >>> base.lr = 0.1
        >>> child = Hyperparameter(base)
        >>> child.lr
        0.1
        >>> child.lr = 0.5
        >>> base.lr, child.lr
        (0.1, 0.5)
        >>> child
        Hyperparameter(lr=0.5)
    """

    def __init__(self, parent: Optional['Hyperparameter'] = None) -> None:
        self._parent = parent

    if TYPE_CHECKING:  # entries are set by name (``hp.lr = 0.1``): any attribute, for mypy
        def __setattr__(self, name: str, value: Any) -> None: ...

    def __getattr__(self, name: str) -> Any:
        # Only called for names not set here. Walks the parents' __dict__s directly (no nested
        # __getattr__ calls: update rules read several entries per parameter per step). An
        # object without _parent yet (copy/pickle probing before __init__) simply has nothing.
        parent = self.__dict__.get('_parent')
        while parent is not None:
            d = parent.__dict__
            if name in d:
                return d[name]
            parent = d.get('_parent')
        raise AttributeError(f'Hyperparameter has no entry {name!r}')

    @property
    def parent(self) -> Optional['Hyperparameter']:
        """The hyperparameter this one falls back to."""
        return self._parent

    def get_dict(self) -> dict:
        """All entries visible from here (the parent's, overridden by this one's)."""
        d = {} if self._parent is None else self._parent.get_dict()
        d.update((k, v) for k, v in self.__dict__.items() if k != '_parent')
        return d

    def __repr__(self) -> str:
        d = self.get_dict()
        return 'Hyperparameter(' + ', '.join(f'{k}={d[k]}' for k in sorted(d)) + ')'


class HyperparameterProxy:
    """Descriptor that exposes ``obj.hyperparam.<name>`` as ``obj.<name>``.

    Optimizers declare ``lr = HyperparameterProxy('lr')`` so that ``optimizer.lr`` reads and
    writes the optimizer-wide value.
    """

    def __init__(self, attr_name: str) -> None:
        self._attr_name = attr_name
        self.__doc__ = f'Alias of ``self.hyperparam.{attr_name}``.'

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.hyperparam, self._attr_name, value)


def _hook_name(hook: Callable, name: Optional[str], where: str) -> str:
    if name is None:
        name = getattr(hook, 'name', None) or getattr(hook, '__name__', None)
    if name is None:
        raise ValueError(f'{where}: argument name: the hook has no name attribute; pass name=')
    return name


def _hook_timing(timing: str, hook: Callable, where: str) -> str:
    if timing not in ('pre', 'post', 'auto'):
        raise ValueError(f"{where}: argument timing: expected 'pre', 'post' or 'auto', "
                         f'got {timing!r}')
    if timing == 'auto':
        timing = getattr(hook, 'timing', 'pre')
        if timing not in ('pre', 'post'):
            timing = 'pre'
    return timing


def _is_deserializer(serializer: Any) -> bool:
    # Serializers are another package; recognise the loading side by Chainer's class name so
    # that this module does not import it.
    return any(c.__name__ == 'Deserializer' for c in type(serializer).__mro__)


class UpdateRule:
    """How one parameter is updated, with its own state, hyperparameters and hooks.

    Subclasses implement :meth:`init_state` (create the state arrays) and
    :meth:`update_core_cpu` / :meth:`update_core_gpu` (or :meth:`update_core`).

    Args:
        parent_hyperparam: Hyperparameter to fall back to (usually the optimizer's).

    Attributes:
        hyperparam (Hyperparameter): This rule's hyperparameters.
        enabled (bool): ``False`` freezes the parameter (``update`` does nothing).
        t (int): Number of updates made by this rule.
    """

    _custom_update_core = False
    # Built-in rules (those of chainlet.optimizers) have nothing to do for a parameter without
    # data or gradient; a user's rule is called regardless, as in Chainer.
    _skip_empty = False
    # Built-in adaptive rules compute float16 parameters through float32 intermediates (so
    # that eps and squared gradients do not underflow), as Chainer's Adam does.
    _fp16_intermediate = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._custom_update_core = cls.update_core is not UpdateRule.update_core
        cls._skip_empty = cls.__module__.startswith('chainlet.')

    def __init__(self, parent_hyperparam: Optional[Hyperparameter] = None) -> None:
        self._pre_update_hooks: dict = {}
        self._post_update_hooks: dict = {}
        self._state: Optional[dict] = None
        # Where the state lives: -1 for the host, the GPU id for CuPy, None when unknown. A
        # mismatch with the parameter (after a move of the link or loading a snapshot) moves
        # the state once.
        self._state_type: Any = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param: Any = None

    @property
    def state(self) -> dict:
        """The state arrays (``None`` until the first update)."""
        # Typed as a dict: init_state and update_core, the code that reads it, run after the
        # first update has created it.
        return self._state  # type: ignore[return-value]

    def add_hook(self, hook: Callable, name: Optional[str] = None,
                 timing: str = 'auto') -> None:
        """Register ``hook(rule, param)`` to run before (``'pre'``) or after the update.

        Args:
            hook: The callable, e.g. ``optimizer_hooks.WeightDecay(1e-4)``.
            name: Registration name; ``hook.name`` or ``hook.__name__`` by default.
            timing: ``'pre'``, ``'post'`` or ``'auto'`` (the hook's ``timing`` attribute,
                ``'pre'`` if it has none).
        """
        if not callable(hook):
            raise TypeError(f'UpdateRule.add_hook: argument hook: expected a callable, got '
                            f'{type(hook).__name__}')
        timing = _hook_timing(timing, hook, 'UpdateRule.add_hook')
        name = _hook_name(hook, name, 'UpdateRule.add_hook')
        if name in self._pre_update_hooks or name in self._post_update_hooks:
            raise ValueError(f'UpdateRule.add_hook: a hook named {name!r} already exists')
        (self._pre_update_hooks if timing == 'pre' else self._post_update_hooks)[name] = hook

    def remove_hook(self, name: str) -> None:
        """Remove the hook registered as ``name`` (``KeyError`` if there is none)."""
        if name in self._pre_update_hooks:
            del self._pre_update_hooks[name]
        elif name in self._post_update_hooks:
            del self._post_update_hooks[name]
        else:
            raise KeyError(f'UpdateRule.remove_hook: no hook named {name!r}')

    def update(self, param: Any) -> None:
        """Update ``param`` in place from its gradient.

        Does nothing when the rule is disabled. Otherwise increments :attr:`t`, creates the
        state on first use (or moves it to the parameter's device), divides the gradient by the
        parameter's loss scale if it has one, and runs the pre-update hooks,
        :meth:`update_core` and the post-update hooks. The built-in rules skip a parameter
        without data or gradient.
        """
        if not self.enabled:
            return
        self.t += 1
        data = param.array
        if self._use_fp32_update and self._param_dtype(param, data) == numpy.float16:
            self._run_fp32(param, data)
        elif data is not None and type(data) is not numpy.ndarray:
            with data.device:  # CuPy: state and temporaries on the parameter's GPU
                self._run(param, data)
        else:
            self._run(param, data)

    @staticmethod
    def _param_dtype(param: Any, data: Any) -> Any:
        if data is not None:
            return data.dtype
        try:
            return param.dtype
        except RuntimeError:  # an uninitialized parameter without a dtype
            return None

    def _run(self, param: Any, data: Any) -> None:
        if data is not None and self._state_type != _where(data):
            self._prepare_state(param)
        scale = getattr(param, '_loss_scale', None)
        if scale is not None and param.grad is not None:
            param.grad = param.grad / scale
        if self._pre_update_hooks:
            for hook in tuple(self._pre_update_hooks.values()):
                hook(self, param)
        if self._skip_empty and (data is None or param.grad is None):
            pass
        elif 'update_core' in self.__dict__ or self._custom_update_core:
            self.update_core(param)
        elif type(data) is numpy.ndarray:
            if self._fp16_intermediate and data.dtype == numpy.float16:
                self._update_fp16(param, data)
            else:
                self.update_core_cpu(param)  # skips one call on the common path
        elif self._fp16_intermediate and data is not None and data.dtype == numpy.float16:
            self._update_fp16(param, data)
        else:
            self.update_core(param)
        if self._post_update_hooks:
            for hook in tuple(self._post_update_hooks.values()):
                hook(self, param)

    def _update_fp16(self, param: Any, data: Any) -> None:
        # float32 copies of the parameter, its gradient and the state take the update; the
        # results are rounded back into the float16 arrays.
        from chainlet.variable import Variable
        state = self._state
        assert state is not None  # _run prepared it
        wide = {k: v.astype(numpy.float32) if _is_float16_array(v) else v
                for k, v in state.items()}
        proxy = Variable(data.astype(numpy.float32), name=param.name)
        proxy.grad = param.grad.astype(numpy.float32)
        self._state = wide
        try:
            self.update_core(proxy)
        finally:
            self._state = state
        for key, value in wide.items():
            if _is_float16_array(state.get(key)):
                state[key][...] = value
        data[...] = proxy.array

    def _run_fp32(self, param: Any, data: Any) -> None:
        # A float32 master copy takes the update; the float16 parameter receives it rounded.
        if data is None:  # nothing to copy yet: the rule sees a float32 stand-in
            from chainlet import initializers
            from chainlet.parameter import Parameter
            self._run(Parameter(initializers.NaN(numpy.float32), name=param.name), None)
            return
        from chainlet.variable import Variable
        master = self._fp32_param
        if master is None or master.shape != data.shape:
            master = self._fp32_param = Variable(data.astype(numpy.float32), name=param.name)
        master.grad = None if param.grad is None else param.grad.astype(numpy.float32)
        scale = getattr(param, '_loss_scale', None)
        if scale is not None and master.grad is not None:
            master.grad = master.grad / scale
        if type(data) is numpy.ndarray:
            self._run(master, master.array)
        else:
            with data.device:
                self._run(master, master.array)
        data[...] = master.array
        master.grad = None

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through a float32 master copy (mixed precision).

        Args:
            flag: Turn it on (``True``) or off.
        """
        self._use_fp32_update = flag
        if not flag:
            self._fp32_param = None

    def _prepare_state(self, param: Any) -> None:
        data = param.array
        if self._state is None:
            self._state = {}
            self.init_state(param)
        else:
            gpu = backend.is_cupy_array(data)
            for key, value in self._state.items():
                if backend.is_array(value) or isinstance(value, numpy.generic):
                    if gpu:
                        value = backend.to_gpu(value, data.device.id)
                    else:
                        value = backend.to_cpu(value)
                    self._state[key] = value.astype(data.dtype, copy=False) \
                        if value.dtype.kind == 'f' else value
        self._state_type = _where(data)

    def init_state(self, param: Any) -> None:
        """Create the state arrays in :attr:`state` (rules without state leave it empty).

        Args:
            param: The parameter; its ``array`` gives shape, dtype and array module.
        """

    def update_core(self, param: Any) -> None:
        """Update ``param`` (dispatches to :meth:`update_core_cpu` or
        :meth:`update_core_gpu` by array module)."""
        if backend.is_cupy_array(param.array):
            self.update_core_gpu(param)
        else:  # NumPy, or an uninitialized parameter (which lives on the CPU until sent)
            self.update_core_cpu(param)

    def update_core_cpu(self, param: Any) -> None:
        """Update a NumPy parameter in place (subclasses implement this)."""
        raise NotImplementedError(f'{type(self).__name__} does not implement update_core_cpu')

    def update_core_gpu(self, param: Any) -> None:
        """Update a CuPy parameter in place (subclasses implement this)."""
        raise NotImplementedError(f'{type(self).__name__} does not implement update_core_gpu')

    def update_core_chainerx(self, param: Any) -> None:
        """Update a ChainerX parameter; ChainerX is not available in chainlet.

        Raises:
            RuntimeError: Always.
        """
        raise RuntimeError(f'{type(self).__name__}.update_core_chainerx: ChainerX is not '
                           f'available')

    def serialize(self, serializer: Any) -> None:
        """Save or load :attr:`t` and the state arrays through ``serializer``.

        When loading into a rule that has no state yet, the keys are found by running
        :meth:`init_state` on a dummy parameter; a snapshot without them leaves the state to be
        created on the next update.
        """
        self.t = serializer('t', self.t)
        if self._state is not None:
            for key in list(self._state):
                self._state[key] = serializer(key, self._state[key])
            if _is_deserializer(serializer):
                self._state_type = None  # loaded arrays may sit on another device
            return
        if not _is_deserializer(serializer):
            return
        from chainlet.variable import Variable
        # The keys are found by running init_state on a dummy parameter; a copy of the rule
        # shares the new state dict, so an init_state that writes to self.state works too.
        self._state = {}
        probe = copy.copy(self)
        dummy = numpy.empty(1, dtype=numpy.float32)
        probe.init_state(Variable(dummy, grad=dummy))
        for key in list(self._state):
            try:
                value = serializer(key, None)
            except KeyError:
                if self.enabled:
                    self._state = None
                    raise
                value = None
            if value is None:  # not in the snapshot: created on the next update
                self._state = None
                return
            self._state[key] = value
        self._state_type = None


def _zero_grad(param: Any) -> None:
    """Give a parameter whose gradient was cleared a zero one (as Chainer does before updates)."""
    param.grad = backend.get_array_module(param.array).zeros_like(param.array)


def _where(array: Any) -> int:
    return -1 if type(array) is numpy.ndarray else array.device.id


def _is_float16_array(value: Any) -> bool:
    return backend.is_array(value) and value.dtype == numpy.float16


# Keras's and PyTorch's names of hyperparameters, and the names Chainer gives them: an optimizer
# called with one of the former gets a TypeError that names the latter (issue 32).
_OTHER_NAMES = {
    'lr': ('alpha',), 'learning_rate': ('lr', 'alpha'), 'epsilon': ('eps',),
    'beta_1': ('beta1',), 'beta_2': ('beta2',), 'rho': ('alpha',),
    'weight_decay': ('weight_decay_rate',),
}
# What differs beyond the name.
_NOTES = {
    'weight_decay_rate': ' (decoupled weight decay, as in AdamW; for an L2 term add '
                         'chainlet.optimizer_hooks.WeightDecay(rate) after setup)',
}
_HOOK_HINTS = {
    'betas': 'pass beta1=... and beta2=... (Chainer takes them apart, not as a betas tuple)',
    'weight_decay': 'add a hook after setup: optimizer.add_hook('
                    'chainlet.optimizer_hooks.WeightDecay(rate))',
    'clipnorm': 'add a hook after setup: optimizer.add_hook('
                'chainlet.optimizer_hooks.GradientClipping(threshold))',
    'clipvalue': 'add a hook after setup: optimizer.add_hook('
                 'chainlet.optimizer_hooks.GradientHardClipping(-value, value))',
    'momentum': 'SGD with momentum is chainlet.optimizers.MomentumSGD(lr, momentum)',
    'nesterov': 'SGD with Nesterov momentum is chainlet.optimizers.NesterovAG(lr, momentum)',
    'amsgrad': 'use chainlet.optimizers.AMSGrad or Adam(amsgrad=True)',
}


def _check_keyword_names(cls: type, kwargs: dict) -> None:
    """Raise a TypeError naming Chainer's argument when a Keras/PyTorch name is given."""
    params = inspect.signature(cls.__init__).parameters  # type: ignore[misc]
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    accepted = [n for n in params if n != 'self']
    for name in kwargs:
        if name in params:
            continue
        ours = next((n for n in _OTHER_NAMES.get(name, ()) if n in params), None)
        if ours is not None:
            hint = (f'Chainer\'s {cls.__name__} calls it {ours!r}: {cls.__name__}({ours}=...)'
                    + _NOTES.get(ours, ''))
        elif name in ('lr', 'learning_rate'):
            hint = f'Chainer\'s {cls.__name__} has no learning rate'
        elif name in _HOOK_HINTS:
            hint = _HOOK_HINTS[name]
        else:
            hint = 'check the spelling'
        raise TypeError(f'{cls.__name__}: unexpected keyword argument {name!r}; {hint} '
                        f'(its arguments: {", ".join(accepted) or "none"})')


class Optimizer:
    """Base class of optimizers: a target link, an update count, an epoch count and hooks.

    Subclasses implement :meth:`update`. Use :class:`GradientMethod` for optimizers that update
    each parameter from its gradient.

    Attributes:
        target: The link being optimized (set by :meth:`setup`).
        t (int): Number of updates done.
        epoch (int): Number of :meth:`new_epoch` calls.
        use_auto_new_epoch (bool): Set by updaters that call ``new_epoch(auto=True)``.
    """

    target: Any = None
    t = 0
    epoch = 0
    use_auto_new_epoch = False
    # None until setup (so that _check_setup can say so); dicts from then on.
    _pre_update_hooks: dict = None  # type: ignore[assignment]
    _post_update_hooks: dict = None  # type: ignore[assignment]
    _loss_scale: Optional[float] = None
    _loss_scale_max = 65504.0  # the largest float16
    _loss_scaling_is_dynamic = False
    _loss_scaling_isnan = False

    def __new__(cls, *args: Any, **kwargs: Any) -> 'Optimizer':
        if kwargs:  # Python's own TypeError would not say what Chainer calls the argument
            _check_keyword_names(cls, kwargs)
        return super().__new__(cls)

    def setup(self, link: Any) -> 'Optimizer':
        """Set ``link`` as the target and reset counters and hooks; returns ``self``."""
        from chainlet.link import Link
        if not isinstance(link, Link):
            raise TypeError(f'{type(self).__name__}.setup: optimization target must be a link '
                            f'(argument link: expected a chainlet.Link, got '
                            f'{type(link).__name__})')
        self.target = link
        self.t = 0
        self.epoch = 0
        self._pre_update_hooks = {}
        self._post_update_hooks = {}
        return self

    def _check_setup(self, where: str) -> None:
        if self._pre_update_hooks is None:
            raise RuntimeError(f'{type(self).__name__}.{where}: call setup(link) first')

    def update(self, lossfun: Optional[Callable] = None, *args: Any, **kwds: Any) -> None:
        """Update the target's parameters (see :meth:`GradientMethod.update`)."""
        raise NotImplementedError(f'{type(self).__name__} does not implement update')

    def new_epoch(self, auto: bool = False) -> None:
        """Increment :attr:`epoch`.

        Args:
            auto: ``True`` when an updater calls it; then :attr:`use_auto_new_epoch` must be
                set, and manual calls are refused (to avoid counting an epoch twice).
        """
        if auto and not self.use_auto_new_epoch:
            raise RuntimeError(f'{type(self).__name__}.new_epoch: auto=True but '
                               f'use_auto_new_epoch is False; the updater must set it')
        if not auto and self.use_auto_new_epoch:
            raise RuntimeError(f'{type(self).__name__}.new_epoch: the updater already calls '
                               f'new_epoch (use_auto_new_epoch is True); do not call it too')
        self.epoch += 1

    def add_hook(self, hook: Callable, name: Optional[str] = None,
                 timing: str = 'auto') -> None:
        """Register an optimizer hook.

        A hook whose ``call_for_each_param`` attribute is true is called as
        ``hook(param.update_rule, param)`` for every parameter; others as ``hook(optimizer)``.

        Args:
            hook: The callable, e.g. ``optimizer_hooks.GradientClipping(5.0)``.
            name: Registration name; ``hook.name`` or ``hook.__name__`` by default.
            timing: ``'pre'`` (before the parameters are updated), ``'post'`` (after) or
                ``'auto'`` (the hook's ``timing`` attribute, ``'pre'`` if it has none).
        """
        if not callable(hook):
            raise TypeError(f'{type(self).__name__}.add_hook: argument hook: expected a '
                            f'callable, got {type(hook).__name__}')
        self._check_setup('add_hook')
        where = f'{type(self).__name__}.add_hook'
        timing = _hook_timing(timing, hook, where)
        name = _hook_name(hook, name, where)
        if name in self._pre_update_hooks or name in self._post_update_hooks:
            raise KeyError(f'{where}: a hook named {name!r} already exists')
        (self._pre_update_hooks if timing == 'pre' else self._post_update_hooks)[name] = hook

    def remove_hook(self, name: str) -> None:
        """Remove the hook registered as ``name`` (``KeyError`` if there is none)."""
        self._check_setup('remove_hook')
        if name in self._pre_update_hooks:
            del self._pre_update_hooks[name]
        elif name in self._post_update_hooks:
            del self._post_update_hooks[name]
        else:
            raise KeyError(f'{type(self).__name__}.remove_hook: no hook named {name!r}')

    def call_hooks(self, timing: str = 'pre') -> None:
        """Run the hooks registered for ``timing`` (``'pre'`` or ``'post'``) in order."""
        if timing not in ('pre', 'post'):
            raise ValueError(f"{type(self).__name__}.call_hooks: argument timing: expected "
                             f"'pre' or 'post', got {timing!r}")
        self._check_setup('call_hooks')
        hooks = self._pre_update_hooks if timing == 'pre' else self._post_update_hooks
        for hook in tuple(hooks.values()):
            if getattr(hook, 'call_for_each_param', False):
                for param in self.target.params():
                    hook(param.update_rule, param)
            else:
                hook(self)

    # -- loss scaling (mixed precision) --

    def loss_scaling(self, interval: int = 1000, scale: Optional[float] = None) -> None:
        """Scale the loss before backward (and the gradients back before the update).

        Args:
            interval: Dynamic scaling only: after a step with non-finite gradients the scale
                is halved and then grows by ``2 ** (1 / interval)`` per clean step (it doubles
                per step until the first overflow).
            scale: A fixed scale (static scaling); ``None`` selects dynamic scaling from 1.

        Raises:
            ValueError: ``interval < 1`` (dynamic) or ``scale <= 0`` (static).
        """
        where = f'{type(self).__name__}.loss_scaling'
        if scale is None:
            if interval < 1:
                raise ValueError(f'{where}: argument interval: expected a value >= 1, got '
                                 f'{interval}')
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = 2.0 ** (1.0 / interval)
            self._loss_scaling_isnan_ever = False
        else:
            if not scale > 0:
                raise ValueError(f'{where}: argument scale: expected a positive number, got '
                                 f'{scale}')
            self._loss_scaling_is_dynamic = False
            self._loss_scale = scale

    def set_loss_scale(self, loss_scale: float) -> None:
        """Use the static loss scale ``loss_scale``."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> None:
        """With dynamic loss scaling, note (and warn) whether a gradient is not finite."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for name, param in self.target.namedparams(include_uninit=False):
            grad = param.grad
            if grad is None:
                continue
            xp = backend.get_array_module(grad)
            if not bool(xp.all(xp.isfinite(grad))):
                self._loss_scaling_isnan = True
                self._loss_scaling_isnan_ever = True
                warnings.warn(f'Non finite number found in param.grad of {name} (iteration: '
                              f'{self.t}, loss_scale: {self._loss_scale})')

    def is_safe_to_update(self) -> bool:
        """False when dynamic loss scaling found a non-finite gradient this step."""
        return not self._loss_scaling_isnan

    def update_loss_scale(self) -> None:
        """Adapt the dynamic loss scale after a step (see :meth:`loss_scaling`)."""
        if not self._loss_scaling_is_dynamic:
            return
        if self._loss_scaling_isnan:
            multiplier = 0.5
        elif self._loss_scaling_isnan_ever:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        assert self._loss_scale is not None  # dynamic scaling always has a scale
        self._loss_scale = max(1.0, min(self._loss_scale_max, self._loss_scale * multiplier))

    def serialize(self, serializer: Any) -> None:
        """Save or load :attr:`t`, :attr:`epoch` and each update rule's state.

        Each rule is serialized under its parameter's path (``serializer['/l1/W']``), so a
        saved file holds ``t``, ``epoch``, ``l1/W/t``, ``l1/W/m``, ... as in Chainer. The
        parameters themselves are not saved; serialize the link for those.
        """
        self.t = serializer('t', self.t)
        self.epoch = serializer('epoch', self.epoch)
        for name, param in self.target.namedparams():
            rule = getattr(param, 'update_rule', None)
            if rule is not None:
                rule.serialize(serializer[name])


class GradientMethod(Optimizer):
    """Base class of optimizers that update each parameter from its gradient.

    Subclasses implement :meth:`create_update_rule` and put their defaults in
    :attr:`hyperparam` (exposed with :class:`HyperparameterProxy`).

    Attributes:
        hyperparam (Hyperparameter): Optimizer-wide hyperparameters, the parent of every
            rule's.
    """

    def __init__(self) -> None:
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False
        self._use_cleargrads = True

    def create_update_rule(self) -> UpdateRule:
        """Return a new rule for one parameter (its hyperparameter's parent is ours)."""
        raise NotImplementedError(f'{type(self).__name__} does not implement '
                                  f'create_update_rule')

    def setup(self, link: Any) -> 'GradientMethod':
        """Set the target and give each of its parameters a fresh update rule.

        Parameters of links frozen with ``disable_update()`` get a disabled rule. Parameters
        that are not initialized yet get a rule too; its state is created on their first update.
        """
        super().setup(link)
        seen = set()
        for sublink in link.links():
            enabled = sublink.update_enabled
            d = sublink.__dict__
            for pname in sublink._params:
                param = d[pname]
                if id(param) in seen:  # shared: frozen if any owner is frozen
                    if not enabled:
                        param.update_rule.enabled = False
                    continue
                seen.add(id(param))
                rule = self.create_update_rule()
                rule.enabled = enabled
                if self._use_fp32_update:
                    rule.use_fp32_update()
                param.update_rule = rule
        return self

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through float32 master copies (see
        :meth:`UpdateRule.use_fp32_update`); applies to current and future rules."""
        self._use_fp32_update = flag
        if self.target is not None:
            for param in self.target.params():
                if param.update_rule is not None:
                    param.update_rule.use_fp32_update(flag)

    def use_cleargrads(self, use: bool = True) -> None:
        """Deprecated (as in Chainer): choose ``cleargrads`` (default) or ``zerograds`` in
        ``update(lossfun)``."""
        warnings.warn('GradientMethod.use_cleargrads is deprecated; update(lossfun) calls '
                      'cleargrads() already', DeprecationWarning, stacklevel=2)
        self._use_cleargrads = use

    def reallocate_cleared_grads(self) -> None:
        """Give every initialized parameter without a gradient a zero gradient (as Chainer does
        around each hook, so that hooks and rules always see arrays)."""
        for param in self.target.params(include_uninit=False):
            if param.grad is None:
                _zero_grad(param)

    def call_hooks(self, timing: str = 'pre') -> None:
        """Run the hooks registered for ``timing``, re-allocating cleared gradients after each."""
        if timing not in ('pre', 'post'):
            raise ValueError(f"{type(self).__name__}.call_hooks: argument timing: expected "
                             f"'pre' or 'post', got {timing!r}")
        self._check_setup('call_hooks')
        hooks = self._pre_update_hooks if timing == 'pre' else self._post_update_hooks
        for hook in tuple(hooks.values()):
            if getattr(hook, 'call_for_each_param', False):
                for param in self.target.params():
                    hook(param.update_rule, param)
            else:
                hook(self)
            self.reallocate_cleared_grads()

    def update(self, lossfun: Optional[Callable] = None, *args: Any, **kwds: Any) -> None:
        """Update every parameter from its gradient.

        With ``lossfun``, first computes ``loss = lossfun(*args, **kwds)``, clears the target's
        gradients and runs ``loss.backward()`` (scaled by the loss scale, see
        :meth:`~Optimizer.loss_scaling`). Then gives parameters without a gradient zeros, runs
        the 'pre' hooks, increments :attr:`t`, applies each parameter's rule (unless dynamic
        loss scaling found a non-finite gradient) and runs the 'post' hooks.
        """
        self._check_setup('update')
        scale = None
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if self._use_cleargrads:
                self.target.cleargrads()
            else:
                self.target.zerograds()
            scale = self._loss_scale
            loss.backward(loss_scale=scale)
            del loss
        # Without hooks or a NaN check to see them first, the cleared gradients are reallocated
        # in the update loop: one walk over the parameters instead of two.
        walked = bool(self._loss_scaling_is_dynamic or self._pre_update_hooks)
        if walked:
            self.reallocate_cleared_grads()
        if self._loss_scaling_is_dynamic:
            self.check_nan_in_grads()
        if self._pre_update_hooks:
            self.call_hooks('pre')
        self.t += 1
        if not self._loss_scaling_isnan:
            for param in self.target.params():
                if not walked and param.array is not None and param.grad is None:
                    _zero_grad(param)
                rule = param.update_rule
                if rule is None:
                    continue
                if scale is not None and scale != 1 and param.grad is not None and \
                        getattr(param, '_loss_scale', None) is None:
                    # The rule sees the true gradient (a parameter that records its own loss
                    # scale, as backward(loss_scale=) does in Chainer, is divided by the rule).
                    param.grad = param.grad / scale
                rule.update(param)
        if self._post_update_hooks:
            self.reallocate_cleared_grads()
            self.call_hooks('post')
        if self._loss_scaling_is_dynamic:
            self.update_loss_scale()


# Chainer 3 kept the hooks in this module; Chainer 4-7 still accept them here with a warning.
_DEPRECATED_HOOKS = ('WeightDecay', 'Lasso', 'GradientClipping', 'GradientNoise',
                     'GradientHardClipping')


def __getattr__(name: str) -> Any:
    if name not in _DEPRECATED_HOOKS:
        raise AttributeError(f'module chainlet.optimizer has no attribute {name!r}')
    from chainlet import optimizer_hooks
    base = getattr(optimizer_hooks, name)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        warnings.warn(f'chainlet.optimizer.{name} is deprecated; use '
                      f'chainlet.optimizer_hooks.{name}', DeprecationWarning, stacklevel=2)
        base.__init__(self, *args, **kwargs)

    cls = type(name, (base,), {'__init__': __init__, '__module__': __name__})
    globals()[name] = cls
    return cls
