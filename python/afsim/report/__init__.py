"""Reports: one self-contained HTML file of tables and figures, readable in any browser with no
network access.

Read this first. Two layers:

- ``Document``: a generic builder — ``heading``, ``text``, ``table`` (a pandas DataFrame or a
  list of dicts), ``figure`` (a matplotlib figure, inlined as SVG text: no image files, no
  scripts, no fonts or styles fetched from anywhere) — and ``write(path)``. Any caller (the
  sweep report below, the paper reproductions) builds its report with it.
- Plot helpers that label what they draw where it is drawn (series names at the end of their
  line, values on their bars), so no figure needs a legend: ``metric_vs_param`` (mean and 95 %
  confidence band of a metric against a swept parameter, one line per value of another),
  ``flow_bars`` (a per-flow quantity with its interval), ``time_series`` (cwnd, α, ... over
  time, one line per flow or CSA).
- ``store_report(store)``: the report of a results store (``afsim report``): per scenario, the
  grid points' statistics table, every main metric against every swept parameter, per-flow
  throughput bars, the contract check and the delay percentiles per flow group (``checks``), and
  the TCP cwnd, CSA α and ``[[monitor]]`` time series (queue length, drops per colour and per
  code point, delivered rate per flow group) and queueing-delay histogram of one run when the
  runs recorded any.

Not done here: interactivity (zoom, hover).
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.report import checks
from afsim.stats import format_eng, format_mean_ci

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from afsim.store import Store

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; } td.text, th.text { text-align: left; }
caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: 0.3em; }
figure { margin: 1.5em 1em 1.5em 0; display: inline-block; vertical-align: top;
         width: 34em; max-width: 100%; }
figure svg { width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #444; }
p.note { color: #555; font-size: 0.9em; }
"""


