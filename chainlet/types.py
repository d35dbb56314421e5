"""Type aliases for annotations (Chainer's ``chainer.types``), for static type checkers.

They describe what chainlet's functions accept; at run time they are ordinary ``typing``
objects and nothing checks them. Array types are written as strings (forward references), so
that this module imports neither CuPy nor the rest of chainlet.

Example:
    >>> from chainlet import types
    >>> def zeros(shape: types.ShapeSpec, dtype: types.DTypeSpec = None) -> types.NdArray:
    ...     ...
    >>> types.Shape
    typing.Tuple[int, ...]
"""
from __future__ import annotations

import numbers
import typing as tp
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for type checkers: importing these at run time would be circular
    from types import ModuleType  # noqa: F401

    import numpy  # noqa: F401

    from chainlet import backend  # noqa: F401
    from chainlet.backends import cuda  # noqa: F401

#: A shape: a tuple of ints.
Shape = tp.Tuple[int, ...]
#: What functions taking a shape accept: an int or a sequence of ints.
ShapeSpec = tp.Union[int, tp.Sequence[int]]
#: A dtype specifier (anything ``numpy.dtype`` accepts, or ``chainlet.mixed16``).
DTypeSpec = tp.Any
#: The array types chainlet computes on (:func:`chainlet.get_array_types`).
NdArray = tp.Union['numpy.ndarray', 'cuda.ndarray']
#: An array module: ``numpy`` or ``cupy``.
Xp = tp.Any


class AbstractInitializer(tp.Protocol):
    """What an initializer is: a :class:`chainlet.Initializer` or any callable that fills an
    array in place (for type checkers; PEP 544 protocol)."""

    dtype: tp.Optional[DTypeSpec] = None

    def __call__(self, array: NdArray) -> None:
        """Fill ``array`` in place."""


#: The scalar types ``numpy.isscalar`` accepts.
ScalarValue = tp.Union['numpy.generic', bytes, str, memoryview, numbers.Number]
#: What links accept as ``initialW``/``initial_bias``: an initializer, a scalar or an array.
InitializerSpec = tp.Union[AbstractInitializer, ScalarValue, 'numpy.ndarray']
#: What :func:`chainlet.get_device` accepts.
DeviceSpec = tp.Union['backend.Device', 'cuda.Device', str, tp.Tuple[str, int], 'ModuleType',
                      tp.Tuple['ModuleType', int]]
#: The deprecated GPU specifier of ``chainlet.cuda.get_device``: a CuPy device or an id.
CudaDeviceSpec = tp.Union['cuda.Device', int, 'numpy.integer']
