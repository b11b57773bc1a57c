"""The tables ``afsim run`` prints (rich): flows, queues, edge conditioners, CSAs, flow groups,
and the packet-conservation line.

Read this first: ``print_tables(results, console, rows=N)`` is all ``afsim.cli`` calls; the
columns and formats of every table are listed where the table is built. Each table prints at
most ``rows`` rows (the first, in the report's order; 0: all) and says how many it left out: a
run of 100,000 flows printed whole took minutes and gigabytes in the terminal renderer, and
``--out`` and ``--format json/csv`` keep every row.
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


def _cut(df: Any, rows: int) -> tuple[Any, int]:
    """The first ``rows`` rows of ``df`` (all if ``rows`` is 0) and how many are left out."""
    if rows and len(df) > rows:
        return df.head(rows), len(df) - rows
    return df, 0


def _more(n: int, what: str) -> str | None:
    return (f"… and {n:,} more {what} (every one: --out DIR's CSV files, --format json or csv, "
            "or --rows 0)") if n else None


def print_tables(results: Results, console: Console, rows: int = 40) -> None:
    from rich.markup import escape
    from rich.table import Table

    s = results.head
    console.print(
        f"[bold]{escape(results.scenario)}[/bold]  seed {results.seed}  ·  "
        f"{s['end_time_s']:g} simulated s ({s['stop_reason']})"
        + (f"  ·  measured from {s['warmup_s']:g} s" if s["warmup_s"] else "")
    )

    f, left_out = _cut(results.flows, rows)
    flows = Table(title="Flows", title_justify="left", caption=_more(left_out, "flows"),
                  caption_justify="left")
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
    q, q_left_out = _cut(q, rows)
    reasons = [c for c in q.columns if c.startswith("drops_") and c != "drops_total"]
    shown = [c for c in reasons if len(q) and int(q[c].sum()) > 0]
    queues = Table(
        title="Queues", title_justify="left",
        caption="\n".join(x for x in (
            f"{idle:,} quiet queue(s) not shown (no drop, no mark, under 10% busy)" if idle else None,
            _more(q_left_out, "busy queues")) if x) or None,
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

    print_af_tables(results, console, rows)

    console.print(conservation_line(results.conservation), markup=False)
    speed = results.sim_seconds_per_wall_second
    console.print(
        f"[dim]{results.events:,} events  ·  {results.packet_hops:,} packet-hops  ·  "
        f"{results.wall_seconds:.3f} wall s  ·  {_speed(speed)} simulated s per wall s[/dim]"
    )


def print_af_tables(results: Results, console: Console, rows: int = 40) -> None:
    """The DiffServ tables: losses by colour at queues that saw more than one colour or any
    loss, edge conditioners, and flow groups with more than one flow; ``rows`` as in
    ``print_tables``."""
    from rich.markup import escape
    from rich.table import Table

    def table(title: str, df: Any, cols: list[tuple[str, str, str]]) -> None:
        df, left_out = _cut(df, rows)
        t = Table(title=title, title_justify="left", caption=_more(left_out, "rows"),
                  caption_justify="left")
        for i, (_, header, _) in enumerate(cols):
            t.add_column(escape(header), justify="left" if i == 0 else "right")
        for rec in df.to_dict("records"):
            t.add_row(*("–" if rec[c] is None or rec[c] != rec[c] else fmt.format(rec[c])
                        for c, _, fmt in cols))
        console.print(t)

    c = results.colours
    if len(c):
        # the queues with a loss or a mark of any colour, all of their colours, in order (one
        # pass over the rows: a per-queue filter took 25 s at 20,000 flows)
        lost = (c["drops_overflow"] + c["drops_early"]).groupby(c["queue"], sort=False).transform("sum")
        marked = c["ecn_marks"].fillna(0).groupby(c["queue"], sort=False).transform("sum")
        busy = c[(lost > 0) | (marked > 0)]
        cp = results.code_points
        if len(busy) and len(cp):
            # per code point, so that AF13, best effort and ACKs of one level stay apart
            per_cp = cp[cp["queue"].isin(set(busy["queue"]))].copy()
            per_cp["code_point"] = [n if d == "forward" else f"ACK ({n})"
                                    for n, d in zip(per_cp["code_point"], per_cp["direction"])]
            table("Queues by colour, per code point", per_cp, [
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
        for w in results.head.get("warnings", []):
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
    ms = [("mean_delay_s", "mean", "{:.2f}"), ("delay_p50_s", "p50", "{:.2f}"),
          ("delay_p90_s", "p90", "{:.2f}"), ("delay_p99_s", "p99", "{:.2f}"),
          ("delay_max_s", "max", "{:.2f}")]

    def in_ms(df: Any, cols: list[str]) -> Any:
        return df.assign(**{c: df[c] * 1e3 for c in cols})

    f = results.flows
    if "delay_p50_s" in f.columns and f["delay_p50_s"].notna().any() and len(f) <= 24:
        table("One-way delay per flow (ms; percentiles within 0.1 %)",
              in_ms(f[f["delay_p50_s"].notna()], [c for c, _, _ in ms]),
              [("name", "flow", "{}"), *ms])
    d = results.delay_classes
    if len(d):
        table("One-way delay per code point at delivery (ms)", in_ms(d, [c for c, _, _ in ms]),
              [("code_point", "code point", "{}"), ("packets", "packets", "{:,}"), *ms])
    qd = results.queue_delays
    if len(qd):
        cols = ["mean_s", "p50_s", "p90_s", "p99_s", "max_s"]
        table("Queueing delay of sampled queues (ms)", in_ms(qd, cols), [
            ("queue", "queue", "{}"), ("count", "packets", "{:,}"),
            *((c, c.removesuffix("_s"), "{:.2f}") for c in cols)])
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
