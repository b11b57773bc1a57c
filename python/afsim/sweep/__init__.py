"""Sweeps: many runs of scenarios — a parameter grid × replications — on local processes or a
Dask cluster, each finished run stored once, nothing run twice.

Read this first. Two layers:

``execute(tasks, ...)`` is the executor, for any caller (``afsim sweep``, the paper
reproductions)::

    from afsim.sweep import Task, execute
    tasks = [Task("net.toml", overrides=(("n", "10"),), seed=s) for s in (1, 2, 3)]
    outcome = execute(tasks, store="results/", reducer=my_module.my_metrics, workers=2)
    outcome.records      # one RunRecord per task, in task order (None where a run failed)
    outcome.failures     # {task index: RunFailed}
    outcome.retries      # runs sent back to the queue because their local worker died
    outcome.recovered    # what opening the store mended (a killed writer's leftovers)

- A ``Task`` is a scenario (file path, or ``text=`` with a name), ``--set`` overrides and a
  seed (None: the file's). Each task is loaded here first, in the calling process, which
  resolves it (so a wrong grid name or value fails before anything runs: ``SweepError``, with
  the task) and gives its run key (``afsim.store.run_key``: resolved scenario, seed, and the
  code's version: ``afsim.store.CODE_VERSION`` and the reducer's hash, ``afsim.codehash``).
  Tasks with equal keys run once.
- ``store`` (a path or an open ``afsim.store.Store``): keys already stored are not run; their
  records come from the store (``cached=True``). Each run is stored atomically as it finishes,
  by this process only. Without a store nothing is written.
- ``reducer``: an optional module-level function ``fn(Results) -> dict[str, float]`` whose
  scalars join the run's default ones (``afsim.store.metrics.default_metrics``); it is pickled
  by name into the workers, which then build the pandas tables of ``Results`` for it.
- ``scheduler=None``: a local process pool of ``workers`` processes (default: the CPU count;
  ``workers=1`` runs in this process). Ctrl-C (or any exception) stops the workers at once;
  what was stored stays stored. A local worker that dies costs one attempt of the run it was
  running, retried up to ``afsim.sweep.pool.MAX_ATTEMPTS`` attempts, then failed (kind
  "worker"). ``scheduler="tcp://host:port"``: an existing Dask distributed cluster (``dask
  scheduler`` / ``dask worker``, with afsim installed on the workers), connected to before the
  store is opened; each task carries its scenario's text, so the workers need no shared file
  system; a worker that dies has its runs re-run elsewhere by Dask, and the store still gets
  each run once.
- ``progress=True``: a bar on stderr (done / running / failed, ETA).
- ``tag=(name, definition)``: the store tags every run of the tasks, found or computed, as
  that sweep's (``afsim.store.sweeps``); ``sweep()`` always tags, with ``name`` or a name made
  from its definition (the scenario, ``--set``s, grid, replications and first seed).
- A run that fails is reported in ``failures`` (``RunFailed.kind``: "conservation", packet
  conservation broken; "worker", its worker died every attempt; "error", anything else it
  raised) and not stored; the others go on. ``execute`` raises only for what stops
  everything: ``SweepError`` (bad input, unreachable scheduler, unusable store, a store
  another process is writing) and ``KeyboardInterrupt``.

``sweep(...)`` — also ``afsim.sweep(...)``: this module is callable — is the grid on top of
it, and what ``afsim sweep`` calls: the Cartesian product
of the grids × ``replications`` seeds (``base_seed``, ``base_seed + 1``, …; default: the
scenario's seed), returning a pandas DataFrame with one row per run (``param.<name>``
columns, seed, key, cached, and every scalar metric). ``afsim.stats.aggregate`` turns it into
means and 95 % confidence intervals per grid point.

Not done here: scheduling policy (Dask's, or the pool's FIFO), retries of runs that failed by
themselves (a failure is deterministic: same key, same failure; only a worker's death is
retried), two sweeps writing one store at once (one writer per store: the second gets a
``SweepError`` naming the first's pid, see ``afsim.store.lock``).
"""

from __future__ import annotations

