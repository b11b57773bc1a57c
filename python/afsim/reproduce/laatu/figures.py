"""laatu: the figures."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce import core
from afsim.reproduce.core import Figure
from afsim.reproduce.laatu import mbr as laatu_mbr
from afsim.reproduce.laatu.claims import FOUR, ON0, _nbr, _off
from afsim.reproduce.laatu.paper import LEFT_FOR_DP4_KBPS, NBRS, T1OFF, T1ON, T2, T3

if TYPE_CHECKING:
    from afsim.reproduce.core import Reproduction


FIGURES = (
    Figure("table1_throughput", "Table I: TCP bandwidth against best-effort background (SIMA off)",
           T1OFF, "throughput_mbps", x="background_mbps", series="sima",
           xlabel="UDP background (Mb/s)", ylabel="avg. stream bandwidth (Mb/s)",
           series_name="SIMA"),
    Figure("table2_throughput", "Table II: TCP bandwidth against NBR", T2, "throughput_kbps",
           x="nbr_kbps", series="sima", xlabel="NBR (kb/s)", ylabel="avg. stream bandwidth (kb/s)",
           reference=(LEFT_FOR_DP4_KBPS, "1.5 Mb/s left by the DP 4 background"),
           series_name="SIMA"),
    Figure("table2_rexmt", "Table II: retransmitted data bytes against NBR", T2, "rexmt_bytes",
           x="nbr_kbps", series="sima", xlabel="NBR (kb/s)", ylabel="retransmitted bytes",
           series_name="SIMA"),
    Figure("table2_rtt", "Table II: RTT mean against NBR", T2, "rtt_mean_ms", x="nbr_kbps",
           series="sima", xlabel="NBR (kb/s)", ylabel="RTT mean (ms)", series_name="SIMA"),
    Figure("table2_throughput_mbr_1mb",
           "Table II under the variant 'MBR over 1 MB' (experiment table2@mbr_1mb)",
           f"{T2}@mbr_1mb", "throughput_kbps", x="nbr_kbps", series="sima", xlabel="NBR (kb/s)",
           ylabel="avg. stream bandwidth (kb/s)",
           reference=(LEFT_FOR_DP4_KBPS, "1.5 Mb/s left by the DP 4 background"), series_name="SIMA"),
    Figure("table2_rexmt_mbr_1mb",
           "Table II retransmissions under the variant 'MBR over 1 MB' (experiment table2@mbr_1mb)",
           f"{T2}@mbr_1mb", "rexmt_bytes", x="nbr_kbps", series="sima", xlabel="NBR (kb/s)",
           ylabel="retransmitted bytes", series_name="SIMA"),
)


# ---------------------------------------------------------------------------------------------
# The paper's cwnd and DP figures (Figs. 2–11), drawn from re-runs of the reproduction's runs

#: (figure id, title, experiment, point labels): the paper's cwnd figures.
CWND_FIGURES = (
    ("fig2_cwnd", "Fig. 2: cwnd, SIMA off, no background", T1OFF, _off(0)),
    ("fig3_cwnd", "Fig. 3: cwnd, SIMA off, 9.6 Mb/s of background", T1OFF, _off(9.6)),
    ("fig4_cwnd", "Fig. 4: cwnd, SIMA on, no background", T1ON, ON0),
    ("fig6_cwnd", "Fig. 6: cwnd, NBR 400 kb/s ('too low')", T2, _nbr(400)),
    ("fig8_cwnd", "Fig. 8: cwnd, NBR 1600 kb/s ('more optimal')", T2, _nbr(1600)),
    ("fig10_cwnd", "Fig. 10: cwnd, NBR 1800 kb/s ('too high')", T2, _nbr(1800)),
    ("fig11_cwnd", "Fig. 11: cwnd, four flows sharing an NBR of 800 kb/s", T3, FOUR),
)
#: The paper's DP distribution figures.
DP_FIGURES = (
    ("fig5_dp", "Fig. 5: DP of the TCP flow's packets, SIMA on, no background", T1ON, ON0),
    ("fig7_dp", "Fig. 7: DP of the TCP flow's packets, NBR 400 kb/s", T2, _nbr(400)),
    ("fig9_dp", "Fig. 9: DP of the TCP flow's packets, NBR 1600 kb/s", T2, _nbr(1600)),
)
#: The variant drawn beside the default where it ran.
FIGURE_VARIANT = "mbr_1mb"


def _ran(rep: Reproduction, experiment: str, labels: Mapping[str, Any]) -> bool:
    return any(p.matches(labels) for p in rep.aggregates.points(experiment))


def _readings(rep: Reproduction, experiment: str, labels: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(experiment id, panel label) of the default and, where it ran, the figure variant."""
    out = [(experiment, "afsim default")]
    vid = f"{experiment}@{FIGURE_VARIANT}"
    if _ran(rep, vid, labels):
        out.append((vid, f"variant {FIGURE_VARIANT}"))
    return out


