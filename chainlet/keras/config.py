"""Global settings of the facade, as Keras 3's ``keras.config`` (``from chainlet.keras import
config``).

The settings govern what Keras's do: ``floatx`` (or a dtype policy) is the default dtype of
new layers, their weights and ``keras.Input``; ``image_data_format`` is the default
``data_format`` of new image layers; ``epsilon`` is the fuzz factor of losses and metrics;
``max_epochs`` / ``max_steps_per_epoch`` cap ``fit`` (for quick trial runs);
interactive logging chooses between a redrawn progress bar and plain lines. The
traceback-filtering switches are kept for programs that call them: chainlet never filters
tracebacks, so they only record the choice.

Mixed-precision policies (``'mixed_float16'``, ``'mixed_bfloat16'``) are accepted and run in
their variable dtype (float32): the policy's ``compute_dtype`` reports Keras's value, but the
layers compute in float32 (mixed precision is a speed optimisation; the results are the ones
float32 gives).

Example:
    >>> from chainlet import keras
    >>> keras.config.floatx(), keras.config.image_data_format()
    ('float32', 'channels_last')
    >>> keras.config.set_floatx('float64')
    >>> keras.layers.Dense(2).dtype
    'float64'
    >>> keras.config.set_floatx('float32')
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

_FLOATS = ('bfloat16', 'float16', 'float32', 'float64')
_STATE: dict = {
    'floatx': 'float32', 'epsilon': 1e-7, 'image_data_format': 'channels_last',
    'traceback_filtering': True, 'interactive_logging': True, 'unsafe_deserialization': False,
    'max_epochs': None, 'max_steps_per_epoch': None, 'dtype_policy': None,
    'flash_attention': None,
}


def floatx() -> str:
    """The default float dtype of layers, weights and inputs (``'float32'``)."""
    return _STATE['floatx']


def set_floatx(value: str) -> None:
    """Set :func:`floatx` to ``'float16'``, ``'bfloat16'``, ``'float32'`` or ``'float64'``.

    Raises:
        ValueError: Another value.
    """
    name = str(value)
    if name not in _FLOATS:
        raise ValueError(f'keras.config.set_floatx: argument value: expected one of '
                         f'{list(_FLOATS)}, got {value!r}')
    _STATE['floatx'] = name


def epsilon() -> float:
    """The fuzz factor of losses and metrics (``1e-7``)."""
    return _STATE['epsilon']


def set_epsilon(value: float) -> None:
    """Set :func:`epsilon`."""
    _STATE['epsilon'] = float(value)


def image_data_format() -> str:
    """``'channels_last'`` (default) or ``'channels_first'``: the default ``data_format`` of
    image layers."""
    return _STATE['image_data_format']


def set_image_data_format(data_format: str) -> None:
    """Set :func:`image_data_format` (new layers created afterwards use it).

    Raises:
        ValueError: Neither ``'channels_last'`` nor ``'channels_first'``.
    """
    fmt = str(data_format).lower()
    if fmt not in ('channels_last', 'channels_first'):
        raise ValueError(f"keras.config.set_image_data_format: argument data_format: expected "
                         f"'channels_last' or 'channels_first', got {data_format!r}")
    _STATE['image_data_format'] = fmt


def standardize_data_format(data_format: Optional[str]) -> str:
    """``data_format`` checked and lower-cased; ``None`` means :func:`image_data_format`."""
    if data_format is None:
        return image_data_format()
    fmt = str(data_format).lower()
    if fmt not in ('channels_last', 'channels_first'):
        raise ValueError(f"argument data_format: expected 'channels_last' or 'channels_first', "
                         f"got {data_format!r}")
    return fmt


def backend() -> str:
    """The name of the backend: ``'chainlet'``."""
    return 'chainlet'


def set_backend(backend: str) -> None:
    """Keras switches between TensorFlow, JAX and PyTorch here; the facade has one backend.

    Raises:
        ValueError: Any name other than ``'chainlet'`` (and ``'numpy'``, which it stands for).
    """
    if backend not in ('chainlet', 'numpy'):
        raise ValueError(f"keras.config.set_backend: argument backend: chainlet.keras runs on "
                         f"chainlet only ('chainlet'), got {backend!r}")


# -- tracebacks, logging, deserialization


def enable_traceback_filtering() -> None:
    """Recorded only: chainlet shows whole tracebacks (Keras hides its own frames)."""
    _STATE['traceback_filtering'] = True


def disable_traceback_filtering() -> None:
    """Recorded only: chainlet never filters tracebacks."""
    _STATE['traceback_filtering'] = False


def is_traceback_filtering_enabled() -> bool:
    """What :func:`enable_traceback_filtering` / :func:`disable_traceback_filtering` set."""
    return _STATE['traceback_filtering']


def enable_interactive_logging() -> None:
    """Progress bars redraw in place on a terminal (the default)."""
    _STATE['interactive_logging'] = True


def disable_interactive_logging() -> None:
    """Progress is printed as plain lines, also on a terminal (for logs)."""
    _STATE['interactive_logging'] = False


def is_interactive_logging_enabled() -> bool:
    return _STATE['interactive_logging']


def enable_unsafe_deserialization() -> None:
    """Allow loading ``Lambda`` layers saved as Python bytecode, as Keras's switch (chainlet's
    loaders never unpickle: this records the choice for code that checks it)."""
    _STATE['unsafe_deserialization'] = True


def enable_flash_attention() -> None:
    """Recorded only: attention layers compute the same values either way."""
    _STATE['flash_attention'] = True


def disable_flash_attention() -> None:
    """Recorded only (see :func:`enable_flash_attention`)."""
    _STATE['flash_attention'] = False


def is_flash_attention_enabled() -> Optional[bool]:
    """``None`` until set, as in Keras."""
    return _STATE['flash_attention']


def is_nnx_enabled() -> bool:
    """Flax NNX integration is a JAX feature: always ``False``."""
    return False


# -- caps on fit


def max_epochs() -> Optional[int]:
    """The cap on ``fit``'s ``epochs`` (``None``: no cap)."""
    return _STATE['max_epochs']


