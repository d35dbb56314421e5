"""``InputSpec``: what a layer accepts, checked at call time (symbolic or eager)."""
from __future__ import annotations

from typing import Any, Optional

import numpy


class InputSpec:
    """Constraints on one input of a layer.

    Args:
        dtype: Required dtype name.
        shape: Required shape (``None`` entries match anything).
        ndim: Exact rank.
        max_ndim: Maximum rank.
        min_ndim: Minimum rank.
        axes: ``{axis: size}`` required sizes of given axes.
        optional: Whether the input may be ``None``.
    """

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: Optional[int] = None,
                 max_ndim: Optional[int] = None, min_ndim: Optional[int] = None,
                 axes: Optional[dict] = None, allow_last_axis_squeeze: bool = False,
                 name: Optional[str] = None, optional: bool = False) -> None:
        self.dtype = None if dtype is None else numpy.dtype(dtype).name
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})
        self.name = name
        self.optional = bool(optional)  # None is then accepted (every check skips None)

    def __repr__(self) -> str:
        parts = [f'{k}={v}' for k, v in vars(self).items()
                 if v not in (None, {}) and not (k == 'optional' and not v)]
        return f'InputSpec({", ".join(parts)})'

    def check(self, layer_name: str, index: int, shape: tuple, dtype: Any) -> None:
        """Raise ``ValueError`` naming the layer, the input and the mismatch."""
        where = f'Input {index} of layer "{layer_name}" is incompatible with the layer'
        ndim = len(shape)
        if self.ndim is not None and ndim != self.ndim:
            raise ValueError(f'{where}: expected ndim={self.ndim}, found ndim={ndim}. '
                             f'Full shape received: {shape}')
        if self.max_ndim is not None and ndim > self.max_ndim:
            raise ValueError(f'{where}: expected max_ndim={self.max_ndim}, found ndim={ndim}. '
                             f'Full shape received: {shape}')
        if self.min_ndim is not None and ndim < self.min_ndim:
            raise ValueError(f'{where}: expected min_ndim={self.min_ndim}, found ndim={ndim}. '
                             f'Full shape received: {shape}')
        if self.dtype is not None and numpy.dtype(dtype).name != self.dtype:
            raise ValueError(f'{where}: expected dtype={self.dtype}, found dtype='
                             f'{numpy.dtype(dtype).name}')
        for axis, size in self.axes.items():
            actual = shape[axis] if -ndim <= axis < ndim else None
            if size is not None and actual is not None and actual != size:
                raise ValueError(f'{where}: expected axis {axis} of input shape to have value '
                                 f'{size}, but received input with shape {shape}')
        if self.shape is not None:
            for want, got in zip(self.shape, shape):
                if want is not None and got is not None and want != got:
                    raise ValueError(f'{where}: expected shape={self.shape}, found shape={shape}')

    def get_config(self) -> dict:
        return {k: v for k, v in vars(self).items()}
