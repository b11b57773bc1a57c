"""The tables ``afsim run`` prints (rich): flows, queues, edge conditioners, CSAs, flow groups,
and the packet-conservation line.

Read this first: ``print_tables(results, console)`` is all ``afsim.cli`` calls; the columns
and formats of every table are listed where the table is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from afsim.results import Results


def conservation_line(conservation: dict[str, Any]) -> str:
    """``sent = delivered + dropped + in flight: 1000 = 990 + 8 + 2 ✓``"""
    c = conservation
    mark = "\u2713" if c["holds"] else "\u2717"
    return (
        "sent = delivered + dropped + in flight: "
        f"{c['sent']} = {c['delivered']} + {c['dropped_total']} + {c['in_flight']} {mark}"
    )


def print_tables(results: Results, console: Console) -> None:
    from rich.markup import escape
    from rich.table import Table

    s = results.summary
    console.print(
        f"[bold]{escape(results.scenario)}[/bold]  seed {results.seed}  ·  "
        f"{s['end_time_s']:g} simulated s ({s['stop_reason']})"
        + (f"  ·  measured from {s['warmup_s']:g} s" if s["warmup_s"] else "")
    )

    flows = Table(title="Flows", title_justify="left")
    f = results.flows
    # optional columns appear when some flow has them (TCP flows, flows metered at the edge)
    extra = [
        (col, header, fmt)
        for col, header, fmt in (
            ("goodput_kbps", "goodput (kb/s)", "{:,.1f}"),
            ("retransmitted_packets", "retx (pkt)", "{:,.0f}"),
            ("timeouts", "timeouts", "{:,.0f}"),
            ("contract_kbps", "contract (kb/s)", "{:,.0f}"),
            ("respect_of_service", "RoS", "{:.2%}"),
        )
        if col in f.columns and f[col].notna().any()
    ]
    headers = ["flow", "src→dst", "sent (pkt)", "delivered (pkt)", "dropped (pkt)",
               "throughput (kb/s)", *(h for _, h, _ in extra)]
    for header in headers:
        flows.add_column(escape(header), justify="left" if header in ("flow", "src→dst") else "right")
    for rec in f.to_dict("records"):  # one table line per flow, for display only
        cells = [
            escape(str(rec["name"])), escape(f"{rec['src']}→{rec['dst']}"),
            f"{rec['packets_sent']:,}", f"{rec['packets_delivered']:,}",
            f"{rec['packets_dropped']:,}", f"{rec['throughput_kbps']:,.1f}",
        ]
        for col, _, fmt in extra:
            v = rec[col]
            cells.append("–" if v != v else fmt.format(v))  # NaN: not applicable
        flows.add_row(*cells)
    console.print(flows)

    # quiet queues (no drop, no mark, under 10% busy: host links, ACK paths) are left out of
    # the table; the JSON, CSV and Parquet outputs keep every queue
    allq = results.queues
    if len(allq):
        marks = allq["ecn_marks"].fillna(0) if "ecn_marks" in allq.columns else 0
        busy = (allq["drops_total"] > 0) | (marks > 0) | (allq["utilization"] >= 0.10)
        q = allq[busy]
    else:
        q = allq
    idle = len(allq) - len(q)
    reasons = [c for c in q.columns if c.startswith("drops_") and c != "drops_total"]
    shown = [c for c in reasons if len(q) and int(q[c].sum()) > 0]
    queues = Table(
        title="Queues", title_justify="left",
        caption=(f"{idle} quiet queue(s) not shown (no drop, no mark, under 10% busy)"
                 if idle else None),
        caption_justify="left",
    )
    queues.add_column("queue")
    queues.add_column("discipline")
    for header in ("arrivals (pkt)", "departures (pkt)", "drops (pkt)"):
        queues.add_column(header, justify="right")
    for c in shown:
        queues.add_column(escape(f"{c.removeprefix('drops_')} (pkt)"), justify="right")
    queues.add_column("mean length (pkt)", justify="right")
    queues.add_column("utilisation (%)", justify="right")
    for rec in q.to_dict("records"):  # one table line per queue, for display only
        queues.add_row(
            escape(str(rec["name"])), escape(str(rec["discipline"])), f"{rec['arrivals']:,}",
            f"{rec['departures']:,}", f"{rec['drops_total']:,}",
            *(f"{rec[c]:,}" for c in shown),
            f"{rec['mean_len_packets']:.2f}", f"{100.0 * rec['utilization']:.1f}",
        )
    console.print(queues)

    print_af_tables(results, console)

    console.print(conservation_line(results.conservation), markup=False)
    speed = results.sim_seconds_per_wall_second
    console.print(
        f"[dim]{results.events:,} events  ·  {results.packet_hops:,} packet-hops  ·  "
        f"{results.wall_seconds:.3f} wall s  ·  {_speed(speed)} simulated s per wall s[/dim]"
    )


def print_af_tables(results: Results, console: Console) -> None:
    """The DiffServ tables: losses by colour at queues that saw more than one colour or any
    loss, edge conditioners, and flow groups with more than one flow."""
    from rich.markup import escape
    from rich.table import Table

    def table(title: str, df: Any, cols: list[tuple[str, str, str]]) -> None:
        t = Table(title=title, title_justify="left")
        for i, (_, header, _) in enumerate(cols):
            t.add_column(escape(header), justify="left" if i == 0 else "right")
        for rec in df.to_dict("records"):
            t.add_row(*("–" if rec[c] is None or rec[c] != rec[c] else fmt.format(rec[c])
                        for c, _, fmt in cols))
        console.print(t)

    c = results.colours
    if len(c):
        busy = c.groupby("queue").filter(
            lambda g: (g["drops_overflow"] + g["drops_early"]).sum() > 0
            or g["ecn_marks"].fillna(0).sum() > 0)
        cp = results.code_points
        if len(busy) and len(cp):
            # per code point, so that AF13, best effort and ACKs of one level stay apart
            rows = cp[cp["queue"].isin(set(busy["queue"]))].copy()
            rows["code_point"] = [n if d == "forward" else f"ACK ({n})"
                                  for n, d in zip(rows["code_point"], rows["direction"])]
            table("Queues by colour, per code point", rows, [
                ("queue", "queue", "{}"), ("code_point", "code point", "{}"),
                ("colour", "colour", "{}"),
                ("arrivals", "arrivals (pkt)", "{:,}"),
                ("drops_early", "early drops (pkt)", "{:,}"),
                ("drops_overflow", "overflow drops (pkt)", "{:,}"),
                ("loss_ratio", "loss ratio", "{:.2e}"),
            ])
        if len(busy):
            table("Queues by colour", busy, [
                ("queue", "queue", "{}"), ("colour", "colour", "{}"),
                ("arrivals", "arrivals (pkt)", "{:,}"),
                ("drops_early", "early drops (pkt)", "{:,}"),
                ("drops_overflow", "overflow drops (pkt)", "{:,}"),
                ("ecn_marks", "ECN marks (pkt)", "{:,.0f}"),
                ("loss_ratio", "loss ratio", "{:.2e}"),
            ])
    if len(results.conditioners):
        table("Edge conditioners", results.conditioners, [
            ("name", "conditioner", "{}"), ("meter", "meter", "{}"),
            ("contract_kbps", "contract (kb/s)", "{:,.1f}"),
            ("green_packets", "green (pkt)", "{:,}"),
            ("yellow_packets", "yellow (pkt)", "{:,}"),
            ("red_packets", "red (pkt)", "{:,}"),
            ("dropped_policed", "policed (pkt)", "{:,}"),
            ("dropped_buffer", "buffer drops (pkt)", "{:,}"),
            ("respect_of_service", "RoS at meter", "{:.2%}"),
            ("delivered_kbps", "delivered (kb/s)", "{:,.1f}"),
            ("delivered_ros", "delivered / contract", "{:.2%}"),
        ])
        # a conditioner that polices where the file may read as a marker (the loader's warning)
        for w in results.summary.get("warnings", []):
            if "polices by default" in w.get("message", ""):
                console.print(f"[yellow]{escape(w['field'])}: {escape(w['message'])}[/yellow]")
    if len(results.csas):
        table("Congestion Signaling Algorithms", results.csas, [
            ("name", "CSA", "{}"), ("queue", "watches", "{}"),
            ("alpha_mean", "mean α", "{:.3f}"), ("alpha_floor_share", "time at min α", "{:.1%}"),
            ("alpha_end", "α at end", "{:.2f}"), ("alpha_min", "lowest α", "{:.2f}"),
            ("decreases", "decreases", "{:,}"), ("increases", "increases", "{:,}"),
            ("congested_out_arrivals", "congested OUT arrivals", "{:,}"),
            ("signals_sent", "signals sent", "{:,}"),
        ])
    g = results.groups
    if len(g) and (g["flows"] > 1).any():
        table("Flow groups", g[g["flows"] > 1], [
            ("name", "group", "{}"), ("flows", "flows", "{:,}"),
            ("throughput_kbps_total", "total (kb/s)", "{:,.1f}"),
            ("throughput_kbps_min", "min (kb/s)", "{:,.1f}"),
            ("throughput_kbps_median", "median (kb/s)", "{:,.1f}"),
            ("throughput_kbps_max", "max (kb/s)", "{:,.1f}"),
            ("jain", "Jain", "{:.4f}"), ("fieb", "FIEB", "{:.4f}"),
            *([("contract_kbps", "contract (kb/s)", "{:,.1f}"),
               ("delivered_ros", "delivered / contract", "{:.2%}")]
              if "contract_kbps" in g and g["contract_kbps"].notna().any() else []),
        ])
    if len(results.monitor):
        table("Sampled queues (--monitor): length over time, packets", monitor_summary(results.monitor), [
            ("queue", "queue", "{}"), ("samples", "samples", "{:,}"),
            ("interval_ms", "every (ms)", "{:g}"), ("mean", "mean", "{:.2f}"),
            ("p50", "p50", "{:.0f}"), ("p90", "p90", "{:.0f}"), ("p99", "p99", "{:.0f}"),
            ("max", "max", "{:.0f}"), ("avg_mean", "mean avg", "{:.2f}"),
            ("avg_max", "max avg", "{:.2f}"),
        ])


def monitor_summary(monitor: Any) -> Any:
    """Per sampled queue: the samples' count and spacing, the length's mean, percentiles (the
    sample's own, "lower" interpolation: a length that occurred) and maximum, and the
    discipline's average's mean and maximum (NaN where it keeps none)."""
    import pandas as pd

    rows = []
    for queue, g in monitor.groupby("queue", sort=False):
        n = g["len_packets"]
        t = g["time_s"].to_numpy()
        rows.append({
            "queue": queue, "samples": len(g),
            "interval_ms": float(t[1] - t[0]) * 1e3 if len(t) > 1 else float("nan"),
            "mean": float(n.mean()),
            **{f"p{q}": float(n.quantile(q / 100, interpolation="lower")) for q in (50, 90, 99)},
            "max": float(n.max()),
            "avg_mean": float(g["avg"].mean()), "avg_max": float(g["avg"].max()),
        })
    return pd.DataFrame(rows)


def _speed(x: float) -> str:
    """1,234 / 12.3 / 0.0123: digits that matter, without exponents."""
    if x == float("inf"):
        return "∞"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"
