"""Keras's learning-rate schedules (``from chainlet.keras.optimizers import schedules``).

A schedule maps the optimizer's step count (:attr:`Optimizer.iterations
<chainlet.keras.optimizers.Optimizer.iterations>`: updates done so far, 0 before the first) to a
learning rate. Pass one as ``learning_rate=`` to any optimizer of
:mod:`chainlet.keras.optimizers`; the optimizer evaluates it before every update and hands the
value to its chainlet optimizer. Steps are plain Python numbers and every schedule returns a
Python ``float``.

Arguments, defaults and formulas are Keras 3's. Each schedule has ``get_config``/``from_config``,
and :func:`serialize`/:func:`deserialize` give and read ``{'class_name': ..., 'config': ...}``,
the form an optimizer's config and ``model.save`` keep a schedule in.

Example:
    >>> from chainlet.keras import optimizers
    >>> from chainlet.keras.optimizers import schedules
    >>> lr = schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    >>> [lr(step) for step in range(3)]
    [0.1, 0.05, 0.025]
    >>> opt = optimizers.SGD(learning_rate=lr)
    >>> opt.learning_rate
    0.1
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Sequence


def _check_number(where: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f'{where}: argument {name}: expected a number, got '
                        f'{type(value).__name__} ({value!r})')
    if not math.isfinite(value):
        raise ValueError(f'{where}: argument {name}: expected a finite number, got {value!r}')


def _check_positive(where: str, name: str, value: Any) -> None:
    _check_number(where, name, value)
    if value <= 0:
        raise ValueError(f'{where}: argument {name}: expected a number > 0, got {value!r}')


def _step(where: str, step: Any) -> float:
    # The step may be an int, a float or a NumPy scalar (Optimizer.iterations is an int).
    try:
        if isinstance(step, (str, bytes)):
            raise TypeError
        value = float(step)
    except (TypeError, ValueError):
        raise TypeError(f'{where}: step: expected a number, got {type(step).__name__} '
                        f'({step!r})') from None
    if not math.isfinite(value):
        raise ValueError(f'{where}: step: expected a finite number, got {step!r}')
    return value


def _cosine_factor(fraction: float, alpha: float) -> float:
    # 1 at fraction 0, alpha at fraction 1, along half a cosine wave.
    return (1.0 - alpha) * 0.5 * (1.0 + math.cos(math.pi * fraction)) + alpha


class LearningRateSchedule:
    """Base class of the learning-rate schedules.

    A subclass implements ``__call__(step) -> float``; to be saved with a model (or with an
    optimizer's config) it also implements :meth:`get_config`, whose dict :meth:`from_config`
    passes back to the constructor as keyword arguments.

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> class Halving(schedules.LearningRateSchedule):
        ...     def __init__(self, initial_learning_rate: float) -> None:
        ...         self.initial_learning_rate = initial_learning_rate
        ...     def __call__(self, step: float) -> float:
        ...         return self.initial_learning_rate / 2 ** step
        ...     def get_config(self) -> dict:
        ...         return {'initial_learning_rate': self.initial_learning_rate}
        >>> Halving(1.0)(3)
        0.125
        >>> Halving.from_config(Halving(1.0).get_config())(1)
        0.5
    """

    def __call__(self, step: Any) -> float:
        raise NotImplementedError(f'{type(self).__name__}: a learning-rate schedule must '
                                  f'implement __call__(self, step)')

    def get_config(self) -> dict:
        """The constructor's arguments, as a JSON-friendly dict."""
        raise NotImplementedError(f'{type(self).__name__}: a learning-rate schedule must '
                                  f'implement get_config() to be serialized')

    @classmethod
    def from_config(cls, config: dict) -> 'LearningRateSchedule':
        """A schedule built from the output of :meth:`get_config`."""
        return cls(**config)

    def __repr__(self) -> str:
        try:
            args = ', '.join(f'{k}={v!r}' for k, v in self.get_config().items())
        except NotImplementedError:
            args = '...'
        return f'{type(self).__name__}({args})'


class _RatioDecay(LearningRateSchedule):
    # Shared by ExponentialDecay and InverseTimeDecay: both are a function of
    # p = step / decay_steps (floored with staircase=True) and take the same arguments.

    def __init__(self, initial_learning_rate: float, decay_steps: float, decay_rate: float,
                 staircase: bool, name: str) -> None:
        where = type(self).__name__
        _check_number(where, 'initial_learning_rate', initial_learning_rate)
        _check_positive(where, 'decay_steps', decay_steps)
        _check_number(where, 'decay_rate', decay_rate)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = bool(staircase)
        self.name = name

    def _decay(self, p: float) -> float:
        raise NotImplementedError

    def __call__(self, step: Any) -> float:
        p = _step(type(self).__name__, step) / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return float(self._decay(p))

    def get_config(self) -> dict:
        return {'initial_learning_rate': self.initial_learning_rate,
                'decay_steps': self.decay_steps, 'decay_rate': self.decay_rate,
                'staircase': self.staircase, 'name': self.name}


class ExponentialDecay(_RatioDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``.

    With ``staircase=True`` the exponent is ``floor(step / decay_steps)``: the rate drops once
    every ``decay_steps`` steps.

    Args:
        initial_learning_rate: The rate at step 0.
        decay_steps: Steps over which the rate is multiplied by ``decay_rate`` (``> 0``).
        decay_rate: The factor per ``decay_steps`` steps.
        staircase: Decay in whole periods of ``decay_steps``.
        name: Name of the schedule.

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> lr = schedules.ExponentialDecay(1.0, decay_steps=2, decay_rate=0.5, staircase=True)
        >>> [lr(step) for step in range(5)]
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, initial_learning_rate: float, decay_steps: float, decay_rate: float,
                 staircase: bool = False, name: str = 'ExponentialDecay') -> None:
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def _decay(self, p: float) -> float:
        return self.initial_learning_rate * self.decay_rate ** p


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` up to and including step ``boundaries[0]``, ``values[i]`` for
    ``boundaries[i-1] < step <= boundaries[i]``, and ``values[-1]`` after ``boundaries[-1]``.

    Args:
        boundaries: Strictly increasing step numbers.
        values: The rates, one more than ``boundaries``.
        name: Name of the schedule.

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> lr = schedules.PiecewiseConstantDecay(boundaries=[2, 4], values=[1.0, 0.5, 0.1])
        >>> [lr(step) for step in range(6)]
        [1.0, 1.0, 1.0, 0.5, 0.5, 0.1]
    """

    def __init__(self, boundaries: Sequence[float], values: Sequence[float],
                 name: str = 'PiecewiseConstant') -> None:
        where = type(self).__name__
        boundaries, values = list(boundaries), list(values)
        if len(values) != len(boundaries) + 1:
            raise ValueError(f'{where}: argument values: expected one more value than '
                             f'boundaries ({len(boundaries) + 1}), got {len(values)} '
                             f'(boundaries={boundaries}, values={values})')
        for i, b in enumerate(boundaries):
            _check_number(where, f'boundaries[{i}]', b)
        for i, v in enumerate(values):
            _check_number(where, f'values[{i}]', v)
        if any(a >= b for a, b in zip(boundaries, boundaries[1:])):
            raise ValueError(f'{where}: argument boundaries: expected strictly increasing '
                             f'steps, got {boundaries}')
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step: Any) -> float:
        step = _step(type(self).__name__, step)
        for boundary, value in zip(self.boundaries, self.values):
            if step <= boundary:
                return float(value)
        return float(self.values[-1])

    def get_config(self) -> dict:
        return {'boundaries': self.boundaries, 'values': self.values, 'name': self.name}


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, then ``end``.

    Without ``cycle`` the step is capped at ``decay_steps``, so the rate stays at
    ``end_learning_rate`` afterwards. With ``cycle=True``, ``decay_steps`` is replaced by its
    first multiple that is at least ``step`` (``decay_steps`` itself at step 0): the rate
    jumps back up at every multiple and decays again over a longer span.

    Args:
        initial_learning_rate: The rate at step 0.
        decay_steps: Steps to reach ``end_learning_rate`` (``> 0``).
        end_learning_rate: The final rate.
        power: Power of the polynomial (1.0: linear).
        cycle: Restart past ``decay_steps`` instead of staying at the end rate.
        name: Name of the schedule.

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> lr = schedules.PolynomialDecay(1.0, decay_steps=4, end_learning_rate=0.0)
        >>> [lr(step) for step in range(6)]
        [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
    """

    def __init__(self, initial_learning_rate: float, decay_steps: float,
                 end_learning_rate: float = 0.0001, power: float = 1.0, cycle: bool = False,
                 name: str = 'PolynomialDecay') -> None:
        where = type(self).__name__
        _check_number(where, 'initial_learning_rate', initial_learning_rate)
        _check_positive(where, 'decay_steps', decay_steps)
        _check_number(where, 'end_learning_rate', end_learning_rate)
        _check_number(where, 'power', power)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = bool(cycle)
        self.name = name

    def __call__(self, step: Any) -> float:
        step = _step(type(self).__name__, step)
        decay_steps = float(self.decay_steps)
        if self.cycle:
            decay_steps *= 1.0 if step == 0 else math.ceil(step / decay_steps)
        else:
            step = min(step, decay_steps)
        remaining = 1.0 - step / decay_steps
        return float((self.initial_learning_rate - self.end_learning_rate)
                     * remaining ** self.power + self.end_learning_rate)

    def get_config(self) -> dict:
        return {'initial_learning_rate': self.initial_learning_rate,
                'decay_steps': self.decay_steps, 'end_learning_rate': self.end_learning_rate,
                'power': self.power, 'cycle': self.cycle, 'name': self.name}


class InverseTimeDecay(_RatioDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``.

    With ``staircase=True`` the ratio ``step / decay_steps`` is floored.

    Args:
        initial_learning_rate: The rate at step 0.
        decay_steps: The step unit of the decay (``> 0``).
        decay_rate: How fast the rate falls.
        staircase: Decay in whole periods of ``decay_steps``.
        name: Name of the schedule.

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> lr = schedules.InverseTimeDecay(1.0, decay_steps=1, decay_rate=1.0)
        >>> [lr(step) for step in range(4)]
        [1.0, 0.5, 0.3333333333333333, 0.25]
    """

    def __init__(self, initial_learning_rate: float, decay_steps: float, decay_rate: float,
                 staircase: bool = False, name: str = 'InverseTimeDecay') -> None:
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def _decay(self, p: float) -> float:
        return self.initial_learning_rate / (1.0 + self.decay_rate * p)


class CosineDecay(LearningRateSchedule):
    """Half a cosine from a start rate down to ``alpha`` times it, with an optional linear
    warmup before.

    Without warmup (``warmup_target=None``) the rate is ``initial_learning_rate * ((1 - alpha)
    * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha)`` with ``s = min(step, decay_steps)``.
    With ``warmup_target``, the rate first rises linearly from ``initial_learning_rate`` to
    ``warmup_target`` over ``warmup_steps`` steps, then the cosine decay above runs from
    ``warmup_target`` over the next ``decay_steps`` steps.

    Args:
        initial_learning_rate: The rate at step 0.
        decay_steps: Steps of the cosine decay (``> 0``).
        alpha: The final rate as a fraction of the decay's start rate.
        name: Name of the schedule.
        warmup_target: The rate reached at the end of the warmup (``None``: no warmup).
        warmup_steps: Steps of the warmup (``>= 0``).

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> lr = schedules.CosineDecay(0.0, decay_steps=2, warmup_target=1.0, warmup_steps=2)
        >>> [round(lr(step), 6) for step in range(6)]
        [0.0, 0.5, 1.0, 0.5, 0.0, 0.0]
    """

    def __init__(self, initial_learning_rate: float, decay_steps: float, alpha: float = 0.0,
                 name: str = 'CosineDecay', warmup_target: Optional[float] = None,
                 warmup_steps: float = 0) -> None:
        where = type(self).__name__
        _check_number(where, 'initial_learning_rate', initial_learning_rate)
        _check_positive(where, 'decay_steps', decay_steps)
        _check_number(where, 'alpha', alpha)
        if warmup_target is not None:
            _check_number(where, 'warmup_target', warmup_target)
        _check_number(where, 'warmup_steps', warmup_steps)
        if warmup_steps < 0:
            raise ValueError(f'{where}: argument warmup_steps: expected a number >= 0, got '
                             f'{warmup_steps!r}')
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def __call__(self, step: Any) -> float:
        step = _step(type(self).__name__, step)
        if self.warmup_target is None:
            fraction = min(step, self.decay_steps) / self.decay_steps
            return float(self.initial_learning_rate * _cosine_factor(fraction, self.alpha))
        step = min(step, self.decay_steps + self.warmup_steps)
        if step < self.warmup_steps:
            rise = self.warmup_target - self.initial_learning_rate
            return float(rise * step / self.warmup_steps + self.initial_learning_rate)
        fraction = (step - self.warmup_steps) / self.decay_steps
        return float(self.warmup_target * _cosine_factor(fraction, self.alpha))

    def get_config(self) -> dict:
        return {'initial_learning_rate': self.initial_learning_rate,
                'decay_steps': self.decay_steps, 'alpha': self.alpha, 'name': self.name,
                'warmup_target': self.warmup_target, 'warmup_steps': self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter).

    The first period lasts ``first_decay_steps`` steps; period ``i`` (from 0) lasts
    ``first_decay_steps * t_mul ** i`` steps. Within period ``i`` at fraction ``f`` of its
    length the rate is ``initial_learning_rate * ((1 - alpha) * m_mul ** i * 0.5 * (1 +
    cos(pi * f)) + alpha)``: each restart starts at ``m_mul ** i`` times the initial rate and
    decays towards ``alpha * initial_learning_rate``.

    Args:
        initial_learning_rate: The rate at step 0.
        first_decay_steps: Length of the first period (``> 0``).
        t_mul: Factor by which each period is longer than the one before (``> 0``).
        m_mul: Factor by which each restart's start rate is lower than the one before.
        alpha: The lowest rate as a fraction of ``initial_learning_rate``.
        name: Name of the schedule.

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> lr = schedules.CosineDecayRestarts(1.0, first_decay_steps=2, t_mul=2.0, m_mul=0.5)
        >>> [round(lr(step), 6) for step in range(8)]
        [1.0, 0.5, 0.5, 0.426777, 0.25, 0.073223, 0.25, 0.240485]
    """

    def __init__(self, initial_learning_rate: float, first_decay_steps: float,
                 t_mul: float = 2.0, m_mul: float = 1.0, alpha: float = 0.0,
                 name: str = 'SGDRDecay') -> None:
        where = type(self).__name__
        _check_number(where, 'initial_learning_rate', initial_learning_rate)
        _check_positive(where, 'first_decay_steps', first_decay_steps)
        _check_positive(where, 't_mul', t_mul)
        _check_number(where, 'm_mul', m_mul)
        _check_number(where, 'alpha', alpha)
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self.t_mul = t_mul
        self.m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def _period(self, fraction: float) -> tuple:
        """``(i, f)``: the period index and the fraction done of that period, for ``fraction``
        = step / first_decay_steps."""
        t_mul = float(self.t_mul)
        if t_mul == 1.0:
            i = math.floor(fraction)
            return i, fraction - i
        # Period i starts at (1 - t_mul ** i) / (1 - t_mul) first periods; invert that sum.
        inside = 1.0 - fraction * (1.0 - t_mul)
        if inside <= 0.0:
            raise ValueError(f'{type(self).__name__}: step {fraction * self.first_decay_steps!r} '
                             f'is past the last restart: with t_mul={self.t_mul} < 1 the '
                             f'periods shrink and end after '
                             f'{self.first_decay_steps / (1.0 - t_mul)!r} steps')
        i = math.floor(math.log(inside) / math.log(t_mul))

        def start(k: int) -> float:
            return (1.0 - t_mul ** k) / (1.0 - t_mul)
        # The logarithm can land a hair off an exact restart; put the step in its own period.
        if i > 0 and start(i) > fraction:
            i -= 1
        elif start(i + 1) <= fraction:
            i += 1
        return i, (fraction - start(i)) / t_mul ** i

    def __call__(self, step: Any) -> float:
        step = _step(type(self).__name__, step)
        i, fraction = self._period(step / self.first_decay_steps)
        cosine = self.m_mul ** i * 0.5 * (1.0 + math.cos(math.pi * fraction))
        return float(self.initial_learning_rate * ((1.0 - self.alpha) * cosine + self.alpha))

    def get_config(self) -> dict:
        return {'initial_learning_rate': self.initial_learning_rate,
                'first_decay_steps': self.first_decay_steps, 't_mul': self.t_mul,
                'm_mul': self.m_mul, 'alpha': self.alpha, 'name': self.name}


_CLASSES = {cls.__name__: cls for cls in (ExponentialDecay, PiecewiseConstantDecay,
                                          PolynomialDecay, InverseTimeDecay, CosineDecay,
                                          CosineDecayRestarts)}


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict:
    """``{'class_name': ..., 'config': ...}`` for a schedule.

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> schedules.serialize(schedules.InverseTimeDecay(0.1, 10, 0.5))
        {'class_name': 'InverseTimeDecay', 'config': {'initial_learning_rate': 0.1,
         'decay_steps': 10, 'decay_rate': 0.5, 'staircase': False, 'name': 'InverseTimeDecay'}}
    """
    if not isinstance(learning_rate_schedule, LearningRateSchedule):
        raise TypeError(f'schedules.serialize: expected a LearningRateSchedule, got '
                        f'{type(learning_rate_schedule).__name__}')
    return {'class_name': type(learning_rate_schedule).__name__,
            'config': learning_rate_schedule.get_config()}


def deserialize(config: dict, custom_objects: Optional[dict] = None) -> LearningRateSchedule:
    """The schedule described by ``config`` (the output of :func:`serialize`); schedules not
    defined here are looked up by class name in ``custom_objects``.

    Example:
        >>> from chainlet.keras.optimizers import schedules
        >>> lr = schedules.deserialize({'class_name': 'PolynomialDecay',
        ...                             'config': {'initial_learning_rate': 0.1,
        ...                                        'decay_steps': 10}})
        >>> lr(10)
        0.0001
    """
    if not isinstance(config, dict) or 'class_name' not in config:
        raise ValueError(f'schedules.deserialize: expected a dict with class_name and config, '
                         f'got {config!r}')
    name = config['class_name']
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(f'schedules.deserialize: unknown learning-rate schedule {name!r}; '
                         f'known: {sorted(_CLASSES)}; pass others in custom_objects')
    return cls.from_config(dict(config.get('config') or {}))


__all__ = ['LearningRateSchedule', 'ExponentialDecay', 'PiecewiseConstantDecay',
           'PolynomialDecay', 'InverseTimeDecay', 'CosineDecay', 'CosineDecayRestarts',
           'serialize', 'deserialize']
