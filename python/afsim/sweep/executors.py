"""Where a sweep's runs execute: a local process pool, or an existing Dask distributed cluster.

Read this first: both take ``jobs`` (run key, task) and call ``finished(key, record or
RunFailed)`` in the calling process as each run ends, in completion order; the caller stores
it. Neither schedules anything itself: the pool hands jobs out first come first served, Dask
does its own scheduling, and re-runs elsewhere the tasks of a worker that dies (up to its
``distributed.scheduler.allowed-failures``).

- Local: ``concurrent.futures.ProcessPoolExecutor`` with spawned workers (clean interpreters on
  every platform). ``workers=1`` runs the jobs in this process, one after the other. Ctrl-C or
  any exception cancels what has not started and terminates the workers (our own, by handle)
  before it propagates.
- Dask: ``distributed.Client(address)``; each run is one task keyed ``afsim-<run key>`` (so a
  run submitted twice is one task). An address nobody answers on is a ``SweepError`` after
  ``CONNECT_TIMEOUT_S``.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from collections.abc import Callable, Sequence

from afsim.store import RunRecord
from afsim.sweep.progress import NoBar
from afsim.sweep.worker import Reducer, RunFailed, Task, run_task

Finished = Callable[[str, "RunRecord | RunFailed"], None]
#: Seconds to wait for a Dask scheduler to answer.
CONNECT_TIMEOUT_S = 5.0


def _settle(finished: Finished, key: str, result: Callable[[], RunRecord]) -> bool:
    """Hands a job's record — or the RunFailed that ``result()`` raises — to ``finished``;
    True if the run succeeded."""
    try:
        record = result()
    except RunFailed as e:
        finished(key, e)
        return False
    finished(key, record)
    return True


def run_local(jobs: Sequence[tuple[str, Task]], workers: int | None, reducer: Reducer | None,
              tables: bool, finished: Finished, bar: NoBar) -> None:
    n = workers or os.cpu_count() or 1
    done = failed = 0
    if n <= 1 or len(jobs) <= 1:
        for key, task in jobs:
            bar.update(done=done, running=1, failed=failed)
            if _settle(finished, key, lambda: run_task(task, key, reducer, tables)):
                done += 1
            else:
                failed += 1
        bar.update(done=done, running=0, failed=failed)
        return
    ctx = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(max_workers=min(n, len(jobs)), mp_context=ctx)
    futures = {pool.submit(run_task, task, key, reducer, tables): key for key, task in jobs}
    pending = set(futures)
    try:
        while pending:
            ready, pending = cf.wait(pending, timeout=0.25, return_when=cf.FIRST_COMPLETED)
            for f in ready:
                if _settle(finished, futures[f], f.result):
                    done += 1
                else:
                    failed += 1
            bar.update(done=done, running=sum(1 for f in pending if f.running()), failed=failed)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        for p in list((getattr(pool, "_processes", None) or {}).values()):
            p.terminate()
        raise
    pool.shutdown(wait=True)


def run_dask(jobs: Sequence[tuple[str, Task]], address: str, reducer: Reducer | None,
             tables: bool, finished: Finished, bar: NoBar) -> None:
    from afsim.sweep import SweepError

    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SweepError("--scheduler needs Dask distributed: pip install 'dask[distributed]'"
                         ) from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as e:
        raise SweepError(f"--scheduler {address}: no Dask scheduler answered "
                         f"({type(e).__name__}: {e})") from None
    except ValueError as e:
        raise SweepError(f"--scheduler {address}: {e}") from None
    done = failed = 0
    futures: dict = {}
    try:
        futures = {client.submit(run_task, task, key, reducer, tables, key=f"afsim-{key}",
                                 pure=False): key
                   for key, task in jobs}
        for f in as_completed(futures):
            if _settle(finished, futures[f], f.result):
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
