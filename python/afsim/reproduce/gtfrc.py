"""Jourjon, Lochin, Dairaine, "gTFRC: a QoS-aware congestion control algorithm" (ICN 2006): the
experiments of its Figs. 4–15 and Tables 1–5, every checkable statement of the text, the null
model and the parameters the paper leaves open.

Read this first. The networks are ``scenarios/gtfrc/*.toml`` (their headers map every figure to
its ``--set`` line and cite each value). This module chooses the grid — one point per panel of
Figs. 4–15 — and says how a run becomes the paper's numbers:

- **Tables 1–3** ("packets statistics"): the bottleneck core → egress RIO queue's counters per
  colour, as ns-2's dsRED ``printStats`` gives them per code point (the paper ran the Nortel
  module, its ref. [22]): "Total packets" is the colour's share of the arrivals, in percent;
  ``ldrops`` and ``edrops`` are that colour's drops ÷ its arrivals. ns-2 counts in ``ldrops``
  every PKT_DROPPED — buffer overflow *and* RIO's forced drops (average above max_th) —
  although the paper calls them "link overflow" (docs/validation.md, "ns-2's drop counters"):
  afsim's ldrops are ``drops_overflow`` + ``drops_forced``, its edrops the random early drops
  (``drops_early`` − ``drops_forced``); ``*.overflow`` (the paper's words) is in runs.csv. Why
  "drops ÷ the colour's arrivals": Table 2 (b)'s out-profile ldrops, 89.23 %, exceed its
  out-profile share of all packets, 9.84 %, and no column sums to 100 %, so the percentages
  are neither shares of all packets nor shares of the drops.
- **Tables 4–5** and every long-term throughput: the bits a flow's receiver got over the run,
  ÷ 100 s ("we evaluate the throughput at the server side"). A flow's *steady* throughput is
  the same over 20–100 s, a second run with ``warmup = "20s"`` (point ``from_s = 20``): the
  text's "reaches / obtains / outperforms its target rate" are read on it, after every slow
  start (the latest the paper reports ends at t = 11 s, Fig. 4a).
- **The computed rate** X of a TFRC or gTFRC flow comes from its sender's trace (``trace =
  true``): the slow-start exit (its first report of a loss, p > 0) is the paper's "first rate
  decrease"; the time X spends below its target, and at or below it, is counted from the first
  change of X after that exit (Fig. 1 sets the rate to the equation's at the exit itself and
  applies the target from the next report on).
- **The figures' instantaneous and cumulative average throughput** (``*_t`` experiments): the
  same run stopped at t — every 2 s to 20 s (slow start), every 4 s after — with ``duration =
  t`` and its warm-up at the previous stop, so that each run gives the flow's exact
  server-side rate over that bin and its cumulative average over (0, t] (a run stopped at t is
  the longer run's prefix: same events, tested). The claims about the instantaneous rate pool
  the bins of 20–100 s over the replications (which differ only in RIO's coin flips): its
  spread around its mean, or around the target, over every run and instant.

What the paper leaves open is a declared parameter with a range (``UNSTATED``); the claims are
tested across it. The TFRC flows follow ns-2.28's ``Agent/TFRC`` (``preset = "ns2_28"``, the
scenarios' ``tfrc_preset``), the release the paper names (§4); ns-2.35's (``ns2``, the default
until issue 21) is the variant ``ns2_35`` (``VARIANTS``). The two differ in slow start
(``ss_changes_``, the 2·X_recv rule), the no-feedback timer in slow start, ``maxHeavyRounds_``
and ``idleFix_`` (docs/assumptions.md, "ns-2.28 against ns-2.35"). The ns-2 twin
(``gtfrc.tcl``) runs the installed ns-2.35, whichever preset afsim runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce import core
from afsim.reproduce.claims import Checks, ClaimResult, Kind, Statement, gt, lt
from afsim.reproduce.core import Experiment, Mode, Paper, Point, Variant, View
from afsim.reproduce.robustness import Unstated
from afsim.reproduce.twin import NotInNs2, Twin

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from afsim.reproduce.core import Reproduction
    from afsim.results import Results

PAPER_ID = "gtfrc"
TITLE = "Jourjon, Lochin, Dairaine — gTFRC: a QoS-aware congestion control algorithm"
CITATION = ("G. Jourjon, E. Lochin, L. Dairaine, \"gTFRC: a QoS-aware congestion control "
            "algorithm\", International Conference on Networking (ICN'06), Mauritius, April "
            "2006, doi:10.1109/ICNICONSMCL.2006.109 (HAL hal-02550847; papers/003, quoted here); "
            "Tables 1–5, Figs. 4–15.")
DATA = Path(__file__).parent / "data" / "gtfrc.json"

#: §4.1: "measurements are carried during 100sec".
PAPER_SECONDS = 100
#: Full mode: the paper's 100 s; five replications per point (the paper shows one run per
#: figure), three of the time series (30 runs per panel each); the robustness design eight
#: points of one run each.
FULL = Mode("full", PAPER_SECONDS, replications=5, paper_budget=PAPER_SECONDS,
            budget_param="duration", budget_unit="s", budget_noun="s of simulated time",
            robust_points=8, robust_replications=1)
#: Quick mode: the same 100 s, two replications, a design of three points of one run.
QUICK = Mode("quick", PAPER_SECONDS, replications=2, paper_budget=PAPER_SECONDS,
             budget_param="duration", budget_unit="s", budget_noun="s of simulated time",
             robust_points=3, robust_replications=1)
#: Replications of the time series, at most.
SERIES_REPLICATIONS = 3
#: The time series' stops (s): every 2 s through slow start, every 4 s after (each run of a
#: series is listed in results.json; finer bins would multiply them).
SERIES_TIMES = (*range(2, 21, 2), *range(24, 101, 4))
#: The bottleneck (§4.1), and where the queue statistics are read.
BOTTLENECK_KBPS = 1000.0
BOTTLENECK = "core->egress"
#: The steady window starts here (s): after every slow start (the paper's latest, Fig. 4a's
#: TFRC flow, ends at t = 11 s).
STEADY_FROM_S = 20

#: Thresholds the text's words need, each from the paper itself (the data file's tolerances):
#: throughput is "the same" / "similar" within 2.71 % (Table 5: 402.32 against 413.20 kb/s,
#: called similar; Table 4: 413.50 against 415.92, called the same);
SAME_THR = 0.0271
#: packet shares are "similar" within 3.06 points (Table 2 (a) against Table 1 (a): 73.57 %
#: against 76.63 % in-profile, called similar);
SIMILAR_SHARE = 3.06
#: drop ratios are "similar" within a factor 2.05 (the same tables: out-profile ldrops 1.67 %
#: against 3.41 %, ×2.04, each some 40–70 drops), where both are resolved (≥ 10 drops).
SIMILAR_LOSS = 2.05
#: "the same order of magnitude": within a factor √10, half a decade each way.
ORDER_OF_MAGNITUDE = math.sqrt(10.0)
#: "almost the whole experiment": at least nine tenths of it (the paper gives no number).
ALMOST = 0.9
#: A rate "below its target": by more than floating-point noise (the target is applied exactly).
EPS = 1e-9


# ---------------------------------------------------------------------------------------------
# The paper's panels


@dataclass(frozen=True)
class Flow:
    """One flow of a panel: its name in the scenario, its transport, RTT and target rate."""

    name: str
    kind: str  # "TFRC", "gTFRC" or "TCP"
    rtt_ms: int
    target_kbps: int

    @property
    def label(self) -> str:
        return f"{self.name}: {self.kind}, {self.rtt_ms} ms, TR {self.target_kbps} kb/s"


@dataclass(frozen=True)
class Panel:
    """One panel of Figs. 4–15: its scenario (experiment id), provisioning and flows."""

    fig: str
    experiment: str
    provisioning: str  # "exactly" or "over"
    flows: tuple[Flow, ...]

    def flow(self, name: str) -> Flow:
        return next(f for f in self.flows if f.name == name)

    def of_kind(self, *kinds: str) -> list[Flow]:
        return [f for f in self.flows if f.kind in kinds]


def _pair(fig: str, exp: str, prov: str, a: tuple[str, int, int], b: tuple[str, int, int]) -> Panel:
    return Panel(fig, exp, prov, (Flow("a", *a), Flow("b", *b)))


def _five(fig: str, exp: str, one: str, others: str) -> Panel:
    rates = (200, 100, 50, 50)
    return Panel(fig, exp, "over", (Flow("one", one, 40, 400),
                                    *(Flow(f"x{i}", others, 40, r) for i, r in enumerate(rates))))


#: The experiments, one per scenario file.
EXPERIMENT_FILES = {"two_tfrc": "two-tfrc.toml", "tfrc_tcp": "tfrc-tcp.toml",
                    "two_tcp": "two-tcp.toml", "tcp_4_tfrc": "tcp-4-tfrc.toml",
                    "tfrc_4_tcp": "tfrc-4-tcp.toml"}
#: Every panel, as §4.2–4.5 and the scenario headers give them. Figs. 12–13's RTTs and target
#: rates are Figs. 10–11's (§4.4 gives none; docs/assumptions.md, "gTFRC scenarios").
PANELS: tuple[Panel, ...] = (
    _pair("4a", "two_tfrc", "exactly", ("TFRC", 640, 800), ("TFRC", 40, 200)),
    _pair("4b", "two_tfrc", "exactly", ("gTFRC", 640, 800), ("gTFRC", 40, 200)),
    _pair("5a", "two_tfrc", "exactly", ("TFRC", 640, 200), ("TFRC", 40, 800)),
    _pair("5b", "two_tfrc", "exactly", ("gTFRC", 640, 200), ("gTFRC", 40, 800)),
    _pair("9a", "two_tfrc", "over", ("TFRC", 250, 700), ("TFRC", 250, 100)),
    _pair("9b", "two_tfrc", "over", ("gTFRC", 250, 700), ("gTFRC", 250, 100)),
    _pair("10a", "two_tfrc", "over", ("TFRC", 640, 600), ("TFRC", 40, 200)),
    _pair("10b", "two_tfrc", "over", ("gTFRC", 640, 600), ("gTFRC", 40, 200)),
    _pair("11a", "two_tfrc", "over", ("TFRC", 640, 200), ("TFRC", 40, 600)),
    _pair("11b", "two_tfrc", "over", ("gTFRC", 640, 200), ("gTFRC", 40, 600)),
    _pair("6a", "tfrc_tcp", "exactly", ("TFRC", 640, 800), ("TCP", 40, 200)),
    _pair("6b", "tfrc_tcp", "exactly", ("gTFRC", 640, 800), ("TCP", 40, 200)),
    _pair("7a", "tfrc_tcp", "exactly", ("TFRC", 640, 200), ("TCP", 40, 800)),
    _pair("7b", "tfrc_tcp", "exactly", ("gTFRC", 640, 200), ("TCP", 40, 800)),
    _pair("12a", "tfrc_tcp", "over", ("TFRC", 640, 600), ("TCP", 40, 200)),
    _pair("12b", "tfrc_tcp", "over", ("gTFRC", 640, 600), ("TCP", 40, 200)),
    _pair("13a", "tfrc_tcp", "over", ("TFRC", 640, 200), ("TCP", 40, 600)),
    _pair("13b", "tfrc_tcp", "over", ("gTFRC", 640, 200), ("TCP", 40, 600)),
    _pair("8a", "two_tcp", "exactly", ("TCP", 640, 800), ("TCP", 40, 200)),
    _pair("8b", "two_tcp", "exactly", ("TCP", 640, 200), ("TCP", 40, 800)),
    _five("14a", "tcp_4_tfrc", "TCP", "TFRC"),
    _five("14b", "tcp_4_tfrc", "TCP", "gTFRC"),
    _five("15a", "tfrc_4_tcp", "TFRC", "TCP"),
    _five("15b", "tfrc_4_tcp", "gTFRC", "TCP"),
)
PANEL = {p.fig: p for p in PANELS}
#: The figures, in the paper's order, each with its (a) and (b) panels.
FIGURE_NUMBERS = tuple(range(4, 16))
#: The scenario's default shared delay (edge, core and egress links): the RTTs are built on it.
EDGE_DELAY_MS = 5.0
#: Links a packet crosses besides its flow's access link (edge → core → egress → destination).
SHARED_LINKS = 3


def access_delay_ms(rtt_ms: float, edge_delay_ms: float = EDGE_DELAY_MS) -> float:
    """The access-link delay that gives a flow its RTT: RTT = 2 × (access + 3 × shared)."""
    return rtt_ms / 2.0 - SHARED_LINKS * edge_delay_ms


def _ms(x: float) -> str:
    return f"{x:.6g}ms"


def delay_overrides(panel: Panel, edge_delay_ms: float = EDGE_DELAY_MS) -> dict[str, str]:
    """The access delays of a panel's flows (the five-flow scenarios have one, ``delay``)."""
    if panel.experiment in ("tcp_4_tfrc", "tfrc_4_tcp"):
        return {"delay": _ms(access_delay_ms(panel.flows[0].rtt_ms, edge_delay_ms))}
    return {f"delay_{f.name}": _ms(access_delay_ms(f.rtt_ms, edge_delay_ms)) for f in panel.flows}


