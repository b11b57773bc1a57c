"""The live column of a reproduction: the paper's own points run with ``afsim live`` (real
Linux TCP through afsim's models, in network namespaces), reduced by the paper's own metrics
functions, beside the paper, afsim and ns-2.

Read this first. A paper that has a live spec (``SPECS``: ``LiveSpec``, e.g.
``laatu/live.py``'s ``SPEC``) runs its experiments' points live, ``LiveSpec.replications`` times each
(seeds 1, 2, … with the experiment's own ``replicate`` overrides: the same phases as the
simulator's replications), each run stopped when its transfers complete or at
``LiveSpec.cap_s``. Live runs take wall time and root, so they are **committed**
(``data/live/<paper>.json.gz``, written by ``--live run --live-save``) and read from there by
default, like the ns-2 column (``twin``):

- ``"committed"`` (the default): the committed runs, and any kept in the store;
- ``"run"``: the missing runs are run now, one at a time (needs root; each kept in the store,
  ``<store>/live/``, as it finishes, so that an interrupted column resumes);
- ``"off"``: no live column.

A run is found by its key (``run_key``): a digest of the scenario file's text (so a changed
default, such as laatu's ``mbr_buffer``, shows), the run's overrides and seed, the congestion
control, and ``LIVE_CODE`` (the live code's version, bumped when what a live run measures
changes: the forwarder, the generators, afsim-core's models it runs, the reduction before a run
is committed). Not the scenario as afsim resolves it: its text changes with every change to the
loader's structures, which would make every committed run stale for nothing. A committed run of the same point and seed under another key is *stale*:
reported as missing, never used. The raw run (the live report's flows, the capture-derived
numbers, the machine's load average before and after, the forwarder's warnings) is what is
committed; the metrics are recomputed from it by the paper's own functions at every report,
as the ns-2 column's are.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from afsim.reproduce.model import Aggregates, Experiment, Stat

if TYPE_CHECKING:
    from afsim.reproduce.model import Mode

SOURCES = ("committed", "run", "off")
#: Where the committed live runs of each paper are.
DATA = Path(__file__).parent / "data" / "live"
#: The live code's version, part of every run's key: bump it when a change to afsim live
#: (forwarder, generators, how a run is reduced before it is committed) changes what a run
#: measures, so that the committed runs show as stale.
LIVE_CODE = "live-1"
#: The papers with a live spec: their module (which defines ``SPEC``).
SPECS = {"laatu": "afsim.reproduce.laatu.live"}



class Paper(Protocol):
    """What the live column reads of a ``core.Paper`` (typed structurally: ``core`` builds on
    this module, not the other way round)."""

    @property
    def id(self) -> str: ...

@dataclass(frozen=True)
class LiveSpec:
    """How a paper's experiments run live."""

    #: Each run's duration cap (s of wall time): the scenario parameter ``cap_param``.
    cap_s: float
    cap_param: str
    #: Runs per point (the simulator's seeds 1 … n, with the experiment's replicate phases).
    replications: int
    #: Linux congestion control of every TCP flow.
    cc: str
    #: What the live column is and what differs from the paper's testbed (the report says it).
    description: str
    #: ``run(scenario, overrides, seed, workdir) -> raw``: one live run, reduced to what is
    #: committed (JSON-able), module-level.
    run: Callable[[Path, Mapping[str, str], int, Path], dict[str, Any]]
    #: ``results(raw) -> an afsim.Results-like object`` for the paper's metrics function.
    results: Callable[[dict[str, Any]], Any]
    #: Metrics the paper's functions compute that a live run cannot measure (NaN live).
    not_measured: Mapping[str, str] = field(default_factory=dict)
    #: The paper's experiments run live (None: all of its own).
    experiments: tuple[str, ...] | None = None


def spec_for(paper_id: str) -> LiveSpec | None:
    mod = SPECS.get(paper_id)
    return None if mod is None else importlib.import_module(mod).SPEC


@dataclass
class Planned:
    experiment: str
    point_index: int
    labels: dict[str, Any]
    seed: int
    scenario: Path
    overrides: dict[str, str]
    key: str


