"""Judging a reproduction: every published value against afsim's, the null model's and each
variant's number, with tolerances that come from the paper's own precision.

Read this first.

- A published value is *matched* when afsim's mean is within the declared tolerance of it,
  *missed* when it is not, *unresolved* when the runs cannot tell (below), *not run* when its
  experiment did not run. Only matches count as reproduced; the score is matches over matches
  + misses, and the unresolved values are counted beside it, never as passes.
- Tolerances (``Tolerance``) are declared per kind of value in the paper's data file, each with
  its source in the paper: the spread the paper itself calls insignificant, or its printed
  digits. They are fixed before any run.
- A probability is resolved only if the runs could see it: when afsim counted fewer than
  ``MIN_EVENTS`` losses *and* the published probability would have given fewer than
  ``MIN_EVENTS`` in afsim's runs (p × afsim's trials), neither agreement nor disagreement is
  measurable and the value is unresolved. A published 0 against afsim's 0 is therefore
  unresolved, as is the null model's 0 against a published 0.
- The null model (``Paper.null_model``) is scored on the same values with the same rules; a
  table (or a claim, in ``claims``) that the null model matches as often as afsim is labelled
  *not discriminating*: agreeing there says nothing about the simulation.
- A variant's results are scored against the same published values, as its own column.
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce.model import EVENTS, MIN_EVENTS, TRIALS, Label, Stat, View

if TYPE_CHECKING:
    from afsim.reproduce.claims import ClaimVerdicts



class Verdict(enum.Enum):
    MATCH = "match"
    MISS = "miss"
    UNRESOLVED = "unresolved"
    NOT_RUN = "not run"


@dataclass(frozen=True)
class Tolerance:
    """How close a value must be: ``relative`` (|a − p| ≤ relative·|p|), ``absolute``
    (|a − p| ≤ absolute) or ``factor`` (a/p and p/a at most factor; probabilities). Any that
    holds suffices. ``source`` says where in the paper the size comes from."""

    relative: float | None = None
    absolute: float | None = None
    factor: float | None = None
    source: str = ""

    def text(self) -> str:
        parts = []
        if self.relative is not None:
            parts.append(f"±{100 * self.relative:g} % relative")
        if self.absolute is not None:
            parts.append(f"±{self.absolute:g} absolute")
        if self.factor is not None:
            parts.append(f"within a factor {self.factor:g}")
        return " or ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {k: v for k, v in (("relative", self.relative), ("absolute", self.absolute),
                                               ("factor", self.factor)) if v is not None}
        d["source"] = self.source
        return d

    def holds(self, paper: float, value: float) -> bool:
        if not math.isfinite(value):
            return False
        ok = False
        if self.relative is not None:
            ok |= abs(value - paper) <= self.relative * abs(paper)
        if self.absolute is not None:
            ok |= abs(value - paper) <= self.absolute
        if self.factor is not None and paper > 0 and value > 0:
            ok |= max(value / paper, paper / value) <= self.factor
        return ok


@dataclass(frozen=True)
class PaperValue:
    """One published number: where it is in the paper (table, row, column), and what it
    corresponds to in afsim (experiment, point labels, metric), with its tolerance kind.
    ``kind = "loss"`` marks a probability (resolved by event counts)."""

    table: str
    row: str
    column: str
    value: float
    experiment: str
    point: Mapping[str, Label]
    metric: str
    kind: str


def load_paper_values(path: Path) -> tuple[list[PaperValue], dict[str, Tolerance]]:
    """The values and tolerances of a paper's data file::

        {"tolerances": {"throughput": {"relative": 0.019, "source": "Appendix A …"}, ...},
         "values": [{"table": "Table 2", "row": "...", "column": "...", "value": 1381,
                     "experiment": "table2", "point": {...}, "metric": "throughput_kbps",
                     "kind": "throughput"}, ...]}
    """
    doc = json.loads(path.read_text(encoding="utf-8"))
    tolerances = {}
    for kind, t in doc["tolerances"].items():
        if not t.get("source"):
            raise ValueError(f"{path}: tolerance {kind!r} says nowhere where its size comes from")
        tolerances[kind] = Tolerance(t.get("relative"), t.get("absolute"), t.get("factor"), t["source"])
    values = []
    for v in doc["values"]:
        if v["kind"] not in tolerances:
            raise ValueError(f"{path}: value {v} has kind {v['kind']!r} without a tolerance")
        values.append(PaperValue(v["table"], v["row"], v["column"], float(v["value"]),
                                 v["experiment"], v["point"], v["metric"], v["kind"]))
    return values, tolerances


def judge_value(v: PaperValue, tol: Tolerance, s: Stat | None, events: float | None,
                trials: float | None) -> Verdict:
    """One published value against one reading's number (see the module header)."""
    if s is None or s.n == 0 or not math.isfinite(s.mean):
        return Verdict.NOT_RUN
    if v.kind == "loss":
        if trials is None or not math.isfinite(trials):
            return Verdict.UNRESOLVED
        seen = events if events is not None and math.isfinite(events) else 0.0
        if seen < MIN_EVENTS and v.value * trials < MIN_EVENTS:
            return Verdict.UNRESOLVED
        if v.value == 0:
            return Verdict.MISS  # the paper saw none where afsim sees at least MIN_EVENTS
        return Verdict.MATCH if tol.holds(v.value, s.mean) else Verdict.MISS
    return Verdict.MATCH if tol.holds(v.value, s.mean) else Verdict.MISS