def panel_overrides(panel: Panel) -> dict[str, str]:
    """Every parameter a panel sets (targets, access delays, gTFRC switches), written out."""
    ov = {f"tr_{f.name}": f"{f.target_kbps}kbps" for f in panel.flows}
    ov |= delay_overrides(panel)
    for f in panel.flows:
        # plain TFRC flows of a scenario that can switch them to gTFRC say "none"
        if f.kind == "gTFRC":
            ov[f"target_{f.name}"] = f"{f.target_kbps}kbps"
        elif f.kind == "TFRC":
            ov[f"target_{f.name}"] = "none"
    return ov | {"trace": "true"}


# ---------------------------------------------------------------------------------------------
# From a run to the paper's numbers


def _prob(name: str, events: int, trials: int) -> dict[str, float]:
    """A probability with its counts; 0 where nothing was counted among."""
    return {name: events / trials if trials else 0.0, f"{name}.events": float(events),
            f"{name}.trials": float(trials)}


def queue_metrics(colours: pd.DataFrame) -> dict[str, float]:
    """Tables 1–3's columns from the bottleneck's counters per colour (the module header)."""
    q = colours[colours["queue"] == BOTTLENECK]
    rows = {int(r["level"]): r for _, r in q.iterrows()}
    arrivals = {lv: int(rows[lv]["arrivals"]) if lv in rows else 0 for lv in (0, 1)}
    total = sum(arrivals.values())
    m: dict[str, float] = {}
    for tag, lv in (("in", 0), ("out", 1)):
        r = rows.get(lv)
        n = arrivals[lv]
        overflow = int(r["drops_overflow"]) if r is not None else 0
        early = int(r["drops_early"]) if r is not None else 0
        forced = int(r["drops_forced"]) if r is not None and math.isfinite(r["drops_forced"]) else 0
        m[f"{tag}.share_pct"] = 100.0 * n / total if total else math.nan
        m |= _prob(f"{tag}.ldrops", overflow + forced, n)
        m |= _prob(f"{tag}.edrops", early - forced, n)
        m |= _prob(f"{tag}.drops", overflow + early, n)
        m |= _prob(f"{tag}.overflow", overflow, n)
    return m


def _durations(t: np.ndarray, end: float) -> np.ndarray:
    """How long each row of a trace holds: until the next row, the last until the run's end."""
    import numpy as np

    return np.diff(np.append(t, end))


def tfrc_trace_metrics(name: str, trace: pd.DataFrame, target_kbps: float, end: float) -> dict[str, float]:
    """A TFRC or gTFRC sender's computed rate X against its target (the module header):
    ``ss_exit_s`` (the first report of a loss; the run's end if none), ``reach_s`` (the first
    instant at or after the exit with X ≥ target; the end if none), ``x_below_share`` and
    ``x_floor_share`` (the share of the time from the first change after the exit with X below
    the target, and at or below it)."""
    import numpy as np

    t = trace["time_s"].to_numpy(dtype=float)
    x = trace["x_kbps"].to_numpy(dtype=float)
    lost = np.nonzero(trace["p"].to_numpy(dtype=float) > 0)[0]
    m = {f"{name}.ss_exit_s": end, f"{name}.reach_s": end,
         f"{name}.x_below_share": math.nan, f"{name}.x_floor_share": math.nan}
    if not len(lost):
        return m
    k = int(lost[0])
    m[f"{name}.ss_exit_s"] = float(t[k])
    reached = np.nonzero(x[k:] >= target_kbps * (1 - EPS))[0]
    if len(reached):
        m[f"{name}.reach_s"] = float(t[k + int(reached[0])])
    if k + 1 < len(t):
        d = _durations(t[k + 1:], end)
        span = float(d.sum())
        if span > 0:
            xs = x[k + 1:]
            m[f"{name}.x_below_share"] = float(d[xs < target_kbps * (1 - EPS)].sum()) / span
            m[f"{name}.x_floor_share"] = float(d[xs <= target_kbps * (1 + EPS)].sum()) / span
    return m


def run_metrics(results: Results) -> dict[str, float]:
    """One full run: per flow its throughput over the measured interval (the whole run, or
    20–100 s), what it sent, and for TFRC flows its computed rate against the target; the
    bottleneck's packet statistics (Tables 1–3)."""
    end = results.end_time_s
    span = end - float(results.summary.get("warmup_s", 0.0))
    m: dict[str, float] = {}
    traces = results.tfrc_traces
    for _, f in results.flows.iterrows():
        name, target = str(f["name"]), float(f["contract_kbps"])
        thr = float(f["throughput_kbps"])
        m[f"{name}.thr_kbps"] = thr
        m[f"{name}.target_kbps"] = target
        m[f"{name}.thr_over_target"] = thr / target if target > 0 else math.nan
        m[f"{name}.sent_kbps"] = float(f["bytes_sent"]) * 8.0 / 1000.0 / end if end > 0 else math.nan
        if str(f["kind"]) in ("tfrc", "gtfrc") and len(traces):
            m |= tfrc_trace_metrics(name, traces[traces["flow"] == name], target, end)
    m |= queue_metrics(results.colours)
    m["measured_s"] = span
    return m


def series_metrics(results: Results) -> dict[str, float]:
    """One run of a time series, stopped at t with its warm-up at the previous stop: each
    flow's rate over that bin and its cumulative average over (0, t], at the server side."""
    end = results.end_time_s
    m: dict[str, float] = {}
    for _, f in results.flows.iterrows():
        name = str(f["name"])
        m[f"{name}.rate_kbps"] = float(f["throughput_kbps"])
        m[f"{name}.cum_kbps"] = float(f["bytes_delivered"]) * 8.0 / 1000.0 / end
    return m


# ---------------------------------------------------------------------------------------------
# The null model


NULL_DESCRIPTION = (
    "No simulation: every flow gets its target rate plus an equal share of what the targets "
    "leave of the 1000 kb/s bottleneck (nothing in the exactly-provisioned figures, 200 kb/s "
    "shared in the over-provisioned ones), constantly from time 0 — so its instantaneous rate "
    "is its average and nothing oscillates; the bottleneck's packet shares follow from these "
    "rates (in-profile: the targets; out-profile: the excess) and nothing is lost; a TFRC or "
    "gTFRC flow's computed rate is that rate, never decreases (its 'first decrease' comes at "
    "the end of the run, 100 s) and is at its target or above from 0 s.")


def null_rates(panel: Panel) -> dict[str, float]:
    """The null model's rate of every flow of a panel."""
    excess = (BOTTLENECK_KBPS - sum(f.target_kbps for f in panel.flows)) / len(panel.flows)
    return {f.name: f.target_kbps + excess for f in panel.flows}


def null_model(experiment: Experiment, point: Point) -> dict[str, float]:
    """The null model's numbers at one point (see ``NULL_DESCRIPTION``)."""
    panel = PANEL[str(point.labels["fig"])]
    rates = null_rates(panel)
    m: dict[str, float] = {}
    for f in panel.flows:
        r = rates[f.name]
        if experiment.id.endswith("_t"):
            m |= {f"{f.name}.rate_kbps": r, f"{f.name}.cum_kbps": r}
            continue
        m |= {f"{f.name}.thr_kbps": r, f"{f.name}.sent_kbps": r, f"{f.name}.target_kbps": f.target_kbps,
              f"{f.name}.thr_over_target": r / f.target_kbps}
        if f.kind in ("TFRC", "gTFRC"):
            m |= {f"{f.name}.ss_exit_s": float(PAPER_SECONDS), f"{f.name}.reach_s": 0.0,
                  f"{f.name}.x_below_share": 0.0,
                  f"{f.name}.x_floor_share": 1.0 if r <= f.target_kbps * (1 + EPS) else 0.0}
    if not experiment.id.endswith("_t"):
        in_share = 100.0 * sum(f.target_kbps for f in panel.flows) / BOTTLENECK_KBPS
        m |= {"in.share_pct": in_share, "out.share_pct": 100.0 - in_share}
        for tag in ("in", "out"):
            for col in ("ldrops", "edrops", "drops", "overflow"):
                m[f"{tag}.{col}"] = 0.0
    return m


# ---------------------------------------------------------------------------------------------
# The grid


def find_scenarios_dir(start: Path | None = None) -> Path:
    """The folder of the paper's scenario files (``core.find_scenarios_dir``)."""
    return core.find_scenarios_dir("gtfrc", tuple(EXPERIMENT_FILES.values()), start)


def series_bins() -> tuple[tuple[int, int], ...]:
    """The time series' bins (start, end), in seconds."""
    return tuple(zip((0, *SERIES_TIMES[:-1]), SERIES_TIMES, strict=True))


#: What results.json and runs.csv list of the runs (the claims read everything).
SHOWN_FULL = ("*.thr_kbps", "*.sent_kbps", "*.target_kbps", "*.thr_over_target", "*.ss_exit_s",
              "*.reach_s", "*.x_below_share", "*.x_floor_share", "in.*", "out.*", "measured_s")
SHOWN_SERIES = ("*.rate_kbps", "*.cum_kbps")


