"""Chainer's ``chainer.utils``: small helpers that functions, links and user code share.

The package sits at the bottom of chainlet's layering: at import time its modules use NumPy,
the standard library, :mod:`chainlet.backend`, :mod:`chainlet._config` and
:mod:`chainlet.device_resident` (a leaf on ``backend``; ``WalkerAlias`` is a device resident, as
in Chainer) only, so the core and every function may use them. What needs more is looked up
when called, never at import time: :class:`~chainlet.utils.CooMatrix` wraps its values in a
``Variable``, :func:`experimental` reads a flag on the top-level package, and the kernel
generators of :mod:`~chainlet.utils.conv_nd_kernel` are memoized with
``chainlet.backends.cuda.memoize``.

Modules, as in Chainer 7: :mod:`~chainlet.utils.argument` (keyword-argument parsing),
:mod:`~chainlet.utils.array` (``size_of_shape``, ``sum_to``), :mod:`~chainlet.utils.cache`
(``cached_property``), :mod:`~chainlet.utils.conv` and :mod:`~chainlet.utils.conv_nd`
(``im2col``/``col2im`` and output sizes), :mod:`~chainlet.utils.conv_nd_kernel` (CUDA source of
the N-d kernels), :mod:`~chainlet.utils.experimental`, :mod:`~chainlet.utils.meta` (``final``),
:mod:`~chainlet.utils.precision`, :mod:`~chainlet.utils.sparse` (COO matrices),
:mod:`~chainlet.utils.type_check` (Chainer's type-check language) and
:mod:`~chainlet.utils.walker_alias`.

Example:
    >>> import numpy as np
    >>> from chainlet import utils
    >>> y = utils.force_array(np.float32(2) * np.float32(3))  # a NumPy scalar becomes 0-d
    >>> type(y).__name__, y.dtype.name, y.shape
    ('ndarray', 'float32', ())
    >>> utils.size_of_shape((2, 3, 4))
    24
"""
from __future__ import annotations

import collections.abc as collections_abc  # noqa: F401  (Chainer's alias, kept for ports)
import contextlib
import shutil
import tempfile
from typing import Any, Iterator, Optional, Sequence

import numpy

from chainlet import backend
from chainlet.utils.array import size_of_shape, sum_to  # noqa: F401
from chainlet.utils.conv import get_conv_outsize, get_deconv_outsize  # noqa: F401
from chainlet.utils.error import _format_array_props  # noqa: F401
from chainlet.utils.experimental import experimental  # noqa: F401
from chainlet.utils.meta import enable_final, final  # noqa: F401
from chainlet.utils.nondeterministic import nondeterministic  # noqa: F401
from chainlet.utils.sparse import CooMatrix, get_order, to_coo  # noqa: F401
from chainlet.utils.walker_alias import WalkerAlias  # noqa: F401


def force_array(x: Any, dtype: Any = None) -> Any:
    """Return ``x`` as an array, turning a scalar into a 0-d array.

    NumPy operations on 0-d arrays return scalars (``numpy.float32``, ``float``), but a
    ``FunctionNode.forward`` must return arrays; wrap such results with this function.

    Args:
        x: An array (NumPy or CuPy) or a scalar.
        dtype: When given, the result has this dtype (cast without copying when it already has).

    Returns:
        ``x`` itself when it is an array of the requested dtype, otherwise a new array.

    Example:
        >>> import numpy as np
        >>> force_array(np.float64(1.5), np.float32)
        array(1.5, dtype=float32)
    """
    if numpy.isscalar(x):
        return numpy.array(x) if dtype is None else numpy.array(x, dtype)
    if dtype is None:
        return x
    return x.astype(dtype, copy=False)


def force_type(dtype: Any, value: Any) -> Any:
    """Return ``value`` (a scalar or an array) with dtype ``dtype``.

    Args:
        dtype: A ``numpy.dtype``.
        value: A scalar (returned as ``dtype.type(value)``) or an array (cast without a copy
            when its dtype already matches).

    Example:
        >>> import numpy as np
        >>> y = force_type(np.dtype(np.float32), np.int32(3))
        >>> type(y).__name__, float(y)
        ('float32', 3.0)
    """
    if numpy.isscalar(value):
        return dtype.type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


@contextlib.contextmanager
def tempdir(**kwargs: Any) -> Iterator[str]:
    """Context manager giving a temporary directory that is removed on exit.

    Args:
        **kwargs: ``ignore_errors`` (passed to ``shutil.rmtree``) and the arguments of
            ``tempfile.mkdtemp`` (``suffix``, ``prefix``, ``dir``).

    Example:
        >>> import os
        >>> with tempdir() as d:
        ...     os.path.isdir(d)
        True
        >>> os.path.exists(d)
        False
    """
    ignore_errors = kwargs.pop('ignore_errors', False)
    path = tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=ignore_errors)


def _repr_with_named_data(inst: Any, **kwargs: Any) -> str:
    # ``<module.QualName k1=v1 k2=v2>``: the repr Chainer's distributions and hooks print.
    cls = type(inst)
    fields = ' '.join(f'{k}={v}' for k, v in kwargs.items())
    return f'<{cls.__module__}.{cls.__qualname__} {fields}>'


def _check_arrays_forward_compatible(arrays: Sequence[Any], label: Optional[str] = None) -> None:
    # Chainer's check that forward inputs do not mix NumPy and CuPy arrays (None is ignored).
    kinds = {backend.get_array_module(a) for a in arrays if a is not None}
    if len(kinds) > 1:
        where = f' ({label})' if label is not None else ''
        actual = ', '.join(str(type(a)) for a in arrays)
        raise TypeError(f'incompatible array types are mixed in the forward input{where}.\n'
                        f'Actual: {actual}')


def _raise_from(exc_type: type, message: str, orig_exc: BaseException) -> None:
    # Raise ``exc_type`` whose message quotes ``orig_exc`` and whose traceback is the original's.
    text = f'{message}\n\n(caused by)\n{type(orig_exc).__name__}: {orig_exc}\n'
    raise exc_type(text).with_traceback(orig_exc.__traceback__) from None
