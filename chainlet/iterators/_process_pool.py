"""Worker processes for :class:`~chainlet.iterators.MultiprocessIterator`: one pipe per worker.

``multiprocessing.Pool`` shares one task queue and one result queue between all its workers,
each guarded by a process-shared lock, and ``Pool.terminate()`` sends SIGTERM to the workers
before it waits on those locks: a worker killed while it holds one (in the middle of sending a
result, say) leaves the main process waiting forever. It happened on Python 3.10 under load,
about once in thirty shutdowns. Here each worker owns its pipe, so a worker that dies takes
nothing with it that another process waits for; the main process notices the death through the
process sentinel, and shutdown is SIGTERM, a bounded join, then SIGKILL.

Results come back in the order the tasks were sent to each worker; a task's chunk always goes
to the worker of the same slot, so waiting for the tasks of one batch, batch after batch, reads
every pipe in order.
"""
from __future__ import annotations

import collections
import contextlib
import multiprocessing
import os
from multiprocessing import connection
from typing import Any, Callable, Optional

_JOIN_SECONDS = 2.0
# How often an idle worker checks that the main process is still alive.
_PARENT_POLL_SECONDS = 1.0


def _parent_gone(parent: int) -> bool:
    # A process whose parent died is re-parented (to init or a subreaper): its ppid changes.
    return os.getppid() != parent


def _worker_main(conn: Any, inherited: list, initializer: Callable, initargs: tuple,
                 func: Callable, max_tasks: Optional[int]) -> None:
    # A forked worker inherits the main process's end of every pipe, its own included: while
    # it holds them, no pipe ever reports EOF and a worker of a SIGKILLed main process would
    # wait in recv() forever. So close them first; and since other processes the main one
    # forks may hold them too, also watch for the parent's death while waiting.
    for fd in inherited:
        with contextlib.suppress(OSError):
            os.close(fd)
    parent = os.getppid()
    initializer(*initargs)
    done = 0
    while max_tasks is None or done < max_tasks:
        try:
            while not conn.poll(_PARENT_POLL_SECONDS):
                if _parent_gone(parent):
                    return
            task = conn.recv()
        except (EOFError, OSError):  # the main process went away
            return
        if task is None:
            return
        conn.send(func(task))
        done += 1


class _Ticket:
    """One task sent to one worker; ``result`` is set when the worker's answer is read."""

    __slots__ = ('worker', 'done', 'result')

    def __init__(self, worker: '_Worker') -> None:
        self.worker = worker
        self.done = False
        self.result: Any = None


class _Worker:
    __slots__ = ('process', 'conn', 'pending', 'sent', 'broken')

    def __init__(self, process: Any, conn: Any) -> None:
        self.process = process
        self.conn = conn
        self.pending: collections.deque = collections.deque()  # tickets, oldest first
        self.sent = 0
        self.broken = False  # its pipe closed or failed: no answer will come

    def read_one(self) -> bool:
        """Read the next answer if there is one; False if none is waiting."""
        if self.broken or not self.conn.poll():
            return False
        try:
            result = self.conn.recv()
        except (EOFError, OSError):  # it died, perhaps in the middle of sending
            self.broken = True
            return False
        ticket = self.pending.popleft()
        ticket.result, ticket.done = result, True
        return True

    def is_dead(self) -> bool:
        """The process ended while tasks were still owed (or with a failure exit code)."""
        if self.broken:
            return True
        code = self.process.exitcode
        return code is not None and (code != 0 or bool(self.pending)) and not self.conn.poll()


class Job:
    """The chunks of one batch; :meth:`get` returns their results in order."""

    def __init__(self, tickets: list[_Ticket]) -> None:
        self._tickets = tickets

    def get(self, timeout: float) -> list:
        """The results, or ``multiprocessing.TimeoutError`` if one is not there within
        ``timeout`` seconds (also when its worker died: :meth:`ProcessPool.dead_worker`
        says so)."""
        for ticket in self._tickets:
            worker = ticket.worker
            while not ticket.done:
                if worker.read_one():
                    continue
                ready = connection.wait([worker.conn, worker.process.sentinel], timeout)
                if worker.conn in ready and worker.read_one():
                    continue
                raise multiprocessing.TimeoutError
        return [ticket.result for ticket in self._tickets]


class ProcessPool:
    """``n`` worker processes, each running ``initializer(*initargs)`` once and then
    ``func(task)`` for every task sent to it; restarted after ``max_tasks`` tasks when given.
    """

    def __init__(self, context: Any, n: int, initializer: Callable, initargs: tuple,
                 func: Callable, max_tasks: Optional[int] = None) -> None:
        self._context = context
        self._start_args = (initializer, initargs, func, max_tasks)
        self._max_tasks = max_tasks
        self._retired: list[_Worker] = []
        self._slots: list[_Worker] = []
        try:
            for _ in range(n):
                self._slots.append(self._start())
        except BaseException:
            self.terminate()
            raise

    def _start(self) -> _Worker:
        mine, theirs = self._context.Pipe()
        # Only a forked child inherits our file descriptors (spawn and forkserver start from
        # a clean process): it closes our ends of its own pipe and of the other workers'.
        inherited = [c.fileno() for c in [w.conn for w in self._slots + self._retired] + [mine]
                     if not c.closed] \
            if self._context.get_start_method() == 'fork' else []
        process = self._context.Process(target=_worker_main,
                                        args=(theirs, inherited, *self._start_args),
                                        daemon=True)
        try:
            process.start()
        finally:
            theirs.close()
        return _Worker(process, mine)

    def submit(self, chunks: list) -> Job:
        """Send chunk ``k`` to the worker of slot ``k`` (``len(chunks) <= n``)."""
        tickets = []
        for k, chunk in enumerate(chunks):
            worker = self._slots[k]
            if self._max_tasks is not None and worker.sent >= self._max_tasks:
                # It exits after its last task; its answers are still read from its pipe.
                self._retired.append(worker)
                worker = self._slots[k] = self._start()
            ticket = _Ticket(worker)
            worker.pending.append(ticket)
            worker.sent += 1
            tickets.append(ticket)
            try:
                worker.conn.send(chunk)
            except OSError:  # the worker is gone; dead_worker() reports it
                worker.broken = True
        self._retired = [w for w in self._retired if w.pending]
        return Job(tickets)

    def workers(self) -> list[Any]:
        """The worker processes (those still owing answers included)."""
        return [w.process for w in self._slots + self._retired]

    def dead_worker(self) -> Optional[Any]:
        """A worker process that ended before answering every task sent to it, if any."""
        for worker in self._slots + self._retired:
            if worker.is_dead():
                if worker.process.exitcode is None:  # its pipe closed first: it is exiting
                    worker.process.join(_JOIN_SECONDS)
                return worker.process
        return None

    def terminate(self) -> None:
        """Stop every worker now: SIGTERM, a bounded wait, then SIGKILL; never blocks long."""
        workers, self._slots, self._retired = self._slots + self._retired, [], []
        for worker in workers:
            if worker.process.exitcode is None:
                worker.process.terminate()
        for worker in workers:
            worker.process.join(_JOIN_SECONDS)
            if worker.process.exitcode is None:
                worker.process.kill()
                worker.process.join(_JOIN_SECONDS)
            worker.conn.close()

    def join(self) -> None:
        """Nothing left to wait for after :meth:`terminate` (kept for the Pool protocol)."""
