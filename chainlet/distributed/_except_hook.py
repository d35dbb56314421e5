"""A process that fails ends the whole MPI job (on by default).

Without it, a process that dies of an exception leaves the others blocked forever in their next
collective (MPI has no notion of a peer that is gone), and the job burns its allocation until
the scheduler kills it. So every communicator of a job with more than one process installs the
hook when it is created (:func:`install_default_hook`); ``CHAINLET_MPI_ABORT_ON_EXCEPTION=0``
in the environment turns that off, and :func:`global_except_hook` installs it explicitly
(ChainerMN's opt-in call, still accepted).

A failing process is one with an uncaught exception (``sys.excepthook``) or one that exits with
a non-zero status through ``sys.exit(n)`` (or the ``exit``/``quit`` builtins). The latter never
reaches ``sys.excepthook``, and mpi4py then calls ``MPI_Finalize`` at exit, after which the
launcher waits for the other processes (which wait for this one) forever. ``python -m mpi4py``
aborts instead (mpi4py/run.py, ``set_abort_status``); so does this hook: the ``sys.exit``
wrappers record the status, and an ``atexit`` handler, which runs before mpi4py's own
finalizer, prints a message and calls ``MPI.COMM_WORLD.Abort(status)``. What it cannot see:
a bare ``raise SystemExit(n)`` (no function to wrap; use ``sys.exit(n)``), and an early
*successful* exit, which cannot be told apart from the normal end of a process that finished
first (mpi4py does not abort there either). ``os._exit(n)`` skips ``MPI_Finalize``, and the
launcher ends the job by itself.
"""
from __future__ import annotations

import atexit
import builtins
import os
import sys
import threading
import time
import traceback
from typing import Any, NoReturn

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


# The status of the last sys.exit(n) of the main thread (a thread's own sys.exit ends only it).
_exit_status: dict = {}


def _record_exit(status: Any) -> None:
    if threading.current_thread() is threading.main_thread():
        _exit_status['status'] = status


class _ExitWrapper:
    """``sys.exit`` (or the ``exit``/``quit`` builtin) that records its status first."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def __call__(self, status: Any = None) -> NoReturn:
        _record_exit(status)
        self.wrapped(status)
        raise SystemExit(status)  # (the wrapped callable always raises)

    def __repr__(self) -> str:
        return repr(self.wrapped)


def _exit_code(status: Any) -> int:
    # As the interpreter turns a SystemExit into the process's status (and mpi4py's run).
    if status is None:
        return 0
    if isinstance(status, bool) or not isinstance(status, int):
        return 1  # sys.exit('message') prints the message and exits with 1
    return status


def _abort_on_failed_exit() -> None:
    """At exit: abort the job if the main thread called sys.exit with a non-zero status."""
    if 'status' not in _exit_status:
        return
    code = _exit_code(_exit_status['status'])
    if code == 0:
        return
    from mpi4py import MPI
    if not MPI.Is_initialized() or MPI.Is_finalized():
        return
    rank, size = MPI.COMM_WORLD.rank, MPI.COMM_WORLD.size
    if size == 1:
        return  # nobody waits for a single process: its own exit status says it all
    try:
        sys.stderr.write(f'\n*** chainlet.distributed: rank {rank} of {size} exits with status '
                         f'{code} (sys.exit); aborting the MPI job\n')
        sys.stderr.flush()
        sys.stdout.flush()
        time.sleep(_FORWARD_SECONDS)  # as in _hook: let the launcher forward the message
    finally:
        MPI.COMM_WORLD.Abort(code)


def _install() -> None:
    if sys.excepthook is _hook:
        return
    _installed['previous'] = sys.excepthook
    sys.excepthook = _hook
    for owner, name in ((sys, 'exit'), (builtins, 'exit'), (builtins, 'quit')):
        current = getattr(owner, name, None)
        if current is not None and not isinstance(current, _ExitWrapper):
            setattr(owner, name, _ExitWrapper(current))
    # Registered after mpi4py's finalizer (MPI is imported by now), so it runs before it.
    atexit.unregister(_abort_on_failed_exit)
    atexit.register(_abort_on_failed_exit)


def global_except_hook() -> None:
    """Make an uncaught exception or a failed ``sys.exit(n)`` on any process abort the job.

    Installs a ``sys.excepthook`` that prints the traceback with the process's rank and calls
    ``MPI.COMM_WORLD.Abort(1)``: the launcher (``mpiexec``) then stops every process and exits
    with a non-zero status, instead of the other processes waiting forever in their next
    collective. ``sys.exit(n)`` with a non-zero ``n`` does the same at exit (see the module
    docstring). Creating a communicator on more than one process already does this (unless
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