def experiments(scenarios_dir: Path | None = None) -> tuple[Experiment, ...]:
    d = scenarios_dir or find_scenarios_dir()
    notes = (
        "throughput: the bits the flow's receiver got ÷ the measured time (from_s = 0: the "
        "whole 100 s; from_s = 20: 20–100 s, a run with warmup = 20s), in kb/s of IP bytes",
        "packet statistics at the core → egress RIO queue: share of arrivals; ldrops = "
        "overflow + forced (average above max_th) drops, edrops = random early drops, each ÷ "
        "the colour's arrivals (ns-2 dsRED's counters; the module header)",
        "TFRC flows: their sender's computed rate X from its trace (first decrease = first "
        "report of a loss)",
    )
    full, series = [], []
    for exp, fname in EXPERIMENT_FILES.items():
        panels = [p for p in PANELS if p.experiment == exp]
        full.append(Experiment(
            exp, f"{fname}: Figs. {', '.join(p.fig for p in panels)} — whole run and 20–100 s",
            d / fname,
            tuple(Point({"fig": p.fig, "from_s": w}, panel_overrides(p) | {"warmup": f"{w}s"})
                  for p in panels for w in (0, STEADY_FROM_S)),
            run_metrics, notes, robust=True, shown=SHOWN_FULL))
        series.append(Experiment(
            f"{exp}_t", f"{fname}: Figs. {', '.join(p.fig for p in panels)} — the run stopped "
            "every 2 s to 20 s, every 4 s after (instantaneous and cumulative average "
            "throughput)", d / fname,
            tuple(Point({"fig": p.fig, "t": t},
                        panel_overrides(p) | {"duration": f"{t}s", "warmup": f"{t0}s"})
                  for p in panels for t0, t in series_bins()),
            series_metrics,
            ("rate: the bits the receiver got in the bin (t0, t] ÷ (t − t0); cumulative average: "
             "the bits it got in (0, t] ÷ t; each a run stopped at t with warmup = t0",),
            replications=SERIES_REPLICATIONS, shown=SHOWN_SERIES))
    return (*full, *series)


# ---------------------------------------------------------------------------------------------
# Variants: another reading, reported beside the default

#: The experiments whose scenarios have TFRC flows (two_tcp has none).
TFRC_EXPERIMENTS = tuple(e for x in ("two_tfrc", "tfrc_tcp", "tcp_4_tfrc", "tfrc_4_tcp") for e in (x, f"{x}_t"))

VARIANTS = (
    Variant("ns2_35", "ns-2.35's TFRC (the ns2 preset)", {"tfrc_preset": "ns2"},
            "the paper ran ns-2.28 (§4), whose TFRC the default follows (preset ns2_28, read from "
            "ns-2.28's tfrc.cc and ns-default.tcl); ns-2.35's, which differs in slow start, the "
            "no-feedback timer in slow start, maxHeavyRounds_ and idleFix_, was the default "
            "before issue 21 and is the release the ns-2 twin runs",
            TFRC_EXPERIMENTS, unchanged=("two_tcp", "two_tcp_t")),
)


# ---------------------------------------------------------------------------------------------
# What the paper leaves open

TCP_SCENARIOS = ("tfrc-tcp.toml", "two-tcp.toml", "tcp-4-tfrc.toml", "tfrc-4-tcp.toml")

UNSTATED = (
    Unstated("edge_rate", "rate of every link but the bottleneck (access, edge → core, egress → "
             "destination)", "10Mbps",
             "Fig. 2's testbed is not given; 10 Mb/s is the reference examples' of the DiffServ "
             "module the paper used (ref. [22], ns-2 tcl/ex/diffserv). Range: the scenario "
             "files' 2 to 100 Mb/s", low=2.0, high=100.0, unit="Mbps", log=True),
    Unstated("edge_delay", "propagation delay of each of the three shared links (edge → core, "
             "core → egress, egress → destination); every flow's access delay follows so that "
             "its RTT stays the paper's", "5ms",
             "how the RTTs are built is not given; 5 ms is the reference examples' delay. "
             "Range: 1 ms to 6.5 ms, the most that leaves a 40 ms RTT room for its access link "
             "(2 × 3 × 6.67 ms = 40 ms); the scenario files' 20 ms cannot hold a 40 ms RTT",
             low=1.0, high=6.5, unit="ms"),
    Unstated("w_q", "RIO's averaging weight", "0.002",
             "not given; ns-2 dsRED's default (configQ) and Floyd & Jacobson's. Range: the "
             "scenario files' 0.001 to 0.02", low=0.001, high=0.02, log=True),
    Unstated("tcp_window", "TCP's maximum window (packets)", "20pkt",
             "not given; ns-2.28's default window_ (20 packets caps a 640 ms flow at 375 kb/s). "
             "Range: the scenario files' 20 to 1000 packets", low=20, high=1000, unit="pkt",
             log=True, integer=True, scenarios=TCP_SCENARIOS),
    Unstated("tcp_packet_size", "TCP's IP packet size", "1540B",
             "\"packet size is fixed to 1500 bytes\": ns-2's packetSize_ 1500 puts 1540 bytes on "
             "the wire (+40 of headers). Range: 1500 (the size read as the IP size) to 1540 B",
             low=1500, high=1540, unit="B", integer=True, scenarios=TCP_SCENARIOS),
)


def design_overrides(experiment: Experiment, point: Point, values: Mapping[str, str]) -> dict[str, str]:
    """A design point's shared delay, with the access delays that keep every flow's RTT."""
    if "edge_delay" not in values:
        return {}
    edge = float(values["edge_delay"].removesuffix("ms"))
    return delay_overrides(PANEL[str(point.labels["fig"])], edge)


# ---------------------------------------------------------------------------------------------
# Reading a view


def _exp(fig: str) -> str:
    return PANEL[fig].experiment


def _full(c: Checks, fig: str, flow: str, metric: str, from_s: int = 0) -> float | None:
    window = "steady" if from_s else "100 s"
    return c.mean(f"{fig} {flow} {metric} ({window})", _exp(fig), {"fig": fig, "from_s": from_s},
                  f"{flow}.{metric}")


def _thr(c: Checks, fig: str, flow: str) -> float | None:
    """Long-term throughput: the whole 100 s."""
    return _full(c, fig, flow, "thr_kbps")


def _steady(c: Checks, fig: str, flow: str) -> float | None:
    """Steady throughput: 20–100 s."""
    return _full(c, fig, flow, "thr_kbps", STEADY_FROM_S)


def _q(c: Checks, fig: str, metric: str) -> float | None:
    return c.mean(f"{fig} {metric}", _exp(fig), {"fig": fig, "from_s": 0}, metric)


def _resolved(c: Checks, fig: str, metric: str) -> bool | None:
    return c.seen(f"{fig} {metric}", _exp(fig), {"fig": fig, "from_s": 0}, metric)


@dataclass(frozen=True)
class Bin:
    """One bin of a flow's time series over the replications: the rate's mean and its
    variance over them (population: ÷ n; 0 for the null model's constant)."""

    t0: float
    t: float
    mean: float
    var: float


def series(view: View, fig: str, flow: str, metric: str = "rate_kbps") -> list[Bin] | None:
    """A flow's time series in a view; None when it did not run or has one replication
    (a spread needs two)."""
    rows = []
    for t0, t in series_bins():
        s = view.stat(f"{_exp(fig)}_t", {"fig": fig, "t": t}, f"{flow}.{metric}")
        if s is None or s.n == 0 or not math.isfinite(s.mean):
            return None
        if view.name == "null":
            var = 0.0
        elif s.n > 1 and math.isfinite(s.std):
            var = s.std ** 2 * (s.n - 1) / s.n
        else:
            return None
        rows.append(Bin(float(t0), float(t), s.mean, var))
    return rows


def _steady_bins(bins: Sequence[Bin]) -> list[Bin]:
    return [b for b in bins if b.t0 >= STEADY_FROM_S]


def pooled_rms(bins: Sequence[Bin], centre: float) -> float:
    """Root mean square distance of the rate from ``centre`` over every run and bin (equal
    bins): sqrt(mean over the bins of variance + (mean − centre)²)."""
    return math.sqrt(sum(b.var + (b.mean - centre) ** 2 for b in bins) / len(bins))


def variation(view: View, fig: str, flow: str) -> float | None:
    """The variation of a flow's instantaneous rate from 20 s on: its RMS distance from its
    mean over every run and bin (``pooled_rms``), ÷ that mean — a coefficient of variation."""
    bins = series(view, fig, flow)
    if bins is None:
        return None
    b = _steady_bins(bins)
    mean = sum(x.mean for x in b) / len(b)
    return pooled_rms(b, mean) / mean if mean > 0 else None


def rms_from_target(view: View, fig: str, flow: str, target: float) -> float | None:
    """The RMS distance of a flow's instantaneous rate from its target, from 20 s on, over
    every run and bin (``pooled_rms``)."""
    bins = series(view, fig, flow)
    return None if bins is None else pooled_rms(_steady_bins(bins), target)


def _record(c: Checks, name: str, value: float | None) -> float | None:
    """A number a claim computed itself (not a plain mean): recorded; None marks it missing."""
    c.measured[name] = value if value is not None else math.nan
    if value is None:
        c.missing = True
    return value


def _claim(fn: Callable[[Checks], None]) -> Callable[[View], ClaimResult]:
    """A claim body that fills a ``Checks``; returns the evaluator."""
    def evaluate(view: View) -> ClaimResult:
        c = Checks(view)
        fn(c)
        return c.result()
    return evaluate


def _within(a: float | None, b: float | None, rel: float) -> bool | None:
    """|a − b| ≤ rel·|b| (up to rounding: the paper's own pairs sit on the boundary)."""
    return None if a is None or b is None else abs(a - b) <= rel * abs(b) * (1 + EPS)


GTFRC_PANELS = tuple(p.fig for p in PANELS if p.of_kind("gTFRC"))


# ---------------------------------------------------------------------------------------------
# The claims


@_claim
def _gtfrc_reaches_target(c: Checks) -> None:
    for fig in GTFRC_PANELS:
        for f in PANEL[fig].of_kind("gTFRC"):
            c.that(gt(_steady(c, fig, f.name), f.target_kbps * (1 - SAME_THR)))


@_claim
def _tfrc_smoother_than_tcp(c: Checks) -> None:
    for fig in ("6a", "7a", "12a", "13a", "14a", "15a"):
        p = PANEL[fig]
        v_tfrc = [_record(c, f"{fig} {f.name} variation", variation(c.view, fig, f.name))
                  for f in p.of_kind("TFRC")]
        v_tcp = [_record(c, f"{fig} {f.name} variation", variation(c.view, fig, f.name))
                 for f in p.of_kind("TCP")]
        if None in v_tfrc or None in v_tcp:
            c.that(None)
            continue
        c.that(sum(v_tfrc) / len(v_tfrc) < sum(v_tcp) / len(v_tcp))  # type: ignore[arg-type]


def _drops(c: Checks, fig: str, tag: str) -> tuple[float | None, float | None]:
    """A colour's drops (ldrops + edrops) ÷ its arrivals, and how many were counted (None
    where the view has no counts: the null model)."""
    ld, ed = _q(c, fig, f"{tag}.ldrops"), _q(c, fig, f"{tag}.edrops")
    pt = {"fig": fig, "from_s": 0}
    counts = [c.view.total(_exp(fig), pt, f"{tag}.{col}.events") for col in ("ldrops", "edrops")]
    events = None if None in counts else sum(counts)  # type: ignore[arg-type]
    counted = c.view.stat(_exp(fig), pt, f"{tag}.ldrops.events")
    if events is not None and counted is not None:
        c.count(f"{fig} {tag} drops counted", events, counted.n)
    return (None if ld is None or ed is None else ld + ed), events


