"""``afsim run --plot FILE``: one figure of what a run recorded, for a look without code.

Read this first: nothing here computes a result; every panel draws a table of ``Results`` as
it is. The panels, top to bottom, appear when their table has rows: each sampled queue's length
and the discipline's average over time (``[[monitor]]``, ``--monitor``), its drops per colour
per interval, its drops and ECN marks per code point per interval and its queueing-delay
histogram, each flow group's delivered rate per interval
(``kind = "flows"``), the conditioners' packets by colour per interval (``kind =
"conditioners"``), each traced TCP
sender's cwnd (``trace = true``), each traced TFRC sender's rate X and X_recv, each CSA's α,
the contract check (each conditioner's and flow group's delivered rate against its contract),
the one-way delay percentiles per code point at delivery; the last panel is always the flows' throughput (and goodput where TCP has one) against their
contracts. The file's suffix picks the format (.png, .svg, .pdf).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from afsim.results import Results

#: Formats ``--plot`` writes, by suffix.
FORMATS = (".png", ".svg", ".pdf")


def check_plot_path(path: Path) -> str | None:
    """Why ``path`` cannot take a plot (checked before the run), or None."""
    if path.is_dir():
        return f"{path} is a directory, not a file"
    if path.suffix.lower() not in FORMATS:
        return f"{path}: the plot's format comes from its suffix, one of {', '.join(FORMATS)}"
    if not path.parent.is_dir():  # a bare file name's parent is "."
        return f"the directory {path.parent} does not exist"
    return None


def plot(results: Results, path: Path) -> Path:
    """Draws the run's panels into ``path`` and returns it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = []
    if len(results.monitor):
        panels.append(("queues", _queues))
    if len(results.monitor_levels) and results.monitor_levels["drops"].sum() > 0:
        panels.append(("drops", _drops))
    cp = results.monitor_code_points
    if len(cp) and (cp["drops_overflow"] + cp["drops_early"] + cp["ecn_marks"]).sum() > 0:
        panels.append(("code points", _code_points))
    if len(results.queue_delay_hist):
        panels.append(("queue delay", _queue_delay))
    if len(results.monitor_flows):
        panels.append(("rates", _rates))
    if len(results.monitor_conditioners):
        panels.append(("colours", _colours))
    if len(results.traces):
        panels.append(("cwnd", _cwnd))
    if len(results.tfrc_traces):
        panels.append(("tfrc", _tfrc))
    if len(results.alpha):
        panels.append(("alpha", _alpha))
    if len(contract_check(results)):
        panels.append(("contract", _contract))
    if len(results.delay_classes):
        panels.append(("delay percentiles", _delay_percentiles))
    panels.append(("flows", _flows))
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3.2 * len(panels)), squeeze=False)
    for (_, draw), ax in zip(panels, axes[:, 0]):
        draw(results, ax)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{results.scenario}  ·  seed {results.seed}  ·  {results.end_time_s:g} simulated s",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / (3.2 * len(panels))))  # room for the title
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _head(r: Results) -> dict:
    """The report without its flow and queue rows (``Results.head``; a twin's results, with
    only ``summary``, give that)."""
    return r.head if hasattr(r, "head") else r.summary


def _legend(ax, n: int) -> None:
    if n <= 12:
        ax.legend(fontsize=8, loc="best")
    else:
        ax.text(0.99, 0.97, f"{n} series", transform=ax.transAxes, ha="right", va="top", fontsize=8)


def _queues(r: Results, ax) -> None:
    n = 0
    for i, (queue, g) in enumerate(r.monitor.groupby("queue", sort=False)):
        colour = f"C{i % 10}"
        ax.step(g["time_s"], g["len_packets"], where="post", color=colour, lw=0.6, alpha=0.45,
                label=f"{queue} length")
        if g["avg"].notna().any():
            # the average on top, darker: it is the smoother of the two
            ax.plot(g["time_s"], g["avg"], color="k" if n == 0 else colour, lw=1.6, zorder=3,
                    label=f"{queue} average")
        n += 1
    ax.set_ylabel("packets")
    ax.set_xlabel("time (s)")
    ax.set_title("sampled queues (--monitor): length and the discipline's average", fontsize=10)
    _legend(ax, 2 * n)


#: Lines of a colour level drawn in that colour (the colour table's names).
_COLOURS = {"green": "#2ca02c", "yellow": "#e6b800", "red": "#d62728"}


def _interval(t) -> float:
    """A grid's interval: its first instant (grids start one interval after time 0)."""
    return float(t.min())


