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
carry, so the published values are the numbers its sentences state (``values.json``) and
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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce import core
from afsim.reproduce.core import Experiment, Mode, Point, Variant
from afsim.reproduce.robustness import Unstated
from afsim.reproduce.twin import NotInNs2, Twin
from afsim.stats import fieb

if TYPE_CHECKING:
    from afsim.results import Results


PAPER_ID = "leung"
TITLE = ("Leung, Muppala — Sustaining TCP Throughput Using Assured Forwarding and ECN in a "
         "Differentiated Services Network")
CITATION = ("I. K.-K. Leung, J. K. Muppala, \"Sustaining TCP Throughput Using Assured Forwarding "
            "and ECN in a Differentiated Services Network\" (Hong Kong University of Science and "
            "Technology; papers/004): Figs. 3–10, Tables 1, 2 and 5.")
DATA = Path(__file__).with_name("values.json")

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
    """The folder holding topology1.toml and topology2.toml (``core.find_scenarios_dir``)."""
    return core.find_scenarios_dir("leung", ("topology1.toml", "topology2.toml"), start)


# ---------------------------------------------------------------------------------------------
# From a run to the paper's numbers


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


def mode(quick: bool, budget: int | None = None, replications: int | None = None) -> Mode:
    """Full (the paper's 60 s per run) or quick mode, optionally with another run length
    (seconds) or number of replications; a shorter run is always reported as reduced."""
    import dataclasses

    base = QUICK if quick else FULL
    return dataclasses.replace(base, budget=budget or base.budget,
                               replications=replications or base.replications)