@dataclass(frozen=True)
class Comparison:
    """A published value beside one reading's number (afsim, the null model or a variant)."""

    value: PaperValue
    reading: str
    stat: Stat | None
    events: float | None
    trials: float | None
    verdict: Verdict
    #: afsim's own 95 % interval is wider than the tolerance: its mean cannot be placed that
    #: finely (more replications would be needed to call it either way with confidence).
    imprecise: bool = False

    @property
    def difference(self) -> float:
        return self.stat.mean - self.value.value if self.stat and self.stat.n else math.nan

    @property
    def relative(self) -> float:
        if not self.stat or not self.stat.n or self.value.value == 0:
            return math.nan
        return self.difference / abs(self.value.value)

    def as_dict(self) -> dict[str, Any]:
        from afsim.stats import json_number as _num

        return {"reading": self.reading, "value": self.stat.as_dict() if self.stat else None,
                "events": _num(self.events), "trials": _num(self.trials),
                "difference": _num(self.difference), "relative_difference": _num(self.relative),
                "verdict": self.verdict.value, "imprecise": self.imprecise}


def compare(values: Sequence[PaperValue], tolerances: Mapping[str, Tolerance], view: View,
            resolution: View | None = None) -> list[Comparison]:
    """Each published value beside ``view``'s number. Event counts come from ``view``; the
    trials (the resolution) from ``resolution`` when the view has none of its own (the null
    model is judged at afsim's resolution)."""
    out = []
    for v in values:
        s = view.stat(v.experiment, v.point, v.metric)
        events = view.total(v.experiment, v.point, v.metric + EVENTS)
        trials = view.total(v.experiment, v.point, v.metric + TRIALS)
        if trials is None and resolution is not None:
            trials = resolution.total(v.experiment, v.point, v.metric + TRIALS)
            events = 0.0 if s is not None and s.n and s.mean == 0 else events
        tol = tolerances[v.kind]
        verdict = judge_value(v, tol, s, events, trials)
        imprecise = bool(verdict in (Verdict.MATCH, Verdict.MISS) and s is not None and s.n > 1
                         and math.isfinite(s.ci95) and v.kind != "loss"
                         and s.ci95 > _tol_width(tol, v.value))
        out.append(Comparison(v, view.name, s, events, trials, verdict, imprecise))
    return out


def _tol_width(tol: Tolerance, paper: float) -> float:
    widths = [w for w in ((tol.relative or 0) * abs(paper), tol.absolute or 0) if w > 0]
    return max(widths) if widths else math.inf


@dataclass(frozen=True)
class Score:
    """Counts of verdicts over a set of comparisons."""

    match: int
    miss: int
    unresolved: int
    not_run: int

    @classmethod
    def of(cls, comps: Sequence[Comparison]) -> Score:
        count = dict.fromkeys(Verdict, 0)
        for c in comps:
            count[c.verdict] += 1
        return cls(count[Verdict.MATCH], count[Verdict.MISS], count[Verdict.UNRESOLVED],
                   count[Verdict.NOT_RUN])

    @property
    def resolved(self) -> int:
        return self.match + self.miss

    def text(self) -> str:
        return (f"{self.match} of {self.resolved} resolved"
                + (f" ({self.unresolved} unresolved)" if self.unresolved else ""))

    def as_dict(self) -> dict[str, int]:
        return {"match": self.match, "miss": self.miss, "unresolved": self.unresolved,
                "not_run": self.not_run}


@dataclass
class TableVerdict:
    """One table of the paper: afsim's, the null model's, each variant's and ns-2's scores."""

    table: str
    afsim: Score
    null: Score
    variants: dict[str, Score]
    ns2: Score | None = None

    @property
    def discriminating(self) -> bool:
        """False when the null model matches at least as many values as afsim: agreement here
        does not need the simulation."""
        return self.null.match < self.afsim.match


@dataclass
class Verdicts:
    """Everything judged: per value (afsim, null, variants), per table, per claim."""

    values: list[PaperValue]
    tolerances: dict[str, Tolerance]
    afsim: list[Comparison]
    null: list[Comparison]
    variants: dict[str, list[Comparison]]
    tables: list[TableVerdict]
    claims: ClaimVerdicts
    notes: list[str] = field(default_factory=list)
    #: ns-2's twin on the same values (None: no ns-2 column).
    ns2: list[Comparison] | None = None

    def _ran(self, reading: str) -> list[Comparison]:
        """``reading``'s comparisons of the values its runs could reach."""
        comps = (self.afsim if reading == "afsim" else self.null if reading == "null"
                 else (self.ns2 or []) if reading == "ns2" else self.variants[reading])
        return [c for c in comps if c.verdict is not Verdict.NOT_RUN]

    def score(self, reading: str = "afsim") -> Score:
        return Score.of(self._ran(reading))

    def score_on(self, reading: str, among: str) -> Score:
        """``reading``'s score on exactly the published values ``among`` was compared on (a
        variant runs only some experiments: the default's score on the same values is the one
        to set beside it). Each reading resolves a value at its own resolution."""
        wanted = {id(c.value) for c in self._ran(among)}
        return Score.of([c for c in self._ran(reading) if id(c.value) in wanted])