class Document:
    """An HTML report being built; ``html()`` gives the whole page."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.parts: list[str] = []
        self.figures = 0

    def heading(self, text: str, level: int = 2) -> None:
        self.parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def text(self, text: str, note: bool = False) -> None:
        cls = ' class="note"' if note else ""
        self.parts.append(f"<p{cls}>{html.escape(text)}</p>")

    def table(self, rows: pd.DataFrame | Sequence[Mapping[str, Any]], caption: str = "",
              formats: Mapping[str, str] | None = None) -> None:
        """A table; numbers formatted with ``formats[column]`` (default ``{:.4g}``), NaN as –."""
        records = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
        columns = list(records[0]) if records else list(getattr(rows, "columns", []))
        formats = formats or {}

        def cell(col: str, v: Any) -> str:
            if isinstance(v, float):
                text = "–" if math.isnan(v) else formats.get(col, "{:.4g}").format(v)
                return f"<td>{html.escape(text)}</td>"
            if isinstance(v, (int,)) and not isinstance(v, bool):
                return f"<td>{v:,}</td>"
            return f'<td class="text">{html.escape(str(v))}</td>'

        head = "".join(f'<th class="text">{html.escape(str(c))}</th>' for c in columns)
        body = "".join("<tr>" + "".join(cell(c, r.get(c)) for c in columns) + "</tr>"
                       for r in records)
        cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
        self.parts.append(f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
                          "</table>")

    def figure(self, fig: Figure, caption: str = "") -> None:
        """A matplotlib figure, inlined as SVG (text kept as text), then closed."""
        import matplotlib.pyplot as plt

        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        plt.close(fig)
        svg = buf.getvalue()
        svg = svg[svg.index("<svg"):]  # drop the XML declaration and DOCTYPE
        self.figures += 1
        # ids must be unique in the page: matplotlib numbers its clip paths per figure
        svg = re.sub(r'(id="|url\(#|href="#)([A-Za-z_][\w.-]*)',
                     lambda m: f"{m.group(1)}f{self.figures}-{m.group(2)}", svg)
        cap = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
        self.parts.append(f'<figure class="plot">{svg}{cap}</figure>')

    def html(self) -> str:
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(self.title)}</title><style>{_CSS}</style></head><body>"
                f"<h1>{html.escape(self.title)}</h1>" + "\n".join(self.parts) + "</body></html>\n")

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.html(), encoding="utf-8")
        return path


# ---------------------------------------------------------------------------------------------
# Plots that label what they draw


def _label_ends(ax: Any, ends: Sequence[tuple[float, float, str, str]],
                fontsize: float = 9.0) -> None:
    """Writes each ``(x, y, text, colour)`` just right of its point, moving labels apart
    vertically (never the points) so that no two overlap, with a thin leader when a label
    moved."""
    if not ends:
        return
    ax.get_xlim(), ax.get_ylim()  # settle the autoscaled limits before measuring
    dpi = ax.figure.dpi
    trans = ax.transData
    ys = [float(trans.transform((x, y))[1]) for x, y, _, _ in ends]
    gap = fontsize * 1.3 * dpi / 72.0  # one line of text, in pixels
    placed = list(ys)
    order = sorted(range(len(ends)), key=lambda i: ys[i])
    for prev, i in zip(order, order[1:]):
        placed[i] = max(placed[i], placed[prev] + gap)
    # centre the moved block on where the labels wanted to be
    shift = (sum(ys) - sum(placed)) / len(ys)
    lowest = min(placed) + shift
    shift -= min(0.0, lowest - min(ys))  # but never below the lowest point
    for (x, y, text, color), want, at in zip(ends, ys, placed):
        dy = (at + shift - want) * 72.0 / dpi
        ax.annotate(text, (x, y), xytext=(6, dy), textcoords="offset points", color=color,
                    va="center", fontsize=fontsize,
                    arrowprops={"arrowstyle": "-", "color": color, "lw": 0.5, "alpha": 0.6}
                    if abs(dy) > 2 else None)


#: Physical bounds of the default metrics: counts, rates and delays are never negative,
#: fractions lie in [0, 1]. A confidence band is clipped to them.
_FRACTIONS = ("loss_ratio", "jain", "respect_of_service", "respect_of_service_mean",
              "utilization")
_NON_NEGATIVE = ("throughput_kbps_total", "goodput_kbps_total", "throughput_kbps",
                 "goodput_kbps", "packets_sent", "packets_dropped", "mean_delay_s",
                 "retransmitted_packets", "timeouts", "drops_total", "mean_len_packets")


def bounds(metric: str) -> tuple[float, float]:
    """The values ``metric`` can physically take (default metrics; others unbounded)."""
    last = metric.rsplit(".", 1)[-1]
    if last in _FRACTIONS:
        return 0.0, 1.0
    if last in _NON_NEGATIVE:
        return 0.0, math.inf
    return -math.inf, math.inf


def x_positions(values: pd.Series) -> tuple[Any, str, list[tuple[float, str]]]:
    """Where values of a swept parameter go on an x axis: numbers at their values; values
    with units (``afsim.units``) at their values in a display unit; anything else as
    categories, in natural order. Returns (positions, unit for the axis label or "", ticks as
    (position, label) for non-number axes)."""
    import numpy as np
    import pandas as pd

    from afsim.stats import natural_key
    from afsim.units import common_dimension, display_unit, quantity

    if pd.api.types.is_numeric_dtype(values):
        return values.to_numpy(float), "", []
    values = values.where(values.notna(), "(unset)")  # a parameter some runs do not set
    distinct = sorted(set(values), key=natural_key)
    dim = common_dimension(distinct)
    if dim is not None:
        base = {v: quantity(v).value for v in distinct}  # type: ignore[union-attr]
        factor, unit = display_unit(dim, max(base.values()))
        pos = {v: base[v] / factor for v in distinct}
    else:
        unit = ""
        pos = {v: float(i) for i, v in enumerate(distinct)}
    return (np.array([pos[v] for v in values], float), unit,
            [(pos[v], str(v)) for v in distinct])


def metric_vs_param(points: pd.DataFrame, metric: str, x: str, series: str | None = None, *,
                    title: str = "", ylabel: str | None = None) -> Figure:
    """``<metric>.mean`` against column ``x`` with the 95 % band (``.ci95``, clipped to the
    metric's ``bounds``), one line per value of ``series``, each named at its right end. A
    parameter with units is placed by value (``x_positions``), its values as tick labels."""
    from afsim.stats import natural_key

    pos, unit, ticks = x_positions(points[x])
    xlabel = f"{_short(x)} ({unit})" if unit else _short(x)
    fig, ax = checks.axes(title or f"{label(metric)} against {_short(x)}", xlabel,
                    ylabel or label(metric))
    lo, hi = bounds(metric)
    frame = points.assign(_x=pos)
    if series:
        groups = sorted(frame.groupby(series, sort=False), key=lambda kv: natural_key(kv[0]))
    else:
        groups = [("", frame)]
    ends = []
    for i, (value, g) in enumerate(groups):
        g = g.sort_values("_x")
        xs, ys = g["_x"].to_numpy(float), g[f"{metric}.mean"].to_numpy(float)
        ci = g[f"{metric}.ci95"].to_numpy(float)
        color = f"C{i % 10}"
        ax.plot(xs, ys, "o-", color=color, lw=1.5, ms=4)
        band = ~(ci != ci)
        if band.any():
            import numpy as np

            ax.fill_between(xs, np.clip(ys - ci, lo, hi), np.clip(ys + ci, lo, hi), where=band,
                            color=color, alpha=0.18, lw=0)
        if series:
            ends.append((xs[-1], ys[-1], f"{_short(series)} = {_value(value)}", color))
    if ticks:
        ax.set_xticks([p for p, _ in ticks], [t for _, t in ticks],
                      rotation=45 if len(ticks) > 6 else 0,
                      ha="right" if len(ticks) > 6 else "center")
    _label_ends(ax, ends)
    return fig


def flow_bars(names: Sequence[str], means: Sequence[float], cis: Sequence[float], *,
              title: str, ylabel: str) -> Figure:
    """One bar per flow with its 95 % interval, its value written on it."""
    fig, ax = checks.axes(title, "flow", ylabel)
    xs = range(len(names))
    # whiskers clipped at 0: a throughput is never negative
    low = [min(c, m) if c == c else 0.0 for m, c in zip(means, cis)]
    high = [c if c == c else 0.0 for c in cis]
    bars = ax.bar(xs, means, yerr=[low, high], color="C0", alpha=0.85, capsize=3)
    ax.set_xticks(list(xs), list(names), rotation=45 if len(names) > 8 else 0, ha="right"
                  if len(names) > 8 else "center", fontsize=8)
    if len(names) <= 24:
        ax.bar_label(bars, labels=[format_eng(m, 3) for m in means], fontsize=7, padding=2)
    return fig


def time_series(table: pd.DataFrame, by: str, y: str, *, title: str, ylabel: str,
                limit: int = 8) -> Figure:
    """``y`` against ``time_s``, one step line per value of ``by`` (the first ``limit``), each
    named at its end."""
    fig, ax = checks.axes(title, "simulated time (s)", ylabel)
    ends = []
    for i, (name, g) in enumerate(list(table.groupby(by, sort=False))[:limit]):
        color = f"C{i % 10}"
        ax.step(g["time_s"], g[y], where="post", color=color, lw=1)
        ends.append((float(g["time_s"].iloc[-1]), float(g[y].iloc[-1]), str(name), color))
    _label_ends(ax, ends)
    return fig


#: Axis labels of the default metrics (``afsim.store.metrics.default_metrics``).
LABELS = {
    "throughput_kbps_total": "total throughput (kb/s)",
    "goodput_kbps_total": "total TCP goodput (kb/s)",
    "loss_ratio": "packets lost / sent",
    "mean_delay_s": "mean one-way delay (s)",
    # every flow of the run, whatever its contract or transport: per-group indices are the
    # group.<name>.jain metrics, plotted beside it
    "jain": "Jain's index, all flows (unequal contracts included)",
    # the flows with a contract, each throughput ÷ its contract (store/metrics.py); per
    # contract class: contract.<kbps>.jain
    "jain_contracted": "Jain's index of throughput ÷ contract, contracted flows",
    "respect_of_service_mean": "mean Respect of Service",
    "packets_dropped": "packets dropped",
    "retransmitted_packets": "TCP retransmissions",
    "timeouts": "TCP timeouts",
}


def label(metric: str) -> str:
    """A metric's axis label: known names in words, ``group.x.jain`` as "group x: jain"."""
    if metric in LABELS:
        return LABELS[metric]
    parts = metric.split(".")
    if len(parts) >= 3:
        return f"{parts[0]} {'.'.join(parts[1:-1])}: {LABELS.get(parts[-1], parts[-1])}"
    return metric.replace("_kbps", " (kb/s)").replace("_s", " (s)").replace("_", " ")


def _short(col: str) -> str:
    return col.removeprefix("param.")


def _value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


# ---------------------------------------------------------------------------------------------
# The report of a results store


def store_report(store: Store, title: str | None = None, sweep: str | None = None) -> Document:
    """The report ``afsim report`` writes (see the module header): of every stored run, or
    of the runs of ``sweep`` only (``afsim report --only SWEEP``; ``"(untagged)"``: the runs of
    no sweep; an unknown sweep is ``Store.runs``' KeyError)."""
    from afsim.stats import aggregate

    runs = store.runs(sweep=sweep)
    damaged = store.damaged()
    runs = runs[~runs["key"].isin(damaged)].reset_index(drop=True)
    of = f" (sweep {sweep})" if sweep is not None else ""
    doc = Document(title or f"afsim results: {store.path.name}{of}")
    which = f"The {len(runs)} runs of sweep {sweep}" if sweep is not None else f"{len(runs)} runs"
    doc.text(f"{which} in {store.path} (stored by afsim {store.made_by}). Means with "
             "95% Student-t confidence intervals over the replications of each grid point.",
             note=True)
    if damaged:
        doc.text(f"{len(damaged)} more runs in the catalog have lost files and are left out "
                 "('afsim results STORE --check' lists them, '--repair' removes them).",
                 note=True)
    if not len(runs):
        doc.text("The store holds no runs yet.")
        return doc
    flows_all = store.table("flows", list(runs["key"]))
    for scenario, sruns in runs.groupby("scenario", sort=False):
        sruns = sruns.dropna(axis=1, how="all")
        params = [c for c in sruns.columns if c.startswith("param.")]
        swept = [c for c in params if sruns[c].nunique() > 1]
        metrics = [c for c in sruns.columns if c not in _NOT_METRICS and c not in params]
        main = [m for m in LABELS if m in metrics and sruns[m].nunique() > 1] or \
            [m for m in LABELS if m in metrics][:4]
        points = aggregate(sruns, params, metrics)
        doc.heading(f"Scenario {scenario}")
        fixed = [f"{_short(c)} = {_value(sruns[c].iloc[0])}" for c in params if c not in swept]
        doc.text(f"{len(sruns)} runs, {len(points)} grid points"
                 + (f"; swept: {', '.join(_short(c) for c in swept)}" if swept else "")
                 + (f"; fixed: {', '.join(fixed)}" if fixed else "") + ".")
        table = points[[*swept, "runs"]].rename(columns=_short).copy()
        for m in main:
            table[label(m)] = [_pm(a, b) for a, b in zip(points[f"{m}.mean"],
                                                         points[f"{m}.ci95"])]
        doc.table(table, caption="Grid points: mean ± 95% confidence half-width")
        if "jain" in main:
            doc.text("Jain's index (jain) covers every flow of a run, whatever its contract or "
                     "transport (starved best effort included)"
                     + ("; jain_contracted is Jain's index of throughput ÷ contract over the "
                        "flows with a contract, and contract.<kbps>.jain the index within "
                        "each contract class." if "jain_contracted" in metrics else "."),
                     note=True)
        for x in swept:
            others = [c for c in swept if c != x]
            series = others[0] if others else None
            for m in main + _group_metrics(sruns, metrics):
                doc.figure(metric_vs_param(points, m, x, series),
                           caption=f"{label(m)} against {_short(x)}; shaded: 95% confidence "
                           "interval" + (f"; one line per {_short(series)}" if series else ""))
        _flow_section(doc, sruns, flows_all, swept)
        pts = _extreme_points(sruns, swept)
        checks.contract_section(doc, pts)
        checks.delay_section(doc, pts, flows_all, store.table)
        _trace_section(doc, store, sruns)
    return doc


def _group_metrics(runs: pd.DataFrame, metrics: list[str], most: int = 12) -> list[str]:
    """The flow groups' stored metrics (``group.<name>.throughput_kbps_total``, ``.jain``,
    ``.fieb``) and the contract classes' (``contract.<kbps>.jain``) that vary over the runs, at
    most ``most`` of them, in store order."""
    return [m for m in metrics if m.startswith(("group.", "contract."))
            and runs[m].nunique() > 1][:most]


_NOT_METRICS = {"key", "scenario", "source", "seed", "end_time_s", "stop_reason", "events",
                "packet_hops", "wall_s", "stored_at"}


def _pm(mean: float, ci: float) -> str:
    return format_mean_ci(mean, ci)


def _extreme_points(runs: pd.DataFrame, swept: list[str]) -> list[tuple[str, pd.DataFrame]]:
    """(" at x = v", runs) of the first and the last grid point by value (one point: ("",
    runs)), as the per-flow bars pick them."""
    from afsim.stats import natural_key

    if not swept:
        return [("", runs)]
    groups = sorted(runs.groupby(swept, sort=False), key=lambda kv: tuple(
        natural_key(v) for v in (kv[0] if isinstance(kv[0], tuple) else (kv[0],))))
    out = []
    for value, g in ([groups[0], groups[-1]] if len(groups) > 1 else groups):
        values = value if isinstance(value, tuple) else (value,)
        out.append((" at " + ", ".join(f"{_short(c)} = {_value(v)}" for c, v in zip(swept, values)),
                    g))
    return out


def _flow_section(doc: Document, runs: pd.DataFrame, flows: pd.DataFrame,
                  swept: list[str]) -> None:
    """Per-flow throughput at the first and the last grid point."""
    from afsim.stats import Stat, natural_key

    if not len(flows):
        return
    f = flows[flows["key"].isin(runs["key"]) & (flows["kind"] != "csa-signal")]
    if not len(f) or f["name"].nunique() > 60:
        return
    by_point = runs.groupby(swept, sort=False) if swept else [((), runs)]
    # the extremes by value (units read, afsim.units), not by text
    groups = sorted(by_point, key=lambda kv: tuple(
        natural_key(v) for v in (kv[0] if isinstance(kv[0], tuple) else (kv[0],))))
    for value, g in ([groups[0], groups[-1]] if len(groups) > 1 else groups):
        rows = f[f["key"].isin(g["key"])]
        names = list(dict.fromkeys(rows["name"]))
        stats = [Stat.of(rows.loc[rows["name"] == n, "throughput_kbps"]) for n in names]
        values = value if isinstance(value, tuple) else (value,)
        where = ", ".join(f"{_short(c)} = {_value(v)}" for c, v in zip(swept, values))
        doc.figure(flow_bars(names, [s.mean for s in stats], [s.ci95 for s in stats],
                             title=f"Throughput per flow{' at ' + where if where else ''}",
                             ylabel="throughput (kb/s)"),
                   caption=f"Mean over {len(g)} runs; whiskers: 95% confidence interval")


def _series_rates(name: str, t: pd.DataFrame, store: Store, key: str) -> pd.DataFrame:
    """A stored ``[[monitor]]`` table made ready to draw: flows summed per flow group as
    rate_kbps; a queue's per-level counts as ``queue level`` series; others as they are."""
    if name == "monitor_flows":
        flows = store.table("flows", [key])
        group = dict(zip(flows["name"], flows["group"]))
        interval_s = float(t["time_s"].min())
        t = t.assign(group=t["flow"].map(group),
                     rate_kbps=t["delivered_bytes"] * 8.0 / interval_s / 1e3)
        return t.groupby(["group", "time_s"], sort=False)["rate_kbps"].sum().reset_index()
    if name == "monitor_levels":
        return t.assign(series=t["queue"] + " level " + t["level"].astype(str))
    if name == "monitor_code_points":
        reverse = t["direction"].map({"reverse": " (reverse)"}).fillna("")
        return t.assign(series=t["queue"] + " " + t["code_point"] + reverse,
                        drops=t["drops_overflow"] + t["drops_early"])
    return t


def _trace_section(doc: Document, store: Store, runs: pd.DataFrame) -> None:
    """cwnd, α and the ``[[monitor]]`` time series (queue length, drops per level, delivered
    rate per flow group) over time in the first run that recorded each."""
    for name, by, y, what, unit in (("traces", "flow", "cwnd", "TCP congestion window", "bytes"),
                                    ("alpha", "csa", "alpha", "CSA α", "α"),
                                    ("monitor", "queue", "len_packets", "Queue length",
                                     "packets"),
                                    ("monitor_levels", "series", "drops",
                                     "Drops per drop-precedence level and interval", "packets"),
                                    ("monitor_code_points", "series", "drops",
                                     "Drops per code point and interval", "packets"),
                                    ("monitor_code_points", "series", "ecn_marks",
                                     "ECN marks per code point and interval", "packets"),
                                    ("monitor_flows", "group", "rate_kbps",
                                     "Delivered rate per flow group and interval", "kb/s")):
        for key in runs["key"]:
            t = store.table(name, [key])
            if len(t):
                t = _series_rates(name, t, store, key)
                if name == "monitor_code_points" and not t[y].sum():
                    continue  # no drops (or no marks) at any code point: nothing to draw
                seed = runs.loc[runs["key"] == key, "seed"].iloc[0]
                doc.figure(time_series(t, by, y, title=f"{what} over time (one run, seed {seed})",
                                       ylabel=unit),
                           caption=f"{what} of run {key}, one line per {by}")
                break
