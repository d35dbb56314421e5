"""``PrintHook``: print a summary of the arrays going through every function.

Example:
    >>> import numpy as np, chainlet, chainlet.functions as F
    >>> from chainlet.function_hooks import PrintHook
    >>> x = chainlet.Variable(np.array([1.0, 3.0], np.float32))
    >>> with PrintHook():
    ...     y = F.exp(x)
    function Exp (forward)
    input data
      [0] shape=(2,) dtype=float32 mean=2 std=1
"""
from __future__ import annotations

import sys
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
    """Function hook printing each function's label and array summaries, for debugging.

    In forward it prints the input arrays; in backward the inputs kept for backward (``None``
    where not retained) and the gradients of the outputs.

    Args:
        sep: Separator between the fields of one array's summary (a space when ``None``).
        end: Written after each line.
        file: Where to write (``sys.stdout`` at the time of printing when ``None``).
        flush: Flush ``file`` after each function.
    """

    name = 'PrintHook'

    def __init__(self, sep: Optional[str] = None, end: str = '\n',
                 file: Optional[IO[str]] = None, flush: bool = True) -> None:
        self.sep = ' ' if sep is None else sep
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, function: Any, phase: str, sections: list) -> None:
        file = sys.stdout if self.file is None else self.file
        lines = [f'function {function.label} ({phase})']
        for title, arrays in sections:
            lines.append(title)
            for i, a in enumerate(arrays):
                lines.append(f'  [{i}] {describe_array(a, self.sep)}')
        file.write(''.join(line + self.end for line in lines))
        if self.flush and hasattr(file, 'flush'):
            file.flush()

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self._print(function, 'forward', [('input data', in_data)])

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._print(function, 'backward', [('input data', in_data),
                                           ('output gradient', out_grad)])
