"""Laatu, Harju, Loula, "Measurements Based Analysis of the Characteristics of TCP in a
Differentiated Services Capable Network": the experiments of Table I (best effort, and SIMA on
without background), Table II (one 1 MB transfer, NBR 400 … 1800 kb/s) and Table III (four
250 kB transfers sharing an aggregate NBR of 800 kb/s), every checkable statement of the text,
the null model, the variants, the unstated parameters and the paper's cwnd and DP figures.

Read this first. The testbed of Fig. 1 is ``scenarios/laatu/sima.toml`` (SIMA on) and
``best_effort.toml`` (SIMA off). Their defaults come from the text, then from its references
(Kilkki's SIMA draft, the Dynamic RT/NRT PHB group draft), then from the Linux 2.2 hosts of the
testbed, each cited beside the value; what the paper leaves open is a declared parameter with a
range (``UNSTATED``), and the readings of the MBR measurement other than the draft's average over
the testbed's NRT buffer — among them the one once adopted because it matched a sentence of the
paper, the draft's example buffer of 1 MB — are named variants (``VARIANTS``, ``laatu_mbr``).
This module chooses the grid (the paper's) and says how a run becomes the paper's numbers, which
are tcptrace's summaries of one TCP connection (§3.5):

- transfer time: from the SYN (the flow's first trace record) to the moment the sender has every
  byte acknowledged (``completion_time_s``). A transfer not complete when the run ends (at the
  mode's cap on simulated time) counts as not completed (``completed``: Table I's "Inf." is a
  completed share of 0) and its transfer time is the time it ran, a lower bound, so that a
  published time it exceeds is a miss rather than a value left out;
- average stream bandwidth: the transfer's bytes (1 MB = 10⁶ B, 250 kB) × 8 ÷ the transfer time —
  the tables' own arithmetic (5.99 Mb/s × 1.34 s and 61.0 kb/s × 131.14 s are both 8.0 Mbit); for
  an incomplete transfer, the bytes acknowledged over the time it ran;
- RTT mean and "mean deviation": the mean and standard deviation of the sender's RTT samples
  (§3.2: "the mean of RTT and the standard deviation of RTT"). afsim times one segment per
  round trip (Karn's rule, as the Linux 2.2 sender does without timestamps); tcptrace times
  every ACK of a segment sent once;
- retransmitted data bytes: the payload bytes the sender sent again (tcptrace's "rexmt data
  bytes");
- the DP 4 background's reduction (Table II's last column): §3.5's 8.5 Mb/s less the rate the
  DP 4 flows delivered from the transfer's start to the end of the run (the scenarios' warm-up is
  the transfer's start), in kb/s — what the generator sees; the background's own start-up losses,
  before DP_a has risen, fall before the transfer;
- Table III's Flow1 … Flow4: the paper lists its flows in order of transfer time (14.39 <
  14.70 < 23.86 < 25.17 s), so afsim's four flows are ranked by transfer time in each run and
  the k-th fastest is compared with Flow k.

The testbed's background is periodic (§3.5, "periodic (CBR, constant bit rate) setting") and
nothing else in a run is random, so seeds alone would repeat one run five times. The paper's
five repetitions of each test "estimate the variance between the runs": what differs between
two runs of a real testbed with periodic generators is when the transfer starts against their
period. Each replication k therefore starts the TCP transfer ((k − 1)·0.618…) mod 1 × 10 ms
after the scenario's ``tcp_start`` (a golden-ratio sequence: even phases over the DP 4 flows'
9.4 ms period and the lower-DP flows' 4 ms), besides drawing its TCP clock phase from its seed.
The jittered background (``bg_jitter = true``, ns-2's ``random_``) is a variant, not the
replication device: it changes the background the paper describes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce import core, laatu_mbr
from afsim.reproduce.claims import Checks, Kind, Statement, gt, lt
from afsim.reproduce.claims import claim as _claim
from afsim.reproduce.core import Experiment, Figure, Mode, Paper, Point, Stat, Variant
from afsim.reproduce.robustness import Unstated

if TYPE_CHECKING:
    import pandas as pd

    from afsim.reproduce.core import Reproduction
    from afsim.results import Results

PAPER_ID = "laatu"
TITLE = ("Laatu, Harju, Loula — Measurements Based Analysis of the Characteristics of TCP in a "
         "Differentiated Services Capable Network")
CITATION = ("V. Laatu, J. Harju, P. Loula, \"Measurements Based Analysis of the Characteristics "
            "of TCP in a Differentiated Services Capable Network\" (Tampere University of "
            "Technology; papers/002): Tables I–III, Figs. 2–11. Measured on a testbed of Linux "
            "2.2.9 routers and hosts with an Adtech AX/4000 traffic generator.")
DATA = Path(__file__).parent / "data" / "laatu.json"

#: "Each test was repeated five times with the same parameters" (§3.5).
PAPER_REPETITIONS = 5
#: Every run ends when its transfers complete, or at this many seconds of simulated time
#: (Table I's 10 Mb/s row never completes; its slowest completed row took 148.14 s).
CAP_S = 400
#: Full mode: the paper's five repetitions everywhere (variants and robustness design included),
#: sixteen design points. Quick mode: two repetitions, four design points of one run each.
FULL = Mode("full", CAP_S, replications=PAPER_REPETITIONS, budget_param="duration",
            budget_unit="s", budget_noun="s of simulated time at most",
            paper_replications=PAPER_REPETITIONS, variant_replications=PAPER_REPETITIONS,
            robust_points=16, robust_replications=PAPER_REPETITIONS)
QUICK = Mode("quick", CAP_S, replications=2, budget_param="duration", budget_unit="s",
             budget_noun="s of simulated time at most", paper_replications=PAPER_REPETITIONS,
             variant_replications=2, robust_points=4, robust_replications=1)

#: Table I's background loads (Mb/s) and Table II's NBRs (kb/s).
BACKGROUNDS = (0, 8.5, 9.6, 9.7, 10)
NBRS = (400, 600, 800, 1000, 1200, 1400, 1600, 1800)
#: §4.1: "the NBR was specified to be 1.2 Mbps"; §4.3: four flows share 800 kb/s.
TABLE1_NBR_KBPS = 1200
TABLE3_NBR_KBPS, TABLE3_FLOWS = 800, 4
#: §3.3 and §3.5 in the paper's own arithmetic: 10 Mb/s links, 8.5 Mb/s at DP 4, which leave
#: "1.5 Mbps for packets with DP value 4" (§4.2).
LINK_MBPS, DP4_MBPS = 10.0, 8.5
LEFT_FOR_DP4_KBPS = 1000.0 * (LINK_MBPS - DP4_MBPS)
#: §3.5: "The MTU (Maximum Transfer Unit) was 1448 bytes": one retransmitted segment.
SEGMENT_B = 1448
#: The spreads the paper calls insignificant: Table I's unloaded rows with SIMA off and on, of
#: which §4.1 says "no remarkable differences could be measured" (5.99 / 6.05 Mb/s, 1.34 / 1.32 s,
#: 44.4 / 43.7 ms, 18.4 / 17.3 ms), as a fraction of the smaller, rounded up at the third
#: significant digit. The same sizes as the data file's tolerances.
INSIGNIFICANT_THR = 0.0101
INSIGNIFICANT_TIME = 0.0152
INSIGNIFICANT_RTT = 0.0161
INSIGNIFICANT_RTT_DEV = 0.0636
#: The scenario defaults the phase of the replications is added to.
TCP_START = "2s"
#: Replication k starts ((k − 1)·φ mod 1) × this after ``tcp_start`` (see the module header).
PHASE_SPAN_S = 0.010
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def find_scenarios_dir(start: Path | None = None) -> Path:
    """The folder holding sima.toml and best_effort.toml (``core.find_scenarios_dir``)."""
    return core.find_scenarios_dir("laatu", ("sima.toml", "best_effort.toml"), start)


# ---------------------------------------------------------------------------------------------
# Replications


def _seconds(text: str) -> float:
    """A time parameter ("2s", "2.5s", "2000ms") in seconds."""
    t = text.strip()
    for unit, scale in (("ms", 1e-3), ("us", 1e-6), ("s", 1.0)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * scale
    raise ValueError(f"not a time in s, ms or us: {text!r}")


def start_phase(overrides: Mapping[str, str], seed: int) -> dict[str, str]:
    """Replication ``seed``'s transfer start: the point's ``tcp_start`` (design values included)
    plus ((seed − 1)·φ mod 1) × 10 ms; seed 1 keeps the scenario's own start."""
    base = _seconds(overrides.get("tcp_start", TCP_START))
    phase = ((seed - 1) * GOLDEN) % 1.0 * PHASE_SPAN_S
    return {"tcp_start": f"{base + phase:.7f}s"}


# ---------------------------------------------------------------------------------------------
# From a run to the paper's numbers


def _start_of(traces: pd.DataFrame, flow: str) -> float:
    """A TCP flow's start (its SYN): the first record of its cwnd trace."""
    t = traces[traces["flow"] == flow]["time_s"]
    return float(t.min()) if len(t) else math.nan