def set_max_epochs(max_epochs: Optional[int]) -> None:
    """Cap the number of epochs of every ``fit`` (``None`` removes the cap)."""
    _STATE['max_epochs'] = _cap(max_epochs, 'set_max_epochs', 'max_epochs')


def max_steps_per_epoch() -> Optional[int]:
    """The cap on the batches of one epoch (``None``: no cap)."""
    return _STATE['max_steps_per_epoch']


def set_max_steps_per_epoch(max_steps_per_epoch: Optional[int]) -> None:
    """Cap the batches per epoch of every ``fit`` (``None`` removes the cap)."""
    _STATE['max_steps_per_epoch'] = _cap(max_steps_per_epoch, 'set_max_steps_per_epoch',
                                         'max_steps_per_epoch')


def _cap(value: Any, fn: str, arg: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)) or value < 1:
        raise ValueError(f'keras.config.{fn}: argument {arg}: expected a positive int or None, '
                         f'got {value!r}')
    return int(value)


# -- dtype policies


class DTypePolicy:
    """A layer dtype policy (``keras.DTypePolicy``): ``'float32'``, ``'float64'``... or a mixed
    ``'mixed_float16'`` / ``'mixed_bfloat16'`` (float16 compute, float32 variables in Keras;
    float32 throughout here, see the module docstring).

    Example:
        >>> from chainlet import keras
        >>> p = keras.config.dtype_policy()
        >>> p.name, p.compute_dtype, p.variable_dtype
        ('float32', 'float32', 'float32')
    """

    def __init__(self, name: Optional[str] = None) -> None:
        name = floatx() if name is None else name
        if not isinstance(name, str):
            raise TypeError(f'DTypePolicy: argument name: expected a str, got '
                            f'{type(name).__name__}')
        if name in ('mixed_float16', 'mixed_bfloat16'):
            compute, variable = name[len('mixed_'):], 'float32'
        else:
            try:
                compute = variable = numpy.dtype(name).name
            except TypeError:
                raise ValueError(f'DTypePolicy: argument name: expected a dtype name or '
                                 f"'mixed_float16' / 'mixed_bfloat16', got {name!r}") from None
        self._name, self._compute, self._variable = name, compute, variable

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self) -> str:
        return self._compute

    @property
    def variable_dtype(self) -> str:
        return self._variable

    def get_config(self) -> dict:
        return {'name': self._name}

    @classmethod
    def from_config(cls, config: dict) -> 'DTypePolicy':
        return cls(**config)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self._name)


def dtype_policy() -> DTypePolicy:
    """The default dtype policy of new layers (``floatx`` unless set)."""
    policy = _STATE['dtype_policy']
    return policy if policy is not None else DTypePolicy(floatx())


def set_dtype_policy(policy: Any) -> None:
    """Set the default dtype policy: a name (``'float64'``, ``'mixed_float16'``) or a
    :class:`DTypePolicy`; ``None`` goes back to :func:`floatx`."""
    if policy is not None and not isinstance(policy, DTypePolicy):
        if not isinstance(policy, str):
            raise ValueError(f'keras.config.set_dtype_policy: argument policy: expected a '
                             f'policy name or a DTypePolicy, got {policy!r}')
        policy = DTypePolicy(policy)
    _STATE['dtype_policy'] = policy


def layer_dtype(dtype: Any = None) -> str:
    """The dtype name a layer computes and stores its weights in: ``dtype`` (a dtype, a name,
    a policy name or a :class:`DTypePolicy`), or the default policy's."""
    if dtype is None:
        return dtype_policy().variable_dtype
    if isinstance(dtype, dict) and 'config' in dtype:  # a serialized DTypePolicy
        dtype = dtype['config'].get('name')
    if isinstance(dtype, str) and dtype.startswith('mixed_'):
        dtype = DTypePolicy(dtype)
    if isinstance(dtype, DTypePolicy):
        return dtype.variable_dtype
    return numpy.dtype(dtype).name


__all__ = ['DTypePolicy', 'backend', 'disable_flash_attention', 'disable_interactive_logging',
           'disable_traceback_filtering', 'dtype_policy', 'enable_flash_attention',
           'enable_interactive_logging', 'enable_traceback_filtering',
           'enable_unsafe_deserialization', 'epsilon', 'floatx', 'image_data_format',
           'is_flash_attention_enabled', 'is_interactive_logging_enabled', 'is_nnx_enabled',
           'is_traceback_filtering_enabled', 'max_epochs', 'max_steps_per_epoch', 'set_backend',
           'set_dtype_policy', 'set_epsilon', 'set_floatx', 'set_image_data_format',
           'set_max_epochs', 'set_max_steps_per_epoch']