@_claim
def _out_losses(c: Checks) -> None:
    from afsim.reproduce.scoring import MIN_EVENTS

    for fig in ("4a", "4b", "6a", "6b", "10a", "10b"):
        out, events = _drops(c, fig, "out")
        c.that(out is not None and out > 0 if events is None else events >= MIN_EVENTS)
        c.that(gt(out, _drops(c, fig, "in")[0]))


@_claim
def _tfrc_rate_below_target(c: Checks) -> None:
    for fig in ("4a", "10a"):
        c.that(gt(_full(c, fig, "a", "x_below_share"), 0.0))


def _reach_quicker(fig_tfrc: str, fig_gtfrc: str) -> Callable[[View], ClaimResult]:
    @_claim
    def f(c: Checks) -> None:
        c.that(lt(_full(c, fig_gtfrc, "a", "reach_s"), _full(c, fig_tfrc, "a", "reach_s")))
    return f


@_claim
def _first_decrease_11s(c: Checks) -> None:
    t = _full(c, "4a", "a", "ss_exit_s")
    c.that(None if t is None else abs(t - 11.0) <= 0.5)


@_claim
def _gtfrc_not_below_target(c: Checks) -> None:
    for f in ("a", "b"):
        c.that(None if (x := _full(c, "4b", f, "x_below_share")) is None else x == 0.0)


@_claim
def _constrained_to_200(c: Checks) -> None:
    c.that(_within(_steady(c, "4b", "b"), 200.0, SAME_THR))


def _same_behaviour(fig_a: str, fig_b: str) -> Callable[[View], ClaimResult]:
    @_claim
    def f(c: Checks) -> None:
        for fl in PANEL[fig_a].flows:
            c.that(_within(_thr(c, fig_b, fl.name), _thr(c, fig_a, fl.name), SAME_THR))
    return f


@_claim
def _nearer_target(c: Checks) -> None:
    dev = {}
    for fig in ("5a", "5b"):
        total = 0.0
        for f in PANEL[fig].flows:
            d = _record(c, f"{fig} {f.name} RMS from target", rms_from_target(c.view, fig, f.name, f.target_kbps))
            total = math.nan if d is None else total + d
        dev[fig] = total
    c.that(None if math.isnan(dev["5a"] + dev["5b"]) else dev["5b"] < dev["5a"])


def _more_in_profile(fig_tfrc: str, fig_gtfrc: str) -> Callable[[View], ClaimResult]:
    @_claim
    def f(c: Checks) -> None:
        c.that(gt(_q(c, fig_gtfrc, "in.share_pct"), _q(c, fig_tfrc, "in.share_pct")))
    return f


@_claim
def _nearer_average(c: Checks) -> None:
    for f in PANEL["4a"].flows:
        ta, tb = _thr(c, "4a", f.name), _thr(c, "4b", f.name)
        c.that(None if ta is None or tb is None
               else abs(tb - f.target_kbps) < abs(ta - f.target_kbps))


@_claim
def _exactly_provisioned_guarantee(c: Checks) -> None:
    for fig in ("4b", "5b"):
        for f in PANEL[fig].flows:
            c.that(gt(_steady(c, fig, f.name), f.target_kbps * (1 - SAME_THR)))


@_claim
def _same_order(c: Checks) -> None:
    for tcp_fig, tfrc_fig in (("6a", "4a"), ("6b", "4b"), ("7a", "5a"), ("7b", "5b")):
        a, b = _thr(c, tcp_fig, "b"), _thr(c, tfrc_fig, "b")
        c.that(None if a is None or b is None or a <= 0 or b <= 0
               else max(a / b, b / a) <= ORDER_OF_MAGNITUDE)


@_claim
def _table2_similar(c: Checks) -> None:
    for t2, t1 in (("6a", "4a"), ("6b", "4b")):
        for tag in ("in", "out"):
            a, b = _q(c, t2, f"{tag}.share_pct"), _q(c, t1, f"{tag}.share_pct")
            c.that(None if a is None or b is None else abs(a - b) <= SIMILAR_SHARE + EPS)
            for col in ("ldrops", "edrops"):
                if (t2, tag, col) == ("6b", "out", "ldrops"):
                    continue  # the one the next sentence calls very high
                ra, rb = _resolved(c, t2, f"{tag}.{col}"), _resolved(c, t1, f"{tag}.{col}")
                if ra is None or rb is None:
                    c.that(None)
                elif ra and rb:
                    a, b = _q(c, t2, f"{tag}.{col}"), _q(c, t1, f"{tag}.{col}")
                    c.that(None if not a or not b else max(a / b, b / a) <= SIMILAR_LOSS + EPS)


@_claim
def _ldrops_very_high(c: Checks) -> None:
    high, t1 = _q(c, "6b", "out.ldrops"), _q(c, "4b", "out.ldrops")
    c.that(_resolved(c, "6b", "out.ldrops"))
    c.that(None if high is None or t1 is None else high > SIMILAR_LOSS * t1)


@_claim
def _figures_6_oscillate(c: Checks) -> None:
    for tcp_fig, tfrc_fig in (("6a", "4a"), ("6b", "4b")):
        v_tcp = _record(c, f"{tcp_fig} b (TCP) variation", variation(c.view, tcp_fig, "b"))
        v_tfrc = _record(c, f"{tfrc_fig} b (TFRC) variation", variation(c.view, tfrc_fig, "b"))
        c.that(gt(v_tcp, v_tfrc))


@_claim
def _tcp_tries_to_outperform(c: Checks) -> None:
    c.that(gt(_full(c, "6b", "b", "sent_kbps"), 200.0 * (1 + SAME_THR)))


@_claim
def _tcp_does_not_reach(c: Checks) -> None:
    for fig in ("8a", "8b"):
        c.that(lt(_steady(c, fig, "a"), PANEL[fig].flow("a").target_kbps * (1 - SAME_THR)))


@_claim
def _fig8a_around_200(c: Checks) -> None:
    thr = _steady(c, "8a", "a")
    c.that(None if thr is None else abs(thr - 200.0) <= 50.0)


@_claim
def _fig8b_oscillates_under(c: Checks) -> None:
    c.that(lt(_steady(c, "8b", "a"), 200.0))
    bins = series(c.view, "8b", "a")
    if bins is None:
        _record(c, "8b a share of the bins below 200 kb/s", None)
        return
    b = _steady_bins(bins)
    under = _record(c, "8b a share of the bins below 200 kb/s", sum(x.mean < 200.0 for x in b) / len(b))
    c.that(gt(under, 0.5))


@_claim
def _not_prejudicial_to_tcp(c: Checks) -> None:
    for fig in ("6a", "6b", "7a", "7b"):
        c.that(gt(_steady(c, fig, "b"), PANEL[fig].flow("b").target_kbps * (1 - SAME_THR)))


@_claim
def _fig10a_b_outperforms(c: Checks) -> None:
    c.that(gt(_steady(c, "10a", "b"), 200.0 * (1 + SAME_THR)))


@_claim
def _fig10a_a_does_not_reach(c: Checks) -> None:
    c.that(lt(_steady(c, "10a", "a"), 600.0 * (1 - SAME_THR)))


@_claim
def _fig10b_reaches(c: Checks) -> None:
    c.that(gt(_steady(c, "10b", "a"), 600.0 * (1 - SAME_THR)))


def _tcp_not_disturbed(fig_tfrc: str, fig_gtfrc: str, tcp: str) -> Callable[[Checks], None]:
    def check(c: Checks) -> None:
        a, b = _thr(c, fig_tfrc, tcp), _thr(c, fig_gtfrc, tcp)
        c.that(None if a is None or b is None else b >= a * (1 - SAME_THR))
    return check


def _tcp_most_aggressive(fig: str) -> Callable[[Checks], None]:
    def check(c: Checks) -> None:
        c.that(gt(_full(c, fig, "b", "thr_over_target"), _full(c, fig, "a", "thr_over_target")))
    return check


@_claim
def _fig12_tcp_not_disturbed(c: Checks) -> None:
    _tcp_not_disturbed("12a", "12b", "b")(c)


@_claim
def _fig12_tcp_most_aggressive(c: Checks) -> None:
    for fig in ("12a", "12b"):
        _tcp_most_aggressive(fig)(c)


@_claim
def _fig12_two_times(c: Checks) -> None:
    for fig in ("12a", "12b"):
        r = _full(c, fig, "b", "thr_over_target", STEADY_FROM_S)
        c.that(None if r is None else abs(r - 2.0) <= 0.5)


@_claim
def _fig13_confirms(c: Checks) -> None:
    _tcp_not_disturbed("13a", "13b", "b")(c)
    for fig in ("13a", "13b"):
        _tcp_most_aggressive(fig)(c)


@_claim
def _fig13_standard_algorithm(c: Checks) -> None:
    floor = _full(c, "13b", "a", "x_floor_share")
    c.that(None if floor is None else floor <= 1 - ALMOST)


@_claim
def _fig14_tcp_not_disturbed(c: Checks) -> None:
    _tcp_not_disturbed("14a", "14b", "one")(c)


@_claim
def _table4_tcp_same(c: Checks) -> None:
    c.that(_within(_thr(c, "14b", "one"), _thr(c, "14a", "one"), SAME_THR))


@_claim
def _fig15_gtfrc_better(c: Checks) -> None:
    d = {fig: _record(c, f"{fig} one RMS from 400 kb/s", rms_from_target(c.view, fig, "one", 400.0))
         for fig in ("15a", "15b")}
    c.that(lt(d["15b"], d["15a"]))


@_claim
def _table5_similar(c: Checks) -> None:
    c.that(_within(_thr(c, "15b", "one"), _thr(c, "15a", "one"), SAME_THR))


# ---------------------------------------------------------------------------------------------
# Statements

_ABS, _INTRO, _RW = "Abstract", "§1 Introduction", "§2.2 Related work"
_PS, _IMPL, _EV, _SM = "§3.1 Problem statement", "§3.2 Implementation", "§4", "§4.1"
_E1, _E2, _E3, _E4, _E5 = "§4.2.1", "§4.2.2", "§4.3", "§4.4", "§4.5"
_CONC = "§5 Conclusions"
_OTHER = "reports another study's result in that study's setting, which this paper does not simulate"
_STEADY = "steady throughput (20–100 s)"
_VAR = ("coefficient of variation of the instantaneous (4-s) rate from 20 s on, over every "
        "run and bin")

