"""``global_except_hook``: an uncaught exception on any process ends the whole MPI job."""
from __future__ import annotations

import sys
import traceback
from typing import Any

_installed: dict = {}


def _hook(exc_type: Any, exc_value: Any, exc_tb: Any) -> None:
    from mpi4py import MPI
    try:
        rank, size = MPI.COMM_WORLD.rank, MPI.COMM_WORLD.size
        text = ''.join(traceback.format_exception(exc_type, exc_value, exc_tb))
        sys.stderr.write(f'\n*** chainlet.distributed: uncaught exception on rank {rank} of '
                         f'{size}; aborting the MPI job\n{text}')
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        # Abort ends every process of the job; without it the others would wait forever in
        # their next collective.
        MPI.COMM_WORLD.Abort(1)


def global_except_hook() -> None:
    """Make an uncaught exception on any process abort the whole MPI job.

    Installs a ``sys.excepthook`` that prints the traceback with the process's rank and calls
    ``MPI.COMM_WORLD.Abort(1)``: the launcher (``mpiexec``) then stops every process and exits
    with a non-zero status, instead of the other processes waiting forever in their next
    collective. Opt-in: call it at the start of a script run under ``mpiexec``. Calling it
    again does nothing.

    Raises:
        ImportError: mpi4py is not installed (``pip install "chainlet[mpi]"``).
    """
    from chainlet.distributed import _mpi
    _mpi.import_mpi()
    if sys.excepthook is _hook:
        return
    _installed['previous'] = sys.excepthook
    sys.excepthook = _hook
