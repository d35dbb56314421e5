"""``keras.random``: random tensors and random ops with Keras's seeding rules.

The ``seed`` argument of every function works as Keras documents it:

* an **int**: the call is reproducible -- the same seed gives the same values every time;
* a :class:`SeedGenerator`: each call draws from the generator's next state, so successive
  calls differ while the whole sequence is reproducible from the generator's own seed;
* ``None``: NumPy's global random state is used, so ``keras.utils.set_random_seed(s)`` (or
  ``numpy.random.seed(s)``) makes a run reproducible.

Values are drawn with NumPy and returned as NumPy arrays (``dropout`` and ``shuffle`` keep the
kind and device of their input: a Variable stays on the graph, a CuPy array on its GPU).

Example:
    >>> from chainlet import keras
    >>> a = keras.random.normal((2,), seed=1)
    >>> b = keras.random.normal((2,), seed=1)
    >>> bool((a == b).all())
    True
    >>> gen = keras.random.SeedGenerator(42)
    >>> bool((keras.random.uniform((2,), seed=gen) == keras.random.uniform((2,), seed=gen)).all())
    False
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

import chainlet
import chainlet.functions as F
from chainlet import Variable
from chainlet.keras.ops._dispatch import FLOATX, array_of, keras_op, to_float


class SeedGenerator:
    """A reproducible source of seeds: every draw advances its state.

    Args:
        seed: Initial seed (an int); ``None`` picks one from NumPy's global random state.

    Example:
        >>> from chainlet import keras
        >>> g1, g2 = keras.random.SeedGenerator(3), keras.random.SeedGenerator(3)
        >>> a = [keras.random.randint((), 0, 100, seed=g1) for _ in range(3)]
        >>> b = [keras.random.randint((), 0, 100, seed=g2) for _ in range(3)]
        >>> a == b
        True
    """

    def __init__(self, seed: Optional[int] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        if seed is None:
            seed = int(numpy.random.randint(0, 2 ** 31 - 1))
        if isinstance(seed, bool) or not isinstance(seed, (int, numpy.integer)):
            raise TypeError(f'SeedGenerator: argument seed: expected an int or None, got '
                            f'{seed!r}')
        self.initial_seed = int(seed)
        self.name = name or 'seed_generator'
        self.state = numpy.array([self.initial_seed, 0], dtype='int64')

    def next(self, ordered: bool = True) -> numpy.ndarray:
        """The current state (``[seed, counter]``), then advance the counter."""
        current = self.state.copy()
        self.state[1] += 1
        return current

    def get_config(self) -> dict:
        return {'seed': self.initial_seed, 'name': self.name}

    @classmethod
    def from_config(cls, config: dict) -> 'SeedGenerator':
        return cls(**config)

    def __repr__(self) -> str:
        return f'<SeedGenerator seed={self.initial_seed} counter={int(self.state[1])}>'


def _rng(seed: Any) -> Any:
    """A NumPy random source for ``seed`` (see the module docstring)."""
    if seed is None:
        return _GlobalState()
    if isinstance(seed, SeedGenerator):
        return numpy.random.default_rng([int(v) for v in seed.next()])
    if isinstance(seed, bool) or not isinstance(seed, (int, numpy.integer)):
        raise TypeError(f'keras.random: argument seed: expected an int, a SeedGenerator or '
                        f'None, got {seed!r}')
    if seed < 0:
        raise ValueError(f'keras.random: argument seed: expected a non-negative int, got {seed}')
    return numpy.random.default_rng(int(seed))


class _GlobalState:
    """The Generator interface over NumPy's global (seedable) random state."""

    def standard_normal(self, size: Any) -> Any:
        return numpy.random.standard_normal(size)

    def random(self, size: Any) -> Any:
        return numpy.random.random_sample(size)

    def integers(self, low: int, high: int, size: Any) -> Any:
        return numpy.random.randint(low, high, size, dtype='int64')

    def permutation(self, n: int) -> Any:
        return numpy.random.permutation(n)

    def gamma(self, shape: Any, size: Any) -> Any:
        return numpy.random.gamma(shape, size=size)

    def binomial(self, n: Any, p: Any, size: Any) -> Any:
        return numpy.random.binomial(n, p, size)


def _shape(shape: Any) -> tuple:
    if isinstance(shape, (int, numpy.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _float_dtype(dtype: Any, name: str) -> numpy.dtype:
    d = numpy.dtype(dtype or FLOATX)
    if d.kind != 'f':
        raise ValueError(f'keras.random.{name}: dtype must be a float dtype, got {d.name}')
    return d


def normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
           seed: Any = None) -> numpy.ndarray:
    """Samples of a normal distribution."""
    d = _float_dtype(dtype, 'normal')
    z = _rng(seed).standard_normal(_shape(shape))
    return numpy.asarray(mean + stddev * z).astype(d)


def uniform(shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None,
            seed: Any = None) -> numpy.ndarray:
    """Samples of the uniform distribution on ``[minval, maxval)``."""
    d = _float_dtype(dtype, 'uniform')
    u = _rng(seed).random(_shape(shape))
    return numpy.asarray(minval + (maxval - minval) * u).astype(d)


def truncated_normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None,
                     seed: Any = None) -> numpy.ndarray:
    """Normal samples redrawn until they lie within two standard deviations of ``mean``."""
    d = _float_dtype(dtype, 'truncated_normal')
    rng = _rng(seed)
    shape = _shape(shape)
    z = numpy.asarray(rng.standard_normal(shape), dtype='float64')
    bad = numpy.abs(z) > 2
    while bad.any():
        z[bad] = rng.standard_normal(int(bad.sum()))
        bad = numpy.abs(z) > 2
    return numpy.asarray(mean + stddev * z).astype(d)


