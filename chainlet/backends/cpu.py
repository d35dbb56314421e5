"""``chainlet.backends.cpu``: the public name of :mod:`chainlet.backends._cpu` (the CPU device).

Example:
    >>> from chainlet.backends import cpu
    >>> cpu.CpuDevice()
    <CpuDevice (numpy)>
"""
from __future__ import annotations

from chainlet.backends._cpu import CpuDevice, _array_to_cpu, _to_cpu  # noqa: F401

__all__ = ['CpuDevice']
