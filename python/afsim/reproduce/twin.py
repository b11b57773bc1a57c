"""The paper's own simulator beside afsim: each experiment's ns-2 twin, run (or read from the
committed results) and judged with the same tolerances and claims.

Read this first. A paper that declares a ``Twin`` (``Paper.ns2``) says, for every point of its
own experiments, either the arguments of an ns-2 script (``afsim/ns2/*.tcl``) built from the
same parameters as the afsim run — the point's overrides, the mode's budget, the seed — or why
ns-2 cannot run it (``NotInNs2``: a mechanism ns-2 does not have). The ns-2 runs are reduced by
the experiment's own metrics function (``afsim.ns2.Ns2Results`` has afsim's table shapes), and
aggregated over the same seeds as afsim's. Variants and robustness design points are afsim's
readings and have no twin.

Where the results come from (``source``):

- ``"committed"`` (the default): the ns-2 runs committed with afsim
  (``data/ns2/<paper>.json.gz``, written by a ``--ns2 run`` with ``--ns2-save``) and any kept in
  the store; a run found in neither is reported as not run, with the command that runs it;
- ``"run"``: what is missing is run with ns-2 now (``jobs`` in parallel), each run kept in the
  store (``<store>/ns2/``) as it finishes, so that an interrupted reproduction resumes; without
  ``ns`` installed, a message says so and the committed runs are used;
- ``"off"``: no ns-2 column.

A committed or stored run is identified by its script's digest (the Tcl and ``common.tcl``) and
its arguments: a run made by another script, or with other values, is never taken for this one.

Each claim then falls in one case (``claim_case``): it holds in both simulators; it fails in
both (the paper is not reproduced by its own tool either); afsim and ns-2 disagree, and the
numbers the claim reads differ beyond seed noise somewhere (a *parity gap*: which numbers, by
how much) or nowhere (the claim sits on a threshold both simulators straddle); or ns-2 cannot
decide it (a point it needs is not in ns-2).
"""

from __future__ import annotations

import gzip
import json
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from afsim import ns2
from afsim.reproduce.model import Aggregates, Experiment, Label, Stat, replications_of, t_quantile

if TYPE_CHECKING:
    from afsim.reproduce.claims import ClaimResult
    from afsim.reproduce.model import Mode

SOURCES = ("committed", "run", "off")
#: Where the committed ns-2 runs of each paper are.
DATA = Path(__file__).parent / "data" / "ns2"


@dataclass(frozen=True)
class NotInNs2:
    """A point ns-2 cannot run, and why (the mechanism it lacks)."""

    reason: str


#: ``args(experiment, overrides, seed) -> ns-2 arguments | NotInNs2``: the overrides are the
#: afsim run's own (the point's, with the mode's budget).
ArgsFn = Callable[[Experiment, Mapping[str, str], int], "Sequence[str] | NotInNs2"]
#: ``results(raw) -> Ns2Results``: a twin's raw output in afsim's table shapes.
ResultsFn = Callable[[dict[str, Any]], "ns2.Ns2Results"]


@dataclass(frozen=True)
class Twin:
    """How a paper's experiments run in ns-2."""

    script: str
    args: ArgsFn
    results: ResultsFn
    #: What the twin is, which rows of the paper map to it and which do not, and why (report).
    description: str
    #: Experiments with no twin at all, with the reason (each of their points is "not in ns-2").
    absent: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Column:
    """The ns-2 column of a reproduction."""

    twin: Twin
    source: str
    aggregates: Aggregates
    #: (experiment id, point index) -> why ns-2 cannot run it.
    refused: dict[tuple[str, int], str]
    #: Distinct runs planned (points that share their values share a run), and where each
    #: came from.
    planned: int = 0
    ran: int = 0
    stored: int = 0
    committed: int = 0
    missing: int = 0
    failed: list[str] = field(default_factory=list)
    #: ns-2's own event-loop seconds summed over the runs used, and this invocation's wall time.
    engine_seconds: float = 0.0
    process_seconds: float = 0.0
    wall_seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    #: Every raw run used, by key (what ``save`` commits).
    records: dict[str, dict[str, Any]] = field(default_factory=dict)

    def not_in_ns2(self, experiment: str, point_index: int) -> str | None:
        return self.refused.get((experiment, point_index))

    def summary(self) -> str:
        parts = [f"{self.planned} ns-2 runs planned"]
        for n, what in ((self.ran, "run now"), (self.stored, "from the store"),
                        (self.committed, "from the committed results"),
                        (self.missing, "not run"), (len(self.failed), "failed")):
            if n:
                parts.append(f"{n} {what}")
        return ", ".join(parts)


def committed_path(paper_id: str) -> Path:
    return DATA / f"{paper_id}.json.gz"


def load_committed(paper_id: str) -> dict[str, dict[str, Any]]:
    path = committed_path(paper_id)
    if not path.is_file():
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return dict(doc.get("runs", {}))