def _save(fig: Any, out_dir: Path, fid: str) -> list[Path]:
    paths = []
    for ext in ("png", "svg"):
        path = out_dir / f"{fid}.{ext}"
        fig.savefig(path, dpi=150 if ext == "png" else None)
        paths.append(path)
    return paths


def _title(rep: Reproduction, title: str) -> str:
    if not rep.mode.is_paper_budget:
        title += f"\n{rep.mode.name.upper()} MODE: {rep.mode.reduction()}"
    return title


def extra_figures(rep: Reproduction, out_dir: Path) -> dict[str, list[Path]]:
    """The paper's cwnd (Figs. 2–4, 6, 8, 10, 11) and DP distribution (Figs. 5, 7, 9) figures:
    cwnd and ssthresh over the first replication's transfer (re-run), and the DP shares over
    every replication with the first replication's DPs over time; the variant MBR beside the
    default where it ran; and the DP shares against the NBR under every MBR reading that ran
    (``laatu_mbr.nbr_response_figure``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: dict[str, list[Path]] = {}
    for fid, title, exp, labels in CWND_FIGURES:
        if not _ran(rep, exp, labels):
            continue
        panels = _readings(rep, exp, labels)
        fig, axes = plt.subplots(len(panels), 1, figsize=(7.0, 3.2 * len(panels)), squeeze=False)
        for ax, (eid, label) in zip(axes[:, 0], panels, strict=True):
            r = core.rerun(rep, eid, labels)
            for name, t in r.traces.groupby("flow", sort=True):
                t0 = float(t["time_s"].min())
                line, = ax.step(t["time_s"] - t0, t["cwnd"] / 1000.0, where="post", linewidth=0.8,
                                label=f"{name} cwnd")
                ax.step(t["time_s"] - t0, t["ssthresh"] / 1000.0, where="post", linewidth=0.6,
                        linestyle=":", color=line.get_color(), label=f"{name} ssthresh")
            ax.set_title(f"{label} ({eid}, first replication)", fontsize=8)
            ax.set_xlabel("time since the transfer's SYN (s)")
            ax.set_ylabel("kB")
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=6, ncol=4)
        fig.suptitle(_title(rep, title), fontsize=10)
        fig.tight_layout()
        written[fid] = _save(fig, out_dir, fid)
        plt.close(fig)
    for fid, title, exp, labels in DP_FIGURES:
        if not _ran(rep, exp, labels):
            continue
        panels = _readings(rep, exp, labels)
        fig, (bars, scatter) = plt.subplots(1, 2, figsize=(10.0, 3.8))
        width = 0.8 / len(panels)
        for k, (eid, label) in enumerate(panels):
            shares, errs = [], []
            for dp in range(8):
                s = rep.aggregates.stat(eid, labels, f"dp{dp}_share")
                shares.append(100.0 * s.mean if s and s.n else 0.0)
                errs.append(100.0 * s.ci95 if s and s.n > 1 and math.isfinite(s.ci95) else 0.0)
            xs = [dp - 0.4 + width * (k + 0.5) for dp in range(8)]
            bars.bar(xs, shares, width=width, yerr=errs, capsize=2, label=label)
            r = core.rerun(rep, eid, labels)
            t = r.dp_trace
            if len(t):
                t0 = float(t["time_s"].min())
                scatter.plot(t["time_s"] - t0, t["dp"] + (k - (len(panels) - 1) / 2) * 0.15, ".",
                             markersize=2, label=label)
        bars.set_xlabel("drop precedence")
        bars.set_ylabel("share of the flow's packets (%), mean ± 95 % CI")
        bars.set_xticks(range(8))
        bars.legend(fontsize=7)
        bars.grid(True, axis="y", alpha=0.3)
        scatter.set_xlabel("time since the first packet (s), first replication")
        scatter.set_ylabel("drop precedence")
        scatter.set_yticks(range(8))
        scatter.grid(True, alpha=0.3)
        scatter.legend(fontsize=7, markerscale=4)
        fig.suptitle(_title(rep, title), fontsize=10)
        fig.tight_layout()
        written[fid] = _save(fig, out_dir, fid)
        plt.close(fig)
    nbr_dp = laatu_mbr.nbr_response_figure(
        rep, out_dir, T2, NBRS, _title(rep, "Table II: the DP of the TCP flow's packets against "
                                            "the NBR, under each reading of the MBR"))
    if nbr_dp:
        written["nbr_dp_response"] = nbr_dp
    return written
