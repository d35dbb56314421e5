"""``PrintHook``: print the arrays going through every function, in Chainer's format.

Each array is printed as :meth:`Variable.debug_print` prints it (device, backend, shape, dtype,
mean and standard deviation), so logs and tests written for Chainer's hook read the same.

Example:
    >>> import numpy as np, chainlet, chainlet.functions as F
    >>> from chainlet.function_hooks import PrintHook
    >>> x = chainlet.Variable(np.array([1.0, 3.0], np.float32))
    >>> with PrintHook():
    ...     y = F.exp(x)  # doctest: +ELLIPSIS
    function	Exp
    input data
    <variable at 0x...>
    - device: CPU
    - backend: <class 'numpy.ndarray'>
    - shape: (2,)
    - dtype: float32
    - statistics: mean=2.00000000, std=1.00000000
    - grad: None
"""
from __future__ import annotations

import sys
import warnings
from typing import IO, Any, Optional

from chainlet import backend
from chainlet.function_hooks.function_hook import FunctionHook


def describe_array(array: Any, sep: str = ' ') -> str:
    """One line describing ``array``: shape, dtype, mean and standard deviation.

    Example:
        >>> import numpy as np
        >>> from chainlet.function_hooks.print_hook import describe_array
        >>> describe_array(np.array([[1, 2], [3, 4]], np.float64))
        'shape=(2, 2) dtype=float64 mean=2.5 std=1.118'
        >>> describe_array(None)
        'None'
    """
    if array is None:
        return 'None'
    fields = [f'shape={tuple(array.shape)}', f'dtype={array.dtype}']
    if backend.is_cupy_array(array):
        fields.append(f'device=cuda:{array.device.id}')
    kind = array.dtype.kind
    if array.size and kind in 'biufc':
        xp = backend.get_array_module(array)
        values = array.astype('f8') if kind in 'biu' else array
        mean = xp.mean(values)
        mean = complex(mean) if kind == 'c' else float(mean)
        fields.append(f'mean={mean:.4g}')
        fields.append(f'std={float(xp.std(values)):.4g}')
    return sep.join(fields)


class PrintHook(FunctionHook):
    """Function hook printing each function's label and its arrays, for debugging.

    In forward it prints ``function<TAB><label>`` and the input arrays; in backward the inputs
    kept for backward (``(removed)`` for those not retained) and then, under ``output
    gradient``, each output gradient as the ``grad`` of a zero-filled variable, as Chainer does.

    Args:
        sep: Deprecated and ignored, as in Chainer (a ``DeprecationWarning`` when given).
        end: Written after each printed block.
        file: Where to write (``sys.stdout`` at the time of printing when ``None``).
        flush: Flush ``file`` after each function.
    """

    name = 'PrintHook'

    def __init__(self, sep: Optional[str] = None, end: str = '\n',
                 file: Optional[IO[str]] = None, flush: bool = True) -> None:
        if sep is not None:
            warnings.warn('PrintHook: argument sep is deprecated and ignored (as in Chainer)',
                          DeprecationWarning, stacklevel=2)
        self.sep = sep
        self.end = end
        self.file = file
        self.flush = flush

    def _process(self, function: Any, in_data: tuple, out_grad: Optional[tuple] = None) -> None:
        from chainlet.variable import Variable
        file = sys.stdout if self.file is None else self.file
        blocks = [f'function\t{function.label}', 'input data']
        for array in in_data:
            # Inputs a function did not retain are gone by the time backward runs.
            blocks.append('(removed)' if array is None else Variable(array).debug_print())
        if out_grad is not None:
            blocks.append('output gradient')
            for grad in out_grad:
                if grad is None:
                    blocks.append(Variable().debug_print())
                    continue
                holder = Variable(backend.get_array_module(grad).zeros_like(grad))
                holder.grad = grad
                blocks.append(holder.debug_print())
        file.write(''.join(block + self.end for block in blocks))
        if self.flush and hasattr(file, 'flush'):
            file.flush()

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self._process(function, in_data)

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._process(function, in_data, out_grad)
