"""An uncaught exception on any process ends the whole MPI job (on by default).

Without it, a process that dies of an exception leaves the others blocked forever in their next
collective (MPI has no notion of a peer that is gone), and the job burns its allocation until
the scheduler kills it. So every communicator of a job with more than one process installs the
hook when it is created (:func:`install_default_hook`); ``CHAINLET_MPI_ABORT_ON_EXCEPTION=0``
in the environment turns that off, and :func:`global_except_hook` installs it explicitly
(ChainerMN's opt-in call, still accepted).
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from typing import Any

# The environment variable that turns the default off (0/false/no/off).
ENV_VAR = 'CHAINLET_MPI_ABORT_ON_EXCEPTION'

_installed: dict = {}

# How long the output of a failing process is given to reach the launcher before the abort.
_FORWARD_SECONDS = 1.0


def _hook(exc_type: Any, exc_value: Any, exc_tb: Any) -> None:
    from mpi4py import MPI
    try:
        rank, size = MPI.COMM_WORLD.rank, MPI.COMM_WORLD.size
        text = ''.join(traceback.format_exception(exc_type, exc_value, exc_tb))
        sys.stderr.write(f'\n*** chainlet.distributed: uncaught exception on rank {rank} of '
                         f'{size}; aborting the MPI job\n{text}')
        sys.stderr.flush()
        sys.stdout.flush()
        # The launcher forwards a process's output asynchronously, and Abort has it kill the
        # forwarding processes too: without a moment's pause the traceback can be lost (seen
        # with MPICH's Hydra under load, the job ending with no output at all).
        time.sleep(_FORWARD_SECONDS)
    finally:
        # Abort ends every process of the job; without it the others would wait forever in
        # their next collective.
        MPI.COMM_WORLD.Abort(1)


def _install() -> None:
    if sys.excepthook is _hook:
        return
    _installed['previous'] = sys.excepthook
    sys.excepthook = _hook


def global_except_hook() -> None:
    """Make an uncaught exception on any process abort the whole MPI job.

    Installs a ``sys.excepthook`` that prints the traceback with the process's rank and calls
    ``MPI.COMM_WORLD.Abort(1)``: the launcher (``mpiexec``) then stops every process and exits
    with a non-zero status, instead of the other processes waiting forever in their next
    collective. Creating a communicator on more than one process already does this (unless
    ``CHAINLET_MPI_ABORT_ON_EXCEPTION=0``); calling it explicitly installs the hook even then,
    and before the first communicator. Calling it again does nothing.

    Raises:
        ImportError: mpi4py is not installed (``pip install "chainlet-dl[mpi]"``).
    """
    from chainlet.distributed import _mpi
    _mpi.import_mpi()
    _install()


def default_enabled() -> bool:
    """Whether communicators install the hook (``CHAINLET_MPI_ABORT_ON_EXCEPTION`` not off).

    Example:
        >>> import os
        >>> os.environ['CHAINLET_MPI_ABORT_ON_EXCEPTION'] = 'off'
        >>> default_enabled()
        False
        >>> del os.environ['CHAINLET_MPI_ABORT_ON_EXCEPTION']
        >>> default_enabled()
        True
    """
    value = os.environ.get(ENV_VAR, '1').strip().lower()
    return value not in ('0', 'false', 'no', 'off')


def install_default_hook(size: int) -> bool:
    """Install the hook for a job of ``size`` processes unless turned off.

    A single process cannot hang waiting for others, so ``size == 1`` installs nothing (an
    interactive session or a test keeps its own ``sys.excepthook``).

    Args:
        size: The number of processes of the job (``MPI.COMM_WORLD.size``).

    Returns:
        Whether the hook is installed now.
    """
    if size > 1 and default_enabled():
        _install()
    return sys.excepthook is _hook
