"""The ``Orthogonal`` initializer (Saxe et al., https://arxiv.org/abs/1312.6120).

The array is read as a matrix ``(out, in)`` with ``out = shape[0]`` and ``in`` the product of
the other axes (1 for a 1-d array). A Gaussian matrix is QR-decomposed (transposed first when
``in > out``, so that the short side is orthonormalized), the signs are fixed by ``R``'s diagonal
to make the result unique, and the (semi-)orthogonal ``Q`` times ``scale`` fills the array. A
0-d array gets ``+scale`` or ``-scale``.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet.initializers.base import Initializer

# mode -> (reject in > out, reject in < out)
_MODES = {
    'auto': (False, False),
    'projection': (False, True),
    'embedding': (True, False),
    'basis': (True, True),
}


class Orthogonal(Initializer):
    """Fill with a (semi-)orthogonal matrix times ``scale``.

    Rows are orthonormal (times ``scale``) when ``out <= in``, columns otherwise.

    Args:
        scale: Multiplier.
        dtype: dtype of the generated arrays.
        mode: Which shapes are accepted: ``'auto'`` (any), ``'projection'`` (``in >= out``),
            ``'embedding'`` (``in <= out``) or ``'basis'`` (``in == out``).
        rng: ``numpy.random.RandomState`` or ``Generator`` (NumPy's global state if ``None``).

    Raises:
        ValueError: An unknown ``mode``; at call time an empty array or a shape the mode
            refuses.

    Example:
        >>> import numpy as np
        >>> from chainlet.initializers import Orthogonal
        >>> a = np.empty((3, 5)); Orthogonal(1.0, rng=np.random.default_rng(0))(a)
        >>> np.allclose(a @ a.T, np.eye(3))
        True
    """

    def __init__(self, scale: float = 1.1, dtype: Any = None, mode: str = 'auto',
                 rng: Optional[Any] = None) -> None:
        if mode not in _MODES:
            raise ValueError(f'Orthogonal: argument mode: expected one of '
                             f'{", ".join(map(repr, _MODES))}, got {mode!r}')
        super().__init__(dtype, rng)
        self.scale = scale
        self.mode = mode

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        if array.ndim == 0:
            self._fill(array, self.scale * (2 * self._randint2() - 1))
            return
        if array.size == 0:
            raise ValueError(f'Orthogonal: the array to fill is empty (shape {array.shape})')
        out_dim = array.shape[0]
        in_dim = array.size // out_dim
        reject_wide, reject_tall = _MODES[self.mode]
        if (in_dim > out_dim and reject_wide) or (in_dim < out_dim and reject_tall):
            raise ValueError(f'Orthogonal: mode {self.mode!r} cannot fill shape {array.shape} '
                             f'(read as {in_dim} inputs and {out_dim} outputs)')
        a = self._draw('normal', (out_dim, in_dim), loc=0.0, scale=1.0)
        wide = in_dim > out_dim
        q, r = numpy.linalg.qr(a.T if wide else a)
        q *= numpy.copysign(self.scale, numpy.diag(r))
        if wide:
            q = q.T
        self._fill(array, q.reshape(array.shape))
