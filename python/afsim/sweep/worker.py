"""What a sweep worker does with one task: load, run, reduce to scalars, hand the tables back.

Read this first: this module runs inside worker processes (local pool or Dask workers), so it
imports only the compiled core at the top; pandas is imported only when a task brings a
reducer, which takes ``Results``. Nothing here writes files: the record goes back to the
process that owns the store (``afsim.store``), which is the store's only writer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from afsim.store import RunRecord
from afsim.store.metrics import default_metrics

if TYPE_CHECKING:
    from afsim._core import RunResult, Scenario
    from afsim.results import Results

#: ``reducer(results) -> {name: value}``: extra scalars of a run; a module-level function, so
#: that it pickles by name into worker processes.
Reducer = Callable[["Results"], Mapping[str, float]]


@dataclass(frozen=True)
class Task:
    """One run: a scenario (a file path, or ``text`` named ``scenario`` in errors), its
    ``--set`` overrides and a seed (None: the scenario's own)."""

    scenario: str
    overrides: tuple[tuple[str, str], ...] = ()
    seed: int | None = None
    text: str | None = None

    def load(self) -> Scenario:
        import afsim._core as core

        if self.text is not None:
            return core.load_scenario(text=self.text, name=self.scenario,
                                      overrides=dict(self.overrides))
        return core.load_scenario(self.scenario, overrides=dict(self.overrides))

    def describe(self) -> str:
        sets = " ".join(f"--set {k}={v}" for k, v in self.overrides)
        seed = f" seed {self.seed}" if self.seed is not None else ""
        return f"{self.scenario}{seed}{' ' + sets if sets else ''}"


class RunFailed(Exception):
    """A run that did not complete: ``kind`` is "scenario" (the file or an override is wrong),
    "conservation" (the run broke packet conservation), "worker" (the worker process running
    it died on every attempt) or "error" (anything else the run raised). Plain strings only,
    so that it crosses process boundaries intact."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(kind, message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message


#: ``finished(key, record_or_failure)``: what an executor calls as each run ends (the pool's and
#: the Dask executor's callers store the record or count the failure).
Finished = Callable[[str, "RunRecord | RunFailed"], None]


def run_task(task: Task, key: str, reducer: Reducer | None = None,
             tables: bool = True) -> RunRecord:
    """Runs ``task`` in this process. Raises RunFailed for a run that fails."""
    import afsim._core as core

    try:
        scenario = task.load().without_captures()
        seed = task.seed if task.seed is not None else scenario.seed
        result = core.run(scenario, seed=seed)
    except core.ScenarioError as e:
        raise RunFailed("scenario", f"{e} ({task.describe()})") from None
    except core.ConservationError as e:
        raise RunFailed("conservation", f"{e} ({task.describe()})") from None
    text = result.summary_json()
    summary = json.loads(text)
    metrics = default_metrics(summary)
    if reducer is not None:
        from afsim.results import Results

        metrics.update({k: float(v) for k, v in reducer(Results.from_run(result)).items()})
    return RunRecord(
        key=key, scenario=summary["scenario"], source=task.scenario,
        params=dict(task.overrides), seed=seed, summary_json=text, metrics=metrics,
        end_time_s=float(summary["end_time_s"]), stop_reason=str(summary["stop_reason"]),
        events=result.events, packet_hops=result.packet_hops, wall_s=result.wall_seconds,
        tables=run_tables(result) if tables else {},
    )


def run_tables(result: RunResult) -> dict[str, dict[str, Any]]:
    """The run's tables as column dicts: flows and queues always; TCP traces, CSA α series and
    the ``[[monitor]]`` time series and a queue's event record (``kind = "events"``: a row per
    packet event) when the run has them (long: one ``flow`` / ``csa`` / ``queue`` column)."""
    out: dict[str, dict[str, Any]] = {"flows": result.flows_columns(),
                                      "queues": result.queues_columns()}
    for name, by, series in (("traces", "flow", result.traces()),
                             ("alpha", "csa", result.alpha_traces()),
                             ("monitor", "queue", result.queue_series()),
                             ("monitor_levels", "queue", result.level_series()),
                             ("monitor_code_points", "queue", result.code_point_series()),
                             ("queue_events", "queue", result.queue_traces())):
        if series:
            out[name] = _long(by, series)
    delays = result.queue_delays()
    if delays:
        import numpy as np

        out["queue_delay_hist"] = {
            "queue": [q for q, d in delays.items() for _ in range(len(d["bin_count"]))],
            "bin_upper_s": np.concatenate([d["bin_upper_s"] for d in delays.values()]),
            "count": np.concatenate([d["bin_count"] for d in delays.values()])}
    for name, cols in (("monitor_flows", result.flow_series()),
                       ("monitor_conditioners", result.conditioner_series())):
        if cols is not None:
            out[name] = cols
    return out


def _long(by: str, series: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per-name column dicts as one column dict, the name in column ``by``."""
    import numpy as np

    cols: dict[str, Any] = {by: [n for n, c in series.items()
                                 for _ in range(len(c["time_s"]))]}
    first = next(iter(series.values()))
    for c in first:
        cols[c] = np.concatenate([s[c] for s in series.values()])
    return cols
