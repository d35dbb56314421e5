"""ChainerMN's buffer helper, for host arrays (CuPy arrays travel through host memory)."""
from typing import Any

import mpi4py.MPI  # noqa: F401  (as ChainerMN's module, importing it initializes MPI)
import numpy

from chainlet import backend
from chainlet.distributed import _mpi


def array_to_buffer_object(array: Any, mpi_dtype: Any = None) -> list:
    """The mpi4py buffer spec ``[array, datatype]`` of a contiguous host array
    (``MPI.FLOAT`` by default, as ChainerMN)."""
    MPI = _mpi.import_mpi()
    host = numpy.ascontiguousarray(backend.to_cpu(array))
    return [host, MPI.FLOAT if mpi_dtype is None else mpi_dtype]
