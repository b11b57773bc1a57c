"""Laatu et al.'s SIMA marking under each reading of the momentary bit rate (issue 21): the
named variants of the MBR estimator's averaging time and form, and the figure of the marking's
response to the NBR under each.

Read this first. The paper defers the MBR measurement to its [21] (Laine, Saaristo, Lemponen,
Harju, "Implementation and Measurements of Simple Integrated Media Access (SIMA) Network Nodes",
ICC 2000, pp. 796–800), which describes the testbed's access node; neither it nor the Linux 2.2.9
patch it describes was found. The one formula a source of the paper's gives is the SIMA draft's
§9.1 average with α = 5/K (eq. 4), K "the buffer of the flow's class": the scenario's default
(``mbr_estimator = "ewma"``, ``mbr_buffer = "20000B"``, §3.4's NRT buffer, about 3.2 ms). Each
other reading is a variant here, with its evidence in ``why`` and in docs/assumptions.md
("SIMA"): the averaging time (the draft's own example of an NRT buffer, 1 MB, about 160 ms)
crossed with the form (the draft's average; RFC 2859's time sliding window; a sliding window).
The windowed forms take the draft's averaging time for the same buffer as their window
(``edge::sima::averaging_time``), so a variant changes one thing at a time. None of them is the
default: the evidence for each is weaker than the default's or, for 1 MB, the reading was first
chosen because it matched §4.2.

``nbr_response_figure`` draws, for the default and each variant that ran, the share of the TCP
flow's packets at each drop precedence (DP 0 … 6) against Table II's NBRs, with the transfer's
mean bandwidth above each bar: whether the NBR changes the marking at all under that reading.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce.core import Variant

if TYPE_CHECKING:
    from afsim.reproduce.core import Reproduction

#: The scenario's defaults (``laatu/sima.toml``): the SIMA draft's §9.1 average over the
#: testbed's NRT buffer (§3.4).
DEFAULT_ESTIMATOR, DEFAULT_BUFFER = "ewma", "20000B"
#: The SIMA draft's example of a non-real-time buffer (§4.2: "e.g., 1 Mbyte").
DRAFT_BUFFER = "1MB"

_1MB_WHY = ("eq. (4)'s K_n set to the SIMA draft's example of a non-real-time buffer (§4.2, "
            "\"e.g., 1 Mbyte\"), an average over about 160 ms, instead of the testbed's own NRT "
            "buffer, 20000 B (3.2 ms)")
_TSW_WHY = ("RFC 2859's time sliding window, started at NBR, instead of the SIMA draft's average: "
            "the DiffServ rate meter of the time, not in any SIMA source (the paper's [21], which "
            "describes the testbed's access node, was not found). Its window is the draft's "
            "averaging time for the same buffer, 8·K/(5·C): its estimate relaxes towards a "
            "constant rate with that time constant, as the draft's does")
_WINDOW_WHY = ("a sliding window, the bytes of the last window over the window, instead of the "
               "SIMA draft's average: Forsten, Loukola, Skyttä's hardware SIMA access node (LNCS "
               "1718, 1999, the same SIMA project) lists a \"memory window\" among its subjects, "
               "how it used one was not found; weak evidence. Window: the draft's averaging time "
               "for the same buffer, 8·K/(5·C)")

_SIMA_EXPERIMENTS = ("table1_on", "table2", "table3")
_UNCHANGED = ("table1_off",)

#: The MBR readings other than the default, in the order the figure draws them.
VARIANTS = (
    Variant("mbr_1mb", "MBR averaged over the SIMA draft's example 1 MB buffer",
            {"mbr_buffer": DRAFT_BUFFER},
            _1MB_WHY + ". It was afsim's first default, adopted because the 20000 B reading "
            "contradicted §4.2 at NBR 1600 (\"the number of retransmitted packets remains low\"): "
            "a reading chosen to match the paper", _SIMA_EXPERIMENTS, unchanged=_UNCHANGED),
    Variant("mbr_tsw", "MBR by RFC 2859's time sliding window over 3.2 ms",
            {"mbr_estimator": "tsw"}, _TSW_WHY + " (20000 B: 3.2 ms)", _SIMA_EXPERIMENTS,
            unchanged=_UNCHANGED),
    Variant("mbr_tsw_1mb", "MBR by RFC 2859's time sliding window over 160 ms",
            {"mbr_estimator": "tsw", "mbr_buffer": DRAFT_BUFFER},
            _TSW_WHY + " (1 MB: 160 ms); with the 1 MB buffer of variant mbr_1mb", _SIMA_EXPERIMENTS,
            unchanged=_UNCHANGED),
    Variant("mbr_window", "MBR over a sliding window of 3.2 ms", {"mbr_estimator": "window"},
            _WINDOW_WHY + " (20000 B: 3.2 ms)", _SIMA_EXPERIMENTS, unchanged=_UNCHANGED),
    Variant("mbr_window_1mb", "MBR over a sliding window of 160 ms",
            {"mbr_estimator": "window", "mbr_buffer": DRAFT_BUFFER},
            _WINDOW_WHY + " (1 MB: 160 ms); with the 1 MB buffer of variant mbr_1mb",
            _SIMA_EXPERIMENTS, unchanged=_UNCHANGED),
)

#: Short panel labels: the form and the averaging time.
PANEL = {
    "": "default: SIMA draft's average, K = 20000 B (3.2 ms)",
    "mbr_1mb": "mbr_1mb: SIMA draft's average, K = 1 MB (160 ms)",
    "mbr_tsw": "mbr_tsw: RFC 2859 TSW, 3.2 ms",
    "mbr_tsw_1mb": "mbr_tsw_1mb: RFC 2859 TSW, 160 ms",
    "mbr_window": "mbr_window: sliding window, 3.2 ms",
    "mbr_window_1mb": "mbr_window_1mb: sliding window, 160 ms",
}

#: The drop precedences the marker gives (equation (1): 0 … 6; 7 is reserved).
LEVELS = range(7)


def nbr_response_figure(rep: Reproduction, out_dir: Path, experiment: str,
                        nbrs: Sequence[int], title: str) -> list[Path]:
    """The figure (PNG and SVG, ``nbr_dp_response``): one panel per reading that ran — the
    default and each MBR variant — of the mean share of the TCP flow's packets at each DP
    against the NBR (stacked, DP 0 at the bottom), the mean bandwidth (kb/s) above each bar and
    "incomplete" where some replication did not complete. Nothing is written when the experiment
    did not run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    readings = [("", experiment)] + [(v.id, f"{experiment}@{v.id}") for v in VARIANTS]
    ran = [(vid, eid) for vid, eid in readings if rep.aggregates.points(eid)]
    if not ran:
        return []
    cols = 2 if len(ran) > 1 else 1
    rows = math.ceil(len(ran) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.0 * cols, 3.4 * rows), squeeze=False,
                             sharey=True)
    colours = plt.get_cmap("RdYlGn")([k / 6.0 for k in LEVELS])
    for ax, (vid, eid) in zip(axes.flat, ran, strict=False):
        xs = [n for n in nbrs if any(p.labels.get("nbr_kbps") == n for p in rep.aggregates.points(eid))]
        bottoms = [0.0] * len(xs)
        for dp in LEVELS:
            shares = []
            for n in xs:
                s = rep.aggregates.stat(eid, {"nbr_kbps": n}, f"dp{dp}_share")
                shares.append(100.0 * s.mean if s and s.n and math.isfinite(s.mean) else 0.0)
            ax.bar([str(n) for n in xs], shares, bottom=bottoms, color=colours[dp],
                   edgecolor="white", linewidth=0.3, label=f"DP {dp}")
            bottoms = [b + h for b, h in zip(bottoms, shares, strict=True)]
        for i, n in enumerate(xs):
            thr = rep.aggregates.stat(eid, {"nbr_kbps": n}, "throughput_kbps")
            done = rep.aggregates.stat(eid, {"nbr_kbps": n}, "completed")
            text = f"{thr.mean:.0f}" if thr and thr.n else "?"
            if done and done.n and done.mean < 1.0:
                text += "\nincomplete"
            ax.text(i, 101.0, text, ha="center", va="bottom", fontsize=6)
        ax.set_title(PANEL.get(vid, vid), fontsize=8)
        ax.set_ylim(0, 118)
        ax.set_xlabel("NBR (kb/s)", fontsize=8)
        ax.set_ylabel("share of the TCP flow's packets (%)", fontsize=7)
        ax.tick_params(labelsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(ran):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], loc="center right", fontsize=7,
               title="drop precedence", title_fontsize=7)
    fig.suptitle(title + "\n(mean over the replications; above each bar: the transfer's mean "
                 "bandwidth, kb/s)", fontsize=9)
    fig.tight_layout(rect=(0.0, 0.0, 0.9, 1.0))
    paths = []
    for ext in ("png", "svg"):
        path = out_dir / f"nbr_dp_response.{ext}"
        fig.savefig(path, dpi=150 if ext == "png" else None)
        paths.append(path)
    plt.close(fig)
    return paths


def panels_for(rep: Any, experiment: str) -> list[str]:
    """The readings ``nbr_response_figure`` would draw (for tests and the report)."""
    readings = [""] + [v.id for v in VARIANTS]
    return [vid for vid in readings
            if rep.aggregates.points(experiment if not vid else f"{experiment}@{vid}")]
