"""The paper's statements: every sentence that states a checkable quantity, ordering, threshold
or trend, classified, and the claims among them decided on a reading's numbers.

Read this first. Each ``Statement`` carries its verbatim quote and where it stands in the
paper, and one class:

- ``claim``: checkable on afsim's runs; ``evaluate`` decides it and says with which numbers;
- ``identity``: true by construction of the model (a definition, a parameter setting, a
  property of a component afsim's unit tests check): listed, not counted;
- ``restatement``: says again what an earlier claim says (``restates`` names it), counted once;
- ``not checkable``: no quantity afsim can measure (a hedge, a judgement without a threshold, a
  statement about other work or about implementation cost): listed with the reason.

A claim is evaluated on several readings (``core.View``): afsim's default, the null model, each
variant, and each point of the robustness design. A claim the null model also satisfies is
*not discriminating*. Thresholds that a vague word needs ("high", "heavy") are written in the
claim's ``test`` with where they come from.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce.model import EVENTS, MIN_EVENTS, Label, View

if TYPE_CHECKING:
    from afsim.reproduce.robustness import RobustVerdict


class Kind(enum.Enum):
    CLAIM = "claim"
    IDENTITY = "identity"
    RESTATEMENT = "restatement"
    NOT_CHECKABLE = "not checkable"


@dataclass(frozen=True)
class ClaimResult:
    """``holds`` is None when the claim could not be evaluated (its experiments did not run
    under this reading)."""

    holds: bool | None
    measured: dict[str, Any]
    detail: str = ""
    #: Every (experiment, point labels, metric) the claim read, in order: what
    #: ``twin.claim_case`` compares between afsim and ns-2.
    reads: tuple[tuple[str, Mapping[str, Label], str], ...] = ()


@dataclass(frozen=True)
class Statement:
    id: str
    #: The paper's words, verbatim (OCR repaired from the conference version where noted).
    quote: str
    #: Where: section and paragraph, table or appendix.
    where: str
    kind: Kind
    #: For a claim, how it is decided (thresholds and their source); for the other classes,
    #: why the statement is classified so.
    test: str
    evaluate: Callable[[View], ClaimResult] | None = None
    #: For a restatement, the id of the claim it restates.
    restates: str | None = None

    def __post_init__(self) -> None:
        if (self.kind is Kind.CLAIM) != (self.evaluate is not None):
            raise ValueError(f"statement {self.id}: a claim, and only a claim, has an evaluate")
        if (self.kind is Kind.RESTATEMENT) != (self.restates is not None):
            raise ValueError(f"statement {self.id}: a restatement, and only one, names what it restates")


def load_statements(path: Path, evaluate: Mapping[str, Callable[[View], ClaimResult]]) -> tuple[Statement, ...]:
    """A paper's statements from its data file (``[[statement]]`` tables: ``id``, ``kind``,
    ``where``, ``quote``, ``test``, and ``restates`` for a restatement), in the file's order,
    each claim given its test from ``evaluate`` (by id). Raises ValueError naming the file for
    an unknown kind or field, a duplicate id, a claim without a test or a test without a claim."""
    import tomllib

    with open(path, "rb") as f:
        doc = tomllib.load(f)
    kinds = {k.value: k for k in Kind}
    fields = {"id", "kind", "where", "quote", "test", "restates"}
    out: list[Statement] = []
    seen: set[str] = set()
    for i, row in enumerate(doc.get("statement", [])):
        where = f"{path}: statement {i + 1} ({row.get('id', '?')})"
        if set(row) - fields:
            raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(set(row) - fields))}")
        if row.get("kind") not in kinds:
            raise ValueError(f"{where}: kind {row.get('kind')!r} is not one of {', '.join(kinds)}")
        sid = row["id"]
        if sid in seen:
            raise ValueError(f"{where}: duplicate id")
        seen.add(sid)
        kind = kinds[row["kind"]]
        if kind is Kind.CLAIM and sid not in evaluate:
            raise ValueError(f"{where}: a claim without a test (none under its id)")
        out.append(Statement(sid, row["quote"], row["where"], kind, row["test"],
                             evaluate.get(sid) if kind is Kind.CLAIM else None, row.get("restates")))
    stray = set(evaluate) - {s.id for s in out if s.kind is Kind.CLAIM}
    if stray:
        raise ValueError(f"{path}: tests of no claim: {', '.join(sorted(stray))}")
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Writing claims


class Checks:
    """Collects the numbers a claim reads and the conditions it tests, on one reading.

        c = Checks(view)
        thr = c.mean("thr α=0.4 N=30", "table2", {"alpha": "0.4", "n_af": 30}, "throughput_kbps")
        c.that(thr is not None and thr < 1000)
        return c.result()

    A condition on a number that did not run is None, and the claim is then not evaluated."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.measured: dict[str, Any] = {}
        self.conditions: list[bool | None] = []
        self.missing = False
        self.reads: list[tuple[str, Mapping[str, Label], str]] = []

    def mean(self, name: str, experiment: str, labels: Mapping[str, Label], metric: str) -> float | None:
        self.reads.append((experiment, dict(labels), metric))
        v = self.view.mean(experiment, labels, metric)
        self.measured[name] = v if v is not None else math.nan
        if v is None:
            self.missing = True
        return v

    def seen(self, name: str, experiment: str, labels: Mapping[str, Label], metric: str) -> bool | None:
        """Whether losses of ``metric`` were observed at the run's resolution: at least
        ``model.MIN_EVENTS`` counted (afsim), or a positive prediction (the null model, which
        has no counts)."""
        p = self.mean(name, experiment, labels, metric)
        if p is None:
            return None
        counted = self.view.stat(experiment, labels, metric + EVENTS)
        events = self.view.total(experiment, labels, metric + EVENTS)
        if events is None or counted is None:
            return p > 0
        self.count(name + " events", events, counted.n)
        return events >= MIN_EVENTS

    def count(self, name: str, total: float, runs: int) -> None:
        """Records a count summed over the ``runs`` replications it was counted in, as an
        integer under a name that says so ("… events (sum over 2 seeds)"): a reading's seeds
        differ (a variant's, a design point's), so a sum is never read as a per-run count."""
        self.measured[f"{name} (sum over {runs} seed{'' if runs == 1 else 's'})"] = (
            int(round(total)) if math.isfinite(total) else total)

    def that(self, condition: bool | None) -> None:
        self.conditions.append(condition)

    def all(self, conditions: Sequence[bool | None]) -> None:
        self.conditions.extend(conditions)

    def result(self, detail: str = "") -> ClaimResult:
        reads = tuple(self.reads)
        if self.missing or not self.conditions or any(c is None for c in self.conditions):
            return ClaimResult(None, self.measured, "not every point it needs ran", reads)
        return ClaimResult(all(bool(c) for c in self.conditions), self.measured, detail, reads)


