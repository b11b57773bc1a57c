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
- **The figures' instantaneous and cumulative average throughput** (``*_t`` experiments): each
  flow's server-side rate over the bins (t0, t] — every 2 s to 20 s (slow start), every 4 s
  after — and its cumulative average over (0, t], read from one 100 s run's time series (the
  scenario files' ``[[monitor]] kind = "flows"``, every 2 s). A point (fig, t) still names
  ``duration = t`` and its warm-up at t0, the run stopped at t that measures exactly that bin
  (a run stopped at t is the longer run's prefix: same events, tested): the ns-2 twin runs
  those, and afsim reads the same numbers from the one run they share
  (``Experiment.one_run_without``, ``pick_series``). The claims about the instantaneous rate pool
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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce import core
from afsim.reproduce.core import Experiment, Mode, Point, Variant, prob
from afsim.reproduce.robustness import Unstated
from afsim.reproduce.twin import NotInNs2, Twin

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from afsim.results import Results


PAPER_ID = "gtfrc"
TITLE = "Jourjon, Lochin, Dairaine — gTFRC: a QoS-aware congestion control algorithm"
CITATION = ("G. Jourjon, E. Lochin, L. Dairaine, \"gTFRC: a QoS-aware congestion control "
            "algorithm\", International Conference on Networking (ICN'06), Mauritius, April "
            "2006, doi:10.1109/ICNICONSMCL.2006.109 (HAL hal-02550847; papers/003, quoted here); "
            "Tables 1–5, Figs. 4–15.")
DATA = Path(__file__).with_name("values.json")

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
#: The time series' bins' ends (s): every 2 s through slow start, every 4 s after (the
#: paper's figures read at this resolution).
SERIES_TIMES = (*range(2, 21, 2), *range(24, 101, 4))
#: The grid of the scenario files' flows monitor (s), which every bin is a whole number of.
SERIES_GRID_S = 2
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
        m |= prob(f"{tag}.ldrops", overflow + forced, n)
        m |= prob(f"{tag}.edrops", early - forced, n)
        m |= prob(f"{tag}.drops", overflow + early, n)
        m |= prob(f"{tag}.overflow", overflow, n)
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
    span = end - float((results.head if hasattr(results, "head") else results.summary).get("warmup_s", 0.0))
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
    """The time series of one run: each flow's rate over every bin (t0, t] of
    ``series_bins()`` and its cumulative average over (0, t], at the server side, as
    ``NAME.rate_kbps@T`` and ``NAME.cum_kbps@T`` (``pick_series`` hands each point its own).
    They are read from the run's ``[[monitor]] kind = "flows"`` (the scenario files sample
    every ``SERIES_GRID_S``), whose interval [t − 2 s, t) is exactly what a run stopped at t
    with its warm-up at t − 2 s measures (deliveries at t0 and after, none at t). A run without
    that series — the ns-2 twin's, which still stops its runs at t — gives the one bin it
    measured: ``NAME.rate_kbps`` over its measured interval and ``NAME.cum_kbps`` over the run."""
    series = getattr(results, "monitor_flows", None)
    if series is None or not len(series):
        end = results.end_time_s
        m: dict[str, float] = {}
        for _, f in results.flows.iterrows():
            name = str(f["name"])
            m[f"{name}.rate_kbps"] = float(f["throughput_kbps"])
            m[f"{name}.cum_kbps"] = float(f["bytes_delivered"]) * 8.0 / 1000.0 / end
        return m
    return series_bin_metrics(series)


def series_bin_metrics(series: pd.DataFrame) -> dict[str, float]:
    """``series_metrics`` from a flows series on a grid of ``SERIES_GRID_S``."""
    m: dict[str, float] = {}
    for name, g in series.groupby("flow", sort=False):
        by_t = dict(zip((round(float(t) / SERIES_GRID_S) for t in g["time_s"]),
                        g["delivered_bytes"].astype(float), strict=True))
        for t0, t in series_bins():
            if t // SERIES_GRID_S not in by_t:
                continue  # the run ended before t
            got = sum(by_t.get(k, 0.0) for k in range(t0 // SERIES_GRID_S + 1, t // SERIES_GRID_S + 1))
            total = sum(by_t.get(k, 0.0) for k in range(1, t // SERIES_GRID_S + 1))
            m[f"{name}.rate_kbps@{t}"] = got * 8.0 / 1000.0 / (t - t0)
            m[f"{name}.cum_kbps@{t}"] = total * 8.0 / 1000.0 / t
    return m


def pick_series(point: Point, metrics: Mapping[str, float]) -> dict[str, float]:
    """The metrics of the series point at ``t`` out of its run's (``series_metrics``), named
    as the point's own (``NAME.rate_kbps``); a run that measured one bin (ns-2's) as it is."""
    if not any("@" in k for k in metrics):
        return dict(metrics)
    suffix = f"@{point.labels['t']}"
    return {k.removesuffix(suffix): v for k, v in metrics.items() if k.endswith(suffix)}


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
SHOWN_SERIES = ("*.rate_kbps", "*.cum_kbps", "*.rate_kbps@*", "*.cum_kbps@*")


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
             "the bits it got in (0, t] ÷ t; read from one 100 s run's flows series (every 2 s), "
             "which measures what a run stopped at t with warmup = t0 would",),
            replications=SERIES_REPLICATIONS, shown=SHOWN_SERIES,
            one_run_without=("duration", "warmup"), pick=pick_series))
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
# Statements

_ABS, _INTRO, _RW = "Abstract", "§1 Introduction", "§2.2 Related work"
_PS, _IMPL, _EV, _SM = "§3.1 Problem statement", "§3.2 Implementation", "§4", "§4.1"
_E1, _E2, _E3, _E4, _E5 = "§4.2.1", "§4.2.2", "§4.3", "§4.4", "§4.5"
_CONC = "§5 Conclusions"
_OTHER = "reports another study's result in that study's setting, which this paper does not simulate"
_STEADY = "steady throughput (20–100 s)"
_VAR = ("coefficient of variation of the instantaneous (4-s) rate from 20 s on, over every "
        "run and bin")


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
