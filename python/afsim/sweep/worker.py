"""What a sweep worker does with one task: load, run, reduce to scalars, hand the tables back.

Read this first: this module runs inside worker processes (local pool or Dask workers), so it
imports only the compiled core at the top; pandas is imported only when a task brings a
reducer, which takes ``Results``. Nothing here writes files: the record goes back to the
process that owns the store (``afsim.store``), which is the store's only writer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from afsim.stats import jain
from afsim.store import RunRecord

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
    """The run's tables as column dicts: flows and queues always, TCP traces and CSA α series
    when the run has them (long: one ``flow`` / ``csa`` column)."""
    out: dict[str, dict[str, Any]] = {"flows": result.flows_columns(),
                                      "queues": result.queues_columns()}
    for name, by, series in (("traces", "flow", result.traces()),
                             ("alpha", "csa", result.alpha_traces())):
        if series:
            import numpy as np

            cols: dict[str, Any] = {by: [n for n, c in series.items()
                                         for _ in range(len(c["time_s"]))]}
            first = next(iter(series.values()))
            for c in first:
                cols[c] = np.concatenate([s[c] for s in series.values()])
            out[name] = cols
    return out


def default_metrics(summary: Mapping[str, Any]) -> dict[str, float]:
    """The scalars every stored run gets, from its report alone (no pandas):

    - totals over the scenario's flows (CSA signal pseudo-flows left out):
      ``throughput_kbps_total``, ``goodput_kbps_total`` (TCP), ``packets_sent``,
      ``packets_dropped``, ``loss_ratio`` (dropped ÷ sent), ``mean_delay_s`` (over delivered
      packets), ``jain`` (Jain's index of the flows' throughputs), ``retransmitted_packets``
      and ``timeouts`` (TCP), ``respect_of_service_mean`` (flows with a contract);
    - per flow group of more than one flow: ``group.<name>.throughput_kbps_total``,
      ``.jain``, ``.fieb`` (when contracts are known);
    - per conditioner: ``conditioner.<name>.respect_of_service``;
    - per CSA: ``csa.<name>.alpha_end``, ``.alpha_min``;
    - per queue that dropped or marked a packet or was at least 10 % busy:
      ``queue.<name>.drops_total``, ``.mean_len_packets``, ``.utilization``.
    """
    flows = [f for f in summary["flows"] if f["kind"] != "csa-signal"]
    m: dict[str, float] = {}
    tput = [float(f["throughput_kbps"]) for f in flows]
    m["throughput_kbps_total"] = math.fsum(tput)
    goodput = [f["goodput_kbps"] for f in flows if f.get("goodput_kbps") is not None]
    if goodput:
        m["goodput_kbps_total"] = math.fsum(goodput)
    sent = sum(int(f["packets_sent"]) for f in flows)
    dropped = sum(int(f["packets_dropped"]) for f in flows)
    m["packets_sent"] = float(sent)
    m["packets_dropped"] = float(dropped)
    m["loss_ratio"] = dropped / sent if sent else math.nan
    delivered = [(int(f["packets_delivered"]), f["mean_delay_s"]) for f in flows
                 if f.get("mean_delay_s") is not None]
    n = sum(k for k, _ in delivered)
    m["mean_delay_s"] = math.fsum(k * d for k, d in delivered) / n if n else math.nan
    m["jain"] = jain(tput)
    for col in ("retransmitted_packets", "timeouts"):
        vals = [f[col] for f in flows if f.get(col) is not None]
        if vals:
            m[col] = float(sum(vals))
    ros = [f["respect_of_service"] for f in flows if f.get("respect_of_service") is not None]
    if ros:
        m["respect_of_service_mean"] = math.fsum(ros) / len(ros)
    for g in summary.get("groups", []):
        if g["flows"] > 1:
            m[f"group.{g['name']}.throughput_kbps_total"] = float(g["throughput_kbps_total"])
            m[f"group.{g['name']}.jain"] = _num(g.get("jain"))
            if g.get("fieb") is not None:
                m[f"group.{g['name']}.fieb"] = float(g["fieb"])
    for c in summary.get("conditioners", []):
        m[f"conditioner.{c['name']}.respect_of_service"] = _num(c.get("respect_of_service"))
    for c in summary.get("csas", []):
        m[f"csa.{c['name']}.alpha_end"] = float(c["alpha_end"])
        m[f"csa.{c['name']}.alpha_min"] = float(c["alpha_min"])
    for q in summary["queues"]:
        if q["drops_total"] > 0 or (q.get("ecn_marks") or 0) > 0 or q["utilization"] >= 0.10:
            for col in ("drops_total", "mean_len_packets", "utilization"):
                m[f"queue.{q['name']}.{col}"] = float(q[col])
    return m


def _num(x: Any) -> float:
    return float(x) if x is not None else math.nan


