"""Leung & Muppala, "Sustaining TCP Throughput Using Assured Forwarding and ECN in a
Differentiated Services Network": Figs. 3–10 (throughput, excess bandwidth and FIEB per flow for
non-ECN, mark-tail, mark-front and mark-random, with neither, either or both of the OUT Marking
and Throughput Sustaining schemes), every checkable statement of the text, the null model, the
variants and the unstated parameters.

Read this first. The networks are ``scenarios/leung/topology1.toml`` (Fig. 1: three flows with
targets 1, 4 and 2 Mb/s, a 10 or 16 Mb/s bottleneck) and ``topology2.toml`` (Fig. 2: ten 1 Mb/s
flows with Table 2's RTTs, 20 Mb/s). Their defaults come from the text, then from its
references, then from its simulator (ns-2), each cited beside the value; what the paper leaves
open is a declared parameter with a range (``UNSTATED``); other readings are named variants
(``VARIANTS``). The paper prints no table: its figures are bar charts that this text does not
carry, so the published values are the numbers its sentences state (``data/leung.json``) and
the rest of what it says is checked as claims. How a run becomes the paper's numbers:

- throughput: each flow's delivered IP bits over the whole 60 s experiment (``throughput_kbps``,
  warmup 0: the paper gives no warm-up);
- excess bandwidth: throughput − target (§3.2: "The difference between the actual throughput
  and the target throughput");
- FIEB: (Σ(P_i − R_i))² / (m Σ(P_i − R_i)²) over the m flows of the run (§3.2).

"Strategies" are the ECN positions of R1's RIO queue (non-ECN, mark-tail, mark-front,
mark-random); "schemes" are none, the Throughput Sustaining Scheme (``tss``), the OUT Marking
Scheme (``out``) or both. The schemes are studied with the three ECN strategies (Figs. 7–10 talk
of "ECN marking strategies" only; Table 5's non-ECN column, a push-out of a queued OUT packet, is
not modelled: ``queue/ecn_mark.rs``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce.claims import Checks, ClaimResult, Kind, Statement, gt, lt
from afsim.reproduce.core import Experiment, Figure, Mode, Paper, Point, Variant, View
from afsim.reproduce.robustness import Unstated
from afsim.reproduce import report_ns2
from afsim.reproduce.twin import NotInNs2, Twin

if TYPE_CHECKING:
    from afsim.reproduce.core import Reproduction
    from afsim.results import Results

PAPER_ID = "leung"
TITLE = ("Leung, Muppala — Sustaining TCP Throughput Using Assured Forwarding and ECN in a "
         "Differentiated Services Network")
CITATION = ("I. K.-K. Leung, J. K. Muppala, \"Sustaining TCP Throughput Using Assured Forwarding "
            "and ECN in a Differentiated Services Network\" (Hong Kong University of Science and "
            "Technology; papers/004): Figs. 3–10, Tables 1, 2 and 5.")
DATA = Path(__file__).parent / "data" / "leung.json"

#: §3.1: "The duration of the experiments is 60 seconds": the budget is simulated seconds.
PAPER_SECONDS = 60
#: Full mode: the paper's 60 s per run; the paper shows one run per bar, afsim runs ten seeds
#: (a confidence interval per bar); variants five; the robustness design 12 points of three.
FULL = Mode("full", PAPER_SECONDS, replications=10, paper_budget=PAPER_SECONDS,
            budget_param="duration_s", variant_replications=5, robust_points=12,
            robust_replications=3, budget_noun="simulated seconds")
#: Quick mode: 20 s runs (a third of the paper's), fewer seeds and design points.
QUICK = Mode("quick", 20, replications=3, paper_budget=PAPER_SECONDS, budget_param="duration_s",
             variant_replications=2, robust_points=4, robust_replications=1,
             budget_noun="simulated seconds")

#: Table 1 (kb/s), and topology 2's ten 1 Mb/s targets (§3.1).
TARGETS_1 = (1000.0, 4000.0, 2000.0)
TARGETS_2 = (1000.0,) * 10
#: Table 2 (ms).
RTT_SETS = {1: (94, 102, 110, 118, 126, 134, 142, 150, 158, 166),
            2: (58, 74, 90, 106, 122, 138, 154, 170, 186, 202)}
#: topology2.toml: RTT = 2 × (access + 12 ms).
FIXED_ONE_WAY_MS = 12
BOTTLENECKS_1 = (10, 16)
BOTTLENECK_2_KBPS = 20_000.0
STRATEGIES = ("non-ECN", "mark-tail", "mark-front", "mark-random")
ECN_STRATEGIES = STRATEGIES[1:]
SCHEMES = ("none", "tss", "out", "both")
SCHEME_NAMES = {"none": "neither scheme", "tss": "Throughput Sustaining Scheme",
                "out": "OUT Marking Scheme", "both": "both schemes"}

#: Thresholds the text's words need, each from the paper itself. §5.2, Fig. 9: FIEBs of 0.85 to
#: 0.92 are "similar results" across the three strategies: a spread of 0.07 is what the paper
#: calls similar (and, as a difference, not significant); half of it, ±0.035, is the FIEB
#: tolerance of the data file (a band as wide as the one it calls similar).
SIMILAR_FIEB = 0.07
FIEB_TOL = SIMILAR_FIEB / 2
#: The printed precision of a stated FIEB (two decimals): a threshold "at least 0.94" holds
#: from 0.935.
PRINTED = 0.005
#: The relative FIEB improvements of §4.1 ("16%", "about 9%"): ±4 points, the FIEB tolerance
#: (±0.035) divided by a FIEB near 0.9.
IMPROVEMENT_TOL = 0.04
#: "the throughputs ... are nearly the same": the three flows' throughputs closer to one
#: another than to their targets: a spread below half the targets' (4 − 1 Mb/s) / 2.
NEARLY_SAME_KBPS = (max(TARGETS_1) - min(TARGETS_1)) / 2


# ---------------------------------------------------------------------------------------------
# Where the scenario files are


def find_scenarios_dir(start: Path | None = None) -> Path:
    """The folder holding topology1.toml and topology2.toml: ``$AFSIM_SCENARIOS/leung`` if set;
    else ``scenarios/leung`` in the current directory (or ``start``) or above it; else the
    copies shipped in the package."""
    env = os.environ.get("AFSIM_SCENARIOS")
    candidates = [Path(env) / "leung"] if env else []
    here = (start or Path.cwd()).resolve()
    candidates += [d / "scenarios" / "leung" for d in (here, *here.parents)]
    candidates.append(Path(str(resources.files("afsim") / "scenarios" / "leung")))
    for c in candidates:
        if (c / "topology1.toml").is_file() and (c / "topology2.toml").is_file():
            return c
    raise FileNotFoundError("cannot find leung/topology1.toml: not under $AFSIM_SCENARIOS, the "
                            "current directory, nor the installed package (reinstall afsim)")


# ---------------------------------------------------------------------------------------------
# From a run to the paper's numbers


def fieb(p: Sequence[float], r: Sequence[float]) -> float:
    """§3.2's Fairness Index on Excess Bandwidth (afsim-core metrics/fairness.rs has the same)."""
    e = [a - b for a, b in zip(p, r, strict=True)]
    den = len(e) * sum(x * x for x in e)
    return sum(e) ** 2 / den if den > 0 else math.nan


def targets_of(n_flows: int) -> tuple[float, ...]:
    return TARGETS_1 if n_flows == len(TARGETS_1) else TARGETS_2


def leung_metrics(results: Results) -> dict[str, float]:
    """Per flow (f1, f2, …): throughput (delivered kb/s over the run), excess over the target,
    CE marks received and timeouts; over the flows: FIEB, total throughput, shortfall below the
    targets, and the distance from the perfectly fair share (§5.2: target + an equal part of
    the excess)."""
    flows = results.flows.sort_values("name", key=lambda s: s.str[1:].astype(int))
    thr = [float(x) for x in flows["throughput_kbps"]]
    targets = targets_of(len(thr))
    m: dict[str, float] = {}
    for name, t, r, ce, to in zip(flows["name"], thr, targets, flows["ce_received"],
                                  flows["timeouts"], strict=True):
        m[f"thr.{name}"] = t
        m[f"excess.{name}"] = t - r
        m[f"ce.{name}"] = float(ce) if ce == ce else math.nan
        m[f"timeouts.{name}"] = float(to) if to == to else math.nan
    m["fieb"] = fieb(thr, targets)
    m["total_kbps"] = sum(thr)
    m["shortfall_kbps"] = sum(max(0.0, r - t) for t, r in zip(thr, targets, strict=True))
    excess = sum(thr) - sum(targets)
    fair = [r + excess / len(thr) for r in targets]
    m["unfairness_kbps"] = sum(abs(t - f) for t, f in zip(thr, fair, strict=True))
    m["simulated_s"] = results.end_time_s
    return m


