"""``KerasTensor``: a symbolic tensor (shape with a ``None`` batch dimension, dtype, history)."""
from __future__ import annotations

import collections
import operator
from typing import Any, Optional, Sequence

import numpy

KerasHistory = collections.namedtuple('KerasHistory', ['layer', 'node_index', 'tensor_index'])
KerasHistory.__doc__ = """Where a KerasTensor comes from: ``layer._inbound_nodes[node_index]``,
output number ``tensor_index``."""


class KerasTensor:
    """A placeholder for a value in a functional model under construction.

    Calling a layer on KerasTensors records a :class:`~chainlet.keras.engine.node.Node` instead
    of computing; arithmetic and slicing on KerasTensors record nodes too.

    Attributes:
        shape: Tuple with ``None`` for unknown sizes (the batch dimension first).
        dtype: NumPy dtype name, e.g. ``'float32'``.
        name: Optional name.
    """

    # The symbolic mask (a boolean KerasTensor) of a masked tensor, set by Layer's mask
    # handling; absent otherwise (read with ``getattr(t, '_keras_mask', None)``).
    _keras_mask: Any

    def __init__(self, shape: Sequence[Optional[int]], dtype: Any = 'float32',
                 name: Optional[str] = None) -> None:
        self.shape = tuple(None if s is None else int(s) for s in shape)
        self.dtype = numpy.dtype(dtype).name
        self.name = name
        self._keras_history: Optional[KerasHistory] = None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        layer = self._keras_history.layer.name if self._keras_history else None
        return (f'<KerasTensor shape={self.shape}, dtype={self.dtype}, name={self.name}, '
                f'created by layer {layer!r}>')

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        raise TypeError('a KerasTensor is symbolic: it has no truth value (you may be using it in '
                        'Python control flow while building a functional model)')

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError('a KerasTensor is symbolic and cannot be converted to an array; call the '
                        'model on data instead')

    def _no_value(self, to: str) -> Any:
        raise TypeError(f'{to}(): a KerasTensor is symbolic: it is a placeholder for a shape '
                        f'{self.shape} and a dtype {self.dtype}, with no value to convert; call '
                        f'the model on data instead')

    # Keras's KerasTensor refuses these too (an eager tensor converts).
    def __int__(self) -> int: return self._no_value('int')
    def __float__(self) -> float: return self._no_value('float')
    def __index__(self) -> int: return self._no_value('index')

    # Operators record an OpLayer node (see chainlet.keras.layers.core.operation).
    def _op(self, name: str, *operands: Any) -> Any:
        from chainlet.keras.layers.operation import apply_op
        return apply_op(name, *operands)

    def __add__(self, other): return self._op('add', self, other)
    def __radd__(self, other): return self._op('add', other, self)
    def __sub__(self, other): return self._op('sub', self, other)
    def __rsub__(self, other): return self._op('sub', other, self)
    def __mul__(self, other): return self._op('mul', self, other)
    def __rmul__(self, other): return self._op('mul', other, self)
    def __truediv__(self, other): return self._op('div', self, other)
    def __rtruediv__(self, other): return self._op('div', other, self)
    def __pow__(self, other): return self._op('pow', self, other)
    def __matmul__(self, other): return self._op('matmul', self, other)
    def __neg__(self): return self._op('neg', self)
    def __abs__(self): return self._op('abs', self)
    def __getitem__(self, index): return self._op('getitem', self, index)

    # Comparisons, floor division, modulo and logic record keras.ops nodes, as in Keras 3
    # (``==``/``!=`` keep Python's identity meaning: the graph code compares tensors).
    def _kop(self, name, *operands):
        from chainlet.keras import ops
        return getattr(ops, name)(*operands)

    def __lt__(self, other): return self._kop('less', self, other)
    def __le__(self, other): return self._kop('less_equal', self, other)
    def __gt__(self, other): return self._kop('greater', self, other)
    def __ge__(self, other): return self._kop('greater_equal', self, other)
    def __floordiv__(self, other): return self._kop('floor_divide', self, other)
    def __rfloordiv__(self, other): return self._kop('floor_divide', other, self)
    def __mod__(self, other): return self._kop('mod', self, other)
    def __rmod__(self, other): return self._kop('mod', other, self)
    def __rpow__(self, other): return self._kop('power', other, self)
    def __rmatmul__(self, other): return self._kop('matmul', other, self)
    def __and__(self, other): return self._kop('logical_and', self, other)
    def __rand__(self, other): return self._kop('logical_and', other, self)
    def __or__(self, other): return self._kop('logical_or', self, other)
    def __ror__(self, other): return self._kop('logical_or', other, self)
    def __xor__(self, other): return self._kop('logical_xor', self, other)
    def __invert__(self): return self._kop('logical_not', self)

    __array_ufunc__ = None
    _OPERATOR = operator  # keep the module referenced for readers of this class


def is_keras_tensor(x: Any) -> bool:
    """True for a :class:`KerasTensor`."""
    return isinstance(x, KerasTensor)
