"""Keras-named optimizers (``from chainlet.keras import optimizers``) on chainlet optimizers.

Each class takes Keras's arguments and defaults and configures a chainlet
:class:`~chainlet.optimizer.GradientMethod` (``self.chainlet_optimizer``), which does the work:
``compile`` sets it up on the model and every training step is one ``update()`` call. Where
Keras's update rule differs from Chainer's (RMSprop and Adagrad put ``epsilon`` inside the
square root, Adagrad starts its accumulator at 0.1, Keras's Nesterov momentum) a small subclass
of the chainlet rule implements Keras's formula.

``learning_rate`` may be a float, a :mod:`~chainlet.keras.schedules` schedule
(``optimizers.schedules.ExponentialDecay(...)``, evaluated at :attr:`Optimizer.iterations`
before every update) or any callable ``schedule(iterations) -> float``.

Keras defaults: ``SGD(learning_rate=0.01, momentum=0.0, nesterov=False)``,
``RMSprop(0.001, rho=0.9, epsilon=1e-7)``, ``Adam(0.001, beta_1=0.9, beta_2=0.999,
epsilon=1e-7)``, ``AdamW(0.001, weight_decay=0.004)``, ``Adagrad(0.001,
initial_accumulator_value=0.1, epsilon=1e-7)``.

Example:
    >>> from chainlet.keras import optimizers
    >>> opt = optimizers.get('adam')
    >>> opt.learning_rate, opt.epsilon
    (0.001, 1e-07)
    >>> opt.learning_rate = 0.01
    >>> opt.chainlet_optimizer.alpha
    0.01
    >>> sgd = optimizers.SGD(learning_rate=optimizers.schedules.PiecewiseConstantDecay(
    ...     boundaries=[100], values=[0.1, 0.01]))
    >>> sgd.learning_rate
    0.1
"""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, cast

import numpy

from chainlet import Parameter, backend, optimizer as chainlet_optimizer
from chainlet import optimizers as chainlet_optimizers
from chainlet.keras import schedules


# -- Keras's update rules where they differ from Chainer's --

class _NesterovRule(chainlet_optimizers.MomentumSGDRule):
    # Keras: v = mu v - lr g; w += mu v - lr g
    def update_core_cpu(self, param: Any) -> None:
        self._nesterov(numpy, param)

    def update_core_gpu(self, param: Any) -> None:
        self._nesterov(backend.get_array_module(param.array), param)

    def _nesterov(self, xp: Any, param: Any) -> None:
        hp = self.hyperparam
        lr, mu = float(hp.lr), float(hp.momentum)
        v = self.state['v']
        step = xp.multiply(param.grad, lr, out=xp.empty_like(param.grad))
        v *= mu
        v -= step
        data = param.array
        data -= step
        xp.multiply(v, mu, out=step)
        data += step


class _KerasSGD(chainlet_optimizers.MomentumSGD):
    def __init__(self, lr: float, momentum: float, nesterov: bool) -> None:
        super().__init__(lr=lr, momentum=momentum)
        self.nesterov = nesterov

    # Not always a MomentumSGDRule (SGDRule without momentum, as Keras), hence the ignore.
    def create_update_rule(self) -> chainlet_optimizer.UpdateRule:  # type: ignore[override]
        if self.nesterov:
            return _NesterovRule(self.hyperparam)
        if self.hyperparam.momentum == 0:
            return chainlet_optimizers.SGDRule(self.hyperparam)
        return chainlet_optimizers.MomentumSGDRule(self.hyperparam)