def _drops(r: Results, ax) -> None:
    lv = r.monitor_levels
    names = {(q, int(lvl)): c for q, lvl, c in zip(r.colours["queue"], r.colours["level"],
                                                    r.colours["colour"])} if len(r.colours) else {}
    n = 0
    for (queue, level), g in lv.groupby(["queue", "level"], sort=False):
        if g["drops"].sum() == 0:
            continue
        dt = _interval(g["time_s"])
        colour = names.get((queue, int(level)), f"level {level}")
        ax.step(g["time_s"], g["drops"] / dt, where="pre", lw=0.9, label=f"{queue} {colour}",
                color=_COLOURS.get(colour))
        n += 1
    ax.set_ylabel("drops per s")
    ax.set_xlabel("time (s)")
    ax.set_title("sampled queues: drops per drop-precedence level, per interval", fontsize=10)
    _legend(ax, n)


def _code_points(r: Results, ax) -> None:
    """Drops (solid) and ECN marks (dashed) per second of each (queue, code point,
    direction) that had any, per interval: AF13, best effort and ACKs sharing a level apart."""
    cp = r.monitor_code_points.assign(
        drops=lambda t: t["drops_overflow"] + t["drops_early"])
    n = 0
    for i, ((queue, name, direction), g) in enumerate(
            cp.groupby(["queue", "code_point", "direction"], sort=False)):
        dt = _interval(g["time_s"])
        who = f"{queue} {name}" + (" (reverse)" if direction == "reverse" else "")
        colour = f"C{i % 10}"
        for col, style, what in (("drops", "-", "drops"), ("ecn_marks", "--", "marks")):
            if g[col].sum() > 0:
                ax.step(g["time_s"], g[col] / dt, where="pre", lw=0.9, ls=style, color=colour,
                        label=f"{who} {what}")
                n += 1
    ax.set_ylabel("packets per s")
    ax.set_xlabel("time (s)")
    ax.set_title("sampled queues: drops (solid) and ECN marks (dashed) per code point, per interval",
                 fontsize=10)
    _legend(ax, n)


def _queue_delay(r: Results, ax) -> None:
    h = r.queue_delay_hist
    for queue, g in h.groupby("queue", sort=False):
        total = g["count"].sum()
        ax.step(g["bin_upper_s"] * 1e3, g["count"] / total, where="pre", lw=1.0, label=str(queue))
    ax.set_xscale("log")
    ax.set_ylabel("share of packets")
    ax.set_xlabel("queueing delay (ms, bins 10 % wide)")
    ax.set_title("sampled queues: queueing delay (enqueue to start of transmission)", fontsize=10)
    _legend(ax, h["queue"].nunique())


def _rates(r: Results, ax) -> None:
    fs = r.monitor_flows
    group = dict(zip(r.flows["name"], r.flows["group"]))
    by = fs.assign(group=fs["flow"].map(group)).groupby(["group", "time_s"], sort=False)
    rate = by["rate_kbps"].sum().reset_index()
    groups = list(rate.groupby("group", sort=False))
    for g_name, g in groups:
        ax.step(g["time_s"], g["rate_kbps"], where="pre", lw=1.0, label=str(g_name))
    ax.set_ylabel("kb/s")
    ax.set_xlabel("time (s)")
    ax.set_title("delivered rate per flow group, per interval (monitor kind = flows)", fontsize=10)
    _legend(ax, len(groups))


def _colours(r: Results, ax) -> None:
    cs = r.monitor_conditioners
    total = cs.groupby("time_s", sort=True)[["green_bytes", "yellow_bytes", "red_bytes"]].sum()
    dt = _interval(cs["time_s"])
    t = total.index.to_numpy()
    kbps = [total[c].to_numpy() * 8.0 / dt / 1e3 for c in ("green_bytes", "yellow_bytes", "red_bytes")]
    ax.stackplot(t, *kbps, colors=["#2ca02c", "#e6b800", "#d62728"], labels=["green", "yellow", "red"],
                 step="pre", alpha=0.8)
    ax.set_ylabel("kb/s metered")
    ax.set_xlabel("time (s)")
    ax.set_title("edge conditioners: traffic by colour, all conditioners, per interval", fontsize=10)
    ax.legend(fontsize=8, loc="best")


def _cwnd(r: Results, ax) -> None:
    flows = list(r.traces.groupby("flow", sort=False))
    for flow, g in flows:
        ax.step(g["time_s"], g["cwnd"] / 1000.0, where="post", lw=1.0, label=str(flow))
    ax.set_ylabel("cwnd (kB)")
    ax.set_xlabel("time (s)")
    ax.set_title("TCP congestion windows (trace = true)", fontsize=10)
    _legend(ax, len(flows))


