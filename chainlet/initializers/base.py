"""``generate_array`` and the conversion of initializer specs (scalars, arrays, callables)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet import backend
from chainlet.initializer import Initializer, get_fans  # noqa: F401  (re-exported)


def _default_dtype() -> numpy.dtype:
    """``chainlet.config.dtype`` (float32 when unset), by ``chainlet.get_dtype`` if present."""
    import chainlet
    get_dtype = getattr(chainlet, 'get_dtype', None)
    if get_dtype is not None:
        return numpy.dtype(get_dtype())
    configured = getattr(chainlet.config, 'dtype', None)
    return numpy.dtype(numpy.float32 if configured is None else configured)


def get_initializer(initializer: Any, default_dtype: Any = None) -> Any:
    """Turn ``None``, a scalar, an array or a callable into an initializer.

    ``None`` becomes ``NaN`` (what a parameter without an initializer holds), a scalar or a
    NumPy array ``Constant``; a callable (any ``Initializer``) is returned as it is.

    Args:
        initializer: The spec.
        default_dtype: dtype given to the ``NaN``/``Constant`` made here.

    Raises:
        TypeError: ``initializer`` is none of these.
    """
    from chainlet.initializers.constant import Constant, NaN
    if initializer is None:
        return NaN(dtype=default_dtype)
    if numpy.isscalar(initializer) and not isinstance(initializer, (str, bytes)):
        return Constant(initializer, dtype=default_dtype)
    if backend.is_array(initializer) or callable(initializer):
        return initializer
    raise TypeError(f'initializer: expected an Initializer, a callable, a scalar, an ndarray or '
                    f'None, got {type(initializer).__name__}')


def _get_initializer(initializer: Any) -> Any:
    """Chainer's link-side conversion: ``None`` means ``LeCunNormal()``, a scalar or an array
    ``Constant``, a callable stays itself.

    Raises:
        TypeError: ``initializer`` is none of these.
    """
    from chainlet.initializers.constant import Constant
    from chainlet.initializers.normal import LeCunNormal
    if initializer is None:
        return LeCunNormal()
    if (numpy.isscalar(initializer) and not isinstance(initializer, (str, bytes))) \
            or isinstance(initializer, numpy.ndarray):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError(f'initializer: expected an Initializer, a callable, a scalar, an ndarray '
                        f'or None, got {type(initializer).__name__}')
    return initializer


def generate_array(initializer: Any, shape: Sequence[int], xp: Any = numpy,
                   dtype: Any = None, device: Any = None) -> Any:
    """Create an array of ``shape`` on ``xp`` and fill it with ``initializer``.

    The dtype is ``dtype``, else ``initializer.dtype``, else ``chainlet.config.dtype``
    (float32 by default).

    Args:
        initializer: A callable that fills an array in place.
        shape: Shape of the array (an int means a 1-d array).
        xp: ``numpy`` or ``cupy``.
        dtype: Requested dtype; it must agree with the initializer's own dtype if that is set.
        device: GPU of the array (an id, a ``cupy.cuda.Device`` or a chainlet device); the
            current one when ``None``.

    Returns:
        The new array.

    Raises:
        ValueError: ``dtype`` and ``initializer.dtype`` differ.

    Example:
        >>> import numpy as np
        >>> from chainlet import initializers
        >>> initializers.generate_array(initializers.One(), (2,), np)
        array([1., 1.], dtype=float32)
    """
    own = getattr(initializer, 'dtype', None)
    if dtype is not None and own is not None and numpy.dtype(dtype) != numpy.dtype(own):
        raise ValueError(f'generate_array: argument dtype: {numpy.dtype(dtype)} differs from '
                         f'the initializer\'s dtype {numpy.dtype(own)}')
    if dtype is None:
        dtype = own
    dtype = _default_dtype() if dtype is None else numpy.dtype(dtype)
    shape = (int(shape),) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
    if xp is numpy:
        array = numpy.empty(shape, dtype)
    else:
        device_id = getattr(device, 'id', getattr(device, 'device_id', device))
        if device_id is None:
            array = xp.empty(shape, dtype)
        else:
            with xp.cuda.Device(device_id):
                array = xp.empty(shape, dtype)
    initializer(array)
    return array
