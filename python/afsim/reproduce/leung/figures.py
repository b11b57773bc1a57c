"""leung: the figures."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from afsim.reproduce import report_ns2
from afsim.reproduce.core import Figure, Point, View
from afsim.reproduce.leung.claims import F6, F10, F35, F79
from afsim.reproduce.leung.paper import (
    BOTTLENECKS_1,
    ECN_STRATEGIES,
    SCHEME_NAMES,
    SCHEMES,
    STRATEGIES,
    TARGETS_1,
)

if TYPE_CHECKING:
    from afsim.reproduce.core import Reproduction


# ---------------------------------------------------------------------------------------------
# Figures: bar charts over strategies (the paper's Figs. 3–10 are bars)


def _bars(rep: Reproduction, fig: Figure, ax: Any, *, group: str, groups: Sequence[str],
          fixed: dict[str, Any], metrics: Sequence[str], names: Sequence[str],
          marks: Sequence[tuple[str, float, str]] = (), bands: Sequence[tuple[float, float, str]] = (),
          points: Sequence[tuple[int, int, float, str]] = ()) -> None:
    """Grouped bars of afsim's means (95 % intervals as error bars): one group per value of the
    label ``group``, one bar per metric; the paper's stated values as horizontal lines
    (``marks``: label, y, style), bands (``bands``: low, high, label) and points (``points``:
    group index, bar index, y, label)."""
    rows = rep.aggregates.by_experiment.get(fig.experiment, [])
    width = 0.8 / len(metrics)
    colours = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
               "#8c8c8c", "#ccb974", "#64b5cd"]
    for j, (metric, name) in enumerate(zip(metrics, names, strict=True)):
        ys, errs = [], []
        for g in groups:
            stat = next((st.get(metric) for p, st in rows
                         if p.matches({**fixed, group: g})), None)
            ys.append(stat.mean if stat is not None and stat.n else math.nan)
            errs.append(stat.ci95 if stat is not None and math.isfinite(stat.ci95) else 0.0)
        xs = [i + (j - (len(metrics) - 1) / 2) * width for i in range(len(groups))]
        ax.bar(xs, ys, width * 0.95, yerr=errs, capsize=2, color=colours[j % len(colours)],
               label=f"afsim {name}")
        report_ns2.mark_points(ax, xs, [report_ns2.stat_at(rep, fig.experiment, {**fixed, group: g}, metric)
                                        for g in groups], label="ns-2" if j == 0 else None)
    for label, y, style in marks:
        ax.axhline(y, color="black", linestyle=style, linewidth=0.9, label=f"paper: {label}")
    for low, high, label in bands:
        ax.axhspan(low, high, color="grey", alpha=0.2, label=f"paper: {label}")
    for gi, bi, y, label in points:
        x = gi + (bi - (len(metrics) - 1) / 2) * width
        ax.plot([x], [y], marker="*", markersize=11, color="black", linestyle="none",
                label=f"paper: {label}")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)


def _flows(n: int, metric: str) -> tuple[list[str], list[str]]:
    return [f"{metric}.f{i}" for i in range(1, n + 1)], [f"S{i}" for i in range(1, n + 1)]


def draw_fig3(rep: Reproduction, fig: Figure, ax: Any) -> None:
    b = 10 if fig.id.endswith("10") else 16
    ms, names = _flows(3, "thr")
    _bars(rep, fig, ax, group="strategy", groups=STRATEGIES, fixed={"bottleneck": b}, metrics=ms,
          names=names, marks=[(f"target S{i + 1}", t, ":") for i, t in enumerate(TARGETS_1)])


def draw_fig4(rep: Reproduction, fig: Figure, ax: Any) -> None:
    b = 10 if fig.id.endswith("10") else 16
    ms, names = _flows(3, "excess")
    _bars(rep, fig, ax, group="strategy", groups=STRATEGIES, fixed={"bottleneck": b}, metrics=ms,
          names=names, marks=[("0: target met", 0.0, "-"),
                              (f"fair excess {(b * 1000 - 7000) / 3:.0f} kb/s", (b * 1000 - 7000) / 3, "--")])


def draw_fig5(rep: Reproduction, fig: Figure, ax: Any) -> None:
    _bars_two(rep, fig, ax, "bottleneck", BOTTLENECKS_1, "Mb/s")


def _grouped(ax: Any, rows: list[tuple[Point, dict[str, Any]]], metric: str, group_key: str,
             groups: Sequence[Any], series_key: str, series: Sequence[Any],
             labels: Sequence[str], top: float = 1.05, ns2: View | None = None,
             experiment: str = "") -> tuple[float, list[list[float]]]:
    """Bars of ``metric`` (mean, 95 % interval): one group per value of ``group_key``, one bar
    per value of ``series_key``; with ``ns2``, ns-2's means of ``experiment`` as crosses.
    Returns the bar width and each series' bar positions."""
    width = 0.8 / len(series)
    positions = []
    for j, (v, label) in enumerate(zip(series, labels, strict=True)):
        ys, errs = [], []
        for g in groups:
            st = next((x.get(metric) for p, x in rows if p.matches({series_key: v, group_key: g})), None)
            ys.append(st.mean if st is not None and st.n else math.nan)
            errs.append(st.ci95 if st is not None and math.isfinite(st.ci95) else 0.0)
        xs = [i + (j - (len(series) - 1) / 2) * width for i in range(len(groups))]
        ax.bar(xs, ys, width * 0.95, yerr=errs, capsize=2, label=label)
        positions.append(xs)
        if ns2 is not None:
            report_ns2.mark_points(ax, xs, [ns2.stat(experiment, {series_key: v, group_key: g}, metric)
                                            for g in groups], label="ns-2" if j == 0 else None)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize=8)
    ax.set_ylim(0, top)
    ax.grid(True, axis="y", alpha=0.3)
    return width, positions


