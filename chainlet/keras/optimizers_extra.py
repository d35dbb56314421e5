"""More of Keras 3's optimizers: ``Adadelta``, ``Adamax``, ``Nadam``, ``Lion``, with Keras's
update formulas and defaults.

Design: each formula is a function ``step(xp, hp, state, t, grad, data)`` that updates
``data`` and the state arrays in place (NumPy or CuPy alike); :class:`FormulaMethod` is the
chainlet :class:`~chainlet.optimizer.GradientMethod` running it per parameter, so hooks,
serializers and ``to_device`` work as for the built-in optimizers, and the Keras classes here
configure it as the other :mod:`chainlet.keras.optimizers` do.

Example:
    >>> from chainlet import keras
    >>> keras.optimizers.get('nadam').get_config()['beta_2']
    0.999
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy

from chainlet import backend, optimizer
from chainlet.keras.optimizers import Optimizer


def _adadelta(xp: Any, hp: Any, state: dict, t: int, grad: Any, data: Any) -> None:
    rho, eps = float(hp.rho), float(hp.eps)
    acc_g, acc_d = state['accumulated_grad'], state['accumulated_delta']
    acc_g *= rho
    acc_g += (1 - rho) * grad * grad
    delta = -xp.sqrt(acc_d + eps) * grad / xp.sqrt(acc_g + eps)
    acc_d *= rho
    acc_d += (1 - rho) * delta * delta
    data += float(hp.lr) * delta


def _adamax(xp: Any, hp: Any, state: dict, t: int, grad: Any, data: Any) -> None:
    b1, b2 = float(hp.beta_1), float(hp.beta_2)
    m, u = state['m'], state['u']
    m += (grad - m) * (1 - b1)
    xp.maximum(b2 * u, xp.abs(grad), out=u)
    data -= float(hp.lr) * m / ((1 - b1 ** t) * (u + float(hp.eps)))


def _nadam(xp: Any, hp: Any, state: dict, t: int, grad: Any, data: Any) -> None:
    b1, b2 = float(hp.beta_1), float(hp.beta_2)
    u_t = b1 * (1.0 - 0.5 * 0.96 ** t)
    u_next = b1 * (1.0 - 0.5 * 0.96 ** (t + 1))
    # Keras keeps the product of the u_t over the steps (one per optimizer; the same here,
    # as every parameter's rule counts the same steps)
    product = float(state['u_product'][()]) * u_t
    state['u_product'][()] = product
    m, v = state['m'], state['v']
    m += (grad - m) * (1 - b1)
    v += (grad * grad - v) * (1 - b2)
    m_hat = u_next * m / (1 - product * u_next) + (1 - u_t) * grad / (1 - product)
    v_hat = v / (1 - b2 ** t)
    data -= m_hat * float(hp.lr) / (xp.sqrt(v_hat) + float(hp.eps))


def _lion(xp: Any, hp: Any, state: dict, t: int, grad: Any, data: Any) -> None:
    b1, b2 = float(hp.beta_1), float(hp.beta_2)
    m = state['m']
    data -= float(hp.lr) * xp.sign(m * b1 + grad * (1.0 - b1))
    m *= b2
    m += grad * (1.0 - b2)


_STATE = {_adadelta: ('accumulated_grad', 'accumulated_delta'), _adamax: ('m', 'u'),
          _nadam: ('m', 'v'), _lion: ('m',)}


class FormulaRule(optimizer.UpdateRule):
    """The update rule of :class:`FormulaMethod`: zero-initialized state arrays and the
    formula run on each update."""

    def __init__(self, parent_hyperparam: Any, formula: Callable) -> None:
        super().__init__(parent_hyperparam)
        self.formula = formula

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        for name in _STATE[self.formula]:
            self.state[name] = xp.zeros_like(param.array)
        if self.formula is _nadam:
            self.state['u_product'] = xp.ones((), param.array.dtype)

    def update_core_cpu(self, param: Any) -> None:
        self.formula(numpy, self.hyperparam, self.state, self.t, param.grad, param.array)

    def update_core_gpu(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        self.formula(xp, self.hyperparam, self.state, self.t, param.grad, param.array)


class FormulaMethod(optimizer.GradientMethod):
    """A chainlet optimizer running one of this module's formulas with hyperparameters
    ``lr`` and those given."""

    lr = optimizer.HyperparameterProxy('lr')

    def __init__(self, formula: Callable, **hyperparameters: float) -> None:
        super().__init__()
        self.formula = formula
        self.hyperparam.lr = 0.001
        for name, value in hyperparameters.items():
            setattr(self.hyperparam, name, value)

    def create_update_rule(self) -> FormulaRule:
        return FormulaRule(self.hyperparam, self.formula)


class Adadelta(Optimizer):
    """Adadelta with Keras's learning rate: ``w += learning_rate * delta`` where
    ``delta = -sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps) * g``.

    Args:
        learning_rate: Scale of the step (0.001).
        rho: Decay of the running averages (0.95).
        epsilon: Added inside the square roots (1e-7).
    """

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-7,
                 **kwargs: Any) -> None:
        self.rho, self.epsilon = float(rho), float(epsilon)
        super().__init__(learning_rate=learning_rate, **kwargs)

    def _create(self) -> optimizer.GradientMethod:
        return FormulaMethod(_adadelta, rho=self.rho, eps=self.epsilon)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(rho=self.rho, epsilon=self.epsilon)
        return config


class _BetaOptimizer(Optimizer):
    _formula: Callable
    _beta_2 = 0.999

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9,
                 beta_2: Optional[float] = None, epsilon: float = 1e-7,
                 **kwargs: Any) -> None:
        self.beta_1 = float(beta_1)
        self.beta_2 = float(self._beta_2 if beta_2 is None else beta_2)
        self.epsilon = float(epsilon)
        super().__init__(learning_rate=learning_rate, **kwargs)

    def _create(self) -> optimizer.GradientMethod:
        return FormulaMethod(type(self)._formula, beta_1=self.beta_1, beta_2=self.beta_2,
                             eps=self.epsilon)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2, epsilon=self.epsilon)
        return config


class Adamax(_BetaOptimizer):
    """Adamax (Kingma and Ba, 2015), the infinity-norm Adam: ``u = max(beta_2 u, |g|)``,
    ``w -= learning_rate m / ((1 - beta_1^t) (u + epsilon))``. Defaults 0.001, 0.9, 0.999,
    1e-7."""

    _formula = staticmethod(_adamax)


class Nadam(_BetaOptimizer):
    """Nadam (Dozat, 2016), Adam with Nesterov momentum and Keras's momentum schedule
    ``u_t = beta_1 (1 - 0.5 * 0.96^t)``. Defaults 0.001, 0.9, 0.999, 1e-7."""

    _formula = staticmethod(_nadam)


class Lion(Optimizer):
    """Lion (Chen et al., 2023): ``w -= learning_rate * sign(beta_1 m + (1 - beta_1) g)``,
    ``m = beta_2 m + (1 - beta_2) g``. Defaults 0.001, 0.9, 0.99.

    Raises:
        ValueError: ``beta_1`` outside ``[0, 1]``.
    """

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.99,
                 **kwargs: Any) -> None:
        if not 0 <= beta_1 <= 1:
            raise ValueError(f'Lion: argument beta_1: expected a value in [0, 1], got {beta_1}')
        self.beta_1, self.beta_2 = float(beta_1), float(beta_2)
        super().__init__(learning_rate=learning_rate, **kwargs)

    def _create(self) -> optimizer.GradientMethod:
        return FormulaMethod(_lion, beta_1=self.beta_1, beta_2=self.beta_2)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(beta_1=self.beta_1, beta_2=self.beta_2)
        return config


CLASSES = (Adadelta, Adamax, Nadam, Lion)

__all__ = ['Adadelta', 'Adamax', 'Lion', 'Nadam']
