"""The tables of a live run: ``afsim run``'s flows, queues, colours and conditioners, every
number measured live (TCP_INFO at the hosts, the forwarder's counters), plus the forwarder's
own figures (lateness of frames against their model instant, CPU)."""

from __future__ import annotations

from typing import Any


def _fmt(v: Any, fmt: str) -> str:
    return "–" if v is None else fmt.format(v)


def print_live(s: dict, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    console.print(
        f"[bold]{escape(s['scenario'])}[/bold]  seed {s['seed']}  ·  LIVE, {s['end_time_s']:g} wall s "
        f"({s['stop_reason']})" + (f"  ·  measured from {s['warmup_s']:g} s" if s["warmup_s"] else ""))
    flows = Table(title="Flows (live: Linux TCP/UDP in namespaces)", title_justify="left")
    cols = [("flow", "name", "{}"), ("kind", "kind", "{}"), ("sent (pkt)", "packets_sent", "{:,}"),
            ("dropped (pkt)", "packets_dropped", "{:,}"), ("throughput (kb/s)", "throughput_kbps", "{:,.1f}"),
            ("goodput (kb/s)", "goodput_kbps", "{:,.1f}"), ("retx (pkt)", "retransmitted_packets", "{:,}"),
            ("timeouts", "timeouts", "{:,}"), ("RTT (ms)", "rtt_mean_s", "{:.1f}"),
            ("cwnd (seg)", "cwnd_mean_segments", "{:.1f}"),
            ("contract (kb/s)", "contract_kbps", "{:,.0f}"), ("RoS", "respect_of_service", "{:.2%}")]
    present = [c for c in cols if any((f.get(c[1]) if c[1] in f else f["live"].get(c[1])) is not None
                                       for f in s["flows"])]
    for h, _, _ in present:
        flows.add_column(escape(h), justify="left" if h in ("flow", "kind") else "right")
    for f in s["flows"]:
        cells = []
        for _, k, fmt in present:
            v = f[k] if k in f else f["live"].get(k)
            if k == "rtt_mean_s" and v is not None:
                v *= 1e3
            cells.append(escape(_fmt(v, fmt)))
        flows.add_row(*cells)
    console.print(flows)

    q = Table(title="Queues (the forwarder's models)", title_justify="left")
    for h in ("queue", "discipline", "arrivals", "drops overflow", "drops early", "mean length (pkt)",
              "utilisation (%)"):
        q.add_column(h, justify="left" if h in ("queue", "discipline") else "right")
    quiet = 0
    for r in s["queues"]:
        if r["drops_total"] == 0 and r["utilization"] < 0.10:
            quiet += 1
            continue
        q.add_row(escape(r["name"]), r["discipline"], f"{r['arrivals']:,}", f"{r['drops']['overflow']:,}",
                  f"{r['drops']['early']:,}", f"{r['mean_len_packets']:.2f}", f"{100 * r['utilization']:.1f}")
    if quiet:
        q.caption = f"{quiet} quiet queue(s) not shown"
        q.caption_justify = "left"
    console.print(q)

    colours = [c for c in s["colours"] if any(c["queue"] == r["name"] and (r["drops_total"] or r["utilization"] >= 0.1)
                                             for r in s["queues"])]
    if colours:
        t = Table(title="Colours", title_justify="left")
        for h in ("queue", "colour", "arrivals", "departures", "drops", "loss ratio"):
            t.add_column(h, justify="left" if h in ("queue", "colour") else "right")
        for c in colours:
            t.add_row(escape(c["queue"]), c["colour"], f"{c['arrivals']:,}", f"{c['departures']:,}",
                      f"{c['drops_overflow'] + c['drops_early']:,}", f"{c['loss_ratio']:.4f}")
        console.print(t)
    if s["conditioners"]:
        t = Table(title="Conditioners", title_justify="left")
        for h in ("conditioner", "meter", "committed (kb/s)", "green", "yellow", "red", "conformant (kb/s)"):
            t.add_column(h, justify="left" if h in ("conditioner", "meter") else "right")
        for c in s["conditioners"]:
            t.add_row(escape(c["name"]), c["meter"], f"{c['committed_rate_bps'] / 1e3:,.0f}",
                      f"{c['green_packets']:,}", f"{c['yellow_packets']:,}", f"{c['red_packets']:,}",
                      f"{c['conformant_kbps']:,.1f}")
        console.print(t)
    for w in s.get("warnings", []):
        console.print(f"[yellow]warning: {escape(w)}[/yellow]")
    c = s["conservation"]
    console.print(f"forwarder conservation: {c['identity']} {'✓' if c['holds'] else '✗'}", markup=False)
    fw = s["live"]["forwarder"]
    lat = fw["lateness_us"]
    drops = sum(k["kernel_drops"] for k in fw["sockets"])
    console.print(
        f"[dim]forwarder: frames out {lat['p50']}/{lat['p99']}/{lat['max']:.0f} µs late (p50/p99/max) · "
        f"CPU {100 * (fw['cpu_share'] or 0):.1f} % of a core · {fw['carried_mbit']:,.1f} Mbit carried · "
        f"socket drops {drops}[/dim]")
