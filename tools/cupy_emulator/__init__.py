"""A CPU stand-in for CuPy, to run chainlet's GPU code paths on a machine without a GPU.

It is a development tool, not part of chainlet and not a CuPy replacement: arrays live in
NumPy, ``cupy.ElementwiseKernel``/``cupy.ReductionKernel`` sources are compiled for the host
with g++ and run on the CPU, and everything else is NumPy. It exists to catch, before a GPU is
available, the mistakes that only show on one: NumPy calls on device arrays, host arrays mixed
into device code, CuPy names or arguments that do not exist, kernel type mismatches and kernel
arithmetic. It says nothing about speed, CUDA launch errors or numerical differences between
CUDA's and the host's math libraries.

Use (from the repository root)::

    CHAINLET_EMULATE_CUPY=1 python -m pytest -m gpu

tests/conftest.py installs the emulator when that variable is set (before anything imports
``cupy``). In Python: ``tools.cupy_emulator.install()`` / ``uninstall()``.
"""
from __future__ import annotations

import shutil
import sys

_saved: dict = {}


def available() -> bool:
    """True when a host C++ compiler (g++) is on PATH to run kernels."""
    return shutil.which('g++') is not None


def install() -> None:
    """Put the emulated ``cupy`` and ``cupyx`` in ``sys.modules``."""
    from . import _api
    for name, module in _api.build().items():
        _saved.setdefault(name, sys.modules.get(name))
        sys.modules[name] = module


def uninstall() -> None:
    """Restore whatever ``sys.modules`` held before :func:`install`."""
    for name in list(_saved):
        old = _saved.pop(name)
        if old is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = old
