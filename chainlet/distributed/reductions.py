"""Reductions of Python-side values over processes (no dependency on ``chainlet.training``).

:func:`mean_over_processes` averages logs and reports; both the trainer extensions
(:mod:`chainlet.distributed.extensions`) and the Keras facade's data-parallel ``fit``
(:mod:`chainlet.distributed.keras_support`) use it.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend


def _to_host(value: Any) -> Any:
    if backend.is_array(value):
        return backend.to_cpu(value)
    if hasattr(value, 'array') and hasattr(value, 'node'):  # a Variable
        return backend.to_cpu(value.array)
    return value


def mean_over_processes(values: dict, comm: Any) -> dict:
    """Average a dict of scalars over all processes (collective, one ``allgather``).

    A key that only some processes report is averaged over those processes.

    Args:
        values: Name to number (floats, 0-d arrays, Variables).
        comm: A communicator from :func:`create_communicator`.

    Returns:
        A dict of floats (arrays keep their shape), the same on every process.
    """
    local = {k: _to_host(v) for k, v in values.items()}
    gathered = comm.allgather_obj(local)
    keys = sorted({k for d in gathered for k in d})
    result = {}
    for k in keys:
        present = [d[k] for d in gathered if k in d]
        mean = sum(present[1:], present[0]) / len(present)
        result[k] = float(mean) if numpy.ndim(mean) == 0 else numpy.asarray(mean)
    return result


__all__ = ['mean_over_processes']