def claim(fn: Callable[[Checks], None]) -> Callable[[View], ClaimResult]:
    """A claim's test written as a body that fills a ``Checks`` (``c.mean``, ``c.that``);
    returns the ``evaluate`` a ``Statement`` takes."""
    def evaluate(view: View) -> ClaimResult:
        c = Checks(view)
        fn(c)
        return c.result()
    return evaluate


def lt(a: float | None, b: float | None) -> bool | None:
    return None if a is None or b is None else a < b


def le(a: float | None, b: float | None) -> bool | None:
    return None if a is None or b is None else a <= b


def gt(a: float | None, b: float | None) -> bool | None:
    return None if a is None or b is None else a > b


def ge(a: float | None, b: float | None) -> bool | None:
    return None if a is None or b is None else a >= b


# ---------------------------------------------------------------------------------------------
# Evaluating


@dataclass
class ClaimVerdict:
    statement: Statement
    afsim: ClaimResult
    null: ClaimResult
    variants: dict[str, ClaimResult]
    robustness: RobustVerdict | None
    #: ns-2's twin of the claim's experiments (None: no ns-2 column), the case it makes with
    #: afsim's (``twin.claim_case``) and the numbers both read.
    ns2: ClaimResult | None = None
    case: str | None = None
    differences: list[Any] = field(default_factory=list)

    @property
    def discriminating(self) -> bool:
        """False when the null model satisfies the claim too."""
        return self.null.holds is not True


@dataclass
class ClaimVerdicts:
    statements: list[Statement]
    claims: list[ClaimVerdict]
    counts: dict[str, int] = field(default_factory=dict)

    def holds(self, reading: str = "afsim") -> tuple[int, int]:
        """(claims that hold, claims evaluated) under a reading."""
        results = [self._result(c, reading) for c in self.claims]
        evaluated = [r for r in results if r is not None and r.holds is not None]
        return sum(1 for r in evaluated if r.holds), len(evaluated)

    def holds_on(self, reading: str, among: str) -> tuple[int, int]:
        """(claims that hold, claims evaluated) under ``reading``, counting only the claims
        ``among`` evaluated: the default's count on exactly a variant's claims."""
        evaluated = []
        for c in self.claims:
            r, other = self._result(c, reading), self._result(c, among)
            if other is not None and other.holds is not None and r is not None and r.holds is not None:
                evaluated.append(r)
        return sum(1 for r in evaluated if r.holds), len(evaluated)

    @staticmethod
    def _result(c: ClaimVerdict, reading: str) -> ClaimResult | None:
        if reading == "afsim":
            return c.afsim
        if reading == "null":
            return c.null
        if reading == "ns2":
            return c.ns2
        return c.variants.get(reading)

    def cases(self) -> dict[str, int]:
        """How many claims fall in each case beside ns-2 (``twin``'s cases)."""
        out: dict[str, int] = {}
        for c in self.claims:
            if c.case is not None:
                out[c.case] = out.get(c.case, 0) + 1
        return out