# ---------------------------------------------------------------------------------------------
# The grid


def strategy_overrides(strategy: str) -> dict[str, str]:
    """The queue's ECN position and the TCPs' ECN capability of a strategy."""
    if strategy == "non-ECN":
        return {"ecn_marking": "none", "ecn_forced": "drop", "tcp_ecn": "false"}
    return {"ecn_marking": strategy.removeprefix("mark-"), "ecn_forced": "mark", "tcp_ecn": "true"}


def scheme_overrides(scheme: str, targets: Sequence[float]) -> dict[str, str]:
    """The OUT Marking Scheme (``out_marking``) and the Throughput Sustaining Scheme (each
    flow's ``sustain_i`` = its target rate) of a scheme setting."""
    tss = scheme in ("tss", "both")
    ov = {"out_marking": "true" if scheme in ("out", "both") else "false"}
    for i, r in enumerate(targets, start=1):
        ov[f"sustain_{i}"] = f"{r:g}kbps" if tss else "none"
    return ov


def spacing_overrides(strategy: str, scheme: str) -> dict[str, str]:
    """RIO's drop spacing and ECN path: ns-2 dsRED's (dsredq.cc, the paper's simulator) where
    dsRED can express the point — non-ECN and mark-tail without the OUT Marking Scheme — and
    ns-2 red.cc's for mark-front, mark-random and the OUT scheme, which dsredq.cc has no way to
    mark (the paper's own additions; topology1.toml's header)."""
    dsred = strategy in ("non-ECN", "mark-tail") and scheme not in ("out", "both")
    return {"spacing": "dsredq" if dsred else "red"}


def rtt_overrides(rtt_set: int) -> dict[str, str]:
    """Topology 2's access delays for a set of Table 2 (RTT = 2 × (access + 12 ms))."""
    return {f"access_{i}": f"{rtt // 2 - FIXED_ONE_WAY_MS}ms"
            for i, rtt in enumerate(RTT_SETS[rtt_set], start=1)}


def _t1(bottleneck: int, strategy: str, scheme: str = "none") -> dict[str, str]:
    return {"bottleneck": f"{bottleneck}Mbps", **strategy_overrides(strategy),
            **scheme_overrides(scheme, TARGETS_1), **spacing_overrides(strategy, scheme)}


def _t2(rtt_set: int, strategy: str, scheme: str = "none") -> dict[str, str]:
    return {**rtt_overrides(rtt_set), **strategy_overrides(strategy),
            **scheme_overrides(scheme, TARGETS_2), **spacing_overrides(strategy, scheme)}


def experiments(scenarios_dir: Path | None = None) -> tuple[Experiment, ...]:
    d = scenarios_dir or find_scenarios_dir()
    t1, t2 = d / "topology1.toml", d / "topology2.toml"
    notes = (
        "throughput: each flow's delivered IP bits over the whole 60 s run (no warm-up: the paper "
        "gives none); excess = throughput − target; FIEB over the run's flows (§3.2)",
        "the paper shows one run per bar; afsim runs several seeds and gives the mean and its "
        "95 % interval",
    )
    fig3_5 = Experiment(
        "fig3_5", "Figs. 3–5: topology 1, 10 and 16 Mb/s, four strategies, no scheme", t1,
        tuple(Point({"bottleneck": b, "strategy": s}, _t1(b, s))
              for b in BOTTLENECKS_1 for s in STRATEGIES),
        leung_metrics, notes, robust=True)
    fig6 = Experiment(
        "fig6", "Fig. 6: topology 2, RTT sets #1 (94–166 ms) and #2 (58–202 ms), four strategies", t2,
        tuple(Point({"rtt_set": r, "strategy": s}, _t2(r, s)) for r in (1, 2) for s in STRATEGIES),
        leung_metrics, notes, robust=True)
    fig7_9 = Experiment(
        "fig7_9", "Figs. 7–9: topology 1 at 16 Mb/s, three ECN strategies, neither, either or both "
        "schemes", t1,
        tuple(Point({"scheme": sc, "strategy": s}, _t1(16, s, sc))
              for sc in SCHEMES for s in ECN_STRATEGIES),
        leung_metrics, notes + ("the schemes with the three ECN strategies: Table 5's non-ECN "
                                "column (a push-out) is not modelled",), robust=True)
    fig10 = Experiment(
        "fig10", "Fig. 10: topology 2, RTT set #2 (58–202 ms), three ECN strategies, neither, "
        "either or both schemes", t2,
        tuple(Point({"scheme": sc, "strategy": s}, _t2(2, s, sc))
              for sc in SCHEMES for s in ECN_STRATEGIES),
        leung_metrics, notes, robust=True)
    return (fig3_5, fig6, fig7_9, fig10)


# ---------------------------------------------------------------------------------------------
# The null model


NULL_DESCRIPTION = (
    "No simulation, and no DiffServ: the bottleneck is shared equally among the flows, as ideal "
    "TCP would share it with equal RTTs, whatever their targets, RTTs, ECN strategy or scheme "
    "(10 or 16 Mb/s over three flows; 20 Mb/s over ten). Excess and FIEB follow from the "
    "targets. Its scores show which stated values and claims hold without modelling the "
    "marker, RIO, ECN or the schemes at all.")


def null_model(experiment: Experiment, point: Point) -> dict[str, float]:
    """The null model's numbers at one point (see ``NULL_DESCRIPTION``)."""
    if experiment.scenario.name == "topology1.toml":
        capacity = float(point.overrides["bottleneck"].removesuffix("Mbps")) * 1000.0
        targets = TARGETS_1
    else:
        capacity, targets = BOTTLENECK_2_KBPS, TARGETS_2
    share = capacity / len(targets)
    m = {f"thr.f{i}": share for i in range(1, len(targets) + 1)}
    m |= {f"excess.f{i}": share - r for i, r in enumerate(targets, start=1)}
    excess = capacity - sum(targets)
    fair = [r + excess / len(targets) for r in targets]
    m |= {"fieb": fieb([share] * len(targets), targets), "total_kbps": capacity,
          "shortfall_kbps": sum(max(0.0, r - share) for r in targets),
          "unfairness_kbps": sum(abs(share - f) for f in fair)}
    return m


# ---------------------------------------------------------------------------------------------
# Variants and unstated parameters

VARIANTS = (
    Variant("red_forced", "forced drops stay drops (ns-2 red.cc)",
            {"ecn_forced": "drop", "spacing": "red"},
            "ns-2's plain RED (red.cc) drops an ECN-capable packet when the average is beyond "
            "max_th; the default follows ns-2's DiffServ RIO (dsredq.cc), which marks it, since "
            "the paper's RIO is a DiffServ queue. dsredq.cc has no forced drop with ECN, so this "
            "reading runs red.cc's spacing at every point (non-ECN ones included: the same as "
            "the red_spacing variant there)",
            ("fig3_5", "fig7_9")),
    Variant("red_spacing", "red.cc's drop spacing at every point", {"spacing": "red"},
            "the default runs dsRED's own RIO (dsredq.cc: its spacing, and its ECN path that marks "
            "the arrival) wherever ns-2's dsRED can express the point (non-ECN, mark-tail, no OUT "
            "scheme) and red.cc's spacing elsewhere, so that mark-tail and mark-front differ in "
            "more than where they mark; this reading gives every point red.cc's spacing (afsim's "
            "default before dsRED's ECN path was modelled), to show how much that matters",
            ("fig3_5", "fig6", "fig7_9", "fig10")),
    Variant("w_q_0002", "w_q = 0.002 (the tuples' fourth value not a weight)", {"w_q": "0.002"},
            "the default reads [100,150,0.02,0.1] as dsRED's configQ (min_th, max_th, max_p, "
            "q_w); if the fourth value is something else, w_q is dsRED's and Floyd & Jacobson's "
            "0.002", ("fig3_5", "fig6", "fig7_9", "fig10")),
    Variant("newreno", "NewReno TCP", {"tcp_variant": "newreno"},
            "the paper names no TCP variant; the default is ns-2's Reno agent of the ECN work it "
            "builds on", ("fig3_5", "fig7_9")),
)