@dataclass
class LiveColumn:
    """The live column of a reproduction."""

    spec: LiveSpec
    source: str
    aggregates: Aggregates
    planned: list[Planned] = field(default_factory=list)
    ran: int = 0
    stored: int = 0
    committed: int = 0
    missing: int = 0
    #: Planned runs with a committed run of the same point and seed under another key.
    stale: int = 0
    failed: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    #: Every raw run used, by key (what ``save`` commits).
    records: dict[str, dict[str, Any]] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"{len(self.planned)} live runs planned"]
        for n, what in ((self.ran, "run now"), (self.stored, "from the store"),
                        (self.committed, "from the committed runs"), (self.missing, "missing"),
                        (self.stale, "of them stale (committed under another key)"),
                        (len(self.failed), "failed")):
            if n:
                parts.append(f"{n} {what}")
        return ", ".join(parts)

    def loads(self) -> list[float]:
        """The 1-minute load averages recorded before and after every run used."""
        out = []
        for r in self.records.values():
            for k in ("load_before", "load_after"):
                if r.get(k):
                    out.append(float(r[k][0]))
        return out

    def warned(self) -> list[str]:
        """Runs whose live report warned (a source short of its rate, lateness, lost frames)."""
        return [f"{r['experiment']} {r['labels']} seed {r['seed']}: "
                f"{'; '.join(r['summary']['warnings'])}"
                for r in self.records.values() if r.get("summary", {}).get("warnings")]


def run_key(scenario: Path, overrides: Mapping[str, str], seed: int, spec: LiveSpec) -> str:
    """The digest that identifies a live run (see the module header)."""
    h = hashlib.sha256()
    for part in (LIVE_CODE, Path(scenario).read_text(encoding="utf-8"),
                 json.dumps(sorted(overrides.items())), str(seed), spec.cc):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:20]


def committed_path(paper_id: str) -> Path:
    return DATA / f"{paper_id}.json.gz"


def load_committed(paper_id: str, path: Path | None = None) -> dict[str, dict[str, Any]]:
    path = path or committed_path(paper_id)
    if not path.is_file():
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return dict(json.load(f).get("runs", {}))