import itertools
import sys
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from afsim.codehash import fingerprint
from afsim.store import CODE_VERSION, RunRecord, Store, StoreError, run_key
from afsim.sweep.worker import Reducer, RunFailed, Task, default_metrics, run_task

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Outcome",
    "Reducer",
    "RunFailed",
    "SweepError",
    "Task",
    "default_metrics",
    "execute",
    "grid_points",
    "parse_grid",
    "run_task",
    "sweep",
]


class SweepError(Exception):
    """Bad input to a sweep, found before anything runs (exit 2): a grid name or value the
    scenario rejects, an unreachable scheduler, an unusable store."""


@dataclass
class Outcome:
    """What ``execute`` returns: a record per task (None for a failed run), the failures by
    task index, and how many runs were computed now and how many came from the store."""

    records: list[RunRecord | None]
    failures: dict[int, RunFailed] = field(default_factory=dict)
    computed: int = 0
    from_store: int = 0
    #: What opening the store mended (a killed writer's leftovers), one line each.
    recovered: list[str] = field(default_factory=list)
    #: Runs sent back to the queue because their local worker died, one line each.
    retries: list[str] = field(default_factory=list)


def execute(
    tasks: Sequence[Task],
    *,
    store: str | Path | Store | None = None,
    reducer: Reducer | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    tables: bool = True,
    tag: tuple[str, Mapping[str, object]] | None = None,
) -> Outcome:
    """Runs every task not already in ``store`` (see the module header)."""
    from afsim._core import ScenarioError

    # the key: the resolved scenario, the seed, the code (Rust build and the default metrics:
    # CODE_VERSION) and, with a reducer of its own, that reducer's code (``afsim.codehash``)
    version = CODE_VERSION if reducer is None else f"{CODE_VERSION}.r{fingerprint([reducer])}"
    keys: list[str] = []
    for t in tasks:
        try:
            scenario = t.load()
        except ScenarioError as e:
            raise SweepError(_explain(e, t)) from None
        keys.append(run_key(scenario.resolved(),
                            t.seed if t.seed is not None else scenario.seed, version))
    client = None
    if scheduler is not None:
        from afsim.sweep.executors import connect

        client = connect(scheduler)  # before the store is created: nothing left if it fails
    own_store = isinstance(store, (str, Path))
    try:
        st = Store.open(store) if isinstance(store, (str, Path)) else store
    except StoreError as e:
        if client is not None:
            client.close()
        raise SweepError(str(e)) from None
    try:
        out = Outcome(records=[None] * len(tasks))
        if st is not None:
            out.recovered = list(st.recovered)
        todo: dict[str, list[int]] = {}
        for i, k in enumerate(keys):
            rec = st.record(k) if st is not None else None
            if rec is not None:
                out.records[i] = rec
                out.from_store += 1
            else:
                todo.setdefault(k, []).append(i)
        if st is not None and tag is not None:
            from afsim.store import sweeps as tags

            tags.tag(st, tag[0], tag[1], [r.key for r in out.records if r is not None])
        jobs = [(k, tasks[idx[0]]) for k, idx in todo.items()]
        from afsim.sweep import progress as prog

        bar = prog.Bar(len(jobs), out.from_store) if progress else prog.NoBar()
        try:
            def finished(key: str, result: RunRecord | RunFailed) -> None:
                for i in todo[key]:
                    if isinstance(result, RunFailed):
                        out.failures[i] = result
                    else:
                        out.records[i] = result
                if isinstance(result, RunRecord):
                    out.computed += 1
                    if st is not None:
                        st.put(result, sweep=tag)
                        result.tables = {}  # stored: keep memory flat over long sweeps

            if client is not None:
                from afsim.sweep.executors import run_dask

                run_dask(jobs, client, reducer, tables, finished, bar)
                client = None  # run_dask closed it
            else:
                from afsim.sweep.executors import run_local

                run_local(jobs, workers, reducer, tables, finished, bar, out.retries.append)
        finally:
            bar.close()
        return out
    finally:
        if client is not None:
            client.close()
        if own_store and st is not None:
            st.close()


