"""Chainer's ``chainer._runtime_info``: versions of chainlet and of what it runs on.

``chainlet.print_runtime_info()`` prints them (the first thing to paste into a bug report).

Example:
    >>> import io, chainlet
    >>> from chainlet import _runtime_info
    >>> out = io.StringIO()
    >>> chainlet.print_runtime_info(out)
    >>> out.getvalue() == str(_runtime_info.get_runtime_info())
    True
    >>> 'NumPy: ' in out.getvalue()
    True
"""
from __future__ import annotations

import platform
import sys
from typing import IO, Any

import numpy


class _RuntimeInfo:
    """The versions, gathered when the object is created; ``str`` gives one line each."""

    def __init__(self) -> None:
        import chainlet
        from chainlet.backends import cuda
        self.platform_version = platform.platform()
        self.chainlet_version = chainlet.__version__
        self.numpy_version = numpy.__version__
        self.cuda_info: Any = None
        if cuda.available:
            get_info = getattr(cuda.cupyx, 'get_runtime_info', None)
            self.cuda_info = get_info() if get_info is not None else \
                f'CuPy Version          : {cuda.cupy.__version__}'

    def __str__(self) -> str:
        lines = [f'Platform: {self.platform_version}',
                 f'Chainlet: {self.chainlet_version}',
                 'ChainerX: Not Available',
                 f'NumPy: {self.numpy_version}']
        if self.cuda_info is None:
            lines.append('CuPy: Not Available')
        else:
            lines.append('CuPy:')
            lines.extend(f'  {line}' for line in str(self.cuda_info).splitlines())
        lines.append('iDeep: Not Available')
        return ''.join(line + '\n' for line in lines)


def get_runtime_info() -> _RuntimeInfo:
    """The versions of chainlet, NumPy and CuPy (if available) and the platform."""
    return _RuntimeInfo()


def print_runtime_info(out: IO[str] | None = None) -> None:
    """Print :func:`get_runtime_info` to ``out`` (standard output by default)."""
    (sys.stdout if out is None else out).write(str(get_runtime_info()))
