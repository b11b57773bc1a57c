"""Where a sweep's runs execute: local worker processes, or an existing Dask distributed
cluster.

Read this first: both take ``jobs`` (run key, task) and call ``finished(key, record or
RunFailed)`` in the calling process as each run ends, in completion order; the caller stores
it. Neither schedules anything itself: the local pool hands jobs out first come first served,
Dask does its own scheduling.

- Local (``afsim.sweep.pool``): spawned worker processes (clean interpreters on every
  platform), one job each at a time. A worker that dies (a signal, the out-of-memory killer)
  costs only the run it was running, which is retried on a new worker up to
  ``pool.MAX_ATTEMPTS`` times in all and then recorded as failed (kind "worker"), and the sweep
  goes on. ``workers=1`` runs the jobs in this process, one after the other. Ctrl-C, SIGTERM
  or any exception stops the workers (our own, by handle) before it propagates.
- Dask: ``distributed.Client(address)`` (``connect``, which the caller does before it creates
  anything, so that an unreachable scheduler leaves nothing behind); each run is one task
  keyed ``afsim-<run key>`` (so a run submitted twice is one task), carrying the scenario's
  text, not its path. Dask re-runs elsewhere the tasks of a worker that dies, up to its
  ``distributed.scheduler.allowed-failures``; past that the run is failed (kind "worker").
  An address nobody answers on is a ``SweepError`` after ``CONNECT_TIMEOUT_S``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from afsim.store import RunRecord
from afsim.sweep.progress import NoBar
from afsim.sweep.worker import Finished, Reducer, RunFailed, Task, run_task

if TYPE_CHECKING:
    from distributed import Client

#: Seconds to wait for a Dask scheduler to answer.
CONNECT_TIMEOUT_S = 5.0


def _settle(finished: Finished, key: str, task: Task, result: Callable[[], RunRecord]) -> bool:
    """Hands a job's record — or the RunFailed that ``result()`` raises — to ``finished``;
    True if the run succeeded. Any other exception of the run (a bug, a Dask worker killed too
    often) is a failed run too, of kind "error" or "worker", so that the sweep goes on."""
    try:
        record = result()
    except RunFailed as e:
        finished(key, e)
        return False
    except Exception as e:
        kind = "worker" if type(e).__name__ == "KilledWorker" else "error"
        why = ("the Dask workers running it died too often" if kind == "worker"
               else f"{type(e).__name__}: {e}")
        finished(key, RunFailed(kind, f"{why} ({task.describe()})"))
        return False
    finished(key, record)
    return True


def run_local(jobs: Sequence[tuple[str, Task]], workers: int | None, reducer: Reducer | None,
              tables: bool, finished: Finished, bar: NoBar,
              retried: Callable[[str], None] | None = None) -> None:
    n = workers or os.cpu_count() or 1
    if n <= 1 or len(jobs) <= 1:
        done = failed = 0
        for key, task in jobs:
            bar.update(done=done, running=1, failed=failed)
            if _settle(finished, key, task, lambda t=task, k=key: run_task(t, k, reducer, tables)):
                done += 1
            else:
                failed += 1
        bar.update(done=done, running=0, failed=failed)
        return
    from afsim.sweep.pool import Pool

    with Pool(min(n, len(jobs))) as pool:
        pool.run(jobs, reducer, tables, finished, bar, retried)


def connect(address: str) -> Client:
    """A Dask client of the scheduler at ``address``; SweepError if nobody answers within
    ``CONNECT_TIMEOUT_S`` (or Dask is not installed)."""
    from afsim.sweep import SweepError

    try:
        from distributed import Client
    except ImportError:
        raise SweepError("--scheduler needs Dask distributed: pip install 'dask[distributed]'"
                         ) from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as e:
        raise SweepError(f"--scheduler {address}: no Dask scheduler answered "
                         f"({type(e).__name__}: {e})") from None
    except ValueError as e:
        raise SweepError(f"--scheduler {address}: {e}") from None


def run_dask(jobs: Sequence[tuple[str, Task]], scheduler: str | Client, reducer: Reducer | None,
             tables: bool, finished: Finished, bar: NoBar) -> None:
    """Runs ``jobs`` on the Dask cluster of ``scheduler`` (an address, or a connected client,
    which this closes). Each task travels with its scenario's text (``Task.text``), so that
    the workers need neither the file nor a shared file system."""
    from distributed import as_completed

    client = connect(scheduler) if isinstance(scheduler, str) else scheduler
    done = failed = 0
    futures: dict = {}
    texts: dict[str, str] = {}
    try:
        futures = {client.submit(run_task, with_text(task, texts), key, reducer, tables,
                                 key=f"afsim-{key}", pure=False): (key, task)
                   for key, task in jobs}
        for f in as_completed(futures):
            key, task = futures[f]
            if _settle(finished, key, task, f.result):
                done += 1
            else:
                failed += 1
            bar.update(done=done, running=len(futures) - done - failed, failed=failed)
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    finally:
        client.close()


def with_text(task: Task, _cache: dict[str, str] | None = None) -> Task:
    """``task`` carrying its scenario file's text (read here), named by its path in errors."""
    if task.text is not None:
        return task
    cache = _cache if _cache is not None else {}
    if task.scenario not in cache:
        cache[task.scenario] = Path(task.scenario).read_text(encoding="utf-8")
    return dataclasses.replace(task, text=cache[task.scenario])