def save(column: LiveColumn, paper_id: str, path: Path | None = None) -> Path:
    """Writes the live runs a column used beside those already committed (a run of another
    key is kept: stale runs stay visible as such). Deterministic: keys sorted, no time stamp
    in the gzip header."""
    path = path or committed_path(paper_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    runs = load_committed(paper_id, path)
    runs.update(column.records)
    doc = {"paper": paper_id, "tool": "afsim live", "live_code": LIVE_CODE,
           "runs": {k: runs[k] for k in sorted(runs)}}
    data = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(data)
    return path


def plan(paper: Paper, experiments: Sequence[Experiment], spec: LiveSpec) -> list[Planned]:
    """Every live run of the paper's own experiments (variants and design points have none)."""
    out = []
    for e in experiments:
        if e.base is not None or (spec.experiments is not None and e.id not in spec.experiments):
            continue
        for pi, p in enumerate(e.points):
            for seed in range(1, spec.replications + 1):
                ov = {spec.cap_param: f"{spec.cap_s:g}s", **e.overrides_for(p, seed)}
                out.append(Planned(e.id, pi, dict(p.labels), seed, Path(e.scenario), ov,
                                   run_key(Path(e.scenario), ov, seed, spec)))
    return out


def collect(paper: Paper, mode: Mode, experiments: Sequence[Experiment], *, source: str,
            store: Path | None, progress: bool = False,
            committed: Path | None = None) -> LiveColumn | None:
    """The live column of the paper's own experiments from ``source``; None for ``"off"`` or
    a paper without a live spec."""
    if source not in SOURCES:
        raise ValueError(f"live source must be one of {', '.join(SOURCES)}, not {source!r}")
    spec = spec_for(paper.id)
    if spec is None or source == "off":
        return None
    start = time.monotonic()
    col = LiveColumn(spec, source, Aggregates())
    col.planned = plan(paper, experiments, spec)
    cache = store / "live" if store is not None else None
    done = load_committed(paper.id, committed)
    by_point = {(r.get("experiment"), json.dumps(r.get("labels"), sort_keys=True), r.get("seed"))
                for r in done.values()}
    raw: dict[str, dict[str, Any]] = {}
    todo: list[Planned] = []
    for p in col.planned:
        rec = _read_cached(cache, p.key)
        if rec is not None:
            raw[p.key] = rec
            col.stored += 1
        elif p.key in done:
            raw[p.key] = done[p.key]
            col.committed += 1
        else:
            todo.append(p)
            if (p.experiment, json.dumps(p.labels, sort_keys=True), p.seed) in by_point:
                col.stale += 1
    # replication by replication: an interrupted column has whole replications
    todo.sort(key=lambda p: p.seed)
    if todo and source == "run":
        why = _cannot_run()
        if why:
            col.messages.append(f"{len(todo)} live runs not run: {why}; the committed runs are "
                                "used where they exist")
        else:
            for k, p in enumerate(todo, 1):
                if progress:
                    sys.stderr.write(f"\rlive: run {k}/{len(todo)}: {p.experiment} "
                                     f"{p.labels} seed {p.seed}   ")
                    sys.stderr.flush()
                try:
                    rec = run_one(spec, p)
                except Exception as exc:
                    col.failed.append(f"{p.experiment} {p.labels} seed {p.seed}: "
                                      f"{type(exc).__name__}: {exc}")
                    continue
                raw[p.key] = rec
                _write_cached(cache, p.key, rec)
                col.ran += 1
            if progress:
                sys.stderr.write("\n")
    col.missing = sum(1 for p in col.planned if p.key not in raw)
    if col.missing and source == "committed":
        col.messages.append(
            f"{col.missing} of the {len(col.planned)} live runs are not among the committed runs"
            + (f" ({col.stale} committed under another key: stale — the scenario, its defaults, "
               "afsim's models or the live code changed since)" if col.stale else "")
            + ": `afsim reproduce PAPER --live run` runs them (root, wall time)")
    per_point: dict[tuple[str, int], list[dict[str, float]]] = {}
    metrics_of = {e.id: e.metrics for e in experiments}
    for p in col.planned:
        rec = raw.get(p.key)
        if rec is None:
            continue
        col.records[p.key] = rec
        try:
            m = metrics_of[p.experiment](spec.results(rec))
        except Exception as exc:
            col.failed.append(f"{p.experiment} {p.labels} seed {p.seed}: "
                              f"{type(exc).__name__}: {exc}")
            continue
        m = {k: (math.nan if _not_measured(k, spec) else float(v)) for k, v in m.items()}
        per_point.setdefault((p.experiment, p.point_index), []).append(m)
    for e in experiments:
        rows = []
        for pi, pt in enumerate(e.points):
            runs = per_point.get((e.id, pi))
            if not runs or e.base is not None:
                continue
            names = sorted({k for m in runs for k in m})
            rows.append((pt, {k: Stat.of(m.get(k, math.nan) for m in runs) for k in names}))
        if rows:
            col.aggregates.by_experiment[e.id] = rows
    col.wall_seconds = time.monotonic() - start
    return col


def _not_measured(metric: str, spec: LiveSpec) -> bool:
    base = metric.rsplit(".", 1)[-1]
    return base in spec.not_measured


def _cannot_run() -> str | None:
    from afsim.live import netns

    try:
        netns.check_privileges()
    except (netns.LivePermissionError, netns.LiveSetupError) as e:
        return str(e).splitlines()[0]
    return None


def run_one(spec: LiveSpec, p: Planned) -> dict[str, Any]:
    """One live run, with the machine's load average before and after it."""
    load_before = os.getloadavg()
    t = time.time()
    with tempfile.TemporaryDirectory(prefix="afsim-live-repro-") as work:
        raw = spec.run(p.scenario, p.overrides, p.seed, Path(work))
    raw.update(experiment=p.experiment, labels=p.labels, seed=p.seed, overrides=p.overrides,
               scenario=p.scenario.name, key=p.key, live_code=LIVE_CODE, cc=spec.cc,
               load_before=list(load_before), load_after=list(os.getloadavg()),
               wall_s=time.time() - t,
               date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)))
    return raw


def _read_cached(cache: Path | None, key: str) -> dict[str, Any] | None:
    if cache is None:
        return None
    try:
        return json.loads((cache / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_cached(cache: Path | None, key: str, rec: dict[str, Any]) -> None:
    if cache is None:
        return
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / f".{key}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(rec, sort_keys=True), encoding="utf-8")
    os.replace(tmp, cache / f"{key}.json")
