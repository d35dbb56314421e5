"""``chainlet.print_runtime_info()``: the versions a bug report needs, as Chainer prints them."""
from __future__ import annotations

import platform
import sys
from typing import IO, Optional

import numpy


def _cupy_version() -> str:
    # Report CuPy only if it is importable, without failing when its CUDA libraries are broken.
    try:
        import cupy
    except Exception:
        return 'Not Available'
    return f'{cupy.__version__}'


def print_runtime_info(out: Optional[IO[str]] = None) -> None:
    """Print the platform and the versions of chainlet, NumPy and CuPy.

    Args:
        out: Stream to write to (``sys.stdout`` by default).

    Example:
        >>> import io, chainlet
        >>> s = io.StringIO(); chainlet.print_runtime_info(s)
        >>> s.getvalue().splitlines()[1].startswith('Chainlet:')
        True
    """
    import chainlet
    out = sys.stdout if out is None else out
    out.write(f'Platform: {platform.platform()}\n')
    out.write(f'Chainlet: {chainlet.__version__}\n')
    out.write('ChainerX: Not Available\n')
    out.write(f'NumPy: {numpy.__version__}\n')
    out.write(f'CuPy: {_cupy_version()}\n')
    out.write('iDeep: Not Available\n')