UNSTATED = (
    Unstated("tsw_window", "the TSW marker's averaging window", "1s",
             "the marker is not given; Clark & Fang's TSW tagger (the paper's RIO reference [2], "
             "ns-2 TSW2CM) with ns-2 dsPolicy.cc's default winLen of 1 s. Range 0.1 s (about one "
             "RTT) to 2 s", low=0.1, high=2.0, unit="s", log=True),
    Unstated("access_rate", "rate of the links from the sources to E1", "10Mbps",
             "given in Fig. 1 but not in the text; ns-2's DiffServ examples use 10 Mb/s. Range "
             "10 to 100 Mb/s", low=10, high=100, unit="Mbps", log=True),
    Unstated("tcp_window", "the TCP receiver window (packets)", "500pkt",
             "not given; ns-2's default of 20 packets would cap each flow at 1.2 Mb/s, below the "
             "targets the paper's flows reach, so it was raised; 500 (the buffer) never binds. "
             "Range 120 (7 Mb/s × 130 ms, Fig. 7's largest fair share) to 1000",
             low=120, high=1000, unit="pkt", integer=True, log=True),
    Unstated("tcp_tick", "the TCP clock tick", "10ms",
             "not given; ns-2.35's tcpTick_ (10 ms) or the 100 ms of the ns-2 of 2001",
             choices=("10ms", "100ms")),
    Unstated("coupling", "RIO's OUT average: all packets (RIO-C) or OUT only (RIO-D)", "coupled",
             "Clark & Fang's RIO [2] and ns-2 dsRED's default are coupled; ns-2 offers decoupled",
             choices=("coupled", "decoupled")),
)


# ---------------------------------------------------------------------------------------------
# Claims

F35, F6, F79, F10 = "fig3_5", "fig6", "fig7_9", "fig10"


def _claim(fn: Callable[[Checks], None]) -> Callable[[View], ClaimResult]:
    def evaluate(view: View) -> ClaimResult:
        c = Checks(view)
        fn(c)
        return c.result()
    return evaluate


def _m(c: Checks, exp: str, labels: dict[str, Any], metric: str) -> float | None:
    tag = ", ".join(f"{v}" for v in labels.values())
    return c.mean(f"{metric} [{tag}]", exp, labels, metric)


def _f35(c: Checks, b: int, s: str, metric: str) -> float | None:
    return _m(c, F35, {"bottleneck": b, "strategy": s}, metric)


def _f6(c: Checks, r: int, s: str, metric: str) -> float | None:
    return _m(c, F6, {"rtt_set": r, "strategy": s}, metric)


def _f79(c: Checks, sc: str, s: str, metric: str) -> float | None:
    return _m(c, F79, {"scheme": sc, "strategy": s}, metric)


def _f10(c: Checks, sc: str, s: str, metric: str) -> float | None:
    return _m(c, F10, {"scheme": sc, "strategy": s}, metric)


def _all_known(*xs: float | None) -> bool:
    return all(x is not None for x in xs)