class _RMSpropRule(chainlet_optimizers.RMSpropRule):
    # Keras: s = rho s + (1 - rho) g^2 (minus the squared mean gradient when centered);
    # step = lr g / sqrt(s + eps); with momentum, m = momentum m + step; w -= m (or step)
    def init_state(self, param: Any) -> None:
        super().init_state(param)
        xp = backend.get_array_module(param.array)
        if self.hyperparam.centered:
            self.state['mg'] = xp.zeros_like(param.array)
        if self.hyperparam.momentum:
            self.state['mom'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        self._rmsprop(numpy, param)

    def update_core_gpu(self, param: Any) -> None:
        self._rmsprop(backend.get_array_module(param.array), param)

    def _rmsprop(self, xp: Any, param: Any) -> None:
        hp, state = self.hyperparam, self.state
        lr, rho, eps = float(hp.lr), float(hp.alpha), float(hp.eps)
        grad, data, ms = param.grad, param.array, state['ms']
        tmp = xp.multiply(grad, grad, out=xp.empty_like(grad))
        tmp *= 1.0 - rho
        ms *= rho
        ms += tmp
        if 'mg' in state:
            mg = state['mg']
            mg *= rho
            mg += (1.0 - rho) * grad
            xp.multiply(mg, mg, out=tmp)
            xp.subtract(ms, tmp, out=tmp)
            tmp += eps
        else:
            xp.add(ms, eps, out=tmp)
        xp.sqrt(tmp, out=tmp)
        xp.divide(grad, tmp, out=tmp)
        tmp *= lr
        if 'mom' in state:
            mom = state['mom']
            mom *= float(hp.momentum)
            mom += tmp
            data -= mom
        else:
            data -= tmp


class _KerasRMSprop(chainlet_optimizers.RMSprop):
    def __init__(self, lr: float, rho: float, eps: float, momentum: float,
                 centered: bool) -> None:
        super().__init__(lr=lr, alpha=rho, eps=eps, eps_inside_sqrt=True)
        self.hyperparam.momentum = momentum
        self.hyperparam.centered = centered

    def create_update_rule(self) -> _RMSpropRule:
        return _RMSpropRule(self.hyperparam)


class _AdagradRule(chainlet_optimizers.AdaGradRule):
    # Keras: h starts at initial_accumulator_value; w -= lr g / sqrt(h + eps)
    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        self.state['h'] = xp.full_like(param.array, self.hyperparam.initial_accumulator_value)

    def update_core_cpu(self, param: Any) -> None:
        self._adagrad(numpy, param)

    def update_core_gpu(self, param: Any) -> None:
        self._adagrad(backend.get_array_module(param.array), param)

    def _adagrad(self, xp: Any, param: Any) -> None:
        hp = self.hyperparam
        grad, data, h = param.grad, param.array, self.state['h']
        tmp = xp.multiply(grad, grad, out=xp.empty_like(grad))
        h += tmp
        xp.add(h, float(hp.eps), out=tmp)
        xp.sqrt(tmp, out=tmp)
        xp.divide(grad, tmp, out=tmp)
        tmp *= float(hp.lr)
        data -= tmp


class _KerasAdagrad(chainlet_optimizers.AdaGrad):
    def __init__(self, lr: float, initial_accumulator_value: float, eps: float) -> None:
        super().__init__(lr=lr, eps=eps)
        self.hyperparam.initial_accumulator_value = initial_accumulator_value

    def create_update_rule(self) -> _AdagradRule:
        return _AdagradRule(self.hyperparam)


# -- per-parameter hooks for Keras's common arguments --

class _DecoupledWeightDecay:
    """``w -= learning_rate * weight_decay * w`` before the update (Keras's ``weight_decay``)."""

    name = 'keras_weight_decay'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, owner: 'Optimizer') -> None:
        self.owner = owner

    def __call__(self, rule: Any, param: Any) -> None:
        if param.grad is None or not rule.enabled:
            return
        data = param.array
        # The rate of this update, already set from the schedule (if any) by Optimizer.update.
        # cast: weight_decay is set, this hook being added only then (Optimizer._add_hooks).
        data *= 1.0 - self.owner._current_rate() * float(cast(float, self.owner.weight_decay))