def save(column: Column, paper_id: str, path: Path | None = None) -> Path:
    """Writes the raw ns-2 runs a column used, for readers without ns-2, beside those already
    committed by the same twin script (a reproduction of some experiments keeps the others'
    runs; a changed script's are dropped). Deterministic: keys sorted, no time stamp in the
    gzip header."""
    path = path or committed_path(paper_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = ns2.digest(column.twin.script)
    runs: dict[str, dict[str, Any]] = {}
    if path.is_file():
        with gzip.open(path, "rt", encoding="utf-8") as f:
            old = json.load(f)
        if old.get("digest") == digest:
            runs.update(old.get("runs", {}))
    runs.update(column.records)
    doc = {"paper": paper_id, "simulator": "ns-2 2.35", "script": column.twin.script,
           "digest": digest, "runs": {k: runs[k] for k in sorted(runs)}}
    data = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(data)
    return path


class HasTwin(Protocol):
    """What ``collect`` reads of a ``core.Paper`` (typed structurally: ``core`` builds on this
    module, not the other way round)."""

    @property
    def id(self) -> str: ...
    @property
    def ns2(self) -> Twin | None: ...


def collect(paper: HasTwin, mode: Mode, experiments: Sequence[Experiment], *, source: str,
            jobs: int, store: Path | None, progress: bool = False) -> Column | None:
    """The ns-2 column of the paper's own experiments (``experiments`` without variants and
    design points), from ``source``; None for ``"off"`` or a paper without a twin."""
    if source not in SOURCES:
        raise ValueError(f"ns-2 source must be one of {', '.join(SOURCES)}, not {source!r}")
    twin = paper.ns2
    if twin is None or source == "off":
        return None
    start = time.monotonic()
    col = Column(twin, source, Aggregates(), {})
    # plan: every (experiment, point, seed) of the paper's own experiments
    plan: list[tuple[Experiment, int, int, ns2.Run]] = []
    for e in experiments:
        if e.base is not None:
            continue
        for pi, p in enumerate(e.points):
            if e.id in twin.absent:
                col.refused[(e.id, pi)] = twin.absent[e.id]
                continue
            for seed in mode.seeds_for(replications_of(e, mode)):
                ov = {mode.budget_param: mode.budget_value, **e.overrides_for(p, seed)}
                a = twin.args(e, ov, seed)
                if isinstance(a, NotInNs2):
                    col.refused[(e.id, pi)] = a.reason
                    break
                plan.append((e, pi, seed, ns2.Run(twin.script, tuple(a))))
    col.planned = len({r.key for *_x, r in plan})

    cache_dir = store / "ns2" if store is not None else None
    committed = load_committed(paper.id) if source in ("committed", "run") else {}
    raw: dict[str, dict[str, Any]] = {}
    todo: dict[str, ns2.Run] = {}
    for _e, _pi, _seed, r in plan:
        k = r.key
        if k in raw or k in todo:
            continue
        cached = _read_cached(cache_dir, k)
        if cached is not None:
            raw[k] = cached
            col.stored += 1
        elif k in committed:
            raw[k] = committed[k]
            col.committed += 1
        else:
            todo[k] = r
    if todo and source == "run" and ns2.executable() is None:
        col.messages.append(
            f"ns-2 is not installed (`apt-get install ns2`): {len(todo)} ns-2 runs not run; "
            "the committed ns-2 results are used where they exist")
    elif todo and source == "run":
        col.ran = _run_all(todo, raw, cache_dir, jobs, col, progress)
    if todo and source == "committed":
        col.messages.append(
            f"{len(todo)} of the {col.planned} ns-2 runs are not among the committed results "
            f"(other values or another twin script): `--ns2 run` runs them (needs ns-2)")
    col.missing = sum(1 for k in todo if k not in raw)

    per_point: dict[tuple[str, int], list[dict[str, float]]] = {}
    for e, pi, _seed, r in plan:
        rec = raw.get(r.key)
        if rec is None:
            continue
        col.records[r.key] = rec
        col.engine_seconds += float(rec.get("wall_s", 0.0))
        col.process_seconds += float(rec.get("process_s", 0.0))
        try:
            m = e.metrics(twin.results(rec))  # type: ignore[arg-type]
        except Exception as exc:
            col.failed.append(f"{e.id} point {pi}: {type(exc).__name__}: {exc}")
            continue
        per_point.setdefault((e.id, pi), []).append({k: float(v) for k, v in m.items()})
    for e in experiments:
        if e.base is not None:
            continue
        rows = []
        for pi, p in enumerate(e.points):
            runs = per_point.get((e.id, pi))
            if not runs:
                continue
            names = sorted({k for m in runs for k in m})
            rows.append((p, {k: Stat.of(m.get(k, math.nan) for m in runs) for k in names}))
        if rows:
            col.aggregates.by_experiment[e.id] = rows
    col.wall_seconds = time.monotonic() - start
    return col


def _read_cached(cache_dir: Path | None, key: str) -> dict[str, Any] | None:
    if cache_dir is None:
        return None
    path = cache_dir / f"{key}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_cached(cache_dir: Path | None, key: str, rec: dict[str, Any]) -> None:
    if cache_dir is None:
        return
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = cache_dir / f".{key}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(rec, sort_keys=True), encoding="utf-8")
    os.replace(tmp, cache_dir / f"{key}.json")


def _run_all(todo: Mapping[str, ns2.Run], raw: dict[str, dict[str, Any]], cache_dir: Path | None,
             jobs: int, col: Column, progress: bool) -> int:
    """Runs the missing twins, ``jobs`` ns-2 processes at a time; each finished run is kept in
    the store at once."""
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(ns2.run, r): (k, r) for k, r in todo.items()}
        for fut in as_completed(futures):
            k, r = futures[fut]
            try:
                rec = fut.result()
            except ns2.Ns2Error as e:
                col.failed.append(str(e))
                continue
            rec["args"] = list(r.args)
            raw[k] = rec
            _write_cached(cache_dir, k, rec)
            done += 1
            if progress:
                sys.stderr.write(f"\rns-2: {done}/{len(todo)} runs")
                sys.stderr.flush()
    if progress and todo:
        sys.stderr.write("\n")
    return done