def _ns2_view(rep: Reproduction) -> View | None:
    return View(rep.ns2.aggregates, "ns-2") if rep.ns2 is not None else None


def _bars_two(rep: Reproduction, fig: Figure, ax: Any, key: str, values: Sequence[Any], unit: str) -> None:
    """FIEB per strategy, one bar per value of ``key`` (the bottleneck, the RTT set)."""
    rows = rep.aggregates.by_experiment.get(fig.experiment, [])
    width, _ = _grouped(ax, rows, "fieb", "strategy", STRATEGIES, key, values,
                        [f"afsim, {key} {v} {unit}".strip() for v in values], top=1.15,
                        ns2=_ns2_view(rep), experiment=fig.experiment)
    if key == "rtt_set":
        # §4.1: mark-tail +16 %, mark-front and mark-random about +9 % over non-ECN (set #1)
        base = next((x.get("fieb") for p, x in rows if p.matches({key: 1, "strategy": "non-ECN"})), None)
        if base is not None and base.n:
            for i, k in ((1, 1.16), (2, 1.09), (3, 1.09)):
                ax.plot([i - width / 2], [base.mean * k], marker="*", markersize=11, color="black",
                        linestyle="none",
                        label="paper: +16 % / +9 % over afsim's non-ECN (set #1)" if i == 1 else None)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.9, label="perfectly fair")
    ax.legend(fontsize=6)


def draw_fig6(rep: Reproduction, fig: Figure, ax: Any) -> None:
    _bars_two(rep, fig, ax, "rtt_set", (1, 2), "")


def _scheme_of(fig: Figure) -> str:
    return fig.id.rsplit("_", 1)[1]


def draw_fig7(rep: Reproduction, fig: Figure, ax: Any) -> None:
    ms, names = _flows(3, "thr")
    _bars(rep, fig, ax, group="strategy", groups=ECN_STRATEGIES, fixed={"scheme": _scheme_of(fig)},
          metrics=ms, names=names,
          marks=[(f"fair S{i + 1} {f / 1000:g} Mb/s", f, ":") for i, f in enumerate((4000, 7000, 5000))])


def draw_fig8(rep: Reproduction, fig: Figure, ax: Any) -> None:
    ms, names = _flows(3, "excess")
    _bars(rep, fig, ax, group="strategy", groups=ECN_STRATEGIES, fixed={"scheme": _scheme_of(fig)},
          metrics=ms, names=names, marks=[("fair excess 3 Mb/s", 3000.0, "--"), ("0", 0.0, "-")])