STATEMENTS: tuple[Statement, ...] = (
    # -- abstract -------------------------------------------------------------------------------
    Statement("abs-as", "The resulting Assured Service (AS) provides a minimum level of throughput "
              "guarantee.", _ABS, Kind.NOT_CHECKABLE,
              "what the AF class is for (RFC 2597), not a result of the paper"),
    Statement("abs-modifies", "The proposed approach modifies TFRC to take into account the QoS "
              "negotiated.", _ABS, Kind.IDENTITY, "gTFRC's definition (target_rate of a TFRC flow)"),
    Statement("abs-reach", "This mechanism, named gTFRC, is able to reach the minimum throughput "
              "guarantee whatever the flow's RTT and target rate.", _ABS, Kind.CLAIM,
              f"every gTFRC flow of every (b) panel (Figs. 4–7, 9–15): {_STEADY} ≥ its target "
              "− 2.71 % (the paper's 'same')", _gtfrc_reaches_target),
    Statement("abs-efficiency", "Simulation measurements show the efficiency of this mechanism "
              "either in over-provisioned or exactly-provisioned network.", _ABS,
              Kind.RESTATEMENT, "the efficiency is reaching the target rate", restates="abs-reach"),
    Statement("abs-with-tcp", "In addition, we show that the gTFRC mechanism can be used in the "
              "same DiffServ/AF class with TCP or TFRC flows.", _ABS, Kind.RESTATEMENT,
              "§4.2.2's conclusion on Figs. 6–8", restates="e2-not-prejudicial"),
    # -- introduction ---------------------------------------------------------------------------
    Statement("intro-af", "the Assured Forwarding class of the IETF/DiffServ [12] provides a "
              "guaranteed minimal throughput that many applications can take advantage of.",
              _INTRO, Kind.NOT_CHECKABLE, "what the AF class is for (RFC 2597)"),
    Statement("intro-smoother", "TFRC has a much lower variation of throughput over time than TCP.",
              _INTRO, Kind.CLAIM,
              f"every TFRC-against-TCP panel with plain TFRC (6a, 7a, 12a, 13a, 14a, 15a): the TFRC "
              f"flows' mean {_VAR} below the TCP flows' ('much' has no number and is not tested)",
              _tfrc_smoother_than_tcp),
    Statement("intro-good-properties", "We show by simulation the good properties of classical "
              "TFRC in terms of bandwidth smoothing and sharing when it is mixed with either other "
              "TFRC or TCP flows.", _INTRO, Kind.NOT_CHECKABLE,
              "'good properties' has no measure; the smoothing is intro-smoother's"),
    Statement("intro-depends", "the throughput obtained by TFRC mainly depends on RTT and loss "
              "probability.", _INTRO, Kind.IDENTITY,
              "TFRC computes its rate from the TCP throughput equation (RFC 5348 §3.1)"),
    Statement("intro-not-always", "Then, the application does not always get the negotiated "
              "guaranteed throughput also called the target rate.", _INTRO, Kind.RESTATEMENT,
              "Fig. 10 (a)'s 600 kb/s flow", restates="e3-10a-a"),
    Statement("intro-gtfrc", "we propose a very simple adaptation to TFRC, namely gTFRC, allowing "
              "the application to reach its target rate whatever the RTT value of the "
              "application's flow.", _INTRO, Kind.RESTATEMENT, "the abstract's claim",
              restates="abs-reach"),
    Statement("intro-campaign", "Results from a large simulation campaign is presented to "
              "demonstrate the improvements and to exhibit the TCP- friendliness of gTFRC in "
              "various situations.", _INTRO, Kind.NOT_CHECKABLE, "an announcement of §4"),
    # -- related work ---------------------------------------------------------------------------
    Statement("rw-25", "In an overprovisioned network, target rates are achieved regardless of "
              "these five factors.", _RW, Kind.NOT_CHECKABLE, f"[25]: {_OTHER}"),
    Statement("rw-9", "This result is corroborated by [9].", _RW, Kind.NOT_CHECKABLE, f"[9]: {_OTHER}"),
    Statement("rw-excess", "However, the distribution of the excess bandwidth depends on these "
              "five factors.", _RW, Kind.NOT_CHECKABLE, f"[25], [9]: {_OTHER}"),
    Statement("rw-21", "Recently [21] demonstrates the unfair allocation of out-of-profile TCP "
              "traffic and concludes that the aggregate that has the smaller/larger target rate, "
              "occupies more/less bandwidth than its fair-share regardless of the subscription "
              "level.", _RW, Kind.NOT_CHECKABLE, f"[21]: {_OTHER}"),
    Statement("rw-only-conditioners", "the only meaning to obtain a service differentiation with "
              "TCP protocol is to use DiffServ traffic conditioners", _RW, Kind.NOT_CHECKABLE,
              "an argument, no quantity"),
    Statement("rw-conditioner", "The behavior of the traffic conditioner has a great impact on "
              "the service level, in terms of bandwidth, obtained by TCP flows.", _RW,
              Kind.NOT_CHECKABLE, f"[2], [7], [10], [16]–[18], [20]: {_OTHER}; the paper uses one "
              "conditioner"),
    Statement("rw-trio", "In these articles, it is clearly shown that the key of the problem is "
              "the valued trio (loss_probability, RTT, target_rate) of a TCP flow.", _RW,
              Kind.NOT_CHECKABLE, f"the articles cited: {_OTHER}"),
    Statement("rw-14", "So, this duration allows a TFRC flow to converge easily to the target "
              "rate and, as a result, obtain an average throughput near the target rate.", _RW,
              Kind.NOT_CHECKABLE, f"[14]'s 1000-s simulations: {_OTHER}"),
    # -- §3.1 -----------------------------------------------------------------------------------
    Statement("ps-aimd", "the AIMD principle do not use the instantaneous TCP throughput as an "
              "input value for its congestion control.", _PS, Kind.IDENTITY,
              "TCP's congestion control (the TCP model)"),
    Statement("ps-tfrc-inputs", "TFRC congestion protocol uses this value in conjunction with the "
              "RTT and the loss event of the flow", _PS, Kind.IDENTITY,
              "RFC 5348's sender (transport::tfrc)"),
    Statement("ps-smooth", "These values are used in order to give a smooth rate adaptation to "
              "the flow", _PS, Kind.RESTATEMENT, "the smoothness claim",
              restates="intro-smoother"),
    Statement("ps-in-profile", "In the event of congestion in the network, the packets of this "
              "part are marked like inadequate for loss (colored green or marked in-profile);",
              _PS, Kind.IDENTITY, "the two-colour token bucket marker"),
    Statement("ps-out-first", "They are conveyed by the network on the principle of "
              "\"best-effort\" (BE) and are dropped first if a congestion occurs.", _PS,
              Kind.IDENTITY, "RIO's out-profile curve (10, 20, 0.1) lies below the in-profile one "
              "(20, 40, 0.02) by construction; what is lost is ps-out-losses"),
    Statement("ps-provisioned", "We assume that the network is well-provisioned and that the "
              "whole in-profile traffic does not exceed the resource allocated to the AF class.",
              _PS, Kind.IDENTITY, "the experiments' design: the targets add up to 1000 or 800 kb/s"),
    Statement("ps-out-losses", "If the network becomes congestioned, many out-of-profile losses "
              "occur", _PS, Kind.CLAIM,
              "the tabled panels (4a, 4b, 6a, 6b, 10a, 10b): out-profile drops (ldrops + edrops) "
              "resolved (≥ 10) and, ÷ the colour's arrivals, above in-profile's", _out_losses),
    Statement("ps-below-target", "the optimal rate estimated by TFRC could be under the target "
              "rate requested by the application.", _PS, Kind.CLAIM,
              "the paper's own cases, Figs. 4 (a) and 10 (a): the 640 ms TFRC flow's computed "
              "rate X spends some time below its target after slow start", _tfrc_rate_below_target),
    Statement("ps-halving", "TCP would react in a same manner by halving its congestion window.",
              _PS, Kind.IDENTITY, "NewReno's response to a loss (the TCP model)"),
    Statement("ps-not-aware", "the TFRC flow is not aware that the loss is corresponding to an "
              "out-of-profile packet", _PS, Kind.IDENTITY,
              "the TFRC receiver counts losses, not colours"),
    Statement("ps-send-under", "In order to avoid this case and allow to TFRC to send always "
              "under its target rate, we propose to make the sending rate estimator aware of the "
              "target rate.", _PS, Kind.NOT_CHECKABLE,
              "a motivation ('under' for 'over'); what gTFRC does is ps-max"),
    Statement("ps-max", "This is achieved by computing the sending rate as the maximum between the "
              "TFRC rate estimation and the target rate.", _PS, Kind.IDENTITY,
              "gTFRC's definition (transport::tfrc; the ns2 preset follows Fig. 1 as printed)"),
    Statement("ps-conformance", "the application's flow is sent in conformance with the "
              "negotiated QoS", _PS, Kind.RESTATEMENT, "reaching the target", restates="abs-reach"),
    Statement("ps-friendly", "while staying TCPfriendly in its out-profile part.", _PS,
              Kind.RESTATEMENT, "§4.2.2's check of it", restates="e2-not-prejudicial"),
    # -- §3.2 -----------------------------------------------------------------------------------
    Statement("impl-socket", "We assume it is configured at socket creation time, directly by the "
              "application.", _IMPL, Kind.IDENTITY, "a flow's target_rate in the scenario"),
    Statement("impl-ns2", "In order to evaluate the proposition, we use the TFRC code issue from "
              "ns-2 simulator.", _IMPL, Kind.IDENTITY,
              "preset = \"ns2\" (ns-2.35's code; the paper's ns-2.28 differs in slow start)"),
    Statement("impl-ss", "We can see on this algorithm that this maximum value is not applied "
              "during the TFRC slow-start period in order to stay friendly with the others TFRC "
              "or TCP flows.", _IMPL, Kind.IDENTITY,
              "Fig. 1's rule, unit-tested in transport::tfrc"),
    # -- §4, §4.1 -------------------------------------------------------------------------------
    Statement("ev-ns228", "We use ns-2.28 simulator and the Nortel DiffServ implementation [22].",
              _EV, Kind.IDENTITY, "the simulator of its era: afsim's ns2 presets (ns-2.35's "
              "TFRC; ns-2.28's TCP defaults) and the Nortel module's marker and RIO"),
    Statement("ev-scenarios", "when the network is exactly-provisioned (when there is no excess "
              "bandwidth for the out-profile traffic) and when the network is over-provisioned "
              "(when there is excess bandwidth).", _EV, Kind.IDENTITY, "the experiments' design"),
    Statement("ev-under", "As a network under-provisioned (in this case, the amount of in-profile "
              "traffic is higher than the resource allocated to the AF class) is considered as a "
              "wrong dimensioned network, we exclude this case.", _EV, Kind.NOT_CHECKABLE,
              "a choice of scope"),
    Statement("sm-21", "they show that if a network is exactly-provisioned, there is no bias in "
              "favor of a flow or an aggregate that has a smaller target rate.", _SM,
              Kind.NOT_CHECKABLE, f"[21]: {_OTHER}"),
    Statement("sm-21-infer", "they infer that the unfairness problem can be solved by making the "
              "networks exactly-provisioned by simply adjusting the target rates of the token "
              "bucket marker in order to get a proportional differentiation.", _SM,
              Kind.NOT_CHECKABLE, f"[21]: {_OTHER}"),
    Statement("sm-closed", "This assertion is strongly closed to the RTT and the loss probability "
              "of the network.", _SM, Kind.NOT_CHECKABLE, "no quantity"),
    Statement("sm-packet", "packet size is fixed to 1500 bytes;", _SM, Kind.IDENTITY,
              "the scenarios' packet sizes"),
    Statement("sm-newreno", "TCP version used is NewReno;", _SM, Kind.IDENTITY, "variant = \"newreno\""),
    Statement("sm-marker", "we use a two color token bucket marker with a bucket size of 10⁴ bytes;",
              _SM, Kind.IDENTITY, "token_bucket, depth 10000B, per flow"),
    Statement("sm-rio", "the queues size are 50 packets and RIO parameters are", _SM, Kind.IDENTITY,
              "limit 50pkt; RIO (10, 20, 0.1, 20, 40, 0.02)"),
    Statement("sm-bottleneck", "the bottleneck between the core and the egress router is "
              "1000Kbits/s;", _SM, Kind.IDENTITY, "core → egress at 1000 kb/s"),
    Statement("sm-duration", "measurements are carried during 100sec.", _SM, Kind.IDENTITY,
              "duration = 100 s (the mode's budget)"),
    Statement("sm-server-side", "For each experiment, we evaluate the throughput at the server "
              "side and draw on the figures the instantaneous throughput and the cumulative "
              "average throughput.", _SM, Kind.IDENTITY,
              "the throughput metrics (bits the receiver got) and the time series"),
    Statement("sm-rtt-large", "In a DiffServ multi-domain network, such the EuQoS network, RTTs "
              "difference between flows could be very large.", _SM, Kind.NOT_CHECKABLE,
              "a hedge about networks the paper does not simulate"),
    Statement("sm-fig3", "the flow emitted between both end-system A1 and A2 should have an RTT "
              "higher than the flow emitted between A1 and C1.", _SM, Kind.NOT_CHECKABLE,
              "Fig. 3 is an illustration, not simulated"),
    Statement("sm-600", "we have chosen to compare flows with an high RTT difference (i.e., "
              "600ms).", _SM, Kind.IDENTITY, "640 ms − 40 ms"),
    # -- §4.2.1 ---------------------------------------------------------------------------------
    Statement("e1-many", "We made experiments with many different RTTs and target rates "
              "configuration and give in this part a representative measurement of the efficiency "
              "of gTFRC.", _E1, Kind.NOT_CHECKABLE, "experiments the paper does not show"),
    Statement("e1-setup-a", "The first one has a non favorable conditions since it has the highest "
              "target rate to reach and a high RTT (RTT = 640ms, TR = 800Kbits/s).", _E1,
              Kind.IDENTITY, "Fig. 4's flow a"),
    Statement("e1-setup-b", "The second flow has the lowest target rate (200Kbits/s) and a low RTT "
              "(40ms).", _E1, Kind.IDENTITY, "Fig. 4's flow b"),
    Statement("e1-quicker", "We can see that gTFRC allows to reach the target rate more quickly "
              "than with TFRC.", _E1, Kind.CLAIM,
              "Fig. 4, flow a (640 ms, 800 kb/s): the first instant at or after its slow-start "
              "exit at which its computed rate X ≥ 800 kb/s is earlier in (b) than in (a) (the run's "
              "end when never; both slow starts are the same run until the exit)",
              _reach_quicker("4a", "4b")),
    Statement("e1-reason", "The reason is obvious since at the first rate decrease evaluation of "
              "the algorithm, gTFRC evaluates a rate equal to the target rate.", _E1, Kind.IDENTITY,
              "Fig. 1's rule (rate_ = gtfrc_ when the equation's rate is not above it), "
              "unit-tested in transport::tfrc"),
    Statement("e1-t11", "On figure 4 (a), we can see that this case of decreasing occurs for TFRC "
              "at t = 11sec", _E1, Kind.CLAIM,
              "Fig. 4 (a), flow a: its first rate decrease (first report of a loss, ending slow "
              "start) within 11 ± 0.5 s (the paper prints whole seconds)", _first_decrease_11s),
    Statement("e1-not-lower", "and that gTFRC does not calculate a rate lower than the negotiated "
              "target rate on figure 4 (b).", _E1, Kind.CLAIM,
              "Fig. 4 (b), both flows: no time with the computed rate X below the target from the "
              "first change of X after the slow-start exit (Fig. 1 applies the target from there)",
              _gtfrc_not_below_target),
    Statement("e1-constrained", "Figure 4 (b) shows that the flow with the lowest target rate and "
              "the lowest RTT is constrained to reach its own target rate of 200Kbits/s.", _E1,
              Kind.CLAIM, f"Fig. 4 (b), flow b: {_STEADY} within 2.71 % of 200 kb/s",
              _constrained_to_200),
    Statement("e1-same-behaviour", "This experiment shows that the gTFRC algorithm keeps the same "
              "behavior than TFRC in ideal condition.", _E1, Kind.CLAIM,
              "Fig. 5: each flow's long-term throughput in (b) within 2.71 % of (a)'s",
              _same_behaviour("5a", "5b")),
    Statement("e1-nearer", "Figures 5 present the results obtained and show that in case of using "
              "gTFRC, the instantaneous throughput stays nearer to the target rate than TFRC.", _E1,
              Kind.CLAIM, "Fig. 5: the two flows' RMS distance of the instantaneous (4-s) rate from "
              "the target, from 20 s on and over the replications, summed, smaller in (b)",
              _nearer_target),
    Statement("t1-def", "Table 1 presents the packets statistics gathered during the simulation on "
              "figures 4 with ldrops for packets dropped due to link overflow and edrops for RED "
              "dropping.", _E1, Kind.IDENTITY,
              "the metrics' definition; ns-2 counts RIO's forced drops in ldrops too (module "
              "header)"),
    Statement("t1-more-in", "We can see that gTFRC increases the number of in-profile packets in "
              "the network.", _E1 + ", Table 1", Kind.CLAIM,
              "Table 1: in-profile share of the bottleneck's arrivals higher in (b) than in (a)",
              _more_in_profile("4a", "4b")),
    Statement("t1-near-target", "As a result, gTFRC gives an average throughput for each flow near "
              "their target rate since there are less out-profile packets in the network.",
              _E1 + ", Table 1", Kind.CLAIM,
              "Fig. 4: each flow's long-term throughput nearer its target in (b) than in (a)",
              _nearer_average),
    Statement("e1-compliant", "These two measurements allow to conclude that gTFRC is DiffServ "
              "compliant and allow to get a throughput guarantee in the standard … DiffServ AF "
              "class in case of exactly-provisioned network.", _E1, Kind.CLAIM,
              f"Figs. 4 (b) and 5 (b), every flow: {_STEADY} ≥ its target − 2.71 %",
              _exactly_provisioned_guarantee),
    Statement("e1-tb", "Moreover, a simple token bucket color marker seems to be able to "
              "characterize gTFRC flows.", _E1, Kind.NOT_CHECKABLE, "a hedge ('seems'), no measure"),
    # -- §4.2.2 ---------------------------------------------------------------------------------
    Statement("e2-built", "TFRC has been built in order to be TCP-friendly.", _E2,
              Kind.NOT_CHECKABLE, "a design intent; no experiment compares TFRC with TCP under "
              "the same conditions"),
    Statement("e2-def", "A flow is considered TCPfriendly or TCP-compatible when its long-term "
              "throughput does not exceed the throughput of a conformant TCP connection under the "
              "same conditions [8].", _E2, Kind.IDENTITY, "a definition"),
    Statement("e2-change", "In case of a DiffServ network, this behavior can change due to the "
              "network conditioning.", _E2, Kind.NOT_CHECKABLE, "a hedge ('can')"),
    Statement("e2-aim", "Indeed, the aim of a DiffServ network is to operate a differentiation "
              "between flows and not to share in a fair manner the bandwidth.", _E2,
              Kind.NOT_CHECKABLE, "the architecture's purpose"),
    Statement("e2-in-out", "it is not TCP-friendly in its in-profile part but it must remain "
              "TCP-friendly in its out-profile part.", _E2, Kind.NOT_CHECKABLE,
              "a requirement; what the paper checks for it is e2-not-prejudicial"),
    Statement("e2-same-scenario", "we keep the same network scenario than in the previous part but "
              "we compare TFRC and gTFRC with a TCP flow.", _E2, Kind.IDENTITY,
              "tfrc-tcp.toml is two-tfrc.toml with flow b NewReno"),
    Statement("e2-behaviour", "we can see that the behavior of the TCP flow … is similar to the "
              "TFRC flow", _E2, Kind.NOT_CHECKABLE,
              "'behavior' without a measure; the sentence's number is e2-order"),
    Statement("e2-order", "and that the long-term throughput has the same order of magnitude.",
              _E2, Kind.CLAIM,
              "TCP flow b of Figs. 6 (a), 6 (b), 7 (a), 7 (b) against TFRC flow b of Figs. 4 (a), "
              "4 (b), 5 (a), 5 (b): long-term throughputs within a factor √10", _same_order),
    Statement("t2-similar", "These statistics are similar to these related on table 1.",
              _E2 + ", Table 2", Kind.CLAIM,
              "Table 2 against Table 1, (a) with (a) and (b) with (b): packet shares within 3.06 "
              "points; ldrops and edrops within a factor 2.05 where both are resolved (≥ 10 drops), "
              "but for (b)'s out-profile ldrops (the next sentence)", _table2_similar),
    Statement("t2-very-high", "Nevertheless, we can see on table 2 (b) that the ldrops value is "
              "very high.", _E2 + ", Table 2", Kind.CLAIM,
              "Table 2 (b): out-profile ldrops resolved and more than 2.05 × Table 1 (b)'s (beyond "
              "what the previous sentence calls similar)", _ldrops_very_high),
    Statement("t2-aggressive", "This is due to the aggressive nature of TCP which tries to always "
              "reach a better throughput.", _E2, Kind.NOT_CHECKABLE, "an explanation"),
    Statement("e2-oscillation", "This explains the oscillation of both figures 6.", _E2, Kind.CLAIM,
              f"Fig. 6 (a) and (b): the TCP flow b's {_VAR} above that of the TFRC flow in its "
              "place in Fig. 4 (a) and (b)", _figures_6_oscillate),
    Statement("e2-outperform", "On figure 6 (b), since it has the best condition to release it "
              "(lower target rate and lower RTT), TCP tries to outperform its target rate", _E2,
              Kind.CLAIM, "Fig. 6 (b): TCP's sending rate (bits sent ÷ 100 s) above 200 kb/s + 2.71 %",
              _tcp_tries_to_outperform),
    Statement("e2-out-packets", "and as a result, generates a high number of out-profile packets.",
              _E2, Kind.NOT_CHECKABLE,
              "'high' has no threshold; Table 2 (b)'s out-profile share, 9.84 %, is the lower of "
              "Table 2's two"),
    Statement("e2-tcp-not-reach", "We can see that TCP does not reach … its target rate even if "
              "the network is exactly-provisioned in case of high RTT difference.", _E2 + ", Fig. 8",
              Kind.CLAIM, f"Fig. 8 (a) and (b): the 640 ms flow a's {_STEADY} below its target "
              "− 2.71 %", _tcp_does_not_reach),
    Statement("e2-8a", "On figure 8 (a), the flow which requests a target rate of 800Kbits/s "
              "obtains a throughput around 200Kbits/s.", _E2 + ", Fig. 8", Kind.CLAIM,
              f"Fig. 8 (a), flow a: {_STEADY} within 200 ± 50 kb/s (one significant digit)",
              _fig8a_around_200),
    Statement("e2-8b", "If the highest RTT flow requests the lowest target rate, we can see on "
              "figure 8 (b) that this flow has difficulties to reach its target rate and that it "
              "oscillates under this value.", _E2 + ", Fig. 8", Kind.CLAIM,
              f"Fig. 8 (b), flow a: {_STEADY} below 200 kb/s, and its mean instantaneous (4-s) rate "
              "below 200 kb/s in more than half of the bins from 20 s on", _fig8b_oscillates_under),
    Statement("e2-analytical", "In [24] and [19], analytical studies show that it is not always "
              "possible to achieve service differentiation with a simple token bucket in certain "
              "conditions.", _E2, Kind.NOT_CHECKABLE, f"[24], [19]: {_OTHER}"),
    Statement("e2-no-effect", "This example illustrates the case where the token bucket "
              "parameters has no effect for TCP flows on the desired target rate as raised in "
              "these studies.", _E2, Kind.RESTATEMENT, "TCP does not reach its target in Fig. 8",
              restates="e2-tcp-not-reach"),
    Statement("e2-not-prejudicial", "If we compare with figures 6 and 7, these results allow to "
              "verify that the use of gTFRC and TFRC flows in the same DiffServ class is not "
              "prejudicial for the TCP flows.", _E2, Kind.CLAIM,
              f"Figs. 6 and 7, (a) and (b): the TCP flow's {_STEADY} above its target − 2.71 %, "
              "where Fig. 8's 640 ms TCP flow does not reach its own. (Not: at least as much as "
              "Fig. 8's 40 ms TCP flow; by the paper's own words that one gets about 800 kb/s "
              "beside a 200 kb/s flow in Fig. 8 (a), more than a gTFRC flow at 800 kb/s leaves "
              "it in Fig. 6 (b))", _not_prejudicial_to_tcp),
    # -- §4.3 -----------------------------------------------------------------------------------
    Statement("e3-20", "We present measurement where the network let 20%of unallocated bandwidth.",
              _E3, Kind.IDENTITY, "the targets add up to 800 kb/s"),
    Statement("e3-9-setup", "Both flows have an RTT equal to 250ms and two different target rates "
              "of 700Kbits/s and 100Kbits/s.", _E3 + ".1", Kind.IDENTITY, "Fig. 9's flows"),
    Statement("e3-9-quicker", "We can see that gTFRC reaches its target rate quicker than TFRC.",
              _E3 + ".1", Kind.CLAIM,
              "Fig. 9, flow a (700 kb/s): the first instant at or after its slow-start exit at "
              "which X ≥ its target is earlier in (b) than in (a)", _reach_quicker("9a", "9b")),
    Statement("e3-9-reason", "if the throughput returned by the TFRC equation is lower to the "
              "target rate due to the loss event evaluation, gTFRC uses the target rate as optimal "
              "rate.", _E3 + ".1", Kind.IDENTITY, "gTFRC's rule"),
    Statement("e3-10-setup", "we switch between two target rates of 600Kbits/s and 200Kbits/s and "
              "two RTTs of 640msand 40ms.", _E3 + ".2", Kind.IDENTITY, "Figs. 10–11's flows"),
    Statement("e3-10-worst", "On figures 10, one flow is in the worst condition to reach its target "
              "rate. It has the highest RTT and target rate.", _E3 + ".2", Kind.IDENTITY,
              "Fig. 10's flow a (640 ms, 600 kb/s)"),
    Statement("e3-10a-b", "On figure 10 (a), we can see that the flow with the lowest RTT and "
              "target rate (200Kbits/s and 40ms) outperforms its target rate", _E3 + ".2",
              Kind.CLAIM, f"Fig. 10 (a), flow b: {_STEADY} above 200 kb/s + 2.71 %",
              _fig10a_b_outperforms),
    Statement("e3-10a-a", "and that the other flow (600Kbits/sand 640ms) does not reach its target "
              "rate.", _E3 + ".2", Kind.CLAIM, f"Fig. 10 (a), flow a: {_STEADY} below 600 kb/s − 2.71 %",
              _fig10a_a_does_not_reach),
    Statement("e3-tb", "it seems that the token bucket marker is not a good traffic descriptor for "
              "the TFRC flows too.", _E3 + ".2", Kind.NOT_CHECKABLE, "a hedge ('seems'), no measure"),
    Statement("e3-10b", "figure 10 (b) shows that gTFRC allows to enforce the desired target rate "
              "and that the gTFRC flow is able to reach its target rate.", _E3 + ".2", Kind.CLAIM,
              f"Fig. 10 (b), flow a: {_STEADY} at least 600 kb/s − 2.71 %", _fig10b_reaches),
    Statement("t3-more-in", "Table 3 gives packets statistics for this experiment and shows that "
              "gTFRC increases the number of in-profile packets in the network.", _E3 + ".2, Table 3",
              Kind.CLAIM, "Table 3: in-profile share higher in (b) than in (a)",
              _more_in_profile("10a", "10b")),
    Statement("e3-11", "Figures 11 deal with the reverse case and show that gTFRC has the same "
              "behavior than TFRC in ideal case.", _E3 + ".2", Kind.CLAIM,
              "Fig. 11: each flow's long-term throughput in (b) within 2.71 % of (a)'s",
              _same_behaviour("11a", "11b")),
    # -- §4.4 -----------------------------------------------------------------------------------
    Statement("e4-not-disturbed", "Figures 12 show that the TCP flow is not disturbed by the gTFRC "
              "flow", _E4, Kind.CLAIM,
              "Fig. 12: TCP's long-term throughput in (b) at least (a)'s − 2.71 %",
              _fig12_tcp_not_disturbed),
    Statement("e4-aggressive", "and remains the most aggressive in regard of its target rate.",
              _E4, Kind.CLAIM, "Fig. 12 (a) and (b): TCP's long-term throughput ÷ target above the "
              "(g)TFRC flow's", _fig12_tcp_most_aggressive),
    Statement("e4-two-times", "On both figures 12, TCP reaches a throughput about two times higher "
              "than its target rate.", _E4, Kind.CLAIM,
              f"Fig. 12 (a) and (b): TCP's {_STEADY} ÷ its target within 2 ± 0.5 (one significant "
              "digit; 'two times higher' read as twice)", _fig12_two_times),
    Statement("e4-13-confirm", "Figures 13 confirm this assumption.", _E4, Kind.CLAIM,
              "Fig. 13: TCP not disturbed ((b) at least (a) − 2.71 %) and the most aggressive for "
              "its target in (a) and (b)", _fig13_confirms),
    Statement("e4-13-identical", "Both figures 13 seem identical", _E4, Kind.CLAIM,
              "Fig. 13: each flow's long-term throughput in (b) within 2.71 % of (a)'s",
              _same_behaviour("13a", "13b")),
    Statement("e4-13-standard", "since the gTFRC flow has never been under its target rate during "
              "a long time, the TFRC standard algorithm is applied almost the whole experiment.",
              _E4, Kind.CLAIM,
              "Fig. 13 (b), flow a: X at or below its target (the floor applied) at most a tenth of "
              "the time from the first change after slow start ('almost' read as nine tenths)",
              _fig13_standard_algorithm),
    # -- §4.5 -----------------------------------------------------------------------------------
    Statement("e5-14-setup", "On scenario figure 14, TCP has a target rate of 400Kbits/s and each "
              "others four TFRC or gTFRC flows (respectively on figure 14 (a) and on figure 14 (a)) "
              "have a target rate 200Kbits/s, 100Kbits/s, 50Kbits/s, 50Kbits/s.", _E5,
              Kind.IDENTITY, "Fig. 14's flows"),
    Statement("e5-15-setup", "On figure 14, this is the TFRC or the gTFRC flow which has a target "
              "rate of 400Kbits/s and the four other TCP flows have a target rate of : "
              "200Kbits/s, 100Kbits/s, 50Kbits/s, 50Kbits/s.", _E5, Kind.IDENTITY,
              "Fig. 15's flows (the text says figure 14)"),
    Statement("e5-14-not-disturb", "Concerning TCP alone, figure 14 (b) shows that the four gTFRC "
              "flows do not disturb the behavior of the TCP flow and that its behavior is similar "
              "with the TFRC experiment on figure 14 (a).", _E5, Kind.CLAIM,
              "Fig. 14: TCP's long-term throughput in (b) at least (a)'s − 2.71 %",
              _fig14_tcp_not_disturbed),
    Statement("t4-same", "Table 4 gives the throughput obtained by each flow and we can see that "
              "TCP obtains the same throughput with TFRC or gTFRC.", _E5 + ", Table 4", Kind.CLAIM,
              "Table 4: TCP's long-term throughput in the two rows within 2.71 %", _table4_tcp_same),
    Statement("e5-15-better", "In the reverse case, figures 15 show that the instantaneous "
              "throughput with gTFRC is better than TFRC", _E5, Kind.CLAIM,
              "Fig. 15, the (g)TFRC flow (400 kb/s): RMS distance of its instantaneous (4-s) rate "
              "from 400 kb/s, from 20 s on, smaller in (b)", _fig15_gtfrc_better),
    Statement("t5-similar", "and table 5 shows that whether TFRC or gTFRC flows obtain a similar "
              "average throughput.", _E5 + ", Table 5", Kind.CLAIM,
              "Table 5: the (g)TFRC flow's long-term throughput in the two rows within 2.71 %",
              _table5_similar),
    Statement("e5-rtt", "In these experiments, all flows are the same RTT of 40ms.", _E5,
              Kind.IDENTITY, "Figs. 14–15's flows"),
    Statement("e5-more", "We have also made experiments with various RTT (confirmed by the previous "
              "experiments with two flows) and increased the number of flows and obtained similar "
              "results.", _E5, Kind.NOT_CHECKABLE, "experiments the paper does not show"),
    # -- conclusions ----------------------------------------------------------------------------
    Statement("conc-reach", "gTFRC allows to reach a minimum guarantee throughput whether the RTT "
              "or the target rate of a flow.", _CONC, Kind.RESTATEMENT, "the abstract's claim",
              restates="abs-reach"),
    Statement("conc-only-target", "It requires only the target rate negotiated by the application "
              "in order to become QoS aware.", _CONC, Kind.IDENTITY, "gTFRC's definition"),
    Statement("conc-demonstrated", "We have demonstrated through many … experiments its efficiency "
              "and that it can used in a standard AF/DiffServ class.", _CONC, Kind.RESTATEMENT,
              "the abstract's claim", restates="abs-reach"),
)