# ---------------------------------------------------------------------------------------------
# Claims: which case each is


#: The cases of a claim beside ns-2.
BOTH_HOLD = "holds in both"
BOTH_FAIL = "fails in both"
GAP = "afsim and ns-2 disagree: parity gap"
THRESHOLD = "afsim and ns-2 disagree within seed noise"
NS2_CANNOT = "not in ns-2"


@dataclass(frozen=True)
class Difference:
    """One number a claim reads, in both simulators, and whether they differ beyond seed
    noise (Welch's t-test at 95 %)."""

    experiment: str
    labels: Mapping[str, Label]
    metric: str
    afsim: Stat
    ns2: Stat
    t: float
    significant: bool

    def text(self) -> str:
        tag = ", ".join(f"{v}" for v in self.labels.values())
        return (f"{self.metric} [{tag}]: afsim {self.afsim.mean:.4g}, ns-2 {self.ns2.mean:.4g} "
                f"(t = {self.t:+.1f})")

    def as_dict(self) -> dict[str, Any]:
        return {"experiment": self.experiment, "labels": dict(self.labels), "metric": self.metric,
                "afsim": self.afsim.mean, "ns2": self.ns2.mean, "t": self.t,
                "significant": self.significant}


#: Two means closer than this, relative to the larger, are the same number: a deterministic
#: run (an uncongested network, every seed alike) has no seed noise, and a difference in the
#: sixth digit — where a run's last packets stop — is not a parity gap. The parity grid's own
#: tolerance is 3 % (docs/validation.md); this floor is thirty times finer.
EQUAL_WITHIN = 0.001


def difference(experiment: str, labels: Mapping[str, Label], metric: str, a: Stat,
               b: Stat) -> Difference | None:
    """Welch's test of two means over their seeds (significant: beyond the 95 % quantile of
    Student's t, and apart by more than ``EQUAL_WITHIN``); None when either has fewer than
    two seeds."""
    if a.n < 2 or b.n < 2 or not (math.isfinite(a.mean) and math.isfinite(b.mean)):
        return None
    apart = abs(a.mean - b.mean) > EQUAL_WITHIN * max(abs(a.mean), abs(b.mean))
    va, vb = a.std ** 2 / a.n, b.std ** 2 / b.n
    if va + vb == 0:
        t = 0.0 if a.mean == b.mean else math.copysign(math.inf, a.mean - b.mean)
        return Difference(experiment, labels, metric, a, b, t, apart)
    t = (a.mean - b.mean) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (a.n - 1) + vb ** 2 / (b.n - 1))
    return Difference(experiment, labels, metric, a, b, t, apart and abs(t) > t_quantile(0.975, df))


def claim_case(afsim: ClaimResult, ns2_result: ClaimResult | None, afsim_agg: Aggregates,
               ns2_agg: Aggregates | None) -> tuple[str, list[Difference]]:
    """The case of a claim (see the module's doc) and the numbers it read that both simulators
    have (for a claim ns-2 cannot decide, those of its points ns-2 runs)."""
    if ns2_agg is None:
        return NS2_CANNOT, []
    diffs = []
    for experiment, labels, metric in afsim.reads:
        a = afsim_agg.stat(experiment, labels, metric)
        b = ns2_agg.stat(experiment, labels, metric)
        if a is None or b is None:
            continue
        d = difference(experiment, labels, metric, a, b)
        if d is not None:
            diffs.append(d)
    if ns2_result is None or ns2_result.holds is None or afsim.holds is None:
        return NS2_CANNOT, diffs
    if afsim.holds == ns2_result.holds:
        return (BOTH_HOLD if afsim.holds else BOTH_FAIL), diffs
    return (GAP if any(d.significant for d in diffs) else THRESHOLD), diffs