def _ca_share(traces: pd.DataFrame, flow: str, start: float, stop: float) -> float:
    """The share of [start, stop] the sender spent in congestion avoidance (cwnd ≥ ssthresh),
    each trace record holding until the next."""
    t = traces[traces["flow"] == flow].sort_values("time_s", kind="stable")
    if not len(t) or stop <= start:
        return math.nan
    times = [*t["time_s"].tolist(), stop]
    ca = (t["cwnd"] >= t["ssthresh"]).tolist()
    inside = 0.0
    for a, b, c in zip(times, times[1:], ca, strict=False):
        lo, hi = max(a, start), min(b, stop)
        if c and hi > lo:
            inside += hi - lo
    return inside / (stop - start)


def _tcp_flow(row: pd.Series, results: Results) -> dict[str, float]:
    """One TCP transfer's numbers (see the module header)."""
    name = str(row["name"])
    start = _start_of(results.traces, name)
    done = bool(row["completed"])
    stop = float(row["completion_time_s"]) if done else results.end_time_s
    ran = stop - start
    sent = float(row["packets_sent"])
    m: dict[str, float] = {
        "start_s": start,
        "completed": 1.0 if done else 0.0,
        "transfer_time_s": ran,
        "throughput_kbps": float(row["goodput_bytes"]) * 8.0 / 1000.0 / ran if ran > 0 else math.nan,
        "rtt_mean_ms": 1000.0 * float(row["rtt_mean_s"]),
        "rtt_dev_ms": 1000.0 * float(row["rtt_std_s"]),
        "rexmt_bytes": float(row["retransmitted_bytes"]),
        "retransmitted_packets": float(row["retransmitted_packets"]),
        "timeouts": float(row["timeouts"]),
        "fast_recoveries": float(row["fast_recoveries"]),
        "packets_sent": sent,
        "ca_share": _ca_share(results.traces, name, start, stop),
    }
    m["throughput_mbps"] = m["throughput_kbps"] / 1000.0
    recoveries = m["timeouts"] + m["fast_recoveries"]
    m["timeout_share"] = m["timeouts"] / recoveries if recoveries else math.nan
    dps = [row.get(f"dp{k}_packets") for k in range(8)]
    if all(d is not None and math.isfinite(float(d)) for d in dps) and sent > 0:
        counts = [float(d) for d in dps]  # type: ignore[arg-type]
        for k, n in enumerate(counts):
            m[f"dp{k}_share"] = n / sent
        m["dp_below4_share"] = sum(counts[:4]) / sent
        m["dp_above4_share"] = sum(counts[5:]) / sent
        dp = results.dp_trace
        mine = dp[dp["flow"] == name]["time_s"]
        m["first_second_packets"] = float(((mine >= start) & (mine < start + 1.0)).sum())
    return m


def _offered_kbps(group: pd.DataFrame, end_s: float) -> float:
    """What a group of CBR flows sends, kb/s: its bytes over the run (each sends from within
    10 ms of time 0 to the end: a relative error of about 10⁻⁴ on a 60 s run)."""
    return float(group["bytes_sent"].sum()) * 8.0 / 1000.0 / end_s if end_s > 0 else math.nan


def _background(name: str, group: pd.DataFrame, end_s: float,
                offered_kbps: float | None = None) -> dict[str, float]:
    """A UDP background group during the transfer: what it lost (offered − delivered, kb/s:
    the scenarios' warm-up is the transfer's start, so ``throughput_kbps`` is the rate delivered
    from then on) and that as a share of what it offered. ``offered_kbps``: the configured rate,
    where the paper gives it (else estimated from the bytes sent)."""
    offered = _offered_kbps(group, end_s) if offered_kbps is None else offered_kbps
    lost = offered - float(group["throughput_kbps"].sum())
    return {f"{name}_reduction_kbps": lost, f"{name}_loss": lost / offered if offered > 0 else math.nan}


def _rank_key(f: dict[str, float]) -> tuple[float, float, float]:
    """Completed transfers first, fastest first; then the most bytes per second."""
    t = f["transfer_time_s"] if f["completed"] else math.inf
    return (1.0 - f["completed"], t if math.isfinite(t) else math.inf, -f["throughput_kbps"])


def metrics(results: Results) -> dict[str, float]:
    """Tables I–III's columns (and what the claims read) from one run of either scenario."""
    flows = results.flows
    tcp = flows[flows["kind"].astype(str).str.startswith("tcp")]
    per = [_tcp_flow(row, results) for _, row in tcp.iterrows()]
    m: dict[str, float] = {}
    if len(per) == 1:
        m |= per[0]
    elif per:
        ranked = sorted(per, key=_rank_key)
        for k, f in enumerate(ranked, 1):
            m |= {f"flow{k}.{name}": v for name, v in f.items()}
        thr = [f["throughput_kbps"] for f in ranked]
        m["aggregate_kbps"] = sum(thr)
        m["rexmt_total_bytes"] = sum(f["rexmt_bytes"] for f in ranked)
        m["completed"] = float(all(f["completed"] for f in ranked))
        m["throughput_ratio"] = max(thr) / min(thr) if min(thr) > 0 else math.inf
        m["jain"] = sum(thr) ** 2 / (len(thr) * sum(x * x for x in thr)) if any(thr) else math.nan
    end = results.end_time_s
    udp = flows[~flows["kind"].astype(str).str.startswith("tcp")]
    group = udp["group"].astype(str)
    if (group == "bg4").any():
        bg4 = udp[group == "bg4"]
        # §3.5's 8.5 Mb/s, which no point, variant or design point changes: exact, where the
        # estimate from the bytes sent would be off by up to a packet per flow (about 1 kb/s)
        estimate = _offered_kbps(bg4, end)
        if abs(estimate - 1000.0 * DP4_MBPS) > 0.01 * 1000.0 * DP4_MBPS:
            raise ValueError(f"the DP 4 background sends {estimate:.0f} kb/s, not §3.5's 8.5 Mb/s")
        m |= _background("bg4", bg4, end, 1000.0 * DP4_MBPS)
        low = udp[group.isin(["bg0", "bg1", "bg2", "bg3"])]
        if len(low):
            m |= _background("low", low, end)
    elif len(udp):
        m |= _background("bg", udp, end)
    sq = results.sima_queues
    if len(sq) and "core1->core2" in set(sq["queue"]):
        row = sq.set_index("queue").loc["core1->core2"]
        m["dpa_mean"] = float(row["dpa_mean"])
        m["dpa_4_or_more_share"] = float(sum(row["dpa_time_share"][4:]))
    m["simulated_s"] = results.end_time_s
    return m


# ---------------------------------------------------------------------------------------------
# The null model

#: The empty path's round trip: a 1488-byte data packet and a 40-byte ACK, each with 38 bytes of
#: Ethernet framing, over the five 10 Mb/s links between the hosts, plus each link's delay.
PATH_LINKS = 5
DATA_WIRE_B, ACK_WIRE_B = 1488 + 38, 40 + 38

NULL_DESCRIPTION = (
    "No simulation: a TCP transfer gets min(S, C − B), where C = 10 Mb/s is the link rate, B the "
    "background the bottleneck admits (all of it with SIMA off; with SIMA on the 8.5 Mb/s at "
    "DP 4, the lower-DP flows refused) and S the link rate with SIMA off or the NBR with it "
    "(shared equally by Table III's four flows); a transfer takes its bytes over that rate "
    "(never, at rate 0), nothing is retransmitted or lost, and every RTT is the empty path's "
    "(mean deviation 0). Its scores show which published values and claims need no simulation.")