@_claim
def _ecn_beats_non_ecn_fig5(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        base = _f35(c, b, "non-ECN", "fieb")
        for s in ECN_STRATEGIES:
            c.that(gt(_f35(c, b, s, "fieb"), base))


@_claim
def _tail_targets_and_fairer(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        c.that(lt(_f35(c, b, "mark-tail", "shortfall_kbps"), 1.0))
        c.that(gt(_f35(c, b, "mark-tail", "fieb"), _f35(c, b, "non-ECN", "fieb")))


@_claim
def _high_reservation_below_target(c: Checks) -> None:
    # [4][17][18]: the larger reservation below its target, the smaller one above it; the
    # paper's evidence: non-ECN (no scheme) in Fig. 4
    for b in BOTTLENECKS_1:
        c.that(lt(_f35(c, b, "non-ECN", "excess.f2"), 0.0))
        c.that(gt(_f35(c, b, "non-ECN", "excess.f1"), 0.0))


@_claim
def _claim_more_than_targets(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        for s in STRATEGIES:
            c.that(gt(_f35(c, b, s, "total_kbps"), sum(TARGETS_1)))
    for r in (1, 2):
        for s in STRATEGIES:
            c.that(gt(_f6(c, r, s, "total_kbps"), sum(TARGETS_2)))


@_claim
def _tail_closest_to_targets(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        tail = _f35(c, b, "mark-tail", "shortfall_kbps")
        for s in ("non-ECN", "mark-front", "mark-random"):
            c.that(lt(tail, _f35(c, b, s, "shortfall_kbps")))


def _excess_extreme(flow: int, largest: bool, strategies: Sequence[str]) -> Callable[[View], ClaimResult]:
    """Topology 1, both bottlenecks, ``strategies``: flow ``flow``'s excess is the largest (or
    the smallest) of the three."""
    @_claim
    def f(c: Checks) -> None:
        for b in BOTTLENECKS_1:
            for s in strategies:
                e = _f35(c, b, s, f"excess.f{flow}")
                for other in {1, 2, 3} - {flow}:
                    c.that((gt if largest else lt)(e, _f35(c, b, s, f"excess.f{other}")))
    return f


_lowest_target_claims_more = _excess_extreme(1, True, ("non-ECN", "mark-front", "mark-random"))
_s2_smallest_excess = _excess_extreme(2, False, STRATEGIES)
_s1_largest_excess = _excess_extreme(1, True, STRATEGIES)


@_claim
def _front_random_nearly_same(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        for s in ("mark-front", "mark-random"):
            t = [_f35(c, b, s, f"thr.f{i}") for i in (1, 2, 3)]
            c.that(None if not _all_known(*t) else
                   max(x for x in t if x is not None) - min(x for x in t if x is not None) < NEARLY_SAME_KBPS)


@_claim
def _only_tail_satisfies_targets(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        c.that(lt(_f35(c, b, "mark-tail", "shortfall_kbps"), 1.0))
        for s in ("non-ECN", "mark-front", "mark-random"):
            c.that(gt(_f35(c, b, s, "shortfall_kbps"), 0.0))


@_claim
def _tail_best_front_random_not_significant(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        base = _f35(c, b, "non-ECN", "fieb")
        tail = _f35(c, b, "mark-tail", "fieb")
        for s in ("mark-front", "mark-random"):
            x = _f35(c, b, s, "fieb")
            c.that(gt(tail, x))
            c.that(None if base is None or x is None else abs(x - base) <= FIEB_TOL)


@_claim
def _fig6a_significant(c: Checks) -> None:
    base = _f6(c, 1, "non-ECN", "fieb")
    for s in ECN_STRATEGIES:
        x = _f6(c, 1, s, "fieb")
        c.that(None if base is None or x is None else x - base > FIEB_TOL)


def _improvement(c: Checks, s: str) -> float | None:
    base, x = _f6(c, 1, "non-ECN", "fieb"), _f6(c, 1, s, "fieb")
    if base is None or x is None or base <= 0:
        return None
    v = x / base - 1.0
    c.measured[f"improvement {s}"] = v
    return v


@_claim
def _fig6a_numbers(c: Checks) -> None:
    tail, front, rnd = (_improvement(c, s) for s in ECN_STRATEGIES)
    c.that(None if tail is None else abs(tail - 0.16) <= IMPROVEMENT_TOL)
    c.that(None if front is None else abs(front - 0.09) <= IMPROVEMENT_TOL)
    c.that(None if rnd is None else abs(rnd - 0.09) <= IMPROVEMENT_TOL)
    c.that(gt(tail, front))
    c.that(gt(tail, rnd))


@_claim
def _fig6b_tail_best(c: Checks) -> None:
    tail = _f6(c, 2, "mark-tail", "fieb")
    for s in ("non-ECN", "mark-front", "mark-random"):
        c.that(gt(tail, _f6(c, 2, s, "fieb")))


@_claim
def _fig6b_others_alike(c: Checks) -> None:
    base = _f6(c, 2, "non-ECN", "fieb")
    for s in ("mark-front", "mark-random"):
        x = _f6(c, 2, s, "fieb")
        c.that(gt(x, base))
        c.that(None if base is None or x is None else abs(x - base) <= FIEB_TOL)


@_claim
def _random_marks_the_fastest(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        thr = [_f35(c, b, "mark-random", f"thr.f{i}") for i in (1, 2, 3)]
        ce = [_f35(c, b, "mark-random", f"ce.f{i}") for i in (1, 2, 3)]
        if not (_all_known(*thr) and _all_known(*ce)):
            c.that(None)
            continue
        fastest = max(range(3), key=lambda i: thr[i] or 0.0)
        c.that(all((ce[fastest] or 0.0) >= (ce[i] or 0.0) for i in range(3)))


@_claim
def _out_scheme_keeps_targets(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        c.that(lt(_f79(c, "out", s, "shortfall_kbps"), 1.0))


@_claim
def _schemes_better_control(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        base = _f79(c, "none", s, "unfairness_kbps")
        for sc in ("tss", "out"):
            c.that(lt(_f79(c, sc, s, "unfairness_kbps"), base))


def _spread(vals: Sequence[float | None]) -> float | None:
    if not _all_known(*vals):
        return None
    xs = [v for v in vals if v is not None]
    return max(xs) - min(xs)


@_claim
def _either_scheme_strategy_blind(c: Checks) -> None:
    for sc in ("tss", "out"):
        sp = _spread([_f79(c, sc, s, "fieb") for s in ECN_STRATEGIES])
        c.that(None if sp is None else sp <= SIMILAR_FIEB)


@_claim
def _both_like_one(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        both = _f79(c, "both", s, "fieb")
        for sc in ("tss", "out"):
            x = _f79(c, sc, s, "fieb")
            c.that(None if both is None or x is None else abs(both - x) <= SIMILAR_FIEB)


@_claim
def _schemes_help_front_random(c: Checks) -> None:
    for s in ("mark-front", "mark-random"):
        base = _f79(c, "none", s, "fieb")
        for sc in ("tss", "out", "both"):
            x = _f79(c, sc, s, "fieb")
            c.that(None if base is None or x is None else x - base > FIEB_TOL)


@_claim
def _fig9_none_range(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        x = _f79(c, "none", s, "fieb")
        c.that(None if x is None else 0.85 - PRINTED <= x <= 0.92 + PRINTED)


@_claim
def _fig9_strategies_similar(c: Checks) -> None:
    for sc in SCHEMES:
        sp = _spread([_f79(c, sc, s, "fieb") for s in ECN_STRATEGIES])
        c.that(None if sp is None else sp <= SIMILAR_FIEB)


@_claim
def _fig9_thresholds(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        c.that(gt(_f79(c, "out", s, "fieb"), 0.94 - PRINTED))
        c.that(gt(_f79(c, "tss", s, "fieb"), 0.95 - PRINTED))


@_claim
def _fig9_both(c: Checks) -> None:
    best = [_f79(c, "both", s, "fieb") for s in ECN_STRATEGIES]
    c.that(None if not _all_known(*best) else max(x or 0.0 for x in best) >= 0.97 - PRINTED)


@_claim
def _fig10_none_order(c: Checks) -> None:
    tail, front, rnd = (_f10(c, "none", s, "fieb") for s in ECN_STRATEGIES)
    c.that(gt(tail, front))
    c.that(gt(tail, rnd))
    c.that(gt(front, rnd))


@_claim
def _fig10_random_with_schemes(c: Checks) -> None:
    base = _f10(c, "none", "mark-random", "fieb")
    out = _f10(c, "out", "mark-random", "fieb")
    tss = _f10(c, "tss", "mark-random", "fieb")
    # "yields the best result (near 0.8) when OUT Marking Scheme is used"
    for s in ("mark-tail", "mark-front"):
        c.that(gt(out, _f10(c, "out", s, "fieb")))
    c.that(None if out is None else abs(out - 0.8) <= FIEB_TOL)
    # "shows a great improvement ... with Throughput Sustaining Scheme": more than significant
    c.that(None if base is None or tss is None else tss - base > FIEB_TOL)


@_claim
def _fig10_tail_unaffected(c: Checks) -> None:
    sp = _spread([_f10(c, sc, "mark-tail", "fieb") for sc in SCHEMES])
    c.that(None if sp is None else sp <= SIMILAR_FIEB)


@_claim
def _fig10_only_random_both_over_08(c: Checks) -> None:
    for sc in SCHEMES:
        for s in ECN_STRATEGIES:
            x = _f10(c, sc, s, "fieb")
            if (sc, s) == ("both", "mark-random"):
                c.that(gt(x, 0.8))
            else:
                c.that(None if x is None else x <= 0.8)


@_claim
def _schemes_improve_throughput(c: Checks) -> None:
    # the conclusion's "significant improvement in the TCP throughput performance": with both
    # schemes every flow meets its target and the excess is shared more fairly than without
    for s in ECN_STRATEGIES:
        c.that(lt(_f79(c, "both", s, "shortfall_kbps"), 1.0))
        x, base = _f79(c, "both", s, "fieb"), _f79(c, "none", s, "fieb")
        c.that(None if x is None or base is None else x - base > FIEB_TOL)


_ABS, _INTRO, _BG = "Abstract", "§1 Introduction", "§2 Background and Related Work"
_TOPO, _METR = "§3.1 Network Topology", "§3.2 Performance Metrics"
_R41, _S5, _S51, _S52, _CONC = ("§4.1 Results", "§5 Integration of ECN and Diffserv",
                                "§5.1 Improving Cooperation", "§5.2 Results", "§6 Conclusions")

STATEMENTS: tuple[Statement, ...] = (
    # -- abstract and introduction -------------------------------------------------------------
    Statement("abs-ecn-fairness", "We show that ECN improves the fairness in sharing excess "
              "bandwidth among different AF flows.", _ABS, Kind.RESTATEMENT,
              "said with Fig. 5 in §4.1", restates="f5-ecn-better"),
    Statement("abs-schemes", "Our results show that the new schemes achieve significant "
              "improvement in the TCP throughput performance.", _ABS, Kind.CLAIM,
              f"topology 1, 16 Mb/s, each ECN strategy: with both schemes no flow below its target "
              f"and FIEB above its value with neither scheme by more than {FIEB_TOL:g} (half the "
              "spread Fig. 9 calls similar)", _schemes_improve_throughput),
    Statement("intro-ecn-fairness", "We show that ECN improves the fairness in sharing excess "
              "bandwidth among different AF flows. We then propose two mechanisms", _INTRO,
              Kind.RESTATEMENT, "the abstract's first claim again", restates="f5-ecn-better"),
    Statement("intro-schemes", "Our results show that the new schemes show significant "
              "improvement in the TCP throughput performance in a Diffserv environment", _INTRO,
              Kind.RESTATEMENT, "the abstract's second claim again", restates="abs-schemes"),
    # -- background -------------------------------------------------------------------------------
    Statement("bg-higher-reservation", "It has been shown through simulation [4][17][18] that "
              "flows with higher reservation may realize less throughput than their target "
              "rates, while flows with smaller reservation may easily achieve not only their "
              "target rates but exceed them. Our … results presented later also agree with this "
              "observation.", _BG, Kind.CLAIM,
              "topology 1 without ECN, 10 and 16 Mb/s: S2 (4 Mb/s) below its target, S1 (1 Mb/s) "
              "above it", _high_reservation_below_target),
    Statement("bg-ecn-target-and-fair", "We show that using ECN, each source not only achieves "
              "its target rate, but also gets a fair share of the remaining bandwidth.", _BG,
              Kind.CLAIM, "topology 1 with mark-tail (the strategy §4.1 says meets the targets), "
              "10 and 16 Mb/s: no flow below its target (shortfall < 1 kb/s) and FIEB above "
              "non-ECN's", _tail_targets_and_fairer),
    Statement("bg-three-strategies", "We consider three different ECN marking strategies, viz., "
              "the mark-tail (the packet just joining the queue is marked) [5], the mark-front "
              "(the packet at the front of the queue is marked) [12] and the mark-random (one "
              "packet from the queue is picked at random to be marked) [11] strategy.", _BG,
              Kind.IDENTITY, "the positions of queue/ecn_mark.rs, by construction and unit tests"),
    Statement("bg-diffserv-aware", "A Diffserv aware ECN marking strategy is better at achieving "
              "a fair sharing of the excess bandwidth.", _BG, Kind.RESTATEMENT,
              "the OUT Marking Scheme's FIEB in Fig. 9", restates="f9-thresholds"),
    # -- topology and metrics -----------------------------------------------------------------------
    Statement("topo-settings", "Two values for the bandwidth of the shared bottleneck link viz. "
              "10 Mbps and 16 Mbps are considered.", _TOPO, Kind.IDENTITY,
              "scenario parameters (topology1.toml); so are the queue size, RIO thresholds, RTTs, "
              "packet size, duration and Tables 1 and 2, listed in docs/assumptions.md"),
    Statement("topo-queue", "The queue size is 500 packets. In our experiments, the threshold "
              "parameters for IN packets are [100,150,0.02,0.1] and that for OUT packets are "
              "[50,100,0.1,0.1]. The RTTs of the three connections are set to 130 ms.", _TOPO,
              Kind.IDENTITY, "topology1.toml and topology2.toml (the tuples' reading: "
              "docs/assumptions.md)"),
    Statement("topo-packets", "These FTP/TCP sources are characterized by the packets size that "
              "is set to 1000 bytes in the experiments. The duration of the experiments is 60 "
              "seconds.", _TOPO, Kind.IDENTITY, "the scenario files and the full mode's budget"),
    Statement("topo-rtt-sets", "These sets of RTTs are also used in [17].", _TOPO,
              Kind.NOT_CHECKABLE, "about other work"),
    Statement("metr-more-than-target", "Since the bandwidth (BW) of the bottleneck link is "
              "greater than the sum of the target throughputs of the connections, the connections "
              "are expected to claim more bandwidth than their target throughputs.", _METR,
              Kind.CLAIM, "Figs. 3–6, every strategy: the flows' total throughput above the sum "
              "of their targets", _claim_more_than_targets),
    Statement("metr-fieb-range", "Similar to Jain's fairness index, FIEB is also a number between "
              "0 and 1, i.e.", _METR, Kind.IDENTITY,
              "by construction (Cauchy–Schwarz); metrics/fairness.rs unit tests"),
    # -- §4.1 ------------------------------------------------------------------------------------
    Statement("f3-tail-closer", "We observe that under both scenarios (10 Mbps and 16 Mbps "
              "bottleneck link), mark-tail shows better performance in maintaining the "
              "throughputs closer to the target throughputs.", _R41 + ", Fig. 3", Kind.CLAIM,
              "10 and 16 Mb/s: mark-tail's shortfall below the targets (Σ max(0, R_i − P_i)) is "
              "smaller than each other strategy's", _tail_closest_to_targets),
    Statement("f3-low-target-more", "For non-ECN, mark-front and mark-random strategies, the "
              "connection with lowest target throughput (1 Mbps) is able to claim more bandwidth "
              "than others.", _R41 + ", Fig. 3", Kind.CLAIM,
              "10 and 16 Mb/s, those three strategies: S1's excess above S2's and S3's (\"claim "
              "more bandwidth\" read as excess: the next sentence says the throughputs are "
              "nearly the same)", _lowest_target_claims_more),
    Statement("f3-nearly-same", "In both graphs, the throughputs of the three connections for "
              "mark-front and mark-random are nearly the same.", _R41 + ", Fig. 3", Kind.CLAIM,
              f"10 and 16 Mb/s, mark-front and mark-random: max − min of the three throughputs < "
              f"{NEARLY_SAME_KBPS:g} kb/s (closer to one another than to the targets, whose "
              "spread is 3 Mb/s)", _front_random_nearly_same),
    Statement("f3-because-equal", "This is because these strategies try to balance the sharing "
              "of bandwidth equally for each connection without considering the target "
              "throughput of the connections.", _R41, Kind.NOT_CHECKABLE, "an explanation"),
    Statement("f3-expected-11", "This is expected since the fairness evaluation presented in [11] "
              "shows that mark-front and mark-random perform the best in terms of fairness among "
              "the connections.", _R41, Kind.NOT_CHECKABLE, "about other work"),
    Statement("f4-only-tail", "The graphs show that only mark-tail is able to satisfy the target "
              "throughput requirement.", _R41 + ", Fig. 4", Kind.CLAIM,
              "10 and 16 Mb/s: mark-tail's shortfall < 1 kb/s; non-ECN's, mark-front's and "
              "mark-random's > 0", _only_tail_satisfies_targets),
    Statement("f4-s2-smallest", "The results also indicate that the connection with the largest "
              "target throughput requirement (S₂-D₂) only receives the smallest … share of the "
              "excess bandwidth.", _R41 + ", Fig. 4", Kind.CLAIM,
              "10 and 16 Mb/s, every strategy: S2's excess below S1's and S3's", _s2_smallest_excess),
    Statement("f4-s1-largest", "On the other hand, the connection with the smallest target "
              "throughput (S_1-D_1) receives the largest share of the excess bandwidth.",
              _R41 + ", Fig. 4", Kind.CLAIM,
              "10 and 16 Mb/s, every strategy: S1's excess above S2's and S3's", _s1_largest_excess),
    Statement("f4-similar-before", "Similar results were reported earlier in [3][4][17][18].",
              _R41, Kind.NOT_CHECKABLE, "about other work"),
    Statement("f5-ecn-better", "The three ECN marking strategies (mark-tail, mark-front and "
              "mark-tail) show better performance than non-ECN.", _R41 + ", Fig. 5", Kind.CLAIM,
              "10 and 16 Mb/s: FIEB of each ECN strategy above non-ECN's (the paper's \"mark-tail\" "
              "twice read as the three strategies)", _ecn_beats_non_ecn_fig5),
    Statement("f5-ecn-improves", "It shows that the ECN mechanism improves the fairness in "
              "sharing of excess bandwidth in DiffServ domain.", _R41 + ", Fig. 5",
              Kind.RESTATEMENT, "the previous sentence", restates="f5-ecn-better"),
    Statement("f5-tail-best", "Marktail strategy shows the best performance, while mark-front and "
              "mark-random do not yield significant improvement.", _R41 + ", Fig. 5", Kind.CLAIM,
              f"10 and 16 Mb/s: mark-tail's FIEB above mark-front's and mark-random's; those two "
              f"within ±{FIEB_TOL:g} of non-ECN's (not significant: half the spread Fig. 9 calls "
              "similar)", _tail_best_front_random_not_significant),
    Statement("f6a-significant", "From the results in Fig. 6(a) we see that the three ECN marking "
              "strategies improve the fairness significantly.", _R41 + ", Fig. 6(a)", Kind.CLAIM,
              f"topology 2, RTT set #1: each ECN strategy's FIEB above non-ECN's by more than "
              f"{FIEB_TOL:g}", _fig6a_significant),
    Statement("f6a-numbers", "Among the marking strategies, mark-tail performs the best (16% "
              "improvement compared with non-ECN) while mark-front and mark-random perform nearly "
              "the same with about 9% improvement.", _R41 + ", Fig. 6(a)", Kind.CLAIM,
              f"topology 2, RTT set #1: FIEB / non-ECN's FIEB − 1 is 0.16 for mark-tail and 0.09 "
              f"for mark-front and mark-random, each ±{IMPROVEMENT_TOL:g} (the FIEB tolerance over "
              "a FIEB near 0.9), and mark-tail's the largest", _fig6a_numbers),
    Statement("f6b-tail-best", "In Fig. 6(b), with larger RTT range among the connections, the "
              "performance of mark-tail is still the best among all the strategies.",
              _R41 + ", Fig. 6(b)", Kind.CLAIM,
              "topology 2, RTT set #2: mark-tail's FIEB above each other strategy's", _fig6b_tail_best),
    Statement("f6b-alike", "The non-ECN, mark-front and mark-random perform nearly the same "
              "although the fairness indexes show that mark-front and mark-random are slightly "
              "better.", _R41 + ", Fig. 6(b)", Kind.CLAIM,
              f"topology 2, RTT set #2: mark-front's and mark-random's FIEB above non-ECN's, by at "
              f"most {FIEB_TOL:g}", _fig6b_others_alike),
    Statement("f6-wrong-target", "The result shows that mark-front and mark-random strategies are "
              "unable to mark the right target in this situation; so they behave like a non-ECN "
              "system.", _R41, Kind.RESTATEMENT, "Fig. 6(b)'s sentence", restates="f6b-alike"),
    Statement("f6-random-marks-fastest", "Because of the randomness of the packet marking of the "
              "mark-random strategy, the packets from the connection with higher throughput "
              "(usually with higher target rate) will usually be marked.", _R41, Kind.CLAIM,
              "topology 1 with mark-random, 10 and 16 Mb/s: the flow with the highest throughput "
              "receives the most CE marks", _random_marks_the_fastest),
    Statement("f6-reduce-any-colour", "That connection will be forced to reduce its transmission "
              "rate no matter whether the marked packet is an IN or an OUT packet.", _R41,
              Kind.IDENTITY, "TCP's ECN response ignores the DSCP (RFC 3168; transport/tcp)"),
    Statement("f6-favors-low", "This mechanism favors the connections with lower target "
              "throughputs.", _R41, Kind.RESTATEMENT, "Fig. 3's sentence on S1",
              restates="f3-low-target-more"),
    Statement("f6-explains", "It explains why the mark-random and mark-front, being fair "
              "strategies, are unable to give good performance.", _R41, Kind.NOT_CHECKABLE,
              "an explanation"),
    # -- §5 ----------------------------------------------------------------------------------------
    Statement("s5-front-random-like-non-ecn", "Although mark-tail strategy can provide better "
              "performance than the non-ECN environment, mark-front and mark-random perform "
              "nearly the same as the non-ECN.", _S5, Kind.RESTATEMENT, "Fig. 5's sentence",
              restates="f5-tail-best"),
    Statement("s5-expected-better", "However, mark-front and mark-random are expected to perform "
              "better than mark-tail.", _S5, Kind.NOT_CHECKABLE, "an expectation from other work"),
    Statement("s5-ecn-ignores-dscp", "ECN marking mechanism does not take into account the "
              "DiffServ code point (IN or OUT) marked at the edge router.", _S5, Kind.IDENTITY,
              "the plain strategies by construction (queue/ecn_mark.rs)"),
    Statement("s5-may-not", "As a result, simply adding ECN mechanism into DiffServ network may "
              "not always yield better performance.", _S5, Kind.NOT_CHECKABLE, "a hedge (\"may\")"),
    Statement("s51-out-no-harm", "In this case, dropping/marking OUT packets will not affect the "
              "target throughput of the connections.", _S51, Kind.CLAIM,
              "topology 1, 16 Mb/s, OUT Marking Scheme with each ECN strategy: no flow below its "
              "target (shortfall < 1 kb/s)", _out_scheme_keeps_targets),
    Statement("s51-out-preferred", "When the RIO queue decides to drop/mark a packet, OUT packets "
              "are preferentially dropped/marked over IN packets.", _S51, Kind.IDENTITY,
              "Table 5, row by row: queue/rio.rs table5_* and queue/ecn_mark.rs tests"),
    Statement("s51-halving", "the reduction of the sending rate always causes the throughput to "
              "fall below the target throughput as the TCP congestion control mechanism reduces "
              "the sending rate at least by half of the current one.", _S51, Kind.NOT_CHECKABLE,
              "a general statement about TCP (whether a halving falls below the target depends "
              "on how far above it the window was); the lossy-link unit test of "
              "transport/tcp/sustain.rs shows plain TCP below a target the scheme keeps"),
    Statement("s51-lower-bound", "The target throughput provides a lower bound on how low the "
              "congestion window can be adjusted.", _S51, Kind.IDENTITY,
              "transport/tcp/sustain.rs by construction and unit tests"),
    # -- §5.2 --------------------------------------------------------------------------------------
    Statement("f7-fair-arithmetic", "the excess bandwidth of the system is 9Mbps (16Mbps-7Mbps). "
              "In perfect fair situation, each connection should be able to get an excess "
              "bandwidth of 3Mbps such that their expected throughputs should be 4 Mbps, 7 Mbps "
              "and 5 Mbps respectively.", _S52 + ", Fig. 7", Kind.IDENTITY,
              "arithmetic on Table 1 (metrics/fairness.rs test); drawn on the figures"),
    Statement("f7-better-control", "From Fig. 7 we see that the Throughput Sustaining Scheme and "
              "OUT marking scheme provide better control on individual throughputs than the "
              "system without either schemes.", _S52 + ", Fig. 7", Kind.CLAIM,
              "topology 1, 16 Mb/s, each ECN strategy: the distance Σ|P_i − fair_i| from the "
              "perfectly fair throughputs (4, 7, 5 Mb/s) smaller with either scheme alone than "
              "with neither", _schemes_better_control),
    Statement("f7-intention", "Although the results of these two schemes are not perfectly fair, "
              "the schemes show their intention to distribute the excess bandwidth equally to the "
              "connections.", _S52 + ", Fig. 7", Kind.RESTATEMENT, "Fig. 9's FIEB thresholds",
              restates="f9-thresholds"),
    Statement("f7-strategy-blind", "Both schemes show similar results no matter which ECN marking "
              "strategy is used.", _S52 + ", Fig. 7", Kind.CLAIM,
              f"topology 1, 16 Mb/s, each scheme alone: FIEB spread over the three strategies ≤ "
              f"{SIMILAR_FIEB:g} (what Fig. 9 calls similar)", _either_scheme_strategy_blind),
    Statement("f7-both-like-one", "The combination of both schemes yields similar result as that "
              "using only one of the schemes.", _S52 + ", Fig. 7", Kind.CLAIM,
              f"each ECN strategy: FIEB with both schemes within {SIMILAR_FIEB:g} of each scheme "
              "alone", _both_like_one),
    Statement("f8-fair-value", "In the perfectly fair situation, all three bars in a group should "
              "be at the same value of 3 Mbps.", _S52 + ", Fig. 8", Kind.IDENTITY,
              "arithmetic; drawn on Fig. 8"),
    Statement("f8-front-random-improve", "The new schemes show marked improvement for both "
              "mark-front and mark-random ECN marking strategies.", _S52 + ", Fig. 8", Kind.CLAIM,
              f"mark-front and mark-random: FIEB with each scheme setting above neither's by more "
              f"than {FIEB_TOL:g}", _schemes_help_front_random),
    Statement("f9-none-range", "Without applying any of the schemes, the ECN mechanism can only "
              "provide the FIEB around 0.85 to 0.92.", _S52 + ", Fig. 9", Kind.CLAIM,
              f"each ECN strategy with neither scheme: FIEB in [0.85, 0.92] ± {PRINTED:g} (the "
              "printed digits; also three published values)", _fig9_none_range),
    Statement("f9-similar", "The three marking strategies show similar results in all the cases.",
              _S52 + ", Fig. 9", Kind.CLAIM,
              f"each scheme setting: FIEB spread over the three strategies ≤ {SIMILAR_FIEB:g}. "
              "§4.1 says the opposite of the same no-scheme runs (mark-tail best, the others no "
              "better than non-ECN): the report sets the two side by side", _fig9_strategies_similar),
    Statement("f9-thresholds", "The OUT Marking Scheme can achieve the FIEB of at least 0.94 while "
              "the Throughput Sustaining Scheme can achieve the FIEB of at least 0.95.",
              _S52 + ", Fig. 9", Kind.CLAIM,
              f"each ECN strategy: FIEB ≥ 0.94 with the OUT scheme and ≥ 0.95 with the sustaining "
              f"scheme, less {PRINTED:g} (printed digits)", _fig9_thresholds),
    Statement("f9-both", "By using both schemes at the same time, we can achieve a FIEB value of "
              "0.97.", _S52 + ", Fig. 9", Kind.CLAIM,
              f"the best ECN strategy with both schemes: FIEB ≥ 0.97 − {PRINTED:g} (\"can "
              "achieve\"; each strategy's value is also a published value)", _fig9_both),
    Statement("f9-work-with-random", "The schemes seem to solve the cooperation problem between "
              "ECN and DiffServ and work very well with the mark-random marking strategy.",
              _S52 + ", Fig. 9", Kind.RESTATEMENT, "Fig. 8's sentence on mark-random",
              restates="f8-front-random-improve"),
    Statement("f10-setting", "There are 10 TCP connections with the target throughputs 1 Mbps and "
              "different RTTs (see table 4) sharing the bandwidth (20Mbps) of the bottleneck "
              "link.", _S52 + ", Fig. 10", Kind.IDENTITY,
              "topology2.toml (the paper's \"table 4\" is its Table 2)"),
    Statement("f10-none-order", "Without applying any schemes (shown in figure Fig. 10 (a)), "
              "mark-tail strategy performs the best while mark-random strategy performs the "
              "worst.", _S52 + ", Fig. 10(a)", Kind.CLAIM,
              "topology 2, RTT set #2, neither scheme: FIEB mark-tail > mark-front > mark-random",
              _fig10_none_order),
    Statement("f10-may-be", "The problem may be due to the fact that the fairness power of "
              "mark-random does not consider the DiffServ requirement on providing different "
              "services to different connections.", _S52, Kind.NOT_CHECKABLE, "an explanation"),
    Statement("f10-random-schemes", "However, by applying the new schemes on the mark-random "
              "strategy, it yields the best result (near 0.8) when OUT Marking Scheme is used "
              "(shown in Fig. 10 (c)) and shows a great improvement when mark-random strategy "
              "works with Throughput Sustaining Scheme (shown in Fig. 10 (b)).",
              _S52 + ", Fig. 10(b), (c)", Kind.CLAIM,
              f"topology 2, RTT set #2: with the OUT scheme mark-random's FIEB above mark-tail's "
              f"and mark-front's and within ±{FIEB_TOL:g} of 0.8; with the sustaining scheme "
              f"mark-random's FIEB above neither scheme's by more than {FIEB_TOL:g}",
              _fig10_random_with_schemes),
    Statement("f10-tail-unaffected", "From the graphs, it is observed that the different "
              "combinations of the proposed schemes do not affect the performance of mark-tail "
              "strategy.", _S52 + ", Fig. 10", Kind.CLAIM,
              f"topology 2, RTT set #2: mark-tail's FIEB spread over the four scheme settings ≤ "
              f"{SIMILAR_FIEB:g}", _fig10_tail_unaffected),
    Statement("f10-random-works", "Mark-random works very well with OUT Marking Scheme and "
              "Throughput Sustaining Scheme.", _S52 + ", Fig. 10", Kind.RESTATEMENT,
              "the sentence on Fig. 10(b) and (c)", restates="f10-random-schemes"),
    Statement("f10-only-random-both", "It is observed that only the mark-random strategy working "
              "with both proposed schemes can achieve a FIEB value over 0.8.", _S52 + ", Fig. 10",
              Kind.CLAIM, "topology 2, RTT set #2: mark-random with both schemes > 0.8; every "
              "other strategy and scheme setting ≤ 0.8", _fig10_only_random_both_over_08),
    # -- conclusions -------------------------------------------------------------------------------
    Statement("conc-ecn-fairness", "We showed that ECN improves the fairness in sharing excess "
              "bandwidth among different AF flows.", _CONC, Kind.RESTATEMENT,
              "Fig. 5's claim", restates="f5-ecn-better"),
    Statement("conc-problems", "We found some problems with the combination of ECN and Diffserv, "
              "if they are unaware of the application of the other.", _CONC, Kind.NOT_CHECKABLE,
              "a summary without a quantity"),
    Statement("conc-schemes", "Our results show that the new schemes show significant improvement "
              "in the TCP throughput performance in a Diffserv environment.", _CONC,
              Kind.RESTATEMENT, "the abstract's second claim", restates="abs-schemes"),
)


# ---------------------------------------------------------------------------------------------
# Figures: bar charts over strategies (the paper's Figs. 3–10 are bars)


def _bars(rep: Reproduction, fig: Figure, ax: Any, *, group: str, groups: Sequence[str],
          fixed: dict[str, Any], metrics: Sequence[str], names: Sequence[str],
          marks: Sequence[tuple[str, float, str]] = (), bands: Sequence[tuple[float, float, str]] = (),
          points: Sequence[tuple[int, int, float, str]] = ()) -> None:
    """Grouped bars of afsim's means (95 % intervals as error bars): one group per value of the
    label ``group``, one bar per metric; the paper's stated values as horizontal lines
    (``marks``: label, y, style), bands (``bands``: low, high, label) and points (``points``:
    group index, bar index, y, label)."""
    rows = rep.aggregates.by_experiment.get(fig.experiment, [])
    width = 0.8 / len(metrics)
    colours = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
               "#8c8c8c", "#ccb974", "#64b5cd"]
    for j, (metric, name) in enumerate(zip(metrics, names, strict=True)):
        ys, errs = [], []
        for g in groups:
            stat = next((st.get(metric) for p, st in rows
                         if p.matches({**fixed, group: g})), None)
            ys.append(stat.mean if stat is not None and stat.n else math.nan)
            errs.append(stat.ci95 if stat is not None and math.isfinite(stat.ci95) else 0.0)
        xs = [i + (j - (len(metrics) - 1) / 2) * width for i in range(len(groups))]
        ax.bar(xs, ys, width * 0.95, yerr=errs, capsize=2, color=colours[j % len(colours)],
               label=f"afsim {name}")
        report_ns2.mark_points(ax, xs, [report_ns2.stat_at(rep, fig.experiment, {**fixed, group: g}, metric)
                                        for g in groups], label="ns-2" if j == 0 else None)
    for label, y, style in marks:
        ax.axhline(y, color="black", linestyle=style, linewidth=0.9, label=f"paper: {label}")
    for low, high, label in bands:
        ax.axhspan(low, high, color="grey", alpha=0.2, label=f"paper: {label}")
    for gi, bi, y, label in points:
        x = gi + (bi - (len(metrics) - 1) / 2) * width
        ax.plot([x], [y], marker="*", markersize=11, color="black", linestyle="none",
                label=f"paper: {label}")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)


def _flows(n: int, metric: str) -> tuple[list[str], list[str]]:
    return [f"{metric}.f{i}" for i in range(1, n + 1)], [f"S{i}" for i in range(1, n + 1)]


def draw_fig3(rep: Reproduction, fig: Figure, ax: Any) -> None:
    b = 10 if fig.id.endswith("10") else 16
    ms, names = _flows(3, "thr")
    _bars(rep, fig, ax, group="strategy", groups=STRATEGIES, fixed={"bottleneck": b}, metrics=ms,
          names=names, marks=[(f"target S{i + 1}", t, ":") for i, t in enumerate(TARGETS_1)])


def draw_fig4(rep: Reproduction, fig: Figure, ax: Any) -> None:
    b = 10 if fig.id.endswith("10") else 16
    ms, names = _flows(3, "excess")
    _bars(rep, fig, ax, group="strategy", groups=STRATEGIES, fixed={"bottleneck": b}, metrics=ms,
          names=names, marks=[("0: target met", 0.0, "-"),
                              (f"fair excess {(b * 1000 - 7000) / 3:.0f} kb/s", (b * 1000 - 7000) / 3, "--")])


def draw_fig5(rep: Reproduction, fig: Figure, ax: Any) -> None:
    _bars_two(rep, fig, ax, "bottleneck", BOTTLENECKS_1, "Mb/s")


def _grouped(ax: Any, rows: list[tuple[Point, dict[str, Any]]], metric: str, group_key: str,
             groups: Sequence[Any], series_key: str, series: Sequence[Any],
             labels: Sequence[str], top: float = 1.05, ns2: View | None = None,
             experiment: str = "") -> tuple[float, list[list[float]]]:
    """Bars of ``metric`` (mean, 95 % interval): one group per value of ``group_key``, one bar
    per value of ``series_key``; with ``ns2``, ns-2's means of ``experiment`` as crosses.
    Returns the bar width and each series' bar positions."""
    width = 0.8 / len(series)
    positions = []
    for j, (v, label) in enumerate(zip(series, labels, strict=True)):
        ys, errs = [], []
        for g in groups:
            st = next((x.get(metric) for p, x in rows if p.matches({series_key: v, group_key: g})), None)
            ys.append(st.mean if st is not None and st.n else math.nan)
            errs.append(st.ci95 if st is not None and math.isfinite(st.ci95) else 0.0)
        xs = [i + (j - (len(series) - 1) / 2) * width for i in range(len(groups))]
        ax.bar(xs, ys, width * 0.95, yerr=errs, capsize=2, label=label)
        positions.append(xs)
        if ns2 is not None:
            report_ns2.mark_points(ax, xs, [ns2.stat(experiment, {series_key: v, group_key: g}, metric)
                                            for g in groups], label="ns-2" if j == 0 else None)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize=8)
    ax.set_ylim(0, top)
    ax.grid(True, axis="y", alpha=0.3)
    return width, positions


def _ns2_view(rep: Reproduction) -> View | None:
    return View(rep.ns2.aggregates, "ns-2") if rep.ns2 is not None else None


def _bars_two(rep: Reproduction, fig: Figure, ax: Any, key: str, values: Sequence[Any], unit: str) -> None:
    """FIEB per strategy, one bar per value of ``key`` (the bottleneck, the RTT set)."""
    rows = rep.aggregates.by_experiment.get(fig.experiment, [])
    width, _ = _grouped(ax, rows, "fieb", "strategy", STRATEGIES, key, values,
                        [f"afsim, {key} {v} {unit}".strip() for v in values], top=1.15,
                        ns2=_ns2_view(rep), experiment=fig.experiment)
    if key == "rtt_set":
        # §4.1: mark-tail +16 %, mark-front and mark-random about +9 % over non-ECN (set #1)
        base = next((x.get("fieb") for p, x in rows if p.matches({key: 1, "strategy": "non-ECN"})), None)
        if base is not None and base.n:
            for i, k in ((1, 1.16), (2, 1.09), (3, 1.09)):
                ax.plot([i - width / 2], [base.mean * k], marker="*", markersize=11, color="black",
                        linestyle="none",
                        label="paper: +16 % / +9 % over afsim's non-ECN (set #1)" if i == 1 else None)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.9, label="perfectly fair")
    ax.legend(fontsize=6)


def draw_fig6(rep: Reproduction, fig: Figure, ax: Any) -> None:
    _bars_two(rep, fig, ax, "rtt_set", (1, 2), "")


def _scheme_of(fig: Figure) -> str:
    return fig.id.rsplit("_", 1)[1]


def draw_fig7(rep: Reproduction, fig: Figure, ax: Any) -> None:
    ms, names = _flows(3, "thr")
    _bars(rep, fig, ax, group="strategy", groups=ECN_STRATEGIES, fixed={"scheme": _scheme_of(fig)},
          metrics=ms, names=names,
          marks=[(f"fair S{i + 1} {f / 1000:g} Mb/s", f, ":") for i, f in enumerate((4000, 7000, 5000))])


def draw_fig8(rep: Reproduction, fig: Figure, ax: Any) -> None:
    ms, names = _flows(3, "excess")
    _bars(rep, fig, ax, group="strategy", groups=ECN_STRATEGIES, fixed={"scheme": _scheme_of(fig)},
          metrics=ms, names=names, marks=[("fair excess 3 Mb/s", 3000.0, "--"), ("0", 0.0, "-")])


def _fieb_by_scheme(rep: Reproduction, fig: Figure, ax: Any, stated: dict[str, list[Any]]) -> None:
    """FIEB per strategy, one bar per scheme setting, with the paper's stated values: a range
    (``band``), a minimum (``min``) or a value (``value``, for one strategy or all)."""
    rows = rep.aggregates.by_experiment.get(fig.experiment, [])
    width, positions = _grouped(ax, rows, "fieb", "strategy", ECN_STRATEGIES, "scheme", SCHEMES,
                                [f"afsim, {SCHEME_NAMES[sc]}" for sc in SCHEMES],
                                ns2=_ns2_view(rep), experiment=fig.experiment)
    for sc, xs in zip(SCHEMES, positions, strict=True):
        for kind, *args in stated.get(sc, []):
            if kind in ("band", "min"):
                for x in xs:
                    for y in args:
                        ax.plot([x - width / 2, x + width / 2], [y, y], color="black", linewidth=1,
                                linestyle="-" if kind == "band" else "--")
            elif kind == "value":
                idx, y = args
                for i in (range(len(xs)) if idx is None else [idx]):
                    ax.plot([xs[i]], [y], marker="*", markersize=10, color="black", linestyle="none")
    ax.plot([], [], color="black", linewidth=1, label="paper: stated range / value (★) / minimum (--)")
    ax.legend(fontsize=6)


def draw_fig9(rep: Reproduction, fig: Figure, ax: Any) -> None:
    _fieb_by_scheme(rep, fig, ax, {"none": [("band", 0.85, 0.92)], "out": [("min", 0.94)],
                                   "tss": [("min", 0.95)], "both": [("value", None, 0.97)]})


def draw_fig10(rep: Reproduction, fig: Figure, ax: Any) -> None:
    _fieb_by_scheme(rep, fig, ax, {"out": [("value", 2, 0.8)], "both": [("min", 0.8)]})


FIGURES = (
    *(Figure(f"fig3_throughput_{b}", f"Fig. 3: throughput per flow, topology 1, {b} Mb/s", F35,
             "thr.f1", x="strategy", series="", xlabel="", ylabel="throughput (kb/s)", draw=draw_fig3)
      for b in BOTTLENECKS_1),
    *(Figure(f"fig4_excess_{b}", f"Fig. 4: excess bandwidth per flow, topology 1, {b} Mb/s", F35,
             "excess.f1", x="strategy", series="", xlabel="", ylabel="excess (kb/s)", draw=draw_fig4)
      for b in BOTTLENECKS_1),
    Figure("fig5_fieb", "Fig. 5: FIEB, topology 1 (10 and 16 Mb/s)", F35, "fieb", x="strategy",
           series="", xlabel="", ylabel="FIEB", draw=draw_fig5),
    Figure("fig6_fieb", "Fig. 6: FIEB, topology 2, RTT sets #1 (a) and #2 (b)", F6, "fieb",
           x="strategy", series="", xlabel="", ylabel="FIEB", draw=draw_fig6),
    *(Figure(f"fig7_throughput_{sc}", f"Fig. 7: throughput per flow, topology 1, 16 Mb/s, "
             f"{SCHEME_NAMES[sc]}", F79, "thr.f1", x="strategy", series="", xlabel="",
             ylabel="throughput (kb/s)", draw=draw_fig7) for sc in SCHEMES),
    *(Figure(f"fig8_excess_{sc}", f"Fig. 8: excess bandwidth per flow, topology 1, 16 Mb/s, "
             f"{SCHEME_NAMES[sc]}", F79, "excess.f1", x="strategy", series="", xlabel="",
             ylabel="excess (kb/s)", draw=draw_fig8) for sc in SCHEMES),
    Figure("fig9_fieb", "Fig. 9: FIEB with the schemes, topology 1, 16 Mb/s", F79, "fieb",
           x="strategy", series="", xlabel="", ylabel="FIEB", draw=draw_fig9),
    Figure("fig10_fieb", "Fig. 10: FIEB with the schemes, topology 2, RTT set #2", F10, "fieb",
           x="strategy", series="", xlabel="", ylabel="FIEB", draw=draw_fig10),
)


# ---------------------------------------------------------------------------------------------
# The paper's own simulator: ns-2 (§1, [16]); the twin is afsim/ns2/leung.tcl

#: Topology 1's access delay (topology1.toml's S -> E1 links: RTT 130 ms = 2 × (53 + 12) ms).
TOPOLOGY1_ACCESS = "53ms"

NS2_DESCRIPTION = (
    "ns-2.35's Queue/dsRED (the Nortel DiffServ module): a TSW2CM tagger per source at E1 and "
    "RIO (setMREDMode RIO-C or RIO-D, configQ with §3.1's tuples) at R1 -> R2, Agent/TCP/Reno "
    "(or the scenario's variant) with its sink, on the topology and values of afsim's "
    "topology1.toml and topology2.toml (afsim/ns2/leung.tcl; the same parameters as each afsim "
    "run, seeds 1…n as ns-2's RNG seed). ns-2's dsRED has an ECN path that marks the arriving "
    "packet (mark-tail, dsredq.cc); non-ECN and mark-tail run, with neither scheme. Not in ns-2: "
    "mark-front and mark-random (the paper's own ECN positions), the OUT Marking Scheme and the "
    "Throughput Sustaining Scheme (the paper's contributions), and forced drops of ECN-capable "
    "packets beyond max_th (plain RED's, the red_forced variant). CE marks received are not "
    "counted by the twin.")


def ns2_args(e: Experiment, overrides: Mapping[str, str], seed: int) -> list[str] | NotInNs2:
    """The ns-2 twin's arguments for one afsim run of ``e`` (its overrides and seed), or why
    ns-2 cannot run it."""
    from afsim import ns2

    p = ns2.scenario_params(e.scenario, overrides)
    if p["ecn_marking"] in ("front", "random"):
        return NotInNs2(f"mark-{p['ecn_marking']}: ns-2's dsRED marks only the arriving packet "
                        "(dsredq.cc, redQueue::enque returns PKT_MARKED for the arrival)")
    if p["out_marking"] == "true":
        return NotInNs2("the OUT Marking Scheme (§5.1) is the paper's own: not in ns-2")
    if any(v != "none" for k, v in p.items() if k.startswith("sustain_")):
        return NotInNs2("the Throughput Sustaining Scheme (§5.2) is the paper's own: not in ns-2")
    ecn = p["tcp_ecn"] == "true"
    if ecn != (p["ecn_marking"] != "none"):
        return NotInNs2("ECN-capable TCP without a marking queue (or the reverse): dsRED's ecn_ "
                        "and the agents' ecn_ are one switch in the twin")
    if ecn and p["ecn_forced"] != "mark":
        return NotInNs2("forced drops of ECN-capable packets beyond max_th are plain RED's "
                        "(red.cc); dsRED marks them (dsredq.cc)")
    if p.get("spacing", "dsredq") != "dsredq":
        return NotInNs2("red.cc's drop spacing on a RIO queue: ns-2's dsRED spaces its drops as "
                        "dsredq.cc does")
    if e.scenario.name == "topology1.toml":
        targets, access, bottleneck = TARGETS_1, [TOPOLOGY1_ACCESS] * 3, p["bottleneck"]
    else:
        targets = TARGETS_2
        access = [p[f"access_{i}"] for i in range(1, len(TARGETS_2) + 1)]
        bottleneck = p["bottleneck"]
    return [
        f"seed={seed}", f"duration={float(p['duration_s']):g}",
        f"bottleneck={ns2.rate(bottleneck)}", f"access_rate={ns2.rate(p['access_rate'])}",
        "targets=" + " ".join(f"{1000 * r:.0f}" for r in targets),
        "access=" + " ".join(access),
        f"tsw_window={ns2.seconds(p['tsw_window']):g}", f"w_q={float(p['w_q']):g}",
        f"mode={'RIO-C' if p['coupling'] == 'coupled' else 'RIO-D'}",
        f"ecn={int(ecn)}", f"variant={p['tcp_variant']}",
        f"window={ns2.packets(p['tcp_window'])}", f"tick={ns2.seconds(p['tcp_tick']):g}",
    ]


def ns2_results(raw: dict[str, Any]) -> Any:
    """A leung.tcl run in afsim's table shapes (flows f1…fN: delivered IP bits, timeouts)."""
    from afsim import ns2

    n = len(raw["delivered"])
    duration = float(raw["duration_s"])
    flows = ns2.flows_table([f"f{i}" for i in range(1, n + 1)], duration,
                            delivered_bytes=raw["delivered"], timeouts=raw["timeouts"])
    return ns2.Ns2Results(flows=flows, end_time_s=duration, raw=raw)


TWIN = Twin("leung.tcl", ns2_args, ns2_results, NS2_DESCRIPTION)


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, statements, figures, stated values, null
    model, variants and unstated parameters."""
    return Paper(PAPER_ID, TITLE, CITATION, experiments(scenarios_dir), STATEMENTS, FIGURES, DATA,
                 null_model, NULL_DESCRIPTION, VARIANTS, UNSTATED, ns2=TWIN)


def mode(quick: bool, budget: int | None = None, replications: int | None = None) -> Mode:
    """Full (the paper's 60 s per run) or quick mode, optionally with another run length
    (seconds) or number of replications; a shorter run is always reported as reduced."""
    import dataclasses

    base = QUICK if quick else FULL
    return dataclasses.replace(base, budget=budget or base.budget,
                               replications=replications or base.replications)
