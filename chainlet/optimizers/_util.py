"""Small helpers shared by the update rules."""
from __future__ import annotations

from typing import Any

import numpy


def check_eps(where: str, eps: float, dtype: Any) -> None:
    """Raise ``ValueError`` when a nonzero ``eps`` rounds to zero in ``dtype`` (float16)."""
    if eps != 0 and dtype == numpy.float16 and numpy.float16(eps) == 0:
        raise ValueError(f'{where}: hyperparameter eps={eps} underflows to 0 in float16; use a '
                         f'larger eps or float32 parameters')