# ---------------------------------------------------------------------------------------------
# Figures 4–15: time series


def extra_figures(rep: Reproduction, out_dir: Path) -> dict[str, list[Path]]:
    """Figs. 4–15 as the paper draws them — each flow's instantaneous and cumulative
    average throughput at the server side over 0–100 s, panels (a) and (b) side by side — as
    PNG and SVG: afsim's mean over the replications (the cumulative average with its 95 %
    interval), each flow's target, and what the paper states about the figure where it states
    a value (Fig. 4a's t = 11 s, Fig. 8a's 200 kb/s, Fig. 12's twice the target, Tables 4–5's
    averages)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from afsim.reproduce.scoring import load_paper_values

    view = View(rep.aggregates)
    ns2_view = View(rep.ns2.aggregates, "ns-2") if rep.ns2 is not None else None
    values, _ = load_paper_values(rep.paper.data)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    written: dict[str, list[Path]] = {}
    for n in FIGURE_NUMBERS:
        panels = [PANEL[f"{n}a"], PANEL[f"{n}b"]]
        data = {(p.fig, f.name, m): _plain_series(view, p, f.name, m)
                for p in panels for f in p.flows for m in ("rate_kbps", "cum_kbps")}
        if any(v is None for v in data.values()):
            continue  # its time series did not run (--only, a smoke run)
        fig, axes = plt.subplots(1, 2, figsize=(13.0, 4.6), sharey=True)
        for ax, p in zip(axes, panels, strict=True):
            for k, f in enumerate(p.flows):
                colour = colours[k % len(colours)]
                rate, cum = data[(p.fig, f.name, "rate_kbps")], data[(p.fig, f.name, "cum_kbps")]
                assert rate is not None and cum is not None
                ax.stairs([s.mean for _, s in rate], [0.0, *(t for t, _ in rate)],
                          color=colour, linewidth=0.8, alpha=0.55)
                ax.plot([t for t, _ in cum], [s.mean for _, s in cum], color=colour,
                        linewidth=2.0, label=f.label)
                ax.fill_between([t for t, _ in cum], [s.low for _, s in cum],
                                [s.high for _, s in cum], color=colour, alpha=0.15, linewidth=0)
                ax.axhline(f.target_kbps, color=colour, linestyle=":", linewidth=1.0)
                ns2_cum = _plain_series(ns2_view, p, f.name, "cum_kbps") if ns2_view else None
                if ns2_cum is not None:
                    ax.plot([t for t, _ in ns2_cum], [s.mean for _, s in ns2_cum], color=colour,
                            linewidth=1.2, linestyle="--", marker="x", markersize=3,
                            label=f"{f.name}: ns-2 twin, cumulative")
            _mark_paper(ax, p, values, colours)
            ax.set_title(f"Fig. {p.fig[:-1]} ({p.fig[-1]}): {p.provisioning}-provisioned", fontsize=10)
            ax.set_xlabel("time (s)")
            ax.set_xlim(0, PAPER_SECONDS)
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="best")
        axes[0].set_ylabel("throughput at the receiver (kbit/s)")
        reps = min(rep.mode.replications, SERIES_REPLICATIONS)
        fig.suptitle(f"Fig. {n} reproduced: thin, the instantaneous rate (over 2 s to 20 s, 4 s "
                     f"after); thick, the cumulative average (95 % interval shaded); dotted, the "
                     f"targets; mean of {reps} run(s)\ndashed with crosses: ns-2's twin, cumulative "
                     f"(TFRC and TCP panels; gTFRC is not in ns-2)", fontsize=9)
        fig.tight_layout()
        paths = []
        for ext in ("png", "svg"):
            path = out_dir / f"fig{n:02d}.{ext}"
            fig.savefig(path, dpi=110 if ext == "png" else None)
            paths.append(path)
        plt.close(fig)
        written[f"fig{n:02d}"] = paths
    return written


def _plain_series(view: View, panel: Panel, flow: str, metric: str) -> list[tuple[float, core.Stat]] | None:
    rows = []
    for t in SERIES_TIMES:
        s = view.stat(f"{panel.experiment}_t", {"fig": panel.fig, "t": t}, f"{flow}.{metric}")
        if s is None or s.n == 0:
            return None
        rows.append((float(t), s))
    return rows


def _mark_paper(ax, panel: Panel, values, colours: Sequence[str]) -> None:  # noqa: ANN001 (matplotlib)
    """The paper's stated values for this panel: a time as a vertical line, a rate as a band
    (its tolerance), an average as a marker at 100 s."""
    names = [f.name for f in panel.flows]
    labelled = False
    for v in values:
        if v.point.get("fig") != panel.fig:
            continue
        flow = v.metric.split(".")[0]
        colour = colours[names.index(flow) % len(colours)] if flow in names else "black"
        target = panel.flow(flow).target_kbps if flow in names else 0.0
        if v.metric.endswith("ss_exit_s"):
            ax.axvline(v.value, color="black", linestyle="--", linewidth=1.0)
            ax.annotate(f"paper: {flow}'s rate decreases at t = {v.value:g} s", (v.value, 0),
                        textcoords="offset points", xytext=(4, 8), fontsize=7)
        elif v.metric.endswith("thr_over_target"):
            ax.axhspan((v.value - 0.5) * target, (v.value + 0.5) * target, color=colour, alpha=0.08)
            ax.annotate(f"paper: {flow} about {v.value:g}× its target", (2, (v.value + 0.5) * target),
                        textcoords="offset points", xytext=(0, -10), fontsize=7, color=colour)
        elif v.metric.endswith("thr_kbps") and v.table.startswith("Fig."):
            ax.axhspan(v.value - 50.0, v.value + 50.0, color=colour, alpha=0.08)
            ax.annotate(f"paper: {flow} around {v.value:g} kb/s", (2, v.value + 50.0),
                        textcoords="offset points", xytext=(0, -10), fontsize=7, color=colour)
        elif v.metric.endswith("thr_kbps"):
            ax.plot([PAPER_SECONDS], [v.value], marker="s", markerfacecolor="none", color=colour,
                    markersize=7, linestyle="none", clip_on=False,
                    label=f"paper: {v.table}'s averages (at 100 s)" if not labelled else None)
            labelled = True


# ---------------------------------------------------------------------------------------------
# The reproduction


# ---------------------------------------------------------------------------------------------
# The paper's own simulator: ns-2.28 with the Nortel DiffServ module (§4.1, ref. [22]); the twin
# runs ns-2.35 (afsim/ns2/gtfrc.tcl)

#: Each experiment's flows, in the scenario file's order, with their transport.
FLOW_KINDS = {"two_tfrc": (("a", "tfrc"), ("b", "tfrc")), "tfrc_tcp": (("a", "tfrc"), ("b", "tcp")),
              "two_tcp": (("a", "tcp"), ("b", "tcp")),
              "tcp_4_tfrc": (("one", "tcp"), *((f"x{i}", "tfrc") for i in range(4))),
              "tfrc_4_tcp": (("one", "tfrc"), *((f"x{i}", "tcp") for i in range(4)))}

NS2_DESCRIPTION = (
    "ns-2.35's Queue/dsRED (the Nortel DiffServ module the paper used, ref. [22]): a TokenBucket "
    "policy per flow at the edge (its target rate, 10^4-byte bucket), RIO-C with §4.1's curves at "
    "core -> egress, Agent/TFRC and Agent/TFRCSink with ns-2.35's defaults, Agent/TCP/Newreno "
    "with the scenario files' ns-2.28 settings, on the topology and values of afsim's "
    "scenarios/gtfrc/*.toml (afsim/ns2/gtfrc.tcl; the same parameters as each afsim run, seeds "
    "1…n as ns-2's RNG seed). TFRC and TCP panels run, and so do the time series (the run "
    "stopped at t). Not in ns-2: gTFRC (the paper's own modification of TFRC, §3.2), so every "
    "(b) panel of Figs. 4–7 and 9–15 with a gTFRC flow. The paper ran ns-2.28, whose TFRC slow "
    "start differs from ns-2.35's (docs/assumptions.md): the twin is ns-2.35, as afsim's ns2 "
    "preset. Measured differently from afsim: a TFRC sender's computed rate is its rate_ "
    "sampled every 10 ms (afsim records every change), and ns-2's ldrops per code point count "
    "overflow and forced drops together, so the twin's *.overflow is ldrops.")


def ns2_args(e: Experiment, overrides: Mapping[str, str], seed: int) -> list[str] | NotInNs2:
    """The ns-2 twin's arguments for one afsim run of ``e``, or why ns-2 cannot run it."""
    from afsim import ns2

    flows = FLOW_KINDS[e.id.removesuffix("_t")]
    p = ns2.scenario_params(e.scenario, overrides)
    gtfrc = [name for name, kind in flows if kind == "tfrc" and p.get(f"target_{name}", "none") != "none"]
    if gtfrc:
        return NotInNs2("gTFRC (§3.2, the paper's modification of TFRC) is not in ns-2")
    delays = [p[f"delay_{n}"] if f"delay_{n}" in p else p["delay"] for n, _ in flows]
    return [
        f"seed={seed}", f"duration={ns2.seconds(p['duration']):g}",
        f"warmup={ns2.seconds(p['warmup']):g}",
        "names=" + " ".join(n for n, _ in flows), "kinds=" + " ".join(k for _, k in flows),
        "targets=" + " ".join(f"{ns2.bits_per_second(p[f'tr_{n}']):.0f}" for n, _ in flows),
        "delays=" + " ".join(delays), f"edge_rate={ns2.rate(p['edge_rate'])}",
        f"edge_delay={p['edge_delay']}", f"w_q={float(p['w_q']):g}",
        f"tcp_size={int(p['tcp_packet_size'].removesuffix('B'))}" if "tcp_packet_size" in p else "tcp_size=1540",
        f"tcp_window={ns2.packets(p['tcp_window'])}" if "tcp_window" in p else "tcp_window=20",
    ]


