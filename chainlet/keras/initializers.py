"""Keras initializers (Keras names and fan conventions), usable by ``Layer.add_weight``.

Keras computes fans from its own weight layouts: a Dense kernel is ``(in, out)`` and a Conv2D
kernel ``(kh, kw, in, out)``, so ``fan_in = prod(shape[:-1])`` and ``fan_out = shape[-1] *
prod(shape[:-2])`` — unlike Chainer's ``(out, in, kh, kw)``. Each initializer fills an array in
place when called, like chainlet's own, so both kinds can be mixed.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import initializers
    >>> w = np.empty((2, 3), np.float32)
    >>> initializers.get('ones')(w)
    >>> float(w.sum())
    6.0
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy

from chainlet import _chunked_random


def compute_fans(shape: tuple, input_axes: Any = None,
                 output_axes: Any = None) -> tuple[float, float]:
    """``(fan_in, fan_out)`` for a Keras-layout weight of ``shape``, or the products of the
    sizes along ``input_axes`` and ``output_axes`` when both are given (Keras 3.15)."""
    if input_axes is not None and output_axes is not None:
        return (float(math.prod(shape[a] for a in input_axes)),
                float(math.prod(shape[a] for a in output_axes)))
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = math.prod(shape[:-2])
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


class Initializer:
    """Base class: ``init(array)`` fills ``array`` in place."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = seed
        self._rng = numpy.random.default_rng(seed) if seed is not None else None

    def _random(self) -> Any:
        return self._rng if self._rng is not None else numpy.random

    def __call__(self, array: Any = None, dtype: Any = None, shape: Any = None) -> Any:
        """Fill ``array`` in place (Chainer's initializer protocol), or, given a shape
        (``init(shape=(3, 4), dtype='float32')`` or ``init((3, 4))``, Keras's), return a new
        array of ``dtype`` (``keras.config.floatx()`` by default)."""
        if shape is None and array is not None and not hasattr(array, 'shape'):
            shape, array = array, None
        if shape is not None:
            from chainlet.keras import config
            dims = tuple(int(s) for s in shape)
            out = numpy.empty(dims, dtype or config.floatx())
            self._write(out)
            return out
        if array is None:
            raise TypeError(f'{type(self).__name__}: expected an array to fill or a shape')
        self._write(array)
        return None

    def generate(self, shape: tuple) -> numpy.ndarray:
        """Return a new float64 array of ``shape``."""
        if type(self)._fill_into is Initializer._fill_into:
            raise NotImplementedError(f'{type(self).__name__} must implement generate')
        out = numpy.empty(shape)
        self._fill_into(out)
        return out

    def _fill_into(self, out: Any) -> None:
        """Write this initializer's values, converted, into ``out``: the random ones draw a
        chunk at a time, so that a big weight never exists in float64 (VGG19's first dense
        kernel: 822 MB)."""
        out[...] = self.generate(tuple(out.shape))

    def _write(self, out: Any) -> None:
        # a subclass that overrides generate below the class that defines _fill_into (a user's
        # RandomNormal with its own generate) gets its generate used
        mro = type(self).__mro__
        owner_generate = next(k for k in mro if 'generate' in vars(k))
        owner_fill = next(k for k in mro if '_fill_into' in vars(k))
        if issubclass(owner_fill, owner_generate):
            self._fill_into(out)
        else:
            out[...] = self.generate(tuple(out.shape))

    def get_config(self) -> dict:
        return {'seed': self.seed} if 'seed' in vars(self) else {}

    @classmethod
    def from_config(cls, config: dict) -> 'Initializer':
        return cls(**config)


class Zeros(Initializer):
    """All zeros."""

    def __init__(self) -> None:
        super().__init__()

    def generate(self, shape: tuple) -> numpy.ndarray:
        return numpy.zeros(shape)

    def _fill_into(self, out: Any) -> None:
        out[...] = 0.0

    def get_config(self) -> dict:
        return {}


class Ones(Zeros):
    """All ones."""

    def generate(self, shape: tuple) -> numpy.ndarray:
        return numpy.ones(shape)

    def _fill_into(self, out: Any) -> None:
        out[...] = 1.0


class Constant(Initializer):
    """A constant ``value``."""

    def __init__(self, value: float = 0.0) -> None:
        super().__init__()
        self.value = value

    def generate(self, shape: tuple) -> numpy.ndarray:
        return numpy.full(shape, self.value, dtype=numpy.float64)

    def _fill_into(self, out: Any) -> None:
        out[...] = numpy.asarray(self.value, numpy.float64)

    def get_config(self) -> dict:
        return {'value': self.value}