def _tfrc(r: Results, ax) -> None:
    flows = list(r.tfrc_traces.groupby("flow", sort=False))
    for i, (flow, g) in enumerate(flows):
        ax.step(g["time_s"], g["x_kbps"], where="post", color=f"C{i % 10}", lw=1.0, label=f"{flow} X")
        ax.step(g["time_s"], g["x_recv_kbps"], where="post", color=f"C{i % 10}", lw=0.8, ls=":",
                label=f"{flow} X_recv")
    ax.set_ylabel("kb/s")
    ax.set_xlabel("time (s)")
    ax.set_title("TFRC sending rate X and receive rate X_recv (trace = true)", fontsize=10)
    _legend(ax, 2 * len(flows))


def _alpha(r: Results, ax) -> None:
    csas = list(r.alpha.groupby("csa", sort=False))
    for csa, g in csas:
        ax.step(g["time_s"], g["alpha"], where="post", lw=1.2, label=str(csa))
    ax.set_ylabel("α")
    ax.set_xlabel("time (s)")
    ax.set_title("Congestion Signaling Algorithms: α", fontsize=10)
    _legend(ax, len(csas))


def _flows(r: Results, ax) -> None:
    f = r.flows
    x = range(len(f))
    ax.bar(x, f["throughput_kbps"], color="C0", label="throughput")
    if "goodput_kbps" in f.columns and f["goodput_kbps"].notna().any():
        ax.bar(x, f["goodput_kbps"].fillna(0.0), color="C2", width=0.45, label="goodput")
    if "contract_kbps" in f.columns and f["contract_kbps"].notna().any():
        ax.scatter(x, f["contract_kbps"], color="k", marker="_", s=300, zorder=3, label="contract")
    ax.set_xticks(list(x))
    ax.set_xticklabels(f["name"], rotation=90 if len(f) > 12 else 0, fontsize=7 if len(f) > 12 else 9)
    ax.set_ylabel("kb/s")
    span = "after the warm-up" if _head(r).get("warmup_s") else "over the run"
    ax.set_title(f"flows: delivered throughput {span}", fontsize=10)
    ax.legend(fontsize=8, loc="best")


def contract_check(r: Results) -> pd.DataFrame:
    """The contract check of a run: one row per conditioner with a contract, then per flow
    group with one (``groups.contract_kbps``): who ("conditioner x", "group y"), contract_kbps
    and delivered_kbps (its flows' throughput, measured interval), both kb/s."""
    import pandas as pd

    rows = []
    c = r.conditioners
    if len(c) and "delivered_kbps" in c.columns:
        for name, contract, delivered in zip(c["name"], c["contract_kbps"], c["delivered_kbps"]):
            if contract == contract and contract > 0:
                rows.append((f"conditioner {name}", float(contract), float(delivered)))
    g = r.groups
    if len(g) and "contract_kbps" in g.columns:
        for name, contract, delivered in zip(g["name"], g["contract_kbps"],
                                             g["throughput_kbps_total"]):
            if contract == contract and contract is not None and contract > 0:
                rows.append((f"group {name}", float(contract), float(delivered)))
    return pd.DataFrame(rows, columns=["who", "contract_kbps", "delivered_kbps"])


def _contract(r: Results, ax) -> None:
    """Delivered rate against the contract, per conditioner and per flow group."""
    t = contract_check(r)
    x = range(len(t))
    ax.bar(x, t["delivered_kbps"], color="C0", label="delivered")
    ax.scatter(x, t["contract_kbps"], color="k", marker="_", s=600, zorder=3, label="contract")
    for i, (d, c) in enumerate(zip(t["delivered_kbps"], t["contract_kbps"])):
        ax.text(i, d, f"{d / c:.2f}×", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(list(x))
    ax.set_xticklabels(t["who"], rotation=45 if len(t) > 8 else 0, fontsize=8,
                       ha="right" if len(t) > 8 else "center")
    ax.set_ylabel("kb/s")
    span = "after the warm-up" if _head(r).get("warmup_s") else "over the run"
    ax.set_title(f"contract check: delivered rate {span} against the contract "
                 "(delivered ÷ contract on the bars)", fontsize=10)
    ax.legend(fontsize=8, loc="best")


def _delay_percentiles(r: Results, ax) -> None:
    """One-way delay percentiles (p50, p90, p99, max) per code point at delivery."""
    c = r.delay_classes
    x = range(len(c))
    width = 0.2
    for k, (col, name) in enumerate((("delay_p50_s", "p50"), ("delay_p90_s", "p90"),
                                      ("delay_p99_s", "p99"), ("delay_max_s", "max"))):
        ax.bar([i + (k - 1.5) * width for i in x], c[col] * 1e3, width=width, color=f"C{k}",
               label=name)
    ax.set_xticks(list(x))
    ax.set_xticklabels(c["code_point"], fontsize=9)
    ax.set_ylabel("ms")
    ax.set_title("one-way delay per code point at delivery, whole run (HDR histogram, within "
                 "0.1 %)", fontsize=10)
    ax.legend(fontsize=8, loc="best")
