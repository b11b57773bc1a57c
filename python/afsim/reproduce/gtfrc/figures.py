"""gtfrc: the figures."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from afsim.reproduce import core
from afsim.reproduce.core import View
from afsim.reproduce.gtfrc.paper import (
    FIGURE_NUMBERS,
    PANEL,
    PAPER_SECONDS,
    SERIES_REPLICATIONS,
    SERIES_TIMES,
    Panel,
)

if TYPE_CHECKING:
    from afsim.reproduce.core import Reproduction


# ---------------------------------------------------------------------------------------------
# Figures 4–15: time series


def extra_figures(rep: Reproduction, out_dir: Path) -> dict[str, list[Path]]:
    """Figs. 4–15 as the paper draws them — each flow's instantaneous and cumulative
    average throughput at the server side over 0–100 s, panels (a) and (b) side by side — as
    PNG and SVG: afsim's mean over the replications (the cumulative average with its 95 %
    interval), each flow's target, and what the paper states about the figure where it states
    a value (Fig. 4a's t = 11 s, Fig. 8a's 200 kb/s, Fig. 12's twice the target, Tables 4–5's
    averages)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from afsim.reproduce.scoring import load_paper_values

    view = View(rep.aggregates)
    ns2_view = View(rep.ns2.aggregates, "ns-2") if rep.ns2 is not None else None
    values, _ = load_paper_values(rep.paper.data)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    written: dict[str, list[Path]] = {}
    for n in FIGURE_NUMBERS:
        panels = [PANEL[f"{n}a"], PANEL[f"{n}b"]]
        data = {(p.fig, f.name, m): _plain_series(view, p, f.name, m)
                for p in panels for f in p.flows for m in ("rate_kbps", "cum_kbps")}
        if any(v is None for v in data.values()):
            continue  # its time series did not run (--only, a smoke run)
        fig, axes = plt.subplots(1, 2, figsize=(13.0, 4.6), sharey=True)
        for ax, p in zip(axes, panels, strict=True):
            for k, f in enumerate(p.flows):
                colour = colours[k % len(colours)]
                rate, cum = data[(p.fig, f.name, "rate_kbps")], data[(p.fig, f.name, "cum_kbps")]
                assert rate is not None and cum is not None
                ax.stairs([s.mean for _, s in rate], [0.0, *(t for t, _ in rate)],
                          color=colour, linewidth=0.8, alpha=0.55)
                ax.plot([t for t, _ in cum], [s.mean for _, s in cum], color=colour,
                        linewidth=2.0, label=f.label)
                ax.fill_between([t for t, _ in cum], [s.low for _, s in cum],
                                [s.high for _, s in cum], color=colour, alpha=0.15, linewidth=0)
                ax.axhline(f.target_kbps, color=colour, linestyle=":", linewidth=1.0)
                ns2_cum = _plain_series(ns2_view, p, f.name, "cum_kbps") if ns2_view else None
                if ns2_cum is not None:
                    ax.plot([t for t, _ in ns2_cum], [s.mean for _, s in ns2_cum], color=colour,
                            linewidth=1.2, linestyle="--", marker="x", markersize=3,
                            label=f"{f.name}: ns-2 twin, cumulative")
            _mark_paper(ax, p, values, colours)
            ax.set_title(f"Fig. {p.fig[:-1]} ({p.fig[-1]}): {p.provisioning}-provisioned", fontsize=10)
            ax.set_xlabel("time (s)")
            ax.set_xlim(0, PAPER_SECONDS)
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="best")
        axes[0].set_ylabel("throughput at the receiver (kbit/s)")
        reps = min(rep.mode.replications, SERIES_REPLICATIONS)
        fig.suptitle(f"Fig. {n} reproduced: thin, the instantaneous rate (over 2 s to 20 s, 4 s "
                     f"after); thick, the cumulative average (95 % interval shaded); dotted, the "
                     f"targets; mean of {reps} run(s)\ndashed with crosses: ns-2's twin, cumulative "
                     f"(TFRC and TCP panels; gTFRC is not in ns-2)", fontsize=9)
        fig.tight_layout()
        paths = []
        for ext in ("png", "svg"):
            path = out_dir / f"fig{n:02d}.{ext}"
            fig.savefig(path, dpi=110 if ext == "png" else None)
            paths.append(path)
        plt.close(fig)
        written[f"fig{n:02d}"] = paths
    return written


def _plain_series(view: View, panel: Panel, flow: str, metric: str) -> list[tuple[float, core.Stat]] | None:
    rows = []
    for t in SERIES_TIMES:
        s = view.stat(f"{panel.experiment}_t", {"fig": panel.fig, "t": t}, f"{flow}.{metric}")
        if s is None or s.n == 0:
            return None
        rows.append((float(t), s))
    return rows


def _mark_paper(ax, panel: Panel, values, colours: Sequence[str]) -> None:
    """The paper's stated values for this panel: a time as a vertical line, a rate as a band
    (its tolerance), an average as a marker at 100 s."""
    names = [f.name for f in panel.flows]
    labelled = False
    for v in values:
        if v.point.get("fig") != panel.fig:
            continue
        flow = v.metric.split(".")[0]
        colour = colours[names.index(flow) % len(colours)] if flow in names else "black"
        target = panel.flow(flow).target_kbps if flow in names else 0.0
        if v.metric.endswith("ss_exit_s"):
            ax.axvline(v.value, color="black", linestyle="--", linewidth=1.0)
            ax.annotate(f"paper: {flow}'s rate decreases at t = {v.value:g} s", (v.value, 0),
                        textcoords="offset points", xytext=(4, 8), fontsize=7)
        elif v.metric.endswith("thr_over_target"):
            ax.axhspan((v.value - 0.5) * target, (v.value + 0.5) * target, color=colour, alpha=0.08)
            ax.annotate(f"paper: {flow} about {v.value:g}× its target", (2, (v.value + 0.5) * target),
                        textcoords="offset points", xytext=(0, -10), fontsize=7, color=colour)
        elif v.metric.endswith("thr_kbps") and v.table.startswith("Fig."):
            ax.axhspan(v.value - 50.0, v.value + 50.0, color=colour, alpha=0.08)
            ax.annotate(f"paper: {flow} around {v.value:g} kb/s", (2, v.value + 50.0),
                        textcoords="offset points", xytext=(0, -10), fontsize=7, color=colour)
        elif v.metric.endswith("thr_kbps"):
            ax.plot([PAPER_SECONDS], [v.value], marker="s", markerfacecolor="none", color=colour,
                    markersize=7, linestyle="none", clip_on=False,
                    label=f"paper: {v.table}'s averages (at 100 s)" if not labelled else None)
            labelled = True
