"""The DiffServ cross-check's metrics (validation/ns2/diffserv.py, diffserv_ecn.py): what an
ns-2 run of diffserv.tcl and an afsim run of diffserv-rio.toml are reduced to, per code point at
the bottleneck, at the edge, and per flow class, and their summary over seeds.

Keys: "<cp>.<what>" per code point at the bottleneck, "edge.<cp>" marking at the edge,
"<class>.<what>" per flow class, and the rest aggregate. Every count is over the whole run.
"""

from __future__ import annotations

from typing import Any

import ns2kit
from ns2kit import compare, jain

#: The bottleneck queue, as afsim names it.
BOTTLENECK = "core->egress"
#: Code points: in profile (precedence 0, IN, colour level 0) and out of profile (1, OUT).
CPS = {"AF11": (10, 0), "AF12": (12, 1)}
#: IN curve's max_th (diffserv.tcl `in`, the toml's `in.max_th`): an average above it forces drops.
MAX_TH = {"AF11": 40.0, "AF12": 20.0}
BOTTLENECK_BPS = 10e6
SEGMENT_IP_BYTES = 1040
SEGMENT_PAYLOAD = 1000
#: Flow classes: name, ns-2 flow indices, committed rate (b/s).
CLASSES = {"a": (range(0, 10), 200_000), "b": (range(10, 20), 600_000)}


#: (key, label, format) in table order, by table.
TABLES: dict[str, list[tuple[str, str, str]]] = {
    "bottleneck": [
        ("AF11.arrivals", "AF11 arrivals", "{:.0f}"),
        ("AF11.accepted", "AF11 accepted (TxPkts)", "{:.0f}"),
        ("AF11.early", "AF11 random early drops (edrops)", "{:.1f}"),
        ("AF11.forced", "AF11 forced drops (avg > max_th)", "{:.1f}"),
        ("AF11.overflow", "AF11 overflow drops (buffer full)", "{:.1f}"),
        ("AF11.ldrops", "AF11 ldrops = forced + overflow", "{:.1f}"),
        ("AF11.drops", "AF11 drops, all", "{:.1f}"),
        ("AF12.arrivals", "AF12 arrivals", "{:.0f}"),
        ("AF12.accepted", "AF12 accepted (TxPkts)", "{:.0f}"),
        ("AF12.early", "AF12 random early drops (edrops)", "{:.0f}"),
        ("AF12.forced", "AF12 forced drops (avg > max_th)", "{:.0f}"),
        ("AF12.overflow", "AF12 overflow drops (buffer full)", "{:.1f}"),
        ("AF12.ldrops", "AF12 ldrops = forced + overflow", "{:.0f}"),
        ("AF12.drops", "AF12 drops, all", "{:.0f}"),
        ("AF12.loss", "AF12 loss ratio", "{:.4f}"),
        ("drops", "all drops", "{:.0f}"),
        ("overflow", "overflow drops, both code points", "{:.1f}"),
        ("utilization", "bottleneck utilisation", "{:.4f}"),
        ("mean_queue_pkts", "mean queue length (packets)", "{:.2f}"),
    ],
    "edge": [
        ("edge.AF11", "packets marked AF11 (in profile)", "{:.0f}"),
        ("edge.AF12", "packets marked AF12 (out of profile)", "{:.0f}"),
        ("edge.out_share", "share marked AF12", "{:.4f}"),
    ],
    "flows": [
        ("goodput_mbps", "aggregate goodput (Mb/s)", "{:.3f}"),
        ("a.goodput_mbps", "class a (CIR 200 kb/s): goodput, 10 flows (Mb/s)", "{:.3f}"),
        ("b.goodput_mbps", "class b (CIR 600 kb/s): goodput, 10 flows (Mb/s)", "{:.3f}"),
        ("a.flow_min", "class a: per-flow goodput min (kb/s)", "{:.1f}"),
        ("a.flow_max", "class a: per-flow goodput max (kb/s)", "{:.1f}"),
        ("b.flow_min", "class b: per-flow goodput min (kb/s)", "{:.1f}"),
        ("b.flow_max", "class b: per-flow goodput max (kb/s)", "{:.1f}"),
        ("a.drops", "class a: bottleneck drops", "{:.0f}"),
        ("b.drops", "class b: bottleneck drops", "{:.0f}"),
        ("a.timeouts", "class a: retransmission timeouts", "{:.1f}"),
        ("b.timeouts", "class b: retransmission timeouts", "{:.1f}"),
        ("a.retransmissions", "class a: retransmitted segments", "{:.0f}"),
        ("b.retransmissions", "class b: retransmitted segments", "{:.0f}"),
        ("jain", "Jain's index of per-flow goodput, all 20", "{:.4f}"),
    ],
    "time": [
        ("run_wall_s", "run wall time (s)", "{:.3f}"),
        ("process_wall_s", "process wall time (s)", "{:.3f}"),
    ],
}
ALL_METRICS = [m for rows in TABLES.values() for m in rows]
#: Metrics that are counts (subtract over an interval for --split).
COUNTERS = [k for k, _, _ in ALL_METRICS
            if k.split(".")[-1] in ("arrivals", "accepted", "early", "forced", "overflow", "ldrops",
                                    "drops", "timeouts", "retransmissions")
            or k in ("edge.AF11", "edge.AF12")]


