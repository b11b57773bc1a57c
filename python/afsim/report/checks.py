"""The sweep report's contract check and delay figures (``afsim report``; issue 27).

Read this first: each function adds figures to a report ``Document`` (passed in; this module
imports nothing of ``afsim.report``, which imports it) from what the store holds, at the first
and the last grid point of a scenario's runs (the points chosen by ``points``, as the per-flow
throughput bars are):

- ``contract_section``: per conditioner (``conditioner.<name>.delivered_kbps`` against
  ``.contract_kbps``) and per flow group with a contract (``group.<name>.throughput_kbps_total``
  against ``.contract_kbps``), the delivered rate's mean and 95 % interval over the point's
  replications, the contract as a mark and delivered ÷ contract written on each bar;
- ``delay_section``: per flow group, the one-way delay percentiles (p50, p90, p99, whole run,
  HDR histogram within 0.1 %) of its flows, averaged over flows and replications; and the
  queueing-delay histogram (``queue_delay_hist``, a ``[[monitor]] kind = "queue"``) of one run.

Nothing here computes a result the store does not hold: every bar is a mean of stored values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

#: Bars drawn in one figure at most (a store of many conditioners keeps its first ones).
MOST = 24


def axes(title: str, xlabel: str, ylabel: str, grid_axis: str = "both") -> tuple[Any, Any]:
    """A figure and its axes as every report figure has them (title left, light grid on
    ``grid_axis``, no top or right spine); also the sweep report's (``afsim.report``)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    ax.set_title(title, loc="left", fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3, axis=grid_axis)
    ax.spines[["top", "right"]].set_visible(False)
    return fig, ax


def _ticks(ax: Any, names: Sequence[str]) -> None:
    xs = list(range(len(names)))
    wide = len(names) > 8
    ax.set_xticks(xs, list(names), rotation=45 if wide else 0, ha="right" if wide else "center",
                  fontsize=8)


def contract_bars(names: Sequence[str], delivered: Sequence[float], cis: Sequence[float],
                  contracts: Sequence[float], *, title: str) -> Any:
    """One bar per conditioner or group: the delivered rate (kb/s) with its 95 % interval, the
    contract as a black mark, delivered ÷ contract written above."""
    fig, ax = axes(title, "", "kb/s", grid_axis="y")
    xs = range(len(names))
    low = [min(c, m) if c == c else 0.0 for m, c in zip(delivered, cis)]
    high = [c if c == c else 0.0 for c in cis]
    ax.bar(xs, delivered, yerr=[low, high], color="C0", alpha=0.85, capsize=3, label="delivered")
    ax.scatter(xs, contracts, color="k", marker="_", s=500, zorder=3, label="contract")
    for x, d, c, h in zip(xs, delivered, contracts, high):
        if c > 0 and d == d:
            ax.annotate(f"{d / c:.2f}×", (x, max(d + h, c)), xytext=(0, 3),
                        textcoords="offset points", ha="center", fontsize=7)
    _ticks(ax, names)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def percentile_bars(names: Sequence[str], columns: dict[str, Sequence[float]], *,
                    title: str, ylabel: str) -> Any:
    """Grouped bars: per name, one bar per column (p50, p90, p99)."""
    fig, ax = axes(title, "", ylabel, grid_axis="y")
    width = 0.8 / max(1, len(columns))
    for k, (label, values) in enumerate(columns.items()):
        ax.bar([i + (k - (len(columns) - 1) / 2) * width for i in range(len(names))], values,
               width=width, color=f"C{k}", label=label)
    _ticks(ax, names)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def histogram(table: Any, *, title: str) -> Any:
    """Each queue's queueing-delay histogram (bins 10 % wide) as the share of its packets."""
    fig, ax = axes(title, "queueing delay (ms, bins 10 % wide)", "share of packets", grid_axis="y")
    for queue, g in list(table.groupby("queue", sort=False))[:8]:
        ax.step(g["bin_upper_s"] * 1e3, g["count"] / g["count"].sum(), where="pre", lw=1.0,
                label=str(queue))
    ax.set_xscale("log")
    ax.legend(fontsize=8, loc="upper right")
    return fig


def contract_rows(runs: Any) -> list[tuple[str, str, str]]:
    """(who, delivered column, contract column) of every conditioner and flow group whose
    contract the runs stored, in store order."""
    out = []
    for col in runs.columns:
        parts = col.split(".")
        if len(parts) < 3 or parts[-1] != "contract_kbps" or not runs[col].notna().any():
            continue
        kind, name = parts[0], ".".join(parts[1:-1])
        delivered = {"conditioner": f"conditioner.{name}.delivered_kbps",
                     "group": f"group.{name}.throughput_kbps_total"}.get(kind)
        if delivered is not None and delivered in runs.columns:
            out.append((f"{kind} {name}", delivered, col))
    return out[:MOST]


def contract_section(doc: Any, points: Sequence[tuple[str, Any]]) -> None:
    """The contract check at each of ``points`` ((where, runs of that grid point))."""
    from afsim.stats import Stat

    for where, g in points:
        rows = contract_rows(g)
        if not rows:
            continue
        stats = [Stat.of(g[d]) for _, d, _ in rows]
        contracts = [float(g[c].mean()) for _, _, c in rows]
        doc.figure(contract_bars([w for w, _, _ in rows], [s.mean for s in stats],
                                 [s.ci95 for s in stats], contracts,
                                 title=f"Contract check{where}"),
                   caption=f"Delivered rate (IP bytes after the warm-up, kb/s; mean over {len(g)} "
                   "runs, whiskers: 95% confidence interval) against the contract (black "
                   "mark) per conditioner and per flow group; delivered ÷ contract above")


def delay_section(doc: Any, points: Sequence[tuple[str, Any]], flows: Any,
                  table: Callable[[str, list[str]], Any]) -> None:
    """Delay percentiles per flow group at each of ``points``, and one run's queueing-delay
    histogram (``table(name, keys)`` reads a stored table)."""
    cols = {"p50": "delay_p50_s", "p90": "delay_p90_s", "p99": "delay_p99_s"}
    if len(flows) and all(c in flows.columns for c in cols.values()):
        for where, g in points:
            f = flows[flows["key"].isin(g["key"]) & (flows["kind"] != "csa-signal")]
            by = f.groupby("group", sort=False)[list(cols.values())].mean()
            if not len(by) or len(by) > MOST:
                continue
            doc.figure(percentile_bars(list(by.index),
                                       {k: [v * 1e3 if math.isfinite(v) else 0.0
                                            for v in by[c]] for k, c in cols.items()},
                                       title=f"One-way delay percentiles per flow group{where}",
                                       ylabel="ms"),
                       caption="p50, p90 and p99 of the one-way delay of delivered packets "
                       f"(whole run, within 0.1 %), averaged over each group's flows and {len(g)} "
                       "runs")
    for _, g in points[:1]:
        for key in g["key"]:
            h = table("queue_delay_hist", [key])
            if len(h):
                doc.figure(histogram(h, title="Queueing-delay histogram (one run)"),
                           caption=f"Queueing delay (enqueue to the start of transmission) of run "
                           f"{key}, per sampled queue")
                return
