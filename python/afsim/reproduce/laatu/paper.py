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
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from afsim.reproduce import core
from afsim.reproduce.core import Experiment, Mode, Point, Variant
from afsim.reproduce.laatu import mbr as laatu_mbr
from afsim.reproduce.robustness import Unstated
from afsim.stats import jain
from afsim.units import number_in

if TYPE_CHECKING:
    import pandas as pd

    from afsim.results import Results


PAPER_ID = "laatu"
TITLE = ("Laatu, Harju, Loula — Measurements Based Analysis of the Characteristics of TCP in a "
         "Differentiated Services Capable Network")
CITATION = ("V. Laatu, J. Harju, P. Loula, \"Measurements Based Analysis of the Characteristics "
            "of TCP in a Differentiated Services Capable Network\" (Tampere University of "
            "Technology; papers/002): Tables I–III, Figs. 2–11. Measured on a testbed of Linux "
            "2.2.9 routers and hosts with an Adtech AX/4000 traffic generator.")
DATA = Path(__file__).with_name("values.json")

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
    """A time parameter ("2s", "2.5s", "2000ms") in seconds (``afsim.units``)."""
    return number_in(text, "s")


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
        m["jain"] = jain(thr)
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
    return number_in(text, "kbps")


def _bytes(text: str) -> float:
    return number_in(text, "B")


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


def mode(quick: bool, budget: int | None = None, replications: int | None = None) -> Mode:
    """Full (the paper's five repetitions) or quick mode, optionally with another cap on
    simulated time (``budget``, seconds) or number of replications; fewer replications than the
    paper's five are always reported as reduced."""
    import dataclasses

    base = QUICK if quick else FULL
    return dataclasses.replace(base, budget=budget or base.budget,
                               replications=replications or base.replications)