def flow_metrics(m: dict[str, Any], goodput: list[int], drops: list[int | None],
                 timeouts: list[int | None], rexmits: list[int | None], span_s: float) -> None:
    """Per-class and aggregate flow metrics from per-flow lists in ns-2's flow order (a0..a9, b0..b9)."""
    kbps = [g * 8 / span_s / 1e3 for g in goodput]
    m["per_flow_goodput_bytes"] = goodput
    m["goodput_mbps"] = sum(kbps) / 1e3
    m["jain"] = jain(kbps)
    for cls, (idx, _cir) in CLASSES.items():
        mine = [kbps[i] for i in idx]
        m[f"{cls}.goodput_mbps"] = sum(mine) / 1e3
        m[f"{cls}.flow_min"] = min(mine)
        m[f"{cls}.flow_max"] = max(mine)
        for key, vals in (("drops", drops), ("timeouts", timeouts), ("retransmissions", rexmits)):
            sel = [vals[i] for i in idx]
            m[f"{cls}.{key}"] = None if any(v is None for v in sel) else sum(sel)  # type: ignore[misc]


def metrics_ns2(rep: dict[str, Any], trace: dict[str, Any] | None) -> dict[str, Any]:
    t = rep["duration_s"]
    m: dict[str, Any] = {"run_wall_s": rep["wall_s"], "max_avg_sampled": rep["max_avg_sampled"]}
    overflow_total = trace["overflow_drops"] if trace else None
    # ns-2 counts drops per code point as edrops (random early) and ldrops (PKT_DROPPED: the
    # physical queue full, or the average above max_th). The trace gives the overflow drops of
    # both code points together; the AF11 ones are AF11's ldrops when AF11's average never
    # came near its max_th (checked on the 10 ms samples), so AF12's are the rest.
    af11_overflow = None
    if rep["max_avg_sampled"][0] < 0.9 * MAX_TH["AF11"]:
        af11_overflow = rep["core"]["10"]["ldrops"]
    for cp, (code, _prec) in CPS.items():
        c = rep["core"][str(code)]
        m[f"{cp}.arrivals"] = c["pkts"]
        m[f"{cp}.accepted"] = c["tx"]
        m[f"{cp}.early"] = c["edrops"]
        m[f"{cp}.ldrops"] = c["ldrops"]
        m[f"{cp}.drops"] = c["edrops"] + c["ldrops"]
        ovf = None
        if overflow_total is not None and af11_overflow is not None:
            ovf = af11_overflow if cp == "AF11" else overflow_total - af11_overflow
        m[f"{cp}.overflow"] = ovf
        m[f"{cp}.forced"] = None if ovf is None else c["ldrops"] - ovf
        m[f"{cp}.loss"] = m[f"{cp}.drops"] / c["pkts"] if c["pkts"] else None
        m[f"edge.{cp}"] = rep["edge"][str(code)]["pkts"]
    m["edge.out_share"] = m["edge.AF12"] / (m["edge.AF11"] + m["edge.AF12"])
    m["drops"] = m["AF11.drops"] + m["AF12.drops"]
    m["overflow"] = overflow_total
    if trace:
        m["utilization"] = trace["departure_bytes"] * 8 / (BOTTLENECK_BPS * t)
        m["mean_queue_pkts"] = trace["mean_len_packets"]
        m["departures"] = trace["departures"]
    flows = rep["flows"]
    drops = trace["flow_drops"] if trace else [None] * len(flows)
    flow_metrics(m, [f["goodput_bytes"] for f in flows], drops, [f["timeouts"] for f in flows],
                 [f["rexmit_pkts"] for f in flows], t)
    return m