def _fieb_by_scheme(rep: Reproduction, fig: Figure, ax: Any, stated: dict[str, list[Any]]) -> None:
    """FIEB per strategy, one bar per scheme setting, with the paper's stated values: a range
    (``band``), a minimum (``min``) or a value (``value``, for one strategy or all)."""
    rows = rep.aggregates.by_experiment.get(fig.experiment, [])
    width, positions = _grouped(ax, rows, "fieb", "strategy", ECN_STRATEGIES, "scheme", SCHEMES,
                                [f"afsim, {SCHEME_NAMES[sc]}" for sc in SCHEMES],
                                ns2=_ns2_view(rep), experiment=fig.experiment)
    for sc, xs in zip(SCHEMES, positions, strict=True):
        for kind, *args in stated.get(sc, []):
            if kind in ("band", "min"):
                for x in xs:
                    for y in args:
                        ax.plot([x - width / 2, x + width / 2], [y, y], color="black", linewidth=1,
                                linestyle="-" if kind == "band" else "--")
            elif kind == "value":
                idx, y = args
                for i in (range(len(xs)) if idx is None else [idx]):
                    ax.plot([xs[i]], [y], marker="*", markersize=10, color="black", linestyle="none")
    ax.plot([], [], color="black", linewidth=1, label="paper: stated range / value (★) / minimum (--)")
    ax.legend(fontsize=6)


def draw_fig9(rep: Reproduction, fig: Figure, ax: Any) -> None:
    _fieb_by_scheme(rep, fig, ax, {"none": [("band", 0.85, 0.92)], "out": [("min", 0.94)],
                                   "tss": [("min", 0.95)], "both": [("value", None, 0.97)]})


def draw_fig10(rep: Reproduction, fig: Figure, ax: Any) -> None:
    _fieb_by_scheme(rep, fig, ax, {"out": [("value", 2, 0.8)], "both": [("min", 0.8)]})


FIGURES = (
    *(Figure(f"fig3_throughput_{b}", f"Fig. 3: throughput per flow, topology 1, {b} Mb/s", F35,
             "thr.f1", x="strategy", series="", xlabel="", ylabel="throughput (kb/s)", draw=draw_fig3)
      for b in BOTTLENECKS_1),
    *(Figure(f"fig4_excess_{b}", f"Fig. 4: excess bandwidth per flow, topology 1, {b} Mb/s", F35,
             "excess.f1", x="strategy", series="", xlabel="", ylabel="excess (kb/s)", draw=draw_fig4)
      for b in BOTTLENECKS_1),
    Figure("fig5_fieb", "Fig. 5: FIEB, topology 1 (10 and 16 Mb/s)", F35, "fieb", x="strategy",
           series="", xlabel="", ylabel="FIEB", draw=draw_fig5),
    Figure("fig6_fieb", "Fig. 6: FIEB, topology 2, RTT sets #1 (a) and #2 (b)", F6, "fieb",
           x="strategy", series="", xlabel="", ylabel="FIEB", draw=draw_fig6),
    *(Figure(f"fig7_throughput_{sc}", f"Fig. 7: throughput per flow, topology 1, 16 Mb/s, "
             f"{SCHEME_NAMES[sc]}", F79, "thr.f1", x="strategy", series="", xlabel="",
             ylabel="throughput (kb/s)", draw=draw_fig7) for sc in SCHEMES),
    *(Figure(f"fig8_excess_{sc}", f"Fig. 8: excess bandwidth per flow, topology 1, 16 Mb/s, "
             f"{SCHEME_NAMES[sc]}", F79, "excess.f1", x="strategy", series="", xlabel="",
             ylabel="excess (kb/s)", draw=draw_fig8) for sc in SCHEMES),
    Figure("fig9_fieb", "Fig. 9: FIEB with the schemes, topology 1, 16 Mb/s", F79, "fieb",
           x="strategy", series="", xlabel="", ylabel="FIEB", draw=draw_fig9),
    Figure("fig10_fieb", "Fig. 10: FIEB with the schemes, topology 2, RTT set #2", F10, "fieb",
           x="strategy", series="", xlabel="", ylabel="FIEB", draw=draw_fig10),
)