def _rate_kbps(text: str) -> float:
    t = text.strip()
    for unit, scale in (("Gbps", 1e6), ("Mbps", 1e3), ("kbps", 1.0), ("bps", 1e-3)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * scale
    raise ValueError(f"not a rate: {text!r}")


def _bytes(text: str) -> float:
    t = text.strip()
    for unit, scale in (("MB", 1e6), ("kB", 1e3), ("KB", 1e3), ("B", 1.0)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * scale
    raise ValueError(f"not a size: {text!r}")


def empty_path_rtt_ms(delay_ms: float = 0.1) -> float:
    """The null model's RTT: transmission of a data packet and its ACK over every link, and
    every link's delay both ways."""
    per_bit_ms = 1000.0 / (LINK_MBPS * 1e6)
    return PATH_LINKS * ((DATA_WIRE_B + ACK_WIRE_B) * 8 * per_bit_ms + 2 * delay_ms)


def null_model(experiment: Experiment, point: Point) -> dict[str, float]:
    """The null model's numbers at one point (see ``NULL_DESCRIPTION``)."""
    ov = point.overrides
    if experiment.scenario.name == "best_effort.toml":
        background = int(ov.get("bg_flows", "10")) * _rate_kbps(ov.get("bg_rate", "850kbps"))
        share = max(0.0, 1000.0 * LINK_MBPS - background)
    else:
        dp4 = int(ov.get("bg4_flows", "10")) * _rate_kbps(ov.get("bg4_rate", "850kbps"))
        share = min(_rate_kbps(ov.get("nbr", "1200kbps")), max(0.0, 1000.0 * LINK_MBPS - dp4))
    n = int(ov.get("n_tcp", "1"))
    thr = share / n
    size = _bytes(ov.get("transfer", "1MB"))
    done = thr > 0
    flow = {
        "completed": 1.0 if done else 0.0,
        "throughput_kbps": thr, "throughput_mbps": thr / 1000.0,
        "transfer_time_s": size * 8.0 / 1000.0 / thr if done else math.nan,
        "rtt_mean_ms": empty_path_rtt_ms(_seconds(ov.get("delay", "0.1ms")) * 1000.0) if done else math.nan,
        "rtt_dev_ms": 0.0 if done else math.nan,
        "rexmt_bytes": 0.0,
    }
    m: dict[str, float] = {"bg4_reduction_kbps": 0.0, "bg4_loss": 0.0, "bg_loss": 0.0,
                           "low_loss": 1.0}
    if n == 1:
        return m | flow
    for k in range(1, n + 1):
        m |= {f"flow{k}.{name}": v for name, v in flow.items()}
    return m | {"aggregate_kbps": share, "rexmt_total_bytes": 0.0, "completed": flow["completed"],
                "throughput_ratio": 1.0, "jain": 1.0}


# ---------------------------------------------------------------------------------------------
# The grid

T1OFF, T1ON, T2, T3 = "table1_off", "table1_on", "table2", "table3"
#: Each point writes out what defines it, so that identical runs are recognised as one.
_ONE = {"n_tcp": "1", "transfer": "1MB"}


def _best_effort(load_mbps: float) -> dict[str, str]:
    """Table I's SIMA-off background: ten equal CBR flows (laatu/best_effort.toml)."""
    if load_mbps == 0:
        return {"bg_flows": "0", "bg_rate": "850kbps"}
    return {"bg_flows": "10", "bg_rate": f"{round(100 * load_mbps)}kbps"}


_NOTES = (
    "afsim's RTT samples one segment per round trip (Karn's rule), tcptrace every ACK of a "
    "segment sent once; afsim's queues are the routers' only delay, the testbed's Linux 2.2 "
    "hosts and half-duplex hubs add their own",
    "replications: the periodic background repeats exactly, so each replication starts the "
    "transfer at another phase of it ((k − 1)·0.618 mod 1 × 10 ms after tcp_start) and draws "
    "its TCP clock phase from its seed (runs.csv gives every run's tcp_start)",
)


def experiments(scenarios_dir: Path | None = None) -> tuple[Experiment, ...]:
    d = scenarios_dir or find_scenarios_dir()
    sima, be = d / "sima.toml", d / "best_effort.toml"
    table1_off = Experiment(
        T1OFF, "Table I, SIMA off: best effort, UDP CBR background 0, 8.5, 9.6, 9.7 and 10 Mb/s",
        be, tuple(Point({"background_mbps": b, "sima": "off"}, _best_effort(b)) for b in BACKGROUNDS),
        metrics,
        _NOTES + ("the background is ten CBR flows of 1000-byte packets; its rate counts IP "
                  "bytes, so with Ethernet framing 9.7 and 10 Mb/s exceed the 10 Mb/s link on the "
                  "wire (10.07 and 10.38 Mb/s)",
                  "an incomplete transfer (\"Inf.\"): its throughput is the bytes acknowledged "
                  "over the time it ran, its transfer time that time (a lower bound); the "
                  "completed share is compared with Inf."),
        robust=True, replicate=start_phase)
    table1_on = Experiment(
        T1ON, "Table I, SIMA on (NBR 1.2 Mb/s), no background", sima,
        (Point({"background_mbps": 0, "sima": "on"},
               {**_ONE, "nbr": f"{TABLE1_NBR_KBPS}kbps", "bg4_flows": "0", "low_flows": "0"}),),
        metrics, _NOTES, robust=True, replicate=start_phase)
    table2 = Experiment(
        T2, "Table II: one 1 MB transfer through SIMA, NBR 400 … 1800 kb/s, 8.5 Mb/s of "
        "background at DP 4 and lower-DP flows", sima,
        tuple(Point({"nbr_kbps": n, "sima": "on"}, {**_ONE, "nbr": f"{n}kbps"}) for n in NBRS),
        metrics,
        _NOTES + ("BG load with DP4 reduction: §3.5's 8.5 Mb/s less the DP 4 flows' delivered "
                  "rate from the transfer's start to the end of the run (resolution about ±0.5 "
                  "kb/s: the packets in flight at either end); the background's start-up losses "
                  "fall before the transfer",
                  "a transfer still running at the cap counts the time it ran as its transfer "
                  "time (a lower bound; runs.csv's `completed` says which)"),
        robust=True, replicate=start_phase)
    table3 = Experiment(
        T3, "Table III: four 250 kB transfers sharing an aggregate NBR of 800 kb/s", sima,
        (Point({"flows": TABLE3_FLOWS, "sima": "on"},
               {"n_tcp": str(TABLE3_FLOWS), "transfer": "250kB", "nbr": f"{TABLE3_NBR_KBPS}kbps"}),),
        metrics,
        _NOTES + ("Flow1 … Flow4: the paper lists its flows in order of transfer time; afsim's "
                  "four are ranked by transfer time in each run, and the k-th fastest is compared "
                  "with Flow k (averaging ranks favours spread over averaging fixed flows)",),
        robust=True, replicate=start_phase)
    return (table1_off, table1_on, table2, table3)


#: The MBR readings (averaging time × form; ``laatu_mbr``, issue 21), then the background's.
VARIANTS = (
    *laatu_mbr.VARIANTS,
    Variant("jitter", "jittered background (ns-2's random_)", {"bg_jitter": "true"},
            "every background interval scaled by a uniform factor in [0.5, 1.5), as ns-2's CBR "
            "with random_ 1: another way to make replications differ, but the paper's generator "
            "was \"periodic (CBR, constant bit rate)\" (§3.5)", (T1OFF, T1ON, T2, T3)),
)

_SIMA, _BE = ("sima.toml",), ("best_effort.toml",)

UNSTATED = (
    Unstated("mbr_buffer", "K_n of the SIMA draft's eq. (4), α = 5·slot/K_n: the MBR averages "
             "over about K_n·8/(5 × 10 Mb/s)", "20000B",
             "the paper defers the MBR measurement to its [21]; the SIMA draft's eq. (4) with the "
             "testbed's NRT buffer (§3.4) gives 20000 B (3.2 ms). Range: that buffer to 20 MB "
             "(3.2 s), twenty times the draft's own example of an NRT buffer (1 MB)",
             low=20_000, high=20_000_000, unit="B", log=True, integer=True, scenarios=_SIMA),
    Unstated("mbr_estimator", "the MBR estimator's form, over the averaging time of mbr_buffer",
             laatu_mbr.DEFAULT_ESTIMATOR,
             "the SIMA draft's §9.1 average (ewma) is the one form a source of the paper's gives; "
             "RFC 2859's time sliding window (tsw) and a sliding window (window) are the others "
             "the evidence admits (docs/assumptions.md, \"SIMA\")",
             choices=("ewma", "tsw", "window"), scenarios=_SIMA),
    Unstated("occupancy", "how DP_a combines the RT and NRT buffers' averages", "max",
             "the paper defers the core node to its [22]; the SIMA draft's §9.2 offers the sum, "
             "the root of the sum of squares and the maximum", choices=("max", "sum", "euclidean"),
             scenarios=_SIMA),
    Unstated("dpa_slope", "b in DP_a = ⌊a + b·x⌋ (x the combined occupancy)", "8",
             "afsim's linear reading of the draft's §9.2; 8 spreads the eight levels over the "
             "buffer. Range 6 … 12", low=6.0, high=12.0, scenarios=_SIMA),
    Unstated("dpa_offset", "a in DP_a = ⌊a + b·x⌋", "0",
             "0 accepts every level into empty buffers. Range −2 … 1", low=-2.0, high=1.0,
             scenarios=_SIMA),
    Unstated("low_rate", "rate of each of the four lower-DP (DP 0 … 3) background flows", "2Mbps",
             "§3.5 says only that they \"were used to keep the allowed DP level as steady as "
             "possible\"; 2 Mb/s each exceeds alone the 1.5 Mb/s the DP 4 flows leave. Range "
             "0.5 … 4 Mb/s each", low=500, high=4000, unit="kbps", log=True, integer=True,
             scenarios=_SIMA),
    Unstated("router_limit", "the best-effort routers' FIFO (SIMA off)", "100pkt",
             "Linux 2.2's default txqueuelen; range 20 packets (about the SIMA NRT buffer's "
             "20000 B) … 300", low=20, high=300, unit="pkt", log=True, integer=True, scenarios=_BE),
    Unstated("delay", "each link's propagation and forwarding delay", "0.1ms",
             "a LAN of Pentium II routers; not given. Range 0.01 … 1 ms", low=0.01, high=1.0,
             unit="ms", log=True),
    Unstated("delack", "the TCP receiver's delayed-ACK timer", "40ms",
             "Linux's delayed-ACK timer adapts between 40 ms and 200 ms; not given. Range 40 … "
             "200 ms", low=40.0, high=200.0, unit="ms"),
    Unstated("window", "the TCP window (pttcp's socket buffers)", "32KiB",
             "not given; the paper's Eq. (2) on Table I's first row gives 33 KB. Range 16 … 64 KiB",
             low=16_384, high=65_536, unit="B", integer=True),
    Unstated("tcp_start", "time from the background's start to the transfer's", "2s",
             "\"the background load was always turned on\" (§3.5); the NRT average's time "
             "constant is about 0.5 s. Range 2 … 20 s", low=2.0, high=20.0, unit="s"),
    Unstated("bg_packet_size", "the traffic generator's packet size", "1000B",
             "not given. Range 500 … 1500 B: Ethernet framing makes 8.5 Mb/s of smaller packets "
             "take more of the link (about 9.1 Mb/s on the wire at 500 B)",
             low=500, high=1500, unit="B", integer=True),
)


# ---------------------------------------------------------------------------------------------
# Statements


def _off(b: float) -> dict[str, float]:
    return {"background_mbps": b}


def _nbr(n: int) -> dict[str, int]:
    return {"nbr_kbps": n}


ON0: dict[str, float] = {"background_mbps": 0}
FOUR: dict[str, int] = {"flows": TABLE3_FLOWS}
LOADED = (8.5, 9.6, 9.7)


def _t2(c: Checks, n: int, metric: str) -> float | None:
    return c.mean(f"NBR {n}: {metric}", T2, _nbr(n), metric)


def _be(c: Checks, b: float, metric: str) -> float | None:
    return c.mean(f"off {b}: {metric}", T1OFF, _off(b), metric)


def _t3(c: Checks, metric: str) -> float | None:
    return c.mean(f"four flows: {metric}", T3, FOUR, metric)


def _ci(c: Checks, experiment: str, labels: Mapping[str, Any], metric: str) -> float:
    """The 95 % half-width of a reading's value, 0 where it has none (one run, the paper, the
    null model)."""
    s: Stat | None = c.view.stat(experiment, labels, metric)
    return s.ci95 if s is not None and s.n > 1 and math.isfinite(s.ci95) else 0.0


def _completes(c: Checks, experiment: str, labels: Mapping[str, Any], tag: str) -> bool | None:
    """Whether every replication completed. A reading without the count (the paper's numbers)
    completed where it prints a transfer time."""
    share = c.view.mean(experiment, labels, "completed")
    if share is not None:
        c.measured[f"{tag}: completed share"] = share
        return share >= 1.0
    return c.mean(f"{tag}: transfer_time_s", experiment, labels, "transfer_time_s") is not None


def _between(x: float | None, lo: float, hi: float) -> bool | None:
    return None if x is None else lo <= x < hi


@_claim
def _sima_rtt_lower(c: Checks) -> None:
    # §3.2: "The larger the RTT, the more time is needed to recover after a packet loss. That's
    # why we were also interested to see if this effect is diminished by the use of our DS scheme."
    sima = [_t2(c, n, "rtt_mean_ms") for n in NBRS]
    best = [_be(c, b, "rtt_mean_ms") for b in LOADED]
    if None in sima or None in best:
        c.that(None)
        return
    s = sum(x for x in sima if x is not None) / len(sima)
    b = sum(x for x in best if x is not None) / len(best)
    c.measured["SIMA mean RTT over NBRs"] = s
    c.measured["best-effort mean RTT over loads"] = b
    c.that(s < b * (1 - INSIGNIFICANT_RTT))


@_claim
def _ca_with_sima(c: Checks) -> None:
    s = _t2(c, 1600, "ca_share")
    c.that(gt(s, 0.5))
    c.that(gt(s, _be(c, 8.5, "ca_share")))


@_claim
def _light_vs_congested(c: Checks) -> None:
    thr = c.mean("on, no background: throughput_mbps", T1ON, ON0, "throughput_mbps")
    c.that(None if thr is None else 1000.0 * thr > TABLE1_NBR_KBPS)
    rx = c.mean("on, no background: rexmt_bytes", T1ON, ON0, "rexmt_bytes")
    c.that(None if rx is None else rx == 0)
    for n in NBRS:
        c.that(gt(_t2(c, n, "rexmt_bytes"), 0.0))


def _non_increasing(c: Checks, values: Sequence[float | None], cis: Sequence[float],
                    slack: float) -> None:
    """Each step down, or up by at most ``slack`` plus the larger of the two 95 % half-widths."""
    for k in range(1, len(values)):
        a, b = values[k - 1], values[k]
        c.that(None if a is None or b is None else b <= a + slack + max(cis[k - 1], cis[k]))


@_claim
def _rexmt_falls_with_nbr(c: Checks) -> None:
    r = [_t2(c, n, "rexmt_bytes") for n in NBRS]
    _non_increasing(c, r, [_ci(c, T2, _nbr(n), "rexmt_bytes") for n in NBRS], SEGMENT_B)
    c.that(lt(r[-1], r[0]))


#: The largest DP 4 loss Table II implies: 502.6 kb/s of 8500 (NBR 1000).
MAX_DP4_LOSS = 502.6 / 8500.0


@_claim
def _dp4_accepted(c: Checks) -> None:
    for n in NBRS:
        c.that(None if (x := _t2(c, n, "bg4_loss")) is None else x <= MAX_DP4_LOSS)
        c.that(gt(_t2(c, n, "low_loss"), 0.5))


@_claim
def _not_depending_on_qos(c: Checks) -> None:
    for metric, tol in (("throughput_mbps", INSIGNIFICANT_THR), ("transfer_time_s", INSIGNIFICANT_TIME),
                        ("rtt_mean_ms", INSIGNIFICANT_RTT), ("rtt_dev_ms", INSIGNIFICANT_RTT_DEV)):
        off = c.mean(f"off, no background: {metric}", T1OFF, _off(0), metric)
        on = c.mean(f"on, no background: {metric}", T1ON, ON0, metric)
        c.that(None if off is None or on is None else abs(on - off) <= tol * min(on, off))
    off = c.mean("off, no background: rexmt_bytes", T1OFF, _off(0), "rexmt_bytes")
    on = c.mean("on, no background: rexmt_bytes", T1ON, ON0, "rexmt_bytes")
    c.that(None if off is None or on is None else off == on)


@_claim
def _no_bandwidth_at_capacity(c: Checks) -> None:
    done = c.mean("off 10: completed", T1OFF, _off(10), "completed")
    c.that(None if done is None else done == 0)
    thr = _be(c, 10, "throughput_mbps")
    c.that(None if thr is None else thr < 0.005)


@_claim
def _mostly_below_dp4(c: Checks) -> None:
    thr = c.mean("on, no background: throughput_mbps", T1ON, ON0, "throughput_mbps")
    c.that(None if thr is None else 1000.0 * thr > TABLE1_NBR_KBPS)
    c.that(gt(c.mean("on, no background: dp_below4_share", T1ON, ON0, "dp_below4_share"), 0.5))


#: "almost all its packets": the paper's own figure for DP 4 UDP under SIMA (§4.2, "98 percents").
ALMOST_ALL_LOSS = 0.02


@_claim
def _udp_takes_over(c: Checks) -> None:
    thr = [_be(c, b, "throughput_mbps") for b in LOADED]
    for b, t in zip(LOADED, thr, strict=True):
        c.that(None if (x := _be(c, b, "bg_loss")) is None else x <= ALMOST_ALL_LOSS)
        c.that(None if t is None else t < LINK_MBPS - b)
    c.that(None if None in thr else thr[0] > thr[1] > thr[2])  # type: ignore[operator]


@_claim
def _below_nbr_everywhere(c: Checks) -> None:
    for n in NBRS:
        c.that(lt(_t2(c, n, "throughput_kbps"), float(n)))


@_claim
def _nbr400_low_and_dp4_through(c: Checks) -> None:
    t400 = _t2(c, 400, "throughput_kbps")
    for n in NBRS[1:]:
        c.that(lt(t400, _t2(c, n, "throughput_kbps")))
    red = _t2(c, 400, "bg4_reduction_kbps")
    through = None if red is None else 100.0 * (1.0 - red / (1000.0 * DP4_MBPS))
    c.measured["NBR 400: DP 4 delivered %"] = through if through is not None else math.nan
    c.that(_between(through, 97.5, 98.5))


@_claim
def _much_less_than_available(c: Checks) -> None:
    for n in NBRS:
        c.that(lt(_t2(c, n, "throughput_kbps"), LEFT_FOR_DP4_KBPS / 2))


@_claim
def _too_many_low_dp(c: Checks) -> None:
    low = _t2(c, 400, "dp_below4_share")
    c.that(gt(low, 0.5))
    c.that(gt(low, _t2(c, 1600, "dp_below4_share")))


@_claim
def _nbr1600_few_rexmt(c: Checks) -> None:
    r = _t2(c, 1600, "rexmt_bytes")
    for n in NBRS:
        if n < 1600:
            c.that(lt(r, _t2(c, n, "rexmt_bytes")))


@_claim
def _high_nbr_more_above4(c: Checks) -> None:
    c.that(gt(_t2(c, 1600, "dp_above4_share"), _t2(c, 400, "dp_above4_share")))


@_claim
def _too_high_nbr_burst(c: Checks) -> None:
    c.that(gt(_t2(c, 1800, "dp6_share"), 0.5))
    c.that(gt(_t2(c, 1800, "first_second_packets"), _t2(c, 1600, "first_second_packets")))


@_claim
def _rtt_ranges(c: Checks) -> None:
    for n in NBRS:
        c.that(_between(_t2(c, n, "rtt_mean_ms"), 44.0, 180.0 + 1e-9))
    for b in LOADED:
        c.that(_between(_be(c, b, "rtt_mean_ms"), 165.0, 265.0))


@_claim
def _rtt_varies_at_extremes(c: Checks) -> None:
    middle = [_t2(c, n, "rtt_dev_ms") for n in (1000, 1200, 1400)]
    top = None if None in middle else max(x for x in middle if x is not None)
    for n in (600, 1800):
        c.that(gt(_t2(c, n, "rtt_dev_ms"), top))


@_claim
def _none_reaches_share(c: Checks) -> None:
    for k in range(1, TABLE3_FLOWS + 1):
        c.that(lt(_t3(c, f"flow{k}.throughput_kbps"), TABLE3_NBR_KBPS / TABLE3_FLOWS))


def _aggregate(c: Checks, metric: str) -> float | None:
    parts = [_t3(c, f"flow{k}.{metric}") for k in range(1, TABLE3_FLOWS + 1)]
    return None if None in parts else sum(x for x in parts if x is not None)


@_claim
def _aggregate_above_single(c: Checks) -> None:
    total = _aggregate(c, "throughput_kbps")
    single = _t2(c, TABLE3_NBR_KBPS, "throughput_kbps")
    c.measured["four flows: aggregate kbps"] = total if total is not None else math.nan
    c.that(None if total is None or single is None else total > single * (1 + INSIGNIFICANT_THR))


@_claim
def _parallel_more_rexmt(c: Checks) -> None:
    total = _aggregate(c, "throughput_kbps")
    single = _t2(c, TABLE3_NBR_KBPS, "throughput_kbps")
    c.that(None if total is None or single is None else total > single * (1 + INSIGNIFICANT_THR))
    rx = _aggregate(c, "rexmt_bytes")
    c.measured["four flows: retransmitted bytes together"] = rx if rx is not None else math.nan
    c.that(gt(rx, _t2(c, TABLE3_NBR_KBPS, "rexmt_bytes")))


@_claim
def _parallel_rtt_varies_more(c: Checks) -> None:
    devs = [_t3(c, f"flow{k}.rtt_dev_ms") for k in range(1, TABLE3_FLOWS + 1)]
    top = None if None in devs else max(x for x in devs if x is not None)
    c.that(gt(top, _t2(c, TABLE3_NBR_KBPS, "rtt_dev_ms")))


#: "unfairly": the paper gives no threshold (its own split is 139.0 / 79.5 = 1.75); afsim's:
#: the fastest flow's bandwidth at least a quarter above the slowest's.
UNFAIR_RATIO = 1.25


@_claim
def _unfair_split(c: Checks) -> None:
    hi, lo = _t3(c, "flow1.throughput_kbps"), _t3(c, f"flow{TABLE3_FLOWS}.throughput_kbps")
    c.that(None if hi is None or lo is None else (lo > 0 and hi / lo >= UNFAIR_RATIO) or (lo == 0 < hi))


@_claim
def _no_gain_above_optimum(c: Checks) -> None:
    t16, t18 = _t2(c, 1600, "throughput_kbps"), _t2(c, 1800, "throughput_kbps")
    c.that(None if t16 is None or t18 is None else t18 <= t16 * (1 + INSIGNIFICANT_THR))


@_claim
def _protects_tcp(c: Checks) -> None:
    for n in NBRS:
        c.that(_completes(c, T2, _nbr(n), f"NBR {n}"))
        c.that(gt(_t2(c, n, "throughput_kbps"), 0.0))
    done = c.mean("off 10: completed", T1OFF, _off(10), "completed")
    c.that(None if done is None else done < 1.0)


_ABS, _INTRO, _S2, _S32 = "Abstract", "§1 Introduction", "§2 The SIMA service model", "§3.2"
_S33, _S34, _S35 = "§3.3", "§3.4", "§3.5"
_S41, _S42, _S43, _CONC = "§4.1", "§4.2", "§4.3", "§5 Conclusions"

STATEMENTS: tuple[Statement, ...] = (
    # -- abstract -------------------------------------------------------------------------------
    Statement("abs-levels", "The network implements service differentiation by using eight drop "
              "precedence levels and separate classes for real time and non-real time traffic.",
              _ABS, Kind.IDENTITY, "the model: edge::sima and queue::sima, sixteen code points"),
    Statement("abs-recover", "Performed tests verified that our QoS (Quality of Service) "
              "implementation allows QoS -controlled TCP senders to recover faster from "
              "congestion than what is possible for TCP sessions in purely best-effort network.",
              _ABS, Kind.CLAIM,
              "§3.2 ties recovery to the RTT (\"The larger the RTT, the more time is needed to "
              "recover after a packet loss … if this effect is diminished by the use of our DS "
              "scheme\"): the mean RTT over Table II's NBRs below the mean RTT over Table I's "
              "loaded best-effort rows (8.5, 9.6, 9.7 Mb/s) by more than the 1.61 % §4.1 calls "
              "no remarkable difference", _sima_rtt_lower),
    Statement("abs-smooth", "When QoS is enabled, the access node helps smooth traffic bursts "
              "flowing into the Diffserv core network.", _ABS, Kind.NOT_CHECKABLE,
              "the access node marks and does not delay (§2); the paper measures no burstiness — "
              "the effect it means is the next sentence's"),
    Statement("abs-ca", "As a consequence, the congestion window oscillates moderately and keeps "
              "TCP operating in the congestion avoidance phase, making the rate adjustment scheme "
              "more controllable.", _ABS, Kind.CLAIM,
              "NBR 1600 (§4.2's near-optimal NBR, Fig. 8): the sender spends more than half of the "
              "transfer in congestion avoidance (cwnd ≥ ssthresh), and a larger share than best "
              "effort at 8.5 Mb/s (the same DP 4 load without SIMA)", _ca_with_sima),
    # -- introduction ---------------------------------------------------------------------------
    Statement("intro-sahu", "Sahu et al. [4] discovered that the throughput of a TCP connection "
              "in a DS network does not only depend on the sender but also on the receiver.",
              _INTRO, Kind.NOT_CHECKABLE, "another paper's result"),
    Statement("intro-difficult", "In [5], [9] and [6], it has been observed that it is difficult "
              "to guarantee requested throughput to the TCP flows in a differentiated services "
              "network.", _INTRO, Kind.NOT_CHECKABLE, "other papers' results"),
    Statement("intro-seddigh-over", "The authors indicate that in an over-provisioned network, all "
              "target rates are achieved regardless of these factors.", _INTRO,
              Kind.NOT_CHECKABLE, "another paper's result (RIO, not SIMA)"),
    Statement("intro-seddigh-under", "Further, they reported that as the network approaches an "
              "under-provisioned state, these factors play an important role in determining the "
              "extent to which aggregates of TCP flows achieve or do not achieve their target "
              "rates.", _INTRO, Kind.NOT_CHECKABLE, "another paper's result"),
    Statement("intro-floyd", "In [8] it is shown that while the use of concurrent connections "
              "increases throughput for those applications that break a TCP connection into "
              "multiple connection, it also increases the packet drop rates in the Internet.",
              _INTRO, Kind.NOT_CHECKABLE,
              "another paper's result; §4.3 makes the same observation on the testbed (claims "
              "s43-aggregate-up and s43-more-rexmt)"),
    Statement("intro-earlier-fair", "Results of our earlier measurements [13] showed that our QoS "
              "implementation guarantees quite fair treatment for the competing flows when TCP and "
              "UDP flows are in the same bottleneck link.", _INTRO, Kind.NOT_CHECKABLE,
              "the earlier paper's experiments, not given here"),
    Statement("intro-earlier-punished", "However, the measurements showed that the TCP flow "
              "aggregate will be punished for its good behaviour when the target rate of the UDP "
              "flow increases.", _INTRO, Kind.NOT_CHECKABLE,
              "the earlier paper's experiments, not given here"),
    Statement("intro-predict", "This paper increases the understanding of TCP behavior and can be "
              "used to predict TCP throughput with its contract rate in a differentiated services "
              "network.", _INTRO, Kind.NOT_CHECKABLE, "a purpose; the paper gives no predictor"),
    Statement("intro-init", "Upon connection startup phase, TCP enters the slow start phase where "
              "cwnd is initialized to one MSS (Max. Segment Size).", _INTRO, Kind.IDENTITY,
              "the scenarios' initial_window = 1; transport::tcp unit tests"),
    Statement("intro-probe", "TCP then probes for the available bandwidth inside the network by "
              "exponentially increasing its congestion window per round trip time (RTT).", _INTRO,
              Kind.IDENTITY, "slow start (RFC 5681); transport::tcp unit tests"),
    Statement("intro-halve", "Once a packet loss occurs in the network, TCP assumes that there is "
              "congestion in the network and therefore reduces the congestion window size to half "
              "of its current value (fast recovery).", _INTRO, Kind.IDENTITY,
              "fast recovery (RFC 5681, 6675); transport::tcp unit tests"),
    Statement("intro-udp", "In network congestion situations, UDP flows will not back off, and "
              "quickly they take over the bandwidth they need.", _INTRO, Kind.RESTATEMENT,
              "measured in §4.1", restates="s41-udp-through"),
    # -- §2 -------------------------------------------------------------------------------------
    Statement("s2-16phb", "SIMA provides service discrimination with 16 PHBs and two service "
              "classes: one class for real time (RT) and the other for non-real time (NRT) "
              "traffic, both having 8 priority values (DP, drop precedence).", _S2, Kind.IDENTITY,
              "the sixteen code points NRT0 … RT7 (edge::dscp)"),
    Statement("s2-lower", "When the customer exceeds the NBR (resulting in high value of the "
              "ratio) the packets are labelled with lower priority.", _S2, Kind.IDENTITY,
              "equation (1); edge::sima unit tests"),
    Statement("s2-light-congested", "In a lightly loaded network this may still result in a "
              "reasonable service, while in a congested network it will lead into packet drops.",
              _S2, Kind.CLAIM,
              "lightly loaded: Table I's SIMA-on row without background gets more than its 1.2 "
              "Mb/s NBR with nothing retransmitted; congested: every Table II transfer has "
              "retransmitted bytes", _light_vs_congested),
    Statement("s2-reliability", "On the other hand, low ratio means that packets get high priority "
              "values decreasing the possibility of packet drops, and thus increasing "
              "reliability.", _S2, Kind.CLAIM,
              "Table II: retransmitted bytes fall as the NBR grows (the MBR/NBR ratio falls): no "
              "step up by more than one segment (1448 B) plus the larger of the two 95 % "
              "half-widths, and fewer at 1800 than at 400 kb/s", _rexmt_falls_with_nbr),
    Statement("s2-mbr-only", "The MBR is the only parameter that keeps changing in an active "
              "flow.", _S2, Kind.IDENTITY, "the marker's parameters (NBR, class) are fixed"),
    Statement("s2-dpa", "If an incoming packet has smaller precedence than DP_a it is dropped "
              "before the actual buffering.", _S2, Kind.IDENTITY, "queue::sima unit tests"),
    Statement("s2-dscp", "The operation of a core network node is based only on the information "
              "in the DSCP field.", _S2, Kind.IDENTITY, "queue::sima reads the code point only"),
    # -- §3 -------------------------------------------------------------------------------------
    Statement("s32-rtt", "The larger the RTT, the more time is needed to recover after a packet "
              "loss.", _S32, Kind.NOT_CHECKABLE,
              "TCP in general; no experiment of the paper varies the RTT (abs-recover uses it)"),
    Statement("s32-window", "When the network is uncongested, the flow rates are proportional to "
              "the window sizes. However, as congestion occurs, the rates are no longer linear in "
              "the window sizes.", _S32, Kind.NOT_CHECKABLE,
              "TCP in general; no experiment of the paper varies the window"),
    Statement("s33-bottleneck", "The bottleneck link is between Core1 and Core2 nodes.", _S33,
              Kind.IDENTITY, "the scenarios' topology"),
    Statement("s34-buffers", "RT queue size was set to 9800 bytes and NRT queue size was set to "
              "20000 bytes.", _S34, Kind.IDENTITY, "sima.toml's rt_limit and nrt_limit"),
    Statement("s35-nrt", "In our tests TCP source sent only non-real time packets.", _S35,
              Kind.IDENTITY, "the marker's class = nrt"),
    Statement("s35-periodic", "Periodic arrivals provide a more stable comparison basis.", _S35,
              Kind.NOT_CHECKABLE, "a reason for the method"),
    Statement("s35-dp4-accepted", "A set of well-behaved UDP/CBR sources was used to load the "
              "network in the presence of persistent congestion so that, in principle, it only "
              "accepts for delivery the packets that have been provided with, at least, the DP "
              "value 4.", _S35, Kind.CLAIM,
              f"every Table II run: the DP 4 background loses at most {100 * MAX_DP4_LOSS:.1f} % "
              "(the most Table II implies: 502.6 of 8500 kb/s at NBR 1000) and the lower-DP "
              "background (DP 0 … 3) more than half", _dp4_accepted),
    Statement("s35-steady", "In addition, UDP flows with lower DP value were used to keep the "
              "allowed DP level as steady as possible.", _S35, Kind.NOT_CHECKABLE,
              "a purpose without a measure (their rates are an unstated parameter)"),
    Statement("s35-85", "The total sum of these well-behaved UDP flows (DP=4) was about 8.5 Mbps.",
              _S35, Kind.IDENTITY, "sima.toml: 10 × 850 kb/s at NRT4"),
    Statement("s35-five", "Each test was repeated five times with the same parameters to estimate "
              "the variance between the runs.", _S35, Kind.IDENTITY,
              "the reproduction's five replications per point (full mode)"),
    # -- §4.1 -----------------------------------------------------------------------------------
    Statement("s41-sawtooth", "When a packet loss occurs, the slow-start mechanism will decrease "
              "the congestion window by half. This leads to the classic \"saw tooth\" pattern "
              "shown in Figure 2.", _S41, Kind.NOT_CHECKABLE,
              "Figure 2 is the unloaded best-effort run, for which Table I reports no "
              "retransmitted byte: its sawtooth cannot come from losses (the paper's 'congestion "
              "window' is presumably tcptrace's outstanding-data graph); fig2_cwnd draws afsim's"),
    Statement("s41-same-on", "The same behavior of the congestion window was observed when the QoS "
              "functionality was enabled and the network was over-provisioned.", _S41,
              Kind.RESTATEMENT, "Table I's unloaded rows", restates="s41-not-depending"),
    Statement("s41-not-depending", "The results showed that the behavior of a single TCP flow was "
              "not depending on whether QoS was enabled or not, when the network was "
              "over-provisioned.", _S41, Kind.CLAIM,
              "Table I without background, SIMA off against on: throughput within 1.01 %, "
              "transfer time within 1.52 %, RTT mean within 1.61 %, RTT deviation within 6.36 % "
              "(the paper's own differences between these rows), the same retransmitted bytes",
              _not_depending_on_qos),
    Statement("s41-varied", "We varied the background load level from 8.5 Mbps to 10 Mbps.", _S41,
              Kind.IDENTITY, "experiment table1_off's grid"),
    Statement("s41-no-bandwidth", "When we loaded the network so that the background load reached "
              "the link capacity, the aggressive UDP flows left no bandwidth for the TCP "
              "connection.", _S41, Kind.CLAIM,
              "best effort at 10 Mb/s: no replication completes its transfer within the run, and "
              "its throughput rounds to 0.00 Mb/s (Table I: \"0\", \"Inf.\")",
              _no_bandwidth_at_capacity),
    Statement("s41-no-remarkable", "When there was not background load no remarkable differences "
              "could be measured between the case where QoS is enabled or disabled (Figure 4).",
              _S41, Kind.RESTATEMENT, "Table I's unloaded rows", restates="s41-not-depending"),
    Statement("s41-below4", "In over-provisioned QoS network, although the achieved throughput is "
              "high as 6.05 Mbps, most of the packets are marked with lower DP value than four "
              "(Figure 5), since the NBR was specified to be 1.2 Mbps.", _S41, Kind.CLAIM,
              "SIMA on without background: throughput above the 1.2 Mb/s NBR, and more than half "
              "of the flow's packets at DP < 4", _mostly_below_dp4),
    Statement("s41-lowdp-dropped", "At times of instantaneous congestion in the network, the "
              "packets marked with smaller DP than four are more likely to be dropped.", _S41,
              Kind.IDENTITY, "the core node's rule: DP_a rises with the averaged occupancy, so "
              "lower precedences are refused first (queue::sima unit tests)"),
    Statement("s41-udp-through", "When the network is under-provisioned, a non-congestion "
              "controlled UDP sources get almost all its packets through the network at the "
              "expenses of TCP connections' throughput.", _S41, Kind.CLAIM,
              "best effort at 8.5, 9.6 and 9.7 Mb/s: the UDP background loses at most 2 % ('almost "
              "all': the paper's own §4.2 figure, '98 percents … through'), TCP's throughput is "
              "below what the background leaves (10 Mb/s − load) and falls as the load grows",
              _udp_takes_over),
    Statement("s41-col3", "The third column in Table I shows the average stream bandwidth achieved "
              "by a single TCP stream.", _S41, Kind.IDENTITY, "a definition (this module's "
              "throughput)"),
    Statement("s41-col6", "The sixth column in Table I is total number of bytes retransmitted "
              "(Rexmt) for a single TCP stream during the transmission period.", _S41,
              Kind.IDENTITY, "a definition (afsim's retransmitted_bytes)"),
    # -- §4.2 -----------------------------------------------------------------------------------
    Statement("s42-dp4", "In this experiment, the total sum of the background sources with DP "
              "value 4 was 8.5 Mbps.", _S42, Kind.IDENTITY, "sima.toml's bg4 flows"),
    Statement("s42-falls-short", "We observed that in all cases our QoS scheme falls short of "
              "providing the assurance of the rate they aimed to provide.", _S42, Kind.CLAIM,
              "Table II, every NBR: throughput below the NBR", _below_nbr_everywhere),
    Statement("s42-400", "In the case where the TCP has low NBR value (400 kbps) the average "
              "throughput of a TCP flow remains low, whereas the UDP sources (with DP value four) "
              "get 98 percents of its packets through the network at the expenses of a TCP "
              "connections' throughput.", _S42, Kind.CLAIM,
              "NBR 400: the lowest throughput of Table II, and the DP 4 background delivers 97.5 … "
              "98.5 % of its 8.5 Mb/s (98 to the printed digit; 1 − reduction ÷ 8500 kb/s)",
              _nbr400_low_and_dp4_through),
    Statement("s42-much-less", "Actual TCP throughput is persistently much less than load of the "
              "network would indicate is available (1.5 Mbps for packets with DP value 4).", _S42,
              Kind.CLAIM, "every NBR: throughput below half of 1.5 Mb/s ('much less'; the paper's "
              "largest is 420.9 kb/s, 28 %)", _much_less_than_available),
    Statement("s42-oscillate", "If the NBR value is assigned too low, the core router queues will "
              "oscillate as congestion window does its characteristic sawtooth.", _S42,
              Kind.NOT_CHECKABLE, "the paper measures no queue; the sawtooth is Figure 6 "
              "(fig6_cwnd draws afsim's)"),
    Statement("s42-low-dp", "Throughput decrease is due to the fact that too many packets are "
              "receiving low DP values, thus limiting the TCP performance.", _S42, Kind.CLAIM,
              "NBR 400: more than half of the flow's packets at DP < 4 (below the level the DP 4 "
              "background holds), and a larger share than at NBR 1600", _too_many_low_dp),
    Statement("s42-1600", "In the case the congestion window oscillates moderately and the number "
              "of retransmitted packets remains low.", _S42, Kind.CLAIM,
              "NBR 1600: fewer retransmitted bytes than at every lower NBR (the oscillation is "
              "Figure 8's: fig8_cwnd, not scored)", _nbr1600_few_rexmt),
    Statement("s42-above4", "As Figure 9 shows, when the NBR value is assigned high enough, larger "
              "fraction of TCP segments are marked with priority higher than four.", _S42,
              Kind.CLAIM, "the share of the flow's packets at DP > 4 larger at NBR 1600 than at "
              "NBR 400", _high_nbr_more_above4),
    Statement("s42-keep-small", "However, it should be noted that the fraction of packets with "
              "priority higher than four should be kept as small as possible.", _S42,
              Kind.NOT_CHECKABLE, "a recommendation"),
    Statement("s42-relative", "The priority of a packet is only meaningful relative to other "
              "packets of different priorities.", _S42, Kind.NOT_CHECKABLE,
              "a remark on the scheme, no quantity"),
    Statement("s42-too-high", "When the NBR value is assigned too large (Figure 10), the TCP "
              "packets are marked with the highest DP, thus producing a large burst of data in the "
              "beginning of a transfer.", _S42, Kind.CLAIM,
              "NBR 1800: more than half of the flow's packets at DP 6 (the highest equation (1) "
              "gives), and more packets sent in the transfer's first second than at NBR 1600",
              _too_high_nbr_burst),
    Statement("s42-rtt-ranges", "We can observe from Table II that the average RTT for a TCP flow "
              "in each experiment lies somewhere between 44 and 180 milliseconds, while those for "
              "the QoS disabled case lies somewhere between 170 and 260 milliseconds.", _S42,
              Kind.CLAIM,
              "Table II's RTT means within [44, 180] ms; Table I's loaded best-effort rows' within "
              "[165, 265) ms (170 and 260 to the nearest ten: its own 168.6 and 261.6)",
              _rtt_ranges),
    Statement("s42-rtt-variation", "If the assigned NBR value is too low or high, TCP performance "
              "suffers from large variations in round trip time estimates.", _S42, Kind.CLAIM,
              "RTT deviation at NBR 600 (too low) and at 1800 (too high) each above every one at "
              "1000 … 1400; Table II's 400 row prints Table I's unloaded RTT (44.4/18.4), "
              "apparently a copy, so 'too low' is read at 600", _rtt_varies_at_extremes),
    # -- §4.3 -----------------------------------------------------------------------------------
    Statement("s43-contracts", "In a differentiated services network, service contracts will not "
              "typically be on a per end-user basis.", _S43, Kind.NOT_CHECKABLE, "a premise"),
    Statement("s43-aggregate-marking", "In the marking of aggregated flows, however, the NBR rate "
              "consumed by an individual flow is not fixed even though the aggregated NBR rate is "
              "fixed.", _S43, Kind.IDENTITY, "one meter for the aggregate (per_flow = false)"),
    Statement("s43-none", "The results of this experiment show that none of the TCP flows "
              "achieves its shared target rate (200 kbps).", _S43, Kind.CLAIM,
              "each of the four flows below 200 kb/s", _none_reaches_share),
    Statement("s43-aggregate-up", "However, for four parallel TCP streams, the aggregate bandwidth "
              "is increased from 180 kbps (see Table II, row NBR=800 kbps) to 440 kbps.", _S43,
              Kind.CLAIM, "the four flows' bandwidths together above Table II's single flow at "
              "NBR 800 by more than 1.01 % (the paper's: 438.4 against 180.5)",
              _aggregate_above_single),
    Statement("s43-more-rexmt", "While the use of parallel connections increases throughput, it "
              "comes at the cost of degraded congestion control behavior, thus leading to the "
              "increased number of retransmitted packets.", _S43, Kind.CLAIM,
              "the four flows together: more throughput and more retransmitted bytes than Table "
              "II's single flow at NBR 800 (the same 1 MB in all)", _parallel_more_rexmt),
    Statement("s43-rtt-var", "In this experiment, it is also observed that the variation of RTT "
              "becomes larger.", _S43, Kind.CLAIM,
              "the largest of the four flows' RTT deviations above the single flow's at NBR 800 "
              "(the paper's mean of the four, 117.3 ms, is below that 124.8 ms, its largest, "
              "139.1, above: the sentence holds only on the largest)", _parallel_rtt_varies_more),
    Statement("s43-unfair", "In addition, the contract rate shared by the aggregated flow is "
              "consumed unfairly within the aggregation.", _S43, Kind.CLAIM,
              f"the fastest flow's bandwidth at least {UNFAIR_RATIO} × the slowest's (the paper "
              "gives no threshold; its own split is 1.75; 1.25 is afsim's)", _unfair_split),
    # -- conclusions ----------------------------------------------------------------------------
    Statement("conc-ca", "Our measurements show that the congestion window oscillates moderately "
              "and keeps TCP operating in the congestion avoidance phase, making the rate "
              "adjustment scheme more controllable, when QoS is enabled.", _CONC,
              Kind.RESTATEMENT, "the abstract's claim", restates="abs-ca"),
    Statement("conc-less-rexmt", "We also observed that there happens less retransmissions with "
              "optimally assigned NBR values, which means less traffic in the network.", _CONC,
              Kind.RESTATEMENT, "§4.2 at NBR 1600", restates="s42-1600"),
    Statement("conc-small", "Although the relative amount of bytes retransmitted in our case is "
              "small, the effect can be more significant when there are more contributing end "
              "systems.", _CONC, Kind.NOT_CHECKABLE,
              "'small' has no threshold (Table II: 7 … 35 % of the transfer); the rest is a "
              "conjecture"),
    Statement("conc-goodput", "The absence of retransmitted bytes also implies an improvement in "
              "the goodput.", _CONC, Kind.IDENTITY, "goodput counts each byte once"),
    Statement("conc-adsl", "This becomes very important for low bandwidth links, such as ADSL "
              "lines.", _CONC, Kind.NOT_CHECKABLE, "no ADSL link is measured"),
    Statement("conc-not-guaranteed", "However, based on the measurements, it appears that it is "
              "not possible to guarantee requested NBR rate to the TCP flows in a heavily "
              "congested differentiated services network.", _CONC, Kind.RESTATEMENT,
              "§4.2's observation", restates="s42-falls-short"),
    Statement("conc-no-gain", "A further increase of NBR value does not bring any additional gain "
              "with respect to the obtained throughput.", _CONC, Kind.CLAIM,
              "throughput at NBR 1800 not above that at 1600 (the near-optimal NBR) by more than "
              "1.01 %", _no_gain_above_optimum),
    Statement("conc-pricing", "This behavior should be taken into consideration when specifying "
              "pricing models for the DS networks.", _CONC, Kind.NOT_CHECKABLE,
              "a recommendation"),
    Statement("conc-protect", "From the performed measurements, we can conclude that our QoS "
              "scheme is able to protect TCP flows against aggressive UDP traffic and can "
              "guarantee a certain minimum bit rate.", _CONC, Kind.CLAIM,
              "with SIMA every Table II transfer completes with a throughput above zero, while "
              "best effort against 10 Mb/s of UDP does not complete", _protects_tcp),
    Statement("conc-policing", "Nevertheless, the detection and policing of aggressive flows "
              "should be deployed in order to be able to provide a certain bandwidth profile to "
              "TCP connections and a reasonable level of service differentiation between TCP and "
              "UDP users.", _CONC, Kind.NOT_CHECKABLE, "a recommendation"),
)

FIGURES = (
    Figure("table1_throughput", "Table I: TCP bandwidth against best-effort background (SIMA off)",
           T1OFF, "throughput_mbps", x="background_mbps", series="sima",
           xlabel="UDP background (Mb/s)", ylabel="avg. stream bandwidth (Mb/s)",
           series_name="SIMA"),
    Figure("table2_throughput", "Table II: TCP bandwidth against NBR", T2, "throughput_kbps",
           x="nbr_kbps", series="sima", xlabel="NBR (kb/s)", ylabel="avg. stream bandwidth (kb/s)",
           reference=(LEFT_FOR_DP4_KBPS, "1.5 Mb/s left by the DP 4 background"),
           series_name="SIMA"),
    Figure("table2_rexmt", "Table II: retransmitted data bytes against NBR", T2, "rexmt_bytes",
           x="nbr_kbps", series="sima", xlabel="NBR (kb/s)", ylabel="retransmitted bytes",
           series_name="SIMA"),
    Figure("table2_rtt", "Table II: RTT mean against NBR", T2, "rtt_mean_ms", x="nbr_kbps",
           series="sima", xlabel="NBR (kb/s)", ylabel="RTT mean (ms)", series_name="SIMA"),
    Figure("table2_throughput_mbr_1mb",
           "Table II under the variant 'MBR over 1 MB' (experiment table2@mbr_1mb)",
           f"{T2}@mbr_1mb", "throughput_kbps", x="nbr_kbps", series="sima", xlabel="NBR (kb/s)",
           ylabel="avg. stream bandwidth (kb/s)",
           reference=(LEFT_FOR_DP4_KBPS, "1.5 Mb/s left by the DP 4 background"), series_name="SIMA"),
    Figure("table2_rexmt_mbr_1mb",
           "Table II retransmissions under the variant 'MBR over 1 MB' (experiment table2@mbr_1mb)",
           f"{T2}@mbr_1mb", "rexmt_bytes", x="nbr_kbps", series="sima", xlabel="NBR (kb/s)",
           ylabel="retransmitted bytes", series_name="SIMA"),
)


# ---------------------------------------------------------------------------------------------
# The paper's cwnd and DP figures (Figs. 2–11), drawn from re-runs of the reproduction's runs

#: (figure id, title, experiment, point labels): the paper's cwnd figures.
CWND_FIGURES = (
    ("fig2_cwnd", "Fig. 2: cwnd, SIMA off, no background", T1OFF, _off(0)),
    ("fig3_cwnd", "Fig. 3: cwnd, SIMA off, 9.6 Mb/s of background", T1OFF, _off(9.6)),
    ("fig4_cwnd", "Fig. 4: cwnd, SIMA on, no background", T1ON, ON0),
    ("fig6_cwnd", "Fig. 6: cwnd, NBR 400 kb/s ('too low')", T2, _nbr(400)),
    ("fig8_cwnd", "Fig. 8: cwnd, NBR 1600 kb/s ('more optimal')", T2, _nbr(1600)),
    ("fig10_cwnd", "Fig. 10: cwnd, NBR 1800 kb/s ('too high')", T2, _nbr(1800)),
    ("fig11_cwnd", "Fig. 11: cwnd, four flows sharing an NBR of 800 kb/s", T3, FOUR),
)
#: The paper's DP distribution figures.
DP_FIGURES = (
    ("fig5_dp", "Fig. 5: DP of the TCP flow's packets, SIMA on, no background", T1ON, ON0),
    ("fig7_dp", "Fig. 7: DP of the TCP flow's packets, NBR 400 kb/s", T2, _nbr(400)),
    ("fig9_dp", "Fig. 9: DP of the TCP flow's packets, NBR 1600 kb/s", T2, _nbr(1600)),
)
#: The variant drawn beside the default where it ran.
FIGURE_VARIANT = "mbr_1mb"


def _ran(rep: Reproduction, experiment: str, labels: Mapping[str, Any]) -> bool:
    return any(p.matches(labels) for p in rep.aggregates.points(experiment))


def _readings(rep: Reproduction, experiment: str, labels: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(experiment id, panel label) of the default and, where it ran, the figure variant."""
    out = [(experiment, "afsim default")]
    vid = f"{experiment}@{FIGURE_VARIANT}"
    if _ran(rep, vid, labels):
        out.append((vid, f"variant {FIGURE_VARIANT}"))
    return out


def _save(fig: Any, out_dir: Path, fid: str) -> list[Path]:
    paths = []
    for ext in ("png", "svg"):
        path = out_dir / f"{fid}.{ext}"
        fig.savefig(path, dpi=150 if ext == "png" else None)
        paths.append(path)
    return paths


def _title(rep: Reproduction, title: str) -> str:
    if not rep.mode.is_paper_budget:
        title += f"\n{rep.mode.name.upper()} MODE: {rep.mode.reduction()}"
    return title


def extra_figures(rep: Reproduction, out_dir: Path) -> dict[str, list[Path]]:
    """The paper's cwnd (Figs. 2–4, 6, 8, 10, 11) and DP distribution (Figs. 5, 7, 9) figures:
    cwnd and ssthresh over the first replication's transfer (re-run), and the DP shares over
    every replication with the first replication's DPs over time; the variant MBR beside the
    default where it ran; and the DP shares against the NBR under every MBR reading that ran
    (``laatu_mbr.nbr_response_figure``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: dict[str, list[Path]] = {}
    for fid, title, exp, labels in CWND_FIGURES:
        if not _ran(rep, exp, labels):
            continue
        panels = _readings(rep, exp, labels)
        fig, axes = plt.subplots(len(panels), 1, figsize=(7.0, 3.2 * len(panels)), squeeze=False)
        for ax, (eid, label) in zip(axes[:, 0], panels, strict=True):
            r = core.rerun(rep, eid, labels)
            for name, t in r.traces.groupby("flow", sort=True):
                t0 = float(t["time_s"].min())
                line, = ax.step(t["time_s"] - t0, t["cwnd"] / 1000.0, where="post", linewidth=0.8,
                                label=f"{name} cwnd")
                ax.step(t["time_s"] - t0, t["ssthresh"] / 1000.0, where="post", linewidth=0.6,
                        linestyle=":", color=line.get_color(), label=f"{name} ssthresh")
            ax.set_title(f"{label} ({eid}, first replication)", fontsize=8)
            ax.set_xlabel("time since the transfer's SYN (s)")
            ax.set_ylabel("kB")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=6, ncol=4)
        fig.suptitle(_title(rep, title), fontsize=10)
        fig.tight_layout()
        written[fid] = _save(fig, out_dir, fid)
        plt.close(fig)
    for fid, title, exp, labels in DP_FIGURES:
        if not _ran(rep, exp, labels):
            continue
        panels = _readings(rep, exp, labels)
        fig, (bars, scatter) = plt.subplots(1, 2, figsize=(10.0, 3.8))
        width = 0.8 / len(panels)
        for k, (eid, label) in enumerate(panels):
            shares, errs = [], []
            for dp in range(8):
                s = rep.aggregates.stat(eid, labels, f"dp{dp}_share")
                shares.append(100.0 * s.mean if s and s.n else 0.0)
                errs.append(100.0 * s.ci95 if s and s.n > 1 and math.isfinite(s.ci95) else 0.0)
            xs = [dp - 0.4 + width * (k + 0.5) for dp in range(8)]
            bars.bar(xs, shares, width=width, yerr=errs, capsize=2, label=label)
            r = core.rerun(rep, eid, labels)
            t = r.dp_trace
            if len(t):
                t0 = float(t["time_s"].min())
                scatter.plot(t["time_s"] - t0, t["dp"] + (k - (len(panels) - 1) / 2) * 0.15, ".",
                             markersize=2, label=label)
        bars.set_xlabel("drop precedence")
        bars.set_ylabel("share of the flow's packets (%), mean ± 95 % CI")
        bars.set_xticks(range(8))
        bars.legend(fontsize=7)
        bars.grid(True, axis="y", alpha=0.3)
        scatter.set_xlabel("time since the first packet (s), first replication")
        scatter.set_ylabel("drop precedence")
        scatter.set_yticks(range(8))
        scatter.grid(True, alpha=0.3)
        scatter.legend(fontsize=7, markerscale=4)
        fig.suptitle(_title(rep, title), fontsize=10)
        fig.tight_layout()
        written[fid] = _save(fig, out_dir, fid)
        plt.close(fig)
    nbr_dp = laatu_mbr.nbr_response_figure(
        rep, out_dir, T2, NBRS, _title(rep, "Table II: the DP of the TCP flow's packets against "
                                            "the NBR, under each reading of the MBR"))
    if nbr_dp:
        written["nbr_dp_response"] = nbr_dp
    return written


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, statements, figures, published values,
    null model, variants and unstated parameters."""
    return Paper(PAPER_ID, TITLE, CITATION, experiments(scenarios_dir), STATEMENTS, FIGURES, DATA,
                 null_model, NULL_DESCRIPTION, VARIANTS, UNSTATED, extra_figures=extra_figures)


def mode(quick: bool, budget: int | None = None, replications: int | None = None) -> Mode:
    """Full (the paper's five repetitions) or quick mode, optionally with another cap on
    simulated time (``budget``, seconds) or number of replications; fewer replications than the
    paper's five are always reported as reduced."""
    import dataclasses

    base = QUICK if quick else FULL
    return dataclasses.replace(base, budget=budget or base.budget,
                               replications=replications or base.replications)
