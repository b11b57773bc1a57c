"""Laatu et al.'s testbed live: Tables I–III's points run with ``afsim live`` (Linux reno between
network namespaces, through afsim-core's SIMA access node, SIMA core nodes and 10 Mb/s links),
for the reproduction's live column (``afsim.reproduce.live``).

Read this first. Each run is ``afsim live`` of the point's scenario (laatu/sima.toml or
best_effort.toml) with the point's overrides, the replication's transfer phase
(``laatu.start_phase``, as the simulator's), ``--cc reno`` and two captures of the TCP
source's access link (``tcp_src->border1``, ``border1->tcp_src``); it stops when every transfer
is acknowledged (the scenarios' ``until_transfers_complete``) or at ``CAP_S`` of wall time.
Reduced before it is committed: the live report (flows, queues, the forwarder's own numbers and
warnings) and, per TCP flow, tcptrace's RTT from the captures (``afsim.live.tcptrace``: a sample
per ACK of a segment sent once, as the paper's tcptrace on the sender), which the paper's
metrics read instead of TCP_INFO's smoothed RTT (kept beside it as ``rtt_*_tcpinfo_s``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from afsim.reproduce.live import LiveSpec

#: Wall-time cap of a run (s): the paper's slowest completed transfer took 148.14 s (Table I,
#: 9.7 Mb/s), so a run that would complete like the testbed's can.
CAP_S = 150
#: Runs per point: the paper's five repetitions (the simulator's full mode runs five too).
REPLICATIONS = 5
CC = "reno"
SRC, ACCESS = "tcp_src", "border1"
#: The Ethernet framing of the scenarios' links (``framing = { overhead = "38B" }``).
FRAMING_B = 38
#: Destination port of flow i on the wire (``afsim.live.run.FLOW_PORT_BASE``).
PORT_BASE = 5000

DESCRIPTION = (
    "The paper's points run live (`afsim live`, issue 22): the TCP source and sink and the "
    "AX/4000's ends are Linux network namespaces, the routers and links afsim-core's own "
    "models (the SIMA access node at border1, SIMA core nodes or FIFO queues, 10 Mb/s links "
    "with 38 B of framing) in one forwarder process against the wall clock. TCP is this "
    "machine's Linux (6.18) reno, the testbed's hosts ran Linux 2.2.9: the same congestion "
    "avoidance, but today's stack recovers differently (SACK with RACK-TLP and PRR, loss "
    "probes instead of many timeouts, an initial window of 10 segments against 2.2's one "
    "(the paper's §1), timestamps, a 200 ms minimum RTO) and paces nothing; the receive "
    "window is clamped to "
    "the scenario's 32 KiB. The UDP background comes from Python generators under "
    "SCHED_FIFO, not an AX/4000; the hosts' stacks and the forwarder add about 0.1–0.2 ms to "
    "an RTT, the testbed's hubs and Pentium II routers their own. Each run stops when the "
    "transfer is acknowledged, or at 150 s of wall time (a lower bound on its transfer time "
    "then, as the simulator's cap). RTT mean and deviation are tcptrace's rule on the "
    "forwarder's captures of the sender's access link (one sample per ACK of a segment sent "
    "once); retransmitted bytes are the sender's own (TCP_INFO); the background's reduction is "
    "the forwarder's count of what the DP 4 flows delivered during the transfer.")


def _ack_delay(rate_bps: float, delay_s: float):
    def delay(ip_len: int) -> float:
        return (ip_len + FRAMING_B) * 8.0 / rate_bps + delay_s
    return delay


def run(scenario: Path, overrides: Mapping[str, str], seed: int, work: Path) -> dict[str, Any]:
    """One live run of a Laatu point, reduced to what is committed."""
    import json

    import afsim
    from afsim import _core
    from afsim.live import tcptrace
    from afsim.live.run import live

    sc = afsim.load_scenario(scenario, overrides=dict(overrides))
    plan = json.loads(_core.live_plan(sc))
    names = [n["name"] for n in plan["nodes"]]
    link = next(lk for lk in plan["links"]
                if {names[lk["a"]], names[lk["b"]]} == {SRC, ACCESS})
    data_pcap, ack_pcap = work / "data.pcap", work / "ack.pcap"
    summary = live(scenario, dict(overrides), seed, cc=[CC],
                   captures=[(f"{SRC}->{ACCESS}", data_pcap), (f"{ACCESS}->{SRC}", ack_pcap)])
    trace = {}
    for i, f in enumerate(summary["flows"]):
        if f["kind"].startswith("tcp"):
            trace[f["name"]] = tcptrace.sender_rtts(
                data_pcap, ack_pcap, PORT_BASE + i, _ack_delay(link["rate_bps"], link["delay_s"]))
    return {"summary": summary, "tcptrace": trace}


class LiveResults:
    """A committed live run in the table shapes ``laatu.metrics`` reads: ``flows`` (the live
    report's rows, RTT from tcptrace), ``traces`` (one record per TCP flow: its SYN, no cwnd:
    none is measured per ACK live), empty ``dp_trace`` and ``sima_queues``, ``end_time_s``."""

    def __init__(self, raw: dict[str, Any]) -> None:
        import pandas as pd

        s = raw["summary"]
        rows = []
        syn = []
        for f in s["flows"]:
            row = {k: v for k, v in f.items() if k != "live"}
            for k in ("timeouts", "fast_recoveries", "rtt_mean_s", "rtt_std_s"):
                if row.get(k) is None:
                    row[k] = math.nan
            if f["kind"].startswith("tcp"):
                t = raw["tcptrace"].get(f["name"], {})
                row["rtt_mean_tcpinfo_s"], row["rtt_std_tcpinfo_s"] = row["rtt_mean_s"], row["rtt_std_s"]
                row["rtt_mean_s"] = t.get("rtt_mean_s", math.nan)
                row["rtt_std_s"] = t.get("rtt_std_s", math.nan)
                syn.append({"flow": f["name"], "time_s": f["live"].get("connect_s", math.nan),
                            "cwnd": math.nan, "ssthresh": math.nan})
            rows.append(row)
        self.flows = pd.DataFrame(rows)
        self.traces = pd.DataFrame(syn, columns=["flow", "time_s", "cwnd", "ssthresh"])
        self.dp_trace = pd.DataFrame(columns=["flow", "time_s", "dp"])
        self.sima_queues = pd.DataFrame()
        self.end_time_s = float(s["end_time_s"])
        self.summary = s


SPEC = LiveSpec(
    cap_s=CAP_S, cap_param="duration", replications=REPLICATIONS, cc=CC,
    description=DESCRIPTION, run=run, results=LiveResults,
    not_measured={"ca_share": "no per-ACK cwnd trace live (TCP_INFO is not read per ACK)"})