def randint(shape: Any, minval: int, maxval: int, dtype: Any = 'int32',
            seed: Any = None) -> numpy.ndarray:
    """Integers uniform in ``[minval, maxval)``."""
    d = numpy.dtype(dtype)
    if d.kind not in 'iu':
        raise ValueError(f'keras.random.randint: dtype must be an integer dtype, got {d.name}')
    if maxval <= minval:
        raise ValueError(f'keras.random.randint: maxval ({maxval}) must be greater than '
                         f'minval ({minval})')
    return numpy.asarray(_rng(seed).integers(int(minval), int(maxval), _shape(shape))).astype(d)


def categorical(logits: Any, num_samples: int, dtype: Any = 'int32',
                seed: Any = None) -> numpy.ndarray:
    """``num_samples`` class indices per row of unnormalized log-probabilities ``logits``
    (Gumbel-max sampling); shape ``(batch, num_samples)``."""
    lg = numpy.asarray(chainlet.backend.to_cpu(array_of(logits)), dtype='float64')
    if lg.ndim != 2:
        raise ValueError(f'keras.random.categorical: logits must be 2-D (batch, classes), got '
                         f'shape {lg.shape}')
    u = _rng(seed).random((lg.shape[0], int(num_samples), lg.shape[1]))
    gumbel = -numpy.log(-numpy.log(numpy.clip(u, 1e-300, 1.0)))
    return numpy.argmax(lg[:, None, :] + gumbel, axis=-1).astype(dtype)


def gamma(shape: Any, alpha: float, dtype: Any = None, seed: Any = None) -> numpy.ndarray:
    """Samples of the gamma distribution with concentration ``alpha`` (scale 1)."""
    d = _float_dtype(dtype, 'gamma')
    return numpy.asarray(_rng(seed).gamma(alpha, size=_shape(shape))).astype(d)


def beta(shape: Any, alpha: float, beta: float, dtype: Any = None,
         seed: Any = None) -> numpy.ndarray:
    """Samples of the beta distribution (as a ratio of two gamma samples)."""
    d = _float_dtype(dtype, 'beta')
    rng = _rng(seed)
    a = numpy.asarray(rng.gamma(alpha, size=_shape(shape)))
    b = numpy.asarray(rng.gamma(beta, size=_shape(shape)))
    return (a / (a + b)).astype(d)


def binomial(shape: Any, counts: Any, probabilities: Any, dtype: Any = None,
             seed: Any = None) -> numpy.ndarray:
    """Samples of binomial distributions (returned as floats, like Keras)."""
    d = _float_dtype(dtype, 'binomial')
    n = numpy.broadcast_to(numpy.asarray(array_of(counts)), _shape(shape))
    p = numpy.broadcast_to(numpy.asarray(array_of(probabilities)), _shape(shape))
    return numpy.asarray(_rng(seed).binomial(n.astype('int64'), p, size=_shape(shape))) \
        .astype(d)


@keras_op('inputs', module='random')
def dropout(inputs: Any, rate: float, noise_shape: Any = None, seed: Any = None) -> Any:
    """Zero each element with probability ``rate`` and scale the rest by ``1 / (1 - rate)``;
    ``noise_shape`` (broadcastable to the input) shares one draw along axes of size 1."""
    if not 0 <= rate < 1:
        raise ValueError(f'keras.random.dropout: rate must be in [0, 1), got {rate}')
    x = to_float(inputs)
    shape = tuple(x.shape) if noise_shape is None else \
        tuple(x.shape[i] if s is None else int(s) for i, s in enumerate(noise_shape))
    keep = _rng(seed).random(shape) >= rate
    mask = x.xp.asarray((keep / (1.0 - rate)).astype(x.dtype))
    return x * F.broadcast_to(Variable(mask, requires_grad=False), x.shape) \
        if shape != tuple(x.shape) else x * mask


@keras_op('x', module='random')
def shuffle(x: Any, axis: int = 0, seed: Any = None) -> Any:
    """``x`` with its slices along ``axis`` in a random order."""
    order = _rng(seed).permutation(x.shape[axis])
    key = (slice(None),) * (axis % x.ndim) + (x.xp.asarray(order),)
    return F.get_item(x, key) if x.dtype.kind == 'f' else x.array[key]


__all__ = ['SeedGenerator', 'normal', 'uniform', 'truncated_normal', 'randint', 'categorical',
           'gamma', 'beta', 'binomial', 'dropout', 'shuffle']