def _explain(e: Exception, t: Task) -> str:
    """A scenario error of one task, with the grid point it came from."""
    field_ = getattr(e, "field", "")
    message = getattr(e, "message", str(e))
    if field_.startswith("--set "):
        name = field_.removeprefix("--set ")
        return f"--grid/--set {name}: {message} ({t.scenario})"
    sets = ", ".join(f"{k}={v}" for k, v in t.overrides)
    return f"{e}" + (f" (with {sets})" if sets else "")


# ---------------------------------------------------------------------------------------------
# Grids


def parse_grid(specs: Sequence[str]) -> dict[str, list[str]]:
    """``["n=1,2,4", "rate=1Mbps,2Mbps"]`` → ``{"n": ["1", "2", "4"], "rate": [...]}``.
    Raises SweepError for a malformed or repeated entry."""
    grid: dict[str, list[str]] = {}
    for s in specs:
        name, sep, values = s.partition("=")
        name = name.strip()
        if not sep or not name:
            raise SweepError(f"--grid {s!r}: expected NAME=V1,V2,...")
        vals = [v.strip() for v in values.split(",")]
        if any(not v for v in vals):
            raise SweepError(f"--grid {s!r}: an empty value (two commas, or a trailing one)")
        if name in grid:
            raise SweepError(f"--grid {name}: given twice; list every value in one --grid")
        grid[name] = vals
    return grid


def grid_points(grid: Mapping[str, Sequence[str]]) -> list[dict[str, str]]:
    """The Cartesian product of the grid, the last name varying fastest; ``[{}]`` for none."""
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]


def sweep(
    scenario: str | Path,
    grid: Mapping[str, Sequence[str | int | float]] | None = None,
    *,
    replications: int = 1,
    base_seed: int | None = None,
    overrides: Mapping[str, str] | None = None,
    store: str | Path | Store | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    reducer: Reducer | None = None,
    progress: bool = False,
    name: str | None = None,
) -> pd.DataFrame:
    """Runs ``scenario`` at every point of ``grid`` × ``replications`` seeds and returns one row
    per run: ``param.<name>`` for each override, ``seed``, ``key``, ``cached`` (came from the
    store), ``wall_s`` and every scalar metric. In a store, the runs are tagged as sweep
    ``name`` (default: made from the sweep's definition, ``afsim.store.sweeps.default_name``). Raises SweepError for bad input, and RunFailed
    (the first failure) if a run broke packet conservation, after the others are stored."""
    import pandas as pd

    if replications < 1:
        raise SweepError(f"replications must be at least 1, got {replications}")
    grid_s = {k: [str(v) for v in vs] for k, vs in (grid or {}).items()}
    base = dict(overrides or {})
    clash = sorted(set(base) & set(grid_s))
    if clash:
        raise SweepError(f"{', '.join(clash)}: both swept (--grid) and set (--set)")
    path = str(scenario)
    if base_seed is None:
        try:
            base_seed = Task(path, tuple(base.items())).load().seed
        except Exception as e:  # ScenarioError: reported with its place
            raise SweepError(_explain(e, Task(path, tuple(base.items())))) from None
    tasks = [Task(path, tuple({**base, **point}.items()), base_seed + r)
             for point in grid_points(grid_s) for r in range(replications)]
    from afsim.store import sweeps as tags

    defn = tags.definition(path, base, grid_s, replications, base_seed)
    out = execute(tasks, store=store, reducer=reducer, workers=workers, scheduler=scheduler,
                  progress=progress, tag=(name or tags.default_name(defn), defn))
    rows = []
    for t, rec in zip(tasks, out.records):
        if rec is None:
            continue
        rows.append({**{f"param.{k}": v for k, v in t.overrides}, "seed": t.seed,
                     "key": rec.key, "cached": rec.cached, "wall_s": rec.wall_s,
                     **rec.metrics})
    df = pd.DataFrame(rows)
    for c in [c for c in df.columns if c.startswith("param.")]:
        try:
            df[c] = pd.to_numeric(df[c])
        except (ValueError, TypeError):
            pass
    if out.failures:
        first = min(out.failures)
        raise out.failures[first]
    return df


class _CallableModule(types.ModuleType):
    """``afsim.sweep(...)`` is ``afsim.sweep.sweep(...)``, as the issue's API reads."""

    def __call__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