def metrics_afsim(rep: dict[str, Any], span_s: float) -> dict[str, Any]:
    m: dict[str, Any] = {}
    q = next(q for q in rep["queues"] if q["name"] == BOTTLENECK)
    rows = {c["level"]: c for c in rep["colours"] if c["queue"] == BOTTLENECK}
    for cp, (_code, level) in CPS.items():
        c = rows.get(level, {"arrivals": 0, "drops_early": 0, "drops_overflow": 0, "drops_forced": 0})
        forced = c.get("drops_forced")
        m[f"{cp}.arrivals"] = c["arrivals"]
        m[f"{cp}.accepted"] = c["arrivals"] - c["drops_early"] - c["drops_overflow"]
        # afsim's drops_early counts random and forced drops together; drops_forced is the part
        # forced by an average at or beyond max_th.
        m[f"{cp}.early"] = None if forced is None else c["drops_early"] - forced
        m[f"{cp}.forced"] = forced
        m[f"{cp}.overflow"] = c["drops_overflow"]
        m[f"{cp}.ldrops"] = None if forced is None else forced + c["drops_overflow"]
        m[f"{cp}.drops"] = c["drops_early"] + c["drops_overflow"]
        m[f"{cp}.loss"] = m[f"{cp}.drops"] / c["arrivals"] if c["arrivals"] else None
    m["drops"] = q["drops_total"]
    m["overflow"] = q["drops"].get("overflow", 0)
    m["utilization"] = q["departure_bytes"] * 8 / (BOTTLENECK_BPS * span_s)
    m["mean_queue_pkts"] = q["mean_len_packets"]
    m["departures"] = q["departures"]
    conds = rep["conditioners"]
    m["edge.AF11"] = sum(c["green_packets"] for c in conds)
    m["edge.AF12"] = sum(c["yellow_packets"] for c in conds)
    m["edge.out_share"] = m["edge.AF12"] / (m["edge.AF11"] + m["edge.AF12"])
    for c in conds:  # per class, for the explanations
        cls = "a" if c["name"].startswith("tba") else "b"
        m[f"edge.{cls}.AF12"] = m.get(f"edge.{cls}.AF12", 0) + c["yellow_packets"]
        m[f"edge.{cls}.AF11"] = m.get(f"edge.{cls}.AF11", 0) + c["green_packets"]
    # ns-2's flow order: a0..a9, b0..b9 (the report lists flows in file order: the same)
    flows = {f["name"]: f for f in rep["flows"]}
    order = [f"a{i}" for i in range(10)] + [f"b{i}" for i in range(10)]
    fl = [flows[n] for n in order]
    flow_metrics(m, [f["goodput_bytes"] for f in fl], [f["packets_dropped"] for f in fl],
                 [f.get("timeouts") for f in fl], [f.get("retransmitted_packets") for f in fl], span_s)
    return m


def interval(head: dict[str, Any], whole: dict[str, Any], t0: float, t1: float) -> dict[str, Any]:
    """Metrics of [t0, t1] from a run of [0, t0] and one of [0, t1] with the same seed."""
    m: dict[str, Any] = {}
    for k in COUNTERS:
        a, b = head.get(k), whole.get(k)
        m[k] = None if a is None or b is None else b - a
    for cp in CPS:
        arr, d = m.get(f"{cp}.arrivals"), m.get(f"{cp}.drops")
        m[f"{cp}.loss"] = d / arr if arr and d is not None else None
    m["drops"] = whole["drops"] - head["drops"]
    ov = (head.get("overflow"), whole.get("overflow"))
    m["overflow"] = None if None in ov else ov[1] - ov[0]  # type: ignore[operator]
    m["edge.out_share"] = m["edge.AF12"] / (m["edge.AF11"] + m["edge.AF12"])
    span = t1 - t0
    for k in ("utilization", "mean_queue_pkts"):
        if head.get(k) is not None and whole.get(k) is not None:
            m[k] = (whole[k] * t1 - head[k] * t0) / span
    per_flow = [b - a for a, b in zip(head["per_flow_goodput_bytes"], whole["per_flow_goodput_bytes"])]
    kbps = [g * 8 / span / 1e3 for g in per_flow]
    m["per_flow_goodput_bytes"] = per_flow
    m["goodput_mbps"] = sum(kbps) / 1e3
    m["jain"] = jain(kbps)
    for cls, (idx, _) in CLASSES.items():
        mine = [kbps[i] for i in idx]
        m[f"{cls}.goodput_mbps"] = sum(mine) / 1e3
        m[f"{cls}.flow_min"], m[f"{cls}.flow_max"] = min(mine), max(mine)
    return m


# ---------------------------------------------------------------------- summary


def summarise(runs: list[dict[str, Any]], part: str | None = None) -> dict[str, Any]:
    rows = [r["metrics"] if part is None else r["metrics"][part] for r in runs if r["ok"]]
    keys = {k for row in rows for k in row if not isinstance(row[k], (list, dict))}
    return ns2kit.summarise(rows, sorted(keys))


def table(summary: dict[str, Any], rows: list[tuple[str, str, str]]) -> list[str]:
    return ns2kit.table(summary["ns-2"], summary["afsim"], rows)


def flagged(summary: dict[str, Any], threshold: float = 0.03) -> list[tuple[str, float, float | None]]:
    """Metrics (not wall times) whose means differ by more than `threshold`, relatively."""
    out = []
    for key, _, _ in ALL_METRICS:
        if key in ("run_wall_s", "process_wall_s"):
            continue
        d = compare(summary["ns-2"].get(key), summary["afsim"].get(key))
        if d.rel is not None and abs(d.rel) > threshold:
            out.append((key, d.rel, d.z))
    return out