class _ClipNorm:
    """Clip each gradient to an L2 norm of at most ``threshold`` (Keras's ``clipnorm``)."""

    name = 'keras_clipnorm'
    call_for_each_param = True
    timing = 'pre'

    def __init__(self, threshold: float) -> None:
        self.threshold = float(threshold)

    def __call__(self, rule: Any, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        norm = float(xp.sqrt(xp.sum(xp.square(grad))))
        if norm > self.threshold:
            grad *= self.threshold / norm


class Optimizer:
    """Base class of the Keras-named optimizers.

    Args:
        learning_rate: A float, a :class:`~chainlet.keras.schedules.LearningRateSchedule` or a
            callable ``schedule(iterations) -> float``; a schedule is evaluated at
            :attr:`iterations` before each update.
        weight_decay: Decoupled weight decay: ``w -= learning_rate * weight_decay * w``.
        clipnorm: Clip each gradient to this L2 norm.
        clipvalue: Clip each gradient element to ``[-clipvalue, clipvalue]``.
        global_clipnorm: Clip all gradients together to this global L2 norm.
        name: Name of the optimizer.

    Attributes:
        chainlet_optimizer: The chainlet optimizer doing the updates.
    """

    _lr_attr = 'lr'

    def __init__(self, learning_rate: Any = 0.001, weight_decay: Optional[float] = None,
                 clipnorm: Optional[float] = None, clipvalue: Optional[float] = None,
                 global_clipnorm: Optional[float] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        for ignored in ('use_ema', 'ema_momentum', 'ema_overwrite_frequency', 'jit_compile',
                        'loss_scale_factor', 'gradient_accumulation_steps', 'decay'):
            value = kwargs.pop(ignored, None)
            if value not in (None, False, 0, 0.0, 0.99):
                raise ValueError(f'{type(self).__name__}: argument {ignored}={value!r} is not '
                                 f'supported by chainlet.keras')
        if kwargs:
            # Keras 3's error, word for word; Keras 2's lr (which Keras 3 rejects too) gets a
            # hint, so that a script written for Keras 2 does not silently train differently.
            hint = ('; the learning rate is learning_rate (Keras 2\'s lr is not accepted by '
                    'Keras 3)' if 'lr' in kwargs else '')
            raise ValueError(f'{type(self).__name__}: Argument(s) not recognized: '
                             f'{kwargs}{hint}')
        if sum(c is not None for c in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(f'{type(self).__name__}: give at most one of clipnorm, clipvalue '
                             f'and global_clipnorm')
        self.name = name or type(self).__name__.lower()
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self._schedule: Optional[Callable] = None
        self.chainlet_optimizer = self._create()
        self.learning_rate = learning_rate

    def _create(self) -> chainlet_optimizer.GradientMethod:
        raise TypeError(f'{type(self).__name__} must implement _create()')

    # -- learning rate and counters --

    @property
    def learning_rate(self) -> float:
        """The learning rate of the next update: a float, or a schedule's value at
        :attr:`iterations`.

        Settable to a float, a schedule or a callable. As in Keras, an optimizer whose rate is a
        :class:`~chainlet.keras.schedules.LearningRateSchedule` refuses a float (``TypeError``);
        give it another schedule instead.
        """
        if self._schedule is not None:
            return self._scheduled_rate()
        return self._current_rate()

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        if callable(value):
            previous, self._schedule = self._schedule, value
            try:
                value = self._scheduled_rate()
            except Exception:
                self._schedule = previous
                raise
        elif isinstance(self._schedule, schedules.LearningRateSchedule):
            raise TypeError(f'{type(self).__name__}: this optimizer was created with a '
                            f'LearningRateSchedule ({type(self._schedule).__name__}) as its '
                            f'learning_rate, so its learning rate cannot be set to a number; '
                            f'create the optimizer with a float learning_rate to set it, or '
                            f'assign a new schedule')
        else:
            self._schedule = None
            value = self._check_rate(value, 'learning_rate')
        setattr(self.chainlet_optimizer, self._lr_attr, value)

    lr = learning_rate

    def _check_rate(self, value: Any, what: str) -> float:
        value = float(value)
        if not math.isfinite(value) or value < 0:
            raise ValueError(f'{type(self).__name__}: {what} must be a finite number >= 0, got '
                             f'{value!r}')
        return value

    def _scheduled_rate(self) -> float:
        step = self.iterations
        schedule = cast(Callable, self._schedule)  # cast: every caller checks there is one
        return self._check_rate(schedule(step),
                                f'learning_rate (the value of {self._schedule!r} at step {step})')

    def _current_rate(self) -> float:
        return float(getattr(self.chainlet_optimizer, self._lr_attr))

    def _apply_schedule(self) -> None:
        if self._schedule is not None:
            setattr(self.chainlet_optimizer, self._lr_attr, self._scheduled_rate())

    @property
    def iterations(self) -> int:
        """Number of updates made so far."""
        return int(self.chainlet_optimizer.t)

    # -- use --

    def build(self, link: Any) -> None:
        """Set the chainlet optimizer up on ``link`` (once); parameters that appeared since get
        fresh update rules. Keras's ``build(var_list)`` (a list of variables, e.g.
        ``model.trainable_variables``) prepares update rules for those variables."""
        if isinstance(link, (list, tuple)):
            for var in link:
                if not isinstance(var, Parameter):
                    raise TypeError(f'{type(self).__name__}.build: expected a model or a list '
                                    f'of chainlet Parameters, got a list holding '
                                    f'{type(var).__name__}')
                self._rule_for(var)
            return
        opt = self.chainlet_optimizer
        if opt.target is not link:
            t = opt.t
            opt.setup(link)
            opt.t = t
            self._add_hooks()
            return
        for param in link.params():
            if param.update_rule is None:
                param.update_rule = opt.create_update_rule()

    def _add_hooks(self) -> None:
        from chainlet import optimizer_hooks
        opt = self.chainlet_optimizer
        if self.weight_decay:
            opt.add_hook(_DecoupledWeightDecay(self))
        if self.clipnorm is not None:
            opt.add_hook(_ClipNorm(self.clipnorm))
        if self.clipvalue is not None:
            opt.add_hook(optimizer_hooks.GradientHardClipping(-float(self.clipvalue),
                                                              float(self.clipvalue)))
        if self.global_clipnorm is not None:
            opt.add_hook(optimizer_hooks.GradientClipping(float(self.global_clipnorm)))

    def update(self) -> None:
        """Apply one update to the parameters from their current gradients (with a schedule,
        at the rate it gives for :attr:`iterations`)."""
        self._apply_schedule()
        self.chainlet_optimizer.update()

    def _rule_for(self, var: Any) -> Any:
        # The parameter's own rule when this optimizer made it; otherwise one kept here, so
        # that several optimizers can each update their part of one model (a GAN's
        # generator and discriminator) and state such as Adam's moments persists.
        opt = self.chainlet_optimizer
        rule = getattr(var, 'update_rule', None)
        if rule is not None and rule.hyperparam.parent is opt.hyperparam:
            return rule
        rules = self.__dict__.setdefault('_own_rules', {})
        entry = rules.get(id(var))
        if entry is None or entry[0] is not var:
            entry = (var, opt.create_update_rule())
            rules[id(var)] = entry
        return entry[1]

    def apply_gradients(self, grads_and_vars: Any) -> None:
        """Keras's ``apply_gradients([(grad, variable), ...])``: one update of these
        variables (chainlet Parameters, e.g. ``layer.trainable_weights``) from these gradients
        (arrays or Variables; a ``None`` gradient leaves its variable unchanged)."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        for grad, var in pairs:
            if not isinstance(var, Parameter):
                raise TypeError(f'{type(self).__name__}.apply_gradients: expected chainlet '
                                f'Parameters (model weights) as variables, got '
                                f'{type(var).__name__}')
            grad = grad.array if hasattr(grad, 'array') else grad
            if grad is not var.grad:
                var.grad = grad
        self._apply_schedule()
        self.chainlet_optimizer.t += 1
        for _, var in pairs:
            self._rule_for(var).update(var)

    def apply(self, grads: Any, trainable_variables: Any = None) -> None:
        """Keras 3's ``apply(grads, trainable_variables)``: :meth:`apply_gradients` of the two
        lists zipped (``trainable_variables`` is required: chainlet optimizers keep no list of
        variables of their own)."""
        grads = list(grads)
        if trainable_variables is None:
            raise ValueError(f'{type(self).__name__}.apply: pass trainable_variables (the '
                             f'weights the {len(grads)} gradients belong to)')
        variables = list(trainable_variables)
        if len(grads) != len(variables):
            raise ValueError(f'{type(self).__name__}.apply: got {len(grads)} gradients for '
                             f'{len(variables)} variables')
        self.apply_gradients(zip(grads, variables))

    # -- config --

    def get_config(self) -> dict:
        """The constructor's arguments; a :class:`~chainlet.keras.schedules.LearningRateSchedule`
        is kept as ``{'class_name': ..., 'config': ...}``, any other callable as its current
        value."""
        if isinstance(self._schedule, schedules.LearningRateSchedule):
            learning_rate: Any = schedules.serialize(self._schedule)
        else:
            learning_rate = self.learning_rate
        config = {'name': self.name, 'learning_rate': learning_rate}
        for key in ('weight_decay', 'clipnorm', 'clipvalue', 'global_clipnorm'):
            config[key] = getattr(self, key)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> 'Optimizer':
        """An optimizer from :meth:`get_config`'s output (a serialized schedule is rebuilt,
        looking custom schedules up in ``custom_objects``)."""
        return cls(**_with_schedule(config, custom_objects))

    def __repr__(self) -> str:
        return f'<{type(self).__name__} learning_rate={self.learning_rate}>'


class SGD(Optimizer):
    """Gradient descent, with optional (Nesterov) momentum.

    ``v = momentum * v - learning_rate * g``; ``w += v`` (Nesterov:
    ``w += momentum * v - learning_rate * g``).

    Args:
        learning_rate: Step size (0.01).
        momentum: Momentum (0.0: plain SGD).
        nesterov: Use Nesterov momentum.
    """

    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, **kwargs: Any) -> None:
        if momentum < 0:
            raise ValueError(f'SGD: momentum must be >= 0, got {momentum}')
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        super().__init__(learning_rate=learning_rate, **kwargs)

    def _create(self) -> chainlet_optimizer.GradientMethod:
        if not self.momentum and not self.nesterov:
            return chainlet_optimizers.SGD()
        return _KerasSGD(0.01, self.momentum, self.nesterov)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(momentum=self.momentum, nesterov=self.nesterov)
        return config


class RMSprop(Optimizer):
    """RMSprop: ``s = rho s + (1 - rho) g^2``; ``w -= learning_rate g / sqrt(s + epsilon)``.

    Args:
        learning_rate: Step size (0.001).
        rho: Decay of the mean square (0.9).
        momentum: Momentum on the step (0.0).
        epsilon: Added to the mean square inside the square root (1e-7).
        centered: Divide by the estimated variance instead of the mean square.
    """

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, **kwargs: Any) -> None:
        self.rho = float(rho)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.centered = bool(centered)
        super().__init__(learning_rate=learning_rate, **kwargs)

    def _create(self) -> chainlet_optimizer.GradientMethod:
        return _KerasRMSprop(0.001, self.rho, self.epsilon, self.momentum, self.centered)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(rho=self.rho, momentum=self.momentum, epsilon=self.epsilon,
                      centered=self.centered)
        return config


class Adam(Optimizer):
    """Adam (chainlet's :class:`~chainlet.optimizers.Adam`, whose formula is Keras's).

    Args:
        learning_rate: Step size (0.001).
        beta_1, beta_2: Decay of the first and second moments (0.9, 0.999).
        epsilon: Added to the square root of the second moment (1e-7).
        amsgrad: Use AMSGrad.
    """

    _lr_attr = 'alpha'

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, **kwargs: Any) -> None:
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = float(epsilon)
        self.amsgrad = bool(amsgrad)
        super().__init__(learning_rate=learning_rate, **kwargs)

    def _create(self) -> chainlet_optimizer.GradientMethod:
        return chainlet_optimizers.Adam(beta1=self.beta_1, beta2=self.beta_2, eps=self.epsilon,
                                        amsgrad=self.amsgrad)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon,
                      amsgrad=self.amsgrad)
        return config


class AdamW(Adam):
    """Adam with decoupled weight decay ``w -= learning_rate * weight_decay * w`` (0.004)."""

    def __init__(self, learning_rate: Any = 0.001, weight_decay: float = 0.004,
                 beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7,
                 amsgrad: bool = False, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, weight_decay=weight_decay, **kwargs)


class Adagrad(Optimizer):
    """Adagrad: ``h += g^2``; ``w -= learning_rate g / sqrt(h + epsilon)``.

    Args:
        learning_rate: Step size (0.001).
        initial_accumulator_value: Starting value of ``h`` (0.1).
        epsilon: Added inside the square root (1e-7).
    """

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, **kwargs: Any) -> None:
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = float(epsilon)
        super().__init__(learning_rate=learning_rate, **kwargs)

    def _create(self) -> chainlet_optimizer.GradientMethod:
        return _KerasAdagrad(0.001, self.initial_accumulator_value, self.epsilon)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(initial_accumulator_value=self.initial_accumulator_value,
                      epsilon=self.epsilon)
        return config


class ChainletOptimizer(Optimizer):
    """Wraps an existing chainlet optimizer (``compile(optimizer=chainlet.optimizers.Adam())``).

    Args:
        opt: The chainlet optimizer (not set up yet, or set up on the model).
    """

    def __init__(self, opt: chainlet_optimizer.GradientMethod) -> None:
        self._given = opt
        self._lr_attr = 'alpha' if hasattr(type(opt), 'alpha') else 'lr'
        super().__init__(learning_rate=getattr(opt, self._lr_attr),
                         name=type(opt).__name__.lower())

    def _create(self) -> chainlet_optimizer.GradientMethod:
        return self._given


_BY_NAME: dict[str, type[Optimizer]] = {'sgd': SGD, 'rmsprop': RMSprop, 'adam': Adam,
                                        'adamw': AdamW, 'adagrad': Adagrad}
_CLASSES: dict[str, type[Optimizer]] = {c.__name__: c for c in (SGD, RMSprop, Adam, AdamW,
                                                                Adagrad)}


def get(identifier: Any) -> Optimizer:
    """An :class:`Optimizer` from a name (``'sgd'``, ``'rmsprop'``, ``'adam'``, ``'adamw'``,
    ``'adagrad'``), a config dict, a Keras-named optimizer or a chainlet optimizer."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, chainlet_optimizer.GradientMethod):
        return ChainletOptimizer(identifier)
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f'Unknown optimizer: {identifier!r}. Known optimizers: '
                             f'{sorted(_BY_NAME)}')
        return cls()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise TypeError(f'optimizers.get: expected an optimizer name or object, got '
                    f'{type(identifier).__name__}')


def serialize(optimizer: Optimizer) -> dict:
    """``{'class_name': ..., 'config': ...}``."""
    return {'class_name': type(optimizer).__name__, 'config': optimizer.get_config()}


def _with_schedule(config: dict, custom_objects: Optional[dict]) -> dict:
    learning_rate = config.get('learning_rate')
    if isinstance(learning_rate, dict):
        config = dict(config, learning_rate=schedules.deserialize(learning_rate,
                                                                  custom_objects))
    return config


def deserialize(config: dict, custom_objects: Optional[dict] = None) -> Optimizer:
    """Inverse of :func:`serialize` (custom optimizers and schedules are looked up by class name
    in ``custom_objects``)."""
    name = config['class_name']
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name) or \
        _BY_NAME.get(str(name).lower())
    if cls is None:
        raise ValueError(f'Unknown optimizer: {name}; pass it in custom_objects')
    # Rebuild a serialized schedule here too, so that a custom optimizer's from_config(config)
    # receives a schedule object.
    return cls.from_config(_with_schedule(config.get('config', {}), custom_objects))


__all__ = ['Optimizer', 'SGD', 'RMSprop', 'Adam', 'AdamW', 'Adagrad', 'ChainletOptimizer',
           'get', 'serialize', 'deserialize', 'schedules']

# More optimizers, in their own module (they build on Optimizer above).
from chainlet.keras import optimizers_extra as _extra  # noqa: E402
from chainlet.keras.optimizers_extra import Adadelta, Adamax, Lion, Nadam  # noqa: E402,F401

_BY_NAME.update({c.__name__.lower(): c for c in _extra.CLASSES})
_CLASSES.update({c.__name__: c for c in _extra.CLASSES})
__all__ += list(_extra.__all__)