class RandomNormal(Initializer):
    """N(mean, stddev^2)."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05,
                 seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def _fill_into(self, out: Any) -> None:
        _chunked_random.fill(out, self._random(), 'normal', loc=self.mean, scale=self.stddev)

    def get_config(self) -> dict:
        return {'mean': self.mean, 'stddev': self.stddev, 'seed': self.seed}


class RandomUniform(Initializer):
    """U(minval, maxval)."""

    def __init__(self, minval: float = -0.05, maxval: float = 0.05,
                 seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def _fill_into(self, out: Any) -> None:
        _chunked_random.fill(out, self._random(), 'uniform', low=self.minval, high=self.maxval)

    def get_config(self) -> dict:
        return {'minval': self.minval, 'maxval': self.maxval, 'seed': self.seed}


class TruncatedNormal(RandomNormal):
    """Normal truncated at two standard deviations."""

    def _fill_into(self, out: Any) -> None:
        _chunked_random.fill_truncated_normal(out, self._random(), self.stddev, mean=self.mean)


class VarianceScaling(Initializer):
    """Scale-aware random init: std or limit from ``scale / fan`` (``mode``: fan_in, fan_out,
    fan_avg; ``distribution``: truncated_normal, untruncated_normal, uniform)."""

    def __init__(self, scale: float = 1.0, mode: str = 'fan_in',
                 distribution: str = 'truncated_normal', seed: Optional[int] = None,
                 input_axes: Any = None, output_axes: Any = None) -> None:
        super().__init__(seed)
        self.input_axes, self.output_axes = input_axes, output_axes
        if mode not in ('fan_in', 'fan_out', 'fan_avg'):
            raise ValueError(f"VarianceScaling: argument mode: expected 'fan_in', 'fan_out' or "
                             f"'fan_avg', got {mode!r}")
        if distribution == 'normal':
            distribution = 'truncated_normal'
        if distribution not in ('truncated_normal', 'untruncated_normal', 'uniform'):
            raise ValueError(f'VarianceScaling: argument distribution: unknown {distribution!r}')
        if scale <= 0:
            raise ValueError(f'VarianceScaling: argument scale: expected > 0, got {scale}')
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _fill_into(self, out: Any) -> None:
        fan_in, fan_out = compute_fans(tuple(out.shape), self.input_axes, self.output_axes)
        fan = {'fan_in': fan_in, 'fan_out': fan_out, 'fan_avg': (fan_in + fan_out) / 2}[self.mode]
        scale = self.scale / max(1.0, fan)
        random = self._random()
        if self.distribution == 'truncated_normal':
            # 0.879... is the std of a unit normal truncated at two standard deviations
            _chunked_random.fill_truncated_normal(
                out, random, math.sqrt(scale) / 0.87962566103423978)
        elif self.distribution == 'untruncated_normal':
            _chunked_random.fill(out, random, 'normal', loc=0.0, scale=math.sqrt(scale))
        else:
            limit = math.sqrt(3.0 * scale)
            _chunked_random.fill(out, random, 'uniform', low=-limit, high=limit)

    def get_config(self) -> dict:
        config = {'scale': self.scale, 'mode': self.mode, 'distribution': self.distribution,
                  'seed': self.seed}
        return _with_axes(self, config)


def _with_axes(init: Any, config: dict) -> dict:
    if init.input_axes is not None or init.output_axes is not None:
        config.update(input_axes=init.input_axes, output_axes=init.output_axes)
    return config


def _variance_class(name: str, scale: float, mode: str, distribution: str) -> type:
    def __init__(self: Any, seed: Optional[int] = None, input_axes: Any = None,
                 output_axes: Any = None) -> None:
        VarianceScaling.__init__(self, scale, mode, distribution, seed, input_axes,
                                 output_axes)

    def get_config(self: Any) -> dict:
        return _with_axes(self, {'seed': self.seed})
    return type(name, (VarianceScaling,), {'__init__': __init__, 'get_config': get_config,
                                           '__doc__': f'VarianceScaling({scale}, {mode!r}, '
                                                      f'{distribution!r}).'})


GlorotUniform = _variance_class('GlorotUniform', 1.0, 'fan_avg', 'uniform')
GlorotNormal = _variance_class('GlorotNormal', 1.0, 'fan_avg', 'truncated_normal')
HeUniform = _variance_class('HeUniform', 2.0, 'fan_in', 'uniform')
HeNormal = _variance_class('HeNormal', 2.0, 'fan_in', 'truncated_normal')
LecunUniform = _variance_class('LecunUniform', 1.0, 'fan_in', 'uniform')
LecunNormal = _variance_class('LecunNormal', 1.0, 'fan_in', 'truncated_normal')


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain`` (leading axes flattened into rows)."""

    def __init__(self, gain: float = 1.0, seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.gain = gain

    def generate(self, shape: tuple) -> numpy.ndarray:
        if len(shape) < 2:
            raise ValueError(f'Orthogonal: expected a weight of ndim >= 2, got shape {shape}')
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = self._random().normal(0.0, 1.0, size=(max(rows, cols), min(rows, cols)))
        q, r = numpy.linalg.qr(a)
        q *= numpy.sign(numpy.diag(r))
        if rows < cols:
            q = q.T
        return self.gain * q[:rows, :cols].reshape(shape)

    def get_config(self) -> dict:
        return {'gain': self.gain, 'seed': self.seed}


class Identity(Initializer):
    """``gain`` times the identity (2-D weights)."""

    def __init__(self, gain: float = 1.0) -> None:
        super().__init__()
        self.gain = gain

    def generate(self, shape: tuple) -> numpy.ndarray:
        if len(shape) != 2:
            raise ValueError(f'Identity: expected a 2-D weight, got shape {shape}')
        return self.gain * numpy.eye(*shape)

    def get_config(self) -> dict:
        return {'gain': self.gain}


_ALIASES: dict[str, type[Initializer]] = {
    'zeros': Zeros, 'zero': Zeros, 'ones': Ones, 'one': Ones, 'constant': Constant,
    'random_normal': RandomNormal, 'normal': RandomNormal, 'random_uniform': RandomUniform,
    'uniform': RandomUniform, 'truncated_normal': TruncatedNormal,
    'variance_scaling': VarianceScaling, 'glorot_uniform': GlorotUniform,
    'glorot_normal': GlorotNormal, 'he_uniform': HeUniform, 'he_normal': HeNormal,
    'lecun_uniform': LecunUniform, 'lecun_normal': LecunNormal, 'orthogonal': Orthogonal,
    'identity': Identity,
}
# Keras 3's other public names of the classes (keras.initializers.zeros is the class Zeros)
IdentityInitializer, OrthogonalInitializer = Identity, Orthogonal
constant, identity, ones, orthogonal, zeros = Constant, Identity, Ones, Orthogonal, Zeros
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling = VarianceScaling
glorot_normal, glorot_uniform, he_normal, he_uniform = (GlorotNormal, GlorotUniform, HeNormal,
                                                        HeUniform)
lecun_normal, lecun_uniform = LecunNormal, LecunUniform

# Keyed by whatever a config's 'class_name' holds (looked up with .get, so any hashable).
_CLASSES: dict[Any, type[Initializer]] = {cls.__name__: cls for cls in set(_ALIASES.values())}


def get(identifier: Any) -> Any:
    """An initializer from a name (``'glorot_uniform'``), a config dict, or an object."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        cls = _ALIASES.get(identifier) or _CLASSES.get(identifier)
        if cls is None:
            raise ValueError(f'Unknown initializer: {identifier!r}. Known: {sorted(_ALIASES)}')
        return cls()
    if isinstance(identifier, dict):
        cls = _CLASSES.get(identifier.get('class_name'))
        if cls is None:
            raise ValueError(f'Unknown initializer: {identifier.get("class_name")!r}')
        return cls.from_config(identifier.get('config', {}))
    if callable(identifier):
        return identifier
    raise TypeError(f'Could not interpret initializer identifier: {identifier!r}')


def serialize(initializer: Any) -> Any:
    """A config dict ``{'class_name', 'config'}`` for a Keras initializer."""
    if initializer is None:
        return None
    if isinstance(initializer, Initializer):
        return {'class_name': type(initializer).__name__, 'config': initializer.get_config()}
    raise ValueError(f'Cannot serialize initializer {initializer!r}: only Keras initializers '
                     f'(chainlet.keras.initializers) can be saved in a config')


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The initializer of :func:`serialize`'s config (classes also from ``custom_objects``)."""
    if isinstance(config, dict) and custom_objects and \
            config.get('class_name') in custom_objects:
        return custom_objects[config['class_name']].from_config(config.get('config', {}))
    return get(config)