def ns2_results(raw: dict[str, Any]) -> Any:
    """A gtfrc.tcl run in afsim's table shapes: flows (throughput over the measured interval,
    bytes sent and delivered, target), the bottleneck's colours (dsRED's counters per code
    point: ldrops as drops_overflow), the TFRC senders' sampled rate as their trace."""
    import pandas as pd

    from afsim import ns2

    flows = raw["flows"]
    end, warmup = float(raw["duration_s"]), float(raw["warmup_s"])
    table = ns2.flows_table(
        [f["name"] for f in flows], end - warmup, delivered_bytes=raw["delivered"],
        total_delivered_bytes=raw["total"],
        extra={"kind": [f["kind"] for f in flows], "bytes_sent": raw["sent"],
               "contract_kbps": [f["target_bps"] / 1000.0 for f in flows]})
    colours = pd.DataFrame([
        {"queue": BOTTLENECK, "level": level, "arrivals": c["arrivals"],
         "drops_overflow": c["other_drops"], "drops_early": c["early_drops"], "drops_forced": math.nan}
        for level, c in ((0, raw["bottleneck"]["10"]), (1, raw["bottleneck"]["12"]))])
    rows = raw.get("xrow", [])
    traces = pd.DataFrame({
        "flow": [flows[int(r[0])]["name"] for r in rows], "time_s": [r[1] for r in rows],
        "x_kbps": [8.0 * r[2] / 1000.0 for r in rows], "p": [r[3] for r in rows]})
    return ns2.Ns2Results(flows=table, colours=colours, tfrc_traces=traces, end_time_s=end,
                          summary={"warmup_s": warmup}, raw=raw)


TWIN = Twin("gtfrc.tcl", ns2_args, ns2_results, NS2_DESCRIPTION)


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, statements, published values, null model
    and unstated parameters; its figures are time series (``extra_figures``)."""
    return Paper(PAPER_ID, TITLE, CITATION, experiments(scenarios_dir), STATEMENTS, (), DATA,
                 null_model, NULL_DESCRIPTION, VARIANTS, UNSTATED,
                 design_overrides=design_overrides, extra_figures=extra_figures, ns2=TWIN)


def mode(quick: bool, budget: int | None = None, replications: int | None = None) -> Mode:
    """Full or quick mode (both the paper's 100 s; quick has fewer replications and design
    points), optionally with another number of replications. The budget is the paper's
    duration and is fixed: the time series stop at every 2 s of it."""
    import dataclasses

    base = QUICK if quick else FULL
    if budget is not None and budget != PAPER_SECONDS:
        raise ValueError(f"the gTFRC reproduction runs the paper's {PAPER_SECONDS} s; "
                         f"--budget {budget} does not apply")
    return dataclasses.replace(base, replications=replications or base.replications)
