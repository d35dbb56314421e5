"""The ``Orthogonal`` initializer."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet.initializers.base import Initializer


class Orthogonal(Initializer):
    """Fill with a (semi-)orthogonal matrix times ``scale``; extra axes are flattened into columns.

    Rows are orthonormal when ``shape[0] <= prod(shape[1:])``, columns otherwise.

    Example:
        >>> import numpy as np
        >>> from chainlet.initializers import Orthogonal
        >>> a = np.empty((3, 5)); Orthogonal(1.0, rng=np.random.default_rng(0))(a)
        >>> np.allclose(a @ a.T, np.eye(3))
        True
    """

    def __init__(self, scale: float = 1.1, dtype: Any = None,
                 rng: Optional[numpy.random.Generator] = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        if array.ndim < 2:
            raise ValueError(f'Orthogonal: expected ndim >= 2, got shape {array.shape}')
        rows = array.shape[0]
        cols = int(numpy.prod(array.shape[1:]))
        flat = self._draw('normal', (max(rows, cols), min(rows, cols)), loc=0.0, scale=1.0)
        q, r = numpy.linalg.qr(flat)
        q *= numpy.sign(numpy.diag(r))  # make the decomposition unique
        q = q.T if rows < cols else q
        self._fill(array, (self.scale * q[:rows, :cols]).reshape(array.shape)
                   .astype(array.dtype))
