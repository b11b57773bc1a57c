"""The local worker pool of a sweep: spawned processes, one run each at a time, that survive
each other's deaths.

Read this first. ``Pool(n)`` starts ``n`` spawned interpreters, each connected to this process
by a pipe; ``run(jobs, ...)`` hands a job to each idle worker and waits on the pipes and the
processes' sentinels together, so it knows which run a dead worker was running. Unlike
``concurrent.futures.ProcessPoolExecutor``, whose whole pool breaks when one worker dies, a
worker's death here costs one attempt of one run: the run is retried on a fresh worker up to
``MAX_ATTEMPTS`` attempts in all, then reported as ``RunFailed("worker", ...)`` with the signal
that ended the last attempt, and the sweep goes on.

Stopping: leaving the ``with`` block by an exception (Ctrl-C, SIGTERM turned into one by the
CLI, anything) terminates every worker and waits for it (SIGKILL after ``STOP_GRACE_S``).
Workers ignore SIGINT — Ctrl-C reaches the whole process group, and it is this process that
stops them — and on Linux ask the kernel to kill them if this process dies (``PR_SET_PDEATHSIG``),
so even a SIGKILLed sweep leaves no worker running.

Test hook: ``AFSIM_TEST_WORKER_KILL=TEXT`` makes a worker SIGKILL itself when it starts a run
whose description (``Task.describe()``) contains TEXT, every time: a run whose worker always
dies. Not for use outside tests.
"""

from __future__ import annotations

import collections
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

from afsim.sweep.worker import Finished, Reducer, RunFailed, Task, run_task

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from afsim.sweep.progress import NoBar

#: Attempts a run gets when the worker running it dies: the first and two retries.
MAX_ATTEMPTS = 3
#: Seconds a terminated worker has to exit before it is killed.
STOP_GRACE_S = 2.0
WORKER_KILL_ENV = "AFSIM_TEST_WORKER_KILL"


@dataclass
class _Job:
    key: str
    task: Task
    attempts: int = 0


@dataclass
class _Slot:
    proc: BaseProcess
    conn: Connection
    job: _Job | None = None


class Pool:
    def __init__(self, workers: int) -> None:
        import multiprocessing

        self.ctx = multiprocessing.get_context("spawn")
        self.size = workers
        self.slots: list[_Slot] = []

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            for s in self.slots:
                try:
                    s.conn.send(None)  # "no more work": the worker returns
                except OSError:
                    pass
        self.stop(graceful=exc_type is None)

    def _start(self) -> _Slot:
        here, there = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker_main, args=(there, os.getpid()), daemon=True,
                                name="afsim-sweep-worker")
        proc.start()
        there.close()
        slot = _Slot(proc, here)
        self.slots.append(slot)
        return slot

    def _retire(self, slot: _Slot) -> None:
        self.slots.remove(slot)
        slot.conn.close()
        if slot.proc.is_alive():
            slot.proc.kill()
        slot.proc.join()

    def stop(self, graceful: bool = False) -> None:
        """Ends every worker: waits for them after a normal end, else terminates them."""
        if not graceful:
            for s in self.slots:
                if s.proc.is_alive():
                    s.proc.terminate()
        for s in self.slots:
            s.proc.join(STOP_GRACE_S if not graceful else 30.0)
            if s.proc.is_alive():
                s.proc.kill()
                s.proc.join()
            s.conn.close()
        self.slots.clear()

    def run(self, jobs: Sequence[tuple[str, Task]], reducer: Reducer | None, tables: bool,
            finished: Finished, bar: NoBar, retried: Callable[[str], None] | None = None
            ) -> None:
        """Runs every job (see the module header), calling ``finished`` as each ends and
        ``retried(message)`` each time a worker's death sends a run back to the queue."""
        queue = collections.deque(_Job(k, t) for k, t in jobs)
        done = failed = 0
        while queue or any(s.job for s in self.slots):
            while queue and len(self.slots) < self.size:
                self._start()
            for s in list(self.slots):
                if s.job is None and queue:
                    job = queue.popleft()
                    try:
                        s.conn.send((job.key, job.task, reducer, tables))
                    except OSError:  # died while idle: no attempt lost
                        queue.appendleft(job)
                        self._retire(s)
                        continue
                    s.job = job
            busy = [s for s in self.slots if s.job is not None]
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout=0.25)
            for s in busy:
                job = s.job
                assert job is not None
                outcome: Any = None
                if s.conn in ready or s.proc.sentinel in ready:
                    try:
                        if s.conn.poll():
                            outcome = s.conn.recv()
                    except (EOFError, OSError):
                        outcome = None
                    if outcome is None and s.proc.is_alive() and s.proc.sentinel not in ready:
                        continue
                else:
                    continue
                if outcome is None:  # the worker died running the job
                    s.proc.join()
                    job.attempts += 1
                    self._retire(s)
                    if job.attempts < MAX_ATTEMPTS:
                        queue.appendleft(job)
                        if retried is not None:
                            retried(f"a worker died ({_how(s.proc.exitcode)}) running "
                                    f"{job.task.describe()}; run again (attempt "
                                    f"{job.attempts + 1} of {MAX_ATTEMPTS})")
                        continue
                    finished(job.key, RunFailed("worker", _death(s.proc.exitcode, job)))
                    failed += 1
                    continue
                s.job = None
                kind, payload = outcome
                finished(job.key, payload)
                if kind == "ok":
                    done += 1
                else:
                    failed += 1
            bar.update(done=done, running=sum(1 for s in self.slots if s.job), failed=failed)


def _how(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with status {exitcode}"


def _death(exitcode: int | None, job: _Job) -> str:
    return (f"the worker process running it died ({_how(exitcode)}) on each of its "
            f"{job.attempts} attempts ({job.task.describe()})")


# ---------------------------------------------------------------------------------------------
# In the worker process


def _worker_main(conn: Connection, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us (module header)
    _die_with_parent(parent)
    doomed = os.environ.get(WORKER_KILL_ENV)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        key, task, reducer, tables = msg
        if doomed and doomed in task.describe():
            os.kill(os.getpid(), signal.SIGKILL)
        try:
            outcome: tuple[str, Any] = ("ok", run_task(task, key, reducer, tables))
        except RunFailed as e:
            outcome = ("failed", e)
        except Exception as e:
            outcome = ("failed", RunFailed("error", f"{type(e).__name__}: {e} "
                                                    f"({task.describe()})"))
        try:
            conn.send(outcome)
        except (EOFError, OSError):
            return


def _die_with_parent(parent: int) -> None:
    """On Linux, asks the kernel to SIGKILL this process when its parent dies."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
