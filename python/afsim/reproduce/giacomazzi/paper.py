"""Giacomazzi, Musumeci, Verticale, "Transport of TCP/IP Traffic over Assured Forwarding
IP-Differentiated Services": the experiments of Table 2 (and Figs. 7–8), Table 3 and the
Appendices (Tables 4–9), every checkable statement of the text, the null model, the variants
and the unstated parameters.

Read this first. The networks are ``scenarios/giacomazzi/scenario1.toml`` (Fig. 6a) and
``scenario2.toml`` (Fig. 6b). Their defaults come from the text, then from its references, then
from the simulator of its era (ns-2), each cited beside the value; what the paper leaves open is
a declared parameter with a range (``UNSTATED``), and the readings once adopted because they
matched the published numbers are named variants (``VARIANTS``), never the default. This module
chooses the grid (the paper's) and says how a run becomes the paper's numbers:

- throughput: "the ratio of the total number of bits transmitted by a source during a simulation
  to total simulation time" — each source's IP bytes sent (retransmissions and packets lost later
  included) × 8 ÷ the run's simulated time, averaged over the sources of the row;
- RoS: "the ratio of the actual rate of conformant packets exiting the meter to the provisioned
  token bucket rate r" — afsim's ``respect_of_service``, averaged over the sources, in percent;
- P_inb: input-buffer drops ÷ arrivals over the row's enhanced token buckets;
- P_nc,i: drops of the PHB's downgraded packets at router i ÷ every packet its buckets forwarded
  (the paper does not define the denominator; its own Table 3 fixes it: in every row P_nc,ir /
  P_be,ir equals the PHB's non-conformant share, docs/assumptions.md, "P_nc denominator");
- P_c,i, P_be,i: drops ÷ arrivals of in-profile / best-effort packets at router i.

Each probability comes with its counts (``m.events``, ``m.trials``) so that the scoring knows
what the runs can resolve. The fixed-α rows are runs whose CSA has min_α = max_α = α (it then
never moves α), and "CSA not applied in the IR" is an internal CSA with min_α = max_α = 0.4: a
scenario file cannot leave a ``[[csa]]`` out, and such a CSA changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce import core
from afsim.reproduce.core import Experiment, Mode, Point, Variant, prob
from afsim.reproduce.robustness import Unstated
from afsim.reproduce.twin import NotInNs2, Twin

if TYPE_CHECKING:
    import pandas as pd

    from afsim.results import Results


PAPER_ID = "giacomazzi"
TITLE = ("Giacomazzi, Musumeci, Verticale — Transport of TCP/IP Traffic over Assured "
         "Forwarding IP-Differentiated Services")
CITATION = ("P. Giacomazzi, L. Musumeci, G. Verticale, \"Transport of TCP/IP Traffic over "
            "Assured Forwarding IP-Differentiated Services\" (Politecnico di Milano): the "
            "magazine version (papers/000, quoted here) and the conference version (papers/001, "
            "used to repair OCR damage); Tables 2–9, Figs. 7–8.")
DATA = Path(__file__).with_name("values.json")

#: "Forty million packets were generated for each simulation": data packets the sources
#: generated (``max_data_packets``; ACKs and CSA control packets are not counted).
PAPER_PACKETS = 40_000_000
#: Full mode: the paper's budget; three replications give a confidence interval (the paper
#: reports one run per point); the variants two; the robustness design eight points of one run.
FULL = Mode("full", PAPER_PACKETS, replications=3, paper_budget=PAPER_PACKETS,
            variant_replications=2, robust_points=8, robust_replications=1)
#: Quick mode: a twentieth of the paper's budget, fewer replications and design points. Short
#: runs are dominated by the start-up (the sources' slow starts against a full α), which the
#: paper's 40 million packets dilute; quick results are indicative only.
QUICK = Mode("quick", 2_000_000, replications=2, paper_budget=PAPER_PACKETS,
             variant_replications=1, robust_points=3, robust_replications=1)

N_AF = (10, 15, 20, 25, 30)
#: Table 2's α modes: fixed values, and "CSA" (α between min_α 0.04 and max_α 0.4).
ALPHA_MODES = ("0.4", "0.2", "0", "CSA")
#: Table 1.
R_PHB1_KBPS, R_PHB2_KBPS, R_PHB3_KBPS = 1600.0, 1000.0, 400.0
MAX_ALPHA = 0.4
#: "34 · 576 / (576 + 60) = 30.792 Mb/s", the E3's capacity at the IP level; the E1 access.
BACKBONE_KBPS = 30_792.0
ACCESS_KBPS = 2_000.0
#: Table 1's CSA and bucket settings, written out in every run's overrides so that identical
#: runs of different experiments are recognised as one.
DEFAULTS = {"t1": "30ms", "t2": "90ms", "b2": "1", "buffer": "100", "b1": "10"}
#: Appendix A's timer settings (T1/T2 in ms), B's b2, C's B; the b1 range of the text.
TIMERS = ("15/45", "15/60", "30/90", "30/120")
B2_VALUES = (1, 2, 3, 4, 5)
BUFFERS = (80, 100, 120, 130, 150)
B1_VALUES = (10, 20, 30, 40, 50)
#: Table 3's cases: (N_AF, N_BE), and its split of N_AF (AF_PHB_1 gets the odd source).
CASES = {"a": (10, 10), "b": (25, 10), "c": (10, 40), "d": (25, 40)}

#: Thresholds the text's words need, each from the paper itself:
#: "Respect of Service is always greater than 98 percent, that is, satisfactory".
SATISFACTORY_ROS = 98.0
#: The spreads Appendices A–C call "not significant" (Tables 4 and 9): throughput 1.9 %, RoS
#: 1.8 points; the same sizes as the data file's tolerances.
INSIGNIFICANT_THR = 0.019
INSIGNIFICANT_ROS = 1.8
#: "high" RoS without a number: satisfactory within the insignificant spread (the paper calls
#: case a's 97.5 % high); "low" / "poor" is below that.
HIGH_ROS = SATISFACTORY_ROS - INSIGNIFICANT_ROS
#: Table 3 case a: probabilities a factor 1.6 apart are a "negligible" change (the data file's
#: loss tolerance); "significant" or "heavy" growth is more than that.
NEGLIGIBLE_FACTOR = 1.6


# ---------------------------------------------------------------------------------------------
# Where the scenario files are


def find_scenarios_dir(start: Path | None = None) -> Path:
    """The folder holding scenario1.toml and scenario2.toml: ``$AFSIM_SCENARIOS/giacomazzi``
    if set; else ``scenarios/giacomazzi`` in the current directory (or ``start``) or one above
    it, so that a checkout's files, edited or not, are the ones run; else the copies shipped
    in the package (``afsim scenarios`` lists them as ``giacomazzi/...``)."""
    return core.find_scenarios_dir("giacomazzi", ("scenario1.toml", "scenario2.toml",
                                                  "token-bucket.toml"), start)


# ---------------------------------------------------------------------------------------------
# From a run to the paper's numbers


def _mean_sent_kbps(flows: pd.DataFrame, end_s: float) -> float:
    """Throughput: bits sent by each source over the whole run, mean over the sources."""
    if not len(flows) or end_s <= 0:
        return math.nan
    return float((flows["bytes_sent"] * 8.0 / end_s / 1000.0).mean())


def _drops_and_arrivals(colours: pd.DataFrame, queue: str, level: int) -> tuple[int, int]:
    """Drops (early and overflow) and arrivals of one drop-precedence level at one queue."""
    row = colours[(colours["queue"] == queue) & (colours["level"] == level)]
    if not len(row):
        return 0, 0
    r = row.iloc[0]
    return int(r["drops_overflow"]) + int(r["drops_early"]), int(r["arrivals"])



def _level_loss(name: str, colours: pd.DataFrame, queue: str, level: int) -> dict[str, float]:
    """Drops ÷ arrivals of one level at one queue (P_c,i, P_be,i)."""
    return prob(name, *_drops_and_arrivals(colours, queue, level))


def _phb_loss(name: str, colours: pd.DataFrame, queue: str, level: int, conditioners: pd.DataFrame,
              pattern: str) -> dict[str, float]:
    """P_nc,i: drops of one level at one queue ÷ every packet the PHB's buckets forwarded (green
    and yellow): the share of the PHB's packets lost as non-conformant at that router."""
    drops, _ = _drops_and_arrivals(colours, queue, level)
    c = conditioners[conditioners["name"].str.fullmatch(pattern)]
    return prob(name, drops, int(c["green_packets"].sum()) + int(c["yellow_packets"].sum()))


def _inb(name: str, conditioners: pd.DataFrame, pattern: str) -> dict[str, float]:
    """P_inb: input-buffer drops ÷ arrivals over the conditioners whose name matches."""
    c = conditioners[conditioners["name"].str.fullmatch(pattern)]
    return prob(name, int(c["dropped_buffer"].sum()), int(c["matched"].sum()))


def _csa(prefix: str, csas: pd.DataFrame, name: str) -> dict[str, float]:
    """A CSA's α time average and share at the floor (over its controllers), and the share of
    OUT arrivals that found its buffer congested."""
    rows = csas[(csas["name"] == name) | csas["name"].str.startswith(name + "/")]
    if not len(rows):
        return {}
    out = int(rows["out_arrivals"].sum())
    return {f"{prefix}alpha_mean": float(rows["alpha_mean"].mean()),
            f"{prefix}alpha_floor_share": float(rows["alpha_floor_share"].mean()),
            f"{prefix}congested_share": int(rows["congested_out_arrivals"].sum()) / out if out else 0.0}


def _group_metrics(prefix: str, flows: pd.DataFrame, groups: pd.DataFrame, group: str,
                   end_s: float) -> dict[str, float]:
    ros = flows["respect_of_service"].astype(float)
    g = groups[groups["name"] == group]
    return {
        f"{prefix}throughput_kbps": _mean_sent_kbps(flows, end_s),
        f"{prefix}delivered_kbps": float(flows["throughput_kbps"].mean()),
        f"{prefix}goodput_kbps": float(flows["goodput_kbps"].astype(float).mean()),
        f"{prefix}ros_pct": 100.0 * float(ros.mean()) if ros.notna().any() else math.nan,
        f"{prefix}timeouts_per_flow": float(flows["timeouts"].astype(float).mean()),
        f"{prefix}jain": float(g["jain"].iloc[0]) if len(g) else math.nan,
        f"{prefix}flows": float(len(flows)),
    }


def scenario1_metrics(results: Results) -> dict[str, float]:
    """Table 2's columns (and a few more that explain them) from one scenario-1 run."""
    end = results.end_time_s
    f, col, cond = results.flows, results.colours, results.conditioners
    m = _group_metrics("", f[f["group"] == "af"], results.groups, "af", end)
    backbone = "border1->border2"
    m |= _inb("p_inb", cond, r"etb\d+")
    # rfc2597 colour table: AF11 (in profile) level 0, downgraded best effort level 2
    m |= _level_loss("p_c_1", col, backbone, 0)
    m |= _phb_loss("p_nc_1", col, backbone, 2, cond, r"etb\d+")
    m |= _level_loss("p_nc_1_of_level", col, backbone, 2)
    m |= _csa("", results.csas, "border1")
    q = results.queues[results.queues["name"] == backbone]
    m["backbone_utilisation"] = float(q["utilization"].iloc[0]) if len(q) else math.nan
    m["simulated_s"] = end
    return m


def scenario2_metrics(results: Results) -> dict[str, float]:
    """Table 3's columns from one scenario-2 run (levels as scenario2.toml's [diffserv]:
    AF11/AF31 0, AF12 1, AF32 2, best effort 3)."""
    end = results.end_time_s
    f, col, cond = results.flows, results.colours, results.conditioners
    br, ir = "border1->core", "core->border2"
    m: dict[str, float] = {}
    for prefix, group, etb, level in (("af1.", "af1_", r"etb1_\d+", 1), ("af3.", "af3_", r"etb3_\d+", 2)):
        m |= _group_metrics(prefix, f[f["group"] == group], results.groups, group, end)
        m |= _inb(f"{prefix}p_inb", cond, etb)
        m |= _phb_loss(f"{prefix}p_nc_br", col, br, level, cond, etb)
        m |= _phb_loss(f"{prefix}p_nc_ir", col, ir, level, cond, etb)
        m |= _level_loss(f"{prefix}p_nc_br_of_level", col, br, level)
        m |= _level_loss(f"{prefix}p_nc_ir_of_level", col, ir, level)
        # one IN level for both PHBs: the conformant losses are counted together
        m |= _level_loss(f"{prefix}p_c_br", col, br, 0)
        m |= _level_loss(f"{prefix}p_c_ir", col, ir, 0)
    be = f[f["group"] == "be_"]
    m["be.throughput_kbps"] = _mean_sent_kbps(be, end)
    m["be.delivered_kbps"] = float(be["throughput_kbps"].mean()) if len(be) else math.nan
    m |= _level_loss("be.p_ir", col, ir, 3)
    m |= _level_loss("be.p_be_br", col, "border_be->core", 3)
    m |= _csa("border1.", results.csas, "border1")
    m |= _csa("core.", results.csas, "core")
    q = results.queues[results.queues["name"] == ir]
    m["ir_utilisation"] = float(q["utilization"].iloc[0]) if len(q) else math.nan
    m["simulated_s"] = end
    return m


# ---------------------------------------------------------------------------------------------
# The null model


NULL_DESCRIPTION = (
    "No simulation: every AF source sends min((1 + α)·r, C/N) where C = 30.792 Mb/s is the E3's "
    "IP capacity and α its configured α (0.4 under the CSA, whose control the model ignores); "
    "RoS is 100 %; nothing is lost anywhere; flows are perfectly fair (Jain 1). In scenario 2 "
    "the AF sources send min((1 + α)·r, 2 Mb/s), scaled down together if they exceed C, and the "
    "best-effort sources share what is left equally, at most 2 Mb/s each. In the frame (a plain "
    "token bucket, no row of the paper) every source sends min(C/N, 2 Mb/s), green up to r. Its "
    "scores show which published values and claims a reproduction gets right without modelling "
    "anything.")


def null_model(experiment: Experiment, point: Point) -> dict[str, float]:
    """The null model's numbers at one point (see ``NULL_DESCRIPTION``)."""
    ov = point.overrides
    alpha = float(ov.get("alpha", MAX_ALPHA))
    zeros = ("p_inb", "p_c_1", "p_nc_1", "p_nc_1_of_level")
    if experiment.id == "frame":
        # every source gets its share of the backbone, at most its line; all green up to r
        n = int(ov["n_af"])
        thr = min(BACKBONE_KBPS / n, ACCESS_KBPS)
        return {"throughput_kbps": thr, "delivered_kbps": thr,
                "ros_pct": 100.0 * min(1.0, thr / R_PHB2_KBPS), "p_c_1": 0.0, "p_be_1": 0.0}
    if experiment.scenario.name == "scenario1.toml":
        n = int(ov["n_af"])
        m = {"throughput_kbps": min((1 + alpha) * R_PHB2_KBPS, BACKBONE_KBPS / n, ACCESS_KBPS),
             "ros_pct": 100.0, "jain": 1.0, "alpha_mean": alpha, "congested_share": 0.0,
             "backbone_utilisation": min(1.0, n * (1 + alpha) * R_PHB2_KBPS / BACKBONE_KBPS)}
        return m | dict.fromkeys(zeros, 0.0)
    n1, n3, nbe = int(ov["n_af1"]), int(ov["n_af3"]), int(ov["n_be"])
    t1 = min((1 + alpha) * R_PHB1_KBPS, ACCESS_KBPS)
    t3 = min((1 + alpha) * R_PHB3_KBPS, ACCESS_KBPS)
    af = n1 * t1 + n3 * t3
    scale = min(1.0, BACKBONE_KBPS / af) if af else 1.0
    left = max(0.0, BACKBONE_KBPS - af * scale)
    m = {"af1.throughput_kbps": t1 * scale, "af3.throughput_kbps": t3 * scale,
         "be.throughput_kbps": min(ACCESS_KBPS, left / nbe) if nbe else math.nan,
         "af1.ros_pct": 100.0, "af3.ros_pct": 100.0, "af1.jain": 1.0, "af3.jain": 1.0,
         "core.congested_share": 0.0, "border1.congested_share": 0.0,
         "core.alpha_mean": alpha, "border1.alpha_mean": alpha}
    for p in ("af1.", "af3."):
        for k in ("p_inb", "p_nc_br", "p_nc_ir", "p_c_br", "p_c_ir", "p_nc_br_of_level",
                  "p_nc_ir_of_level"):
            m[p + k] = 0.0
    m["be.p_ir"] = 0.0
    return m


# ---------------------------------------------------------------------------------------------
# The grid


def _s1(n_af: int, mode: str = "CSA", **changes: str) -> dict[str, str]:
    """Scenario-1 overrides, every grid parameter written out."""
    if mode == "CSA":
        alpha, min_alpha = "0.4", "0.04"
    else:
        alpha = min_alpha = f"{float(mode):.2f}"
    return {"n_af": str(n_af), "alpha": alpha, "min_alpha": min_alpha, **DEFAULTS, **changes}


def experiments(scenarios_dir: Path | None = None) -> tuple[Experiment, ...]:
    d = scenarios_dir or find_scenarios_dir()
    s1, s2 = d / "scenario1.toml", d / "scenario2.toml"
    s1_notes = (
        "throughput is the paper's: the bits each source sent over the whole run "
        "(retransmissions and packets lost later included) ÷ the simulated time, mean over the "
        "N_AF sources",
        "the budget is the paper's forty million packets, counted as the data packets the "
        "sources generated (max_data_packets; ACKs and control packets not counted)",
        "fixed α: the CSA runs with min_α = max_α = α, so α never moves",
    )
    table2 = Experiment(
        "table2", "Table 2 and Figs. 7–8: scenario 1, α fixed at 0.4, 0.2, 0 or set by the CSA",
        s1,
        tuple(Point({"alpha": mode, "n_af": n}, _s1(n, mode)) for mode in ALPHA_MODES for n in N_AF),
        scenario1_metrics,
        s1_notes + ("P_nc,1: drops of downgraded packets at border1's RIO buffer towards "
                    "border2 ÷ all packets the buckets forwarded (docs/assumptions.md, \"P_nc "
                    "denominator\"); runs.csv also gives p_nc_1_of_level (÷ downgraded arrivals). "
                    "P_c,1: drops ÷ arrivals of AF11 packets there",),
        robust=True,
    )
    table3_points = []
    for case, (n_af, n_be) in CASES.items():
        for internal in (False, True):
            table3_points.append(Point(
                {"case": case, "internal_csa": internal},
                {"n_af1": str(math.ceil(n_af / 2)), "n_af3": str(n_af // 2), "n_be": str(n_be),
                 "alpha": "0.4", "min_alpha": "0.04",
                 "internal_min_alpha": "0.04" if internal else "0.4",
                 **{k: v for k, v in DEFAULTS.items() if k != "b1"}}))
    table3 = Experiment(
        "table3", "Table 3: scenario 2, cases a–d, CSA in the internal router (IR) or not",
        s2, tuple(table3_points), scenario2_metrics,
        ("throughput as in scenario 1 (bits sent ÷ simulated time), mean over the PHB's sources",
         "P_nc,br and P_nc,ir: drops of the PHB's downgraded packets at that router ÷ all "
         "packets its buckets forwarded, as for P_nc,1; runs.csv also gives *_of_level",
         "P_c,br and P_c,ir: afsim counts in-profile losses of both AF PHBs at one IN level, so "
         "the AF_PHB_1 and AF_PHB_3 rows carry the same aggregate value",
         "best-effort sources are greedy TCP sources (be_variant, an unstated parameter); their "
         "'packet loss in the internal router' is the best-effort loss ratio at core → border2",
         "CSA not applied in the IR: the internal CSA runs with min_α = max_α = 0.4"),
        robust=True,
    )
    appendix_a = Experiment(
        "appendix_a", "Appendix A, Tables 4–5: CSA timers T1/T2, scenario 1", s1,
        tuple(Point({"timers": t, "n_af": n},
                    _s1(n, t1=f"{t.split('/')[0]}ms", t2=f"{t.split('/')[1]}ms"))
              for t in TIMERS for n in N_AF),
        scenario1_metrics, s1_notes[:2],
    )
    appendix_b = Experiment(
        "appendix_b", "Appendix B, Tables 6–7: out-of-profile bucket depth b2, scenario 1", s1,
        tuple(Point({"b2": b2, "n_af": n}, _s1(n, b2=str(b2))) for b2 in B2_VALUES for n in N_AF),
        scenario1_metrics, s1_notes[:2],
    )
    appendix_c = Experiment(
        "appendix_c", "Appendix C, Tables 8–9: input buffer B, scenario 1", s1,
        tuple(Point({"buffer": b, "n_af": n}, _s1(n, buffer=str(b))) for b in BUFFERS for n in N_AF),
        scenario1_metrics, s1_notes[:2],
    )
    b1 = Experiment(
        "b1", "In-profile bucket depth b1 from 10 to 50 tokens, scenario 1 with the CSA (the "
        "text's \"It has been verified that performance is not influenced by the value of b_1\"; "
        "no table in the paper)", s1,
        tuple(Point({"b1": b, "n_af": n}, _s1(n, b1=str(b))) for b in B1_VALUES for n in N_AF),
        scenario1_metrics, s1_notes[:2],
    )
    frame = Experiment(
        "frame", "The frame ns-2 can run: scenario 1 with a plain token bucket marker (r, b1), a "
        "plain 30.792 Mb/s backbone and ns-2's Reno, 300 s (no row of the paper)",
        d / "token-bucket.toml",
        tuple(Point({"n_af": n}, {"n_af": str(n), **FRAME_BUDGET}) for n in N_AF),
        frame_metrics,
        ("not a row of the paper: the network its own simulator's era could run, beside ns-2's "
         "twin (token-bucket.toml says what differs from scenario 1 and why)",
         "throughput as in scenario 1; RoS: green packets at border1's RIO buffer × 576 B ÷ "
         "(r × the run × N_AF); P_c, P_be: drops ÷ arrivals of green and best-effort packets "
         "there"))
    return (table2, table3, appendix_a, appendix_b, appendix_c, b1, frame)


#: The frame runs 300 simulated seconds (ns-2 stops at a time, not a packet count): the budget
#: parameter set so high that the duration stops the run first.
FRAME_BUDGET = {"duration_s": "300", "max_data_packets": "1000000000"}
#: The frame's RIO buffer towards border2, and its packets' size.
FRAME_QUEUE = "border1->border2"
PACKET_BYTES = 576


def frame_metrics(results: Results) -> dict[str, float]:
    """The frame (token-bucket.toml) in afsim or in ns-2's twin: the sources' mean throughput
    (bits sent ÷ the run, the paper's), the delivered rate, RoS from the green packets reaching
    border1's RIO buffer, and the loss of green and best-effort packets there."""
    end = results.end_time_s
    f = results.flows
    n = len(f)
    col = results.colours
    q = col[col["queue"] == FRAME_QUEUE]
    rows = {int(r["level"]): r for _, r in q.iterrows()}

    def counts(level: int) -> tuple[int, int]:
        r = rows.get(level)
        if r is None:
            return 0, 0
        return int(r["drops_overflow"]) + int(r["drops_early"]), int(r["arrivals"])

    green_drops, green = counts(0)
    be_drops, be = counts(2)
    m = {"throughput_kbps": float((f["bytes_sent"] * 8.0 / end / 1000.0).mean()),
         "delivered_kbps": float(f["throughput_kbps"].mean()),
         "ros_pct": 100.0 * green * PACKET_BYTES * 8.0 / (end * R_PHB2_KBPS * 1000.0 * n)}
    m |= prob("p_c_1", green_drops, green)
    m |= prob("p_be_1", be_drops, be)
    return m


# ---------------------------------------------------------------------------------------------
# The paper's own simulator is not named; ns-2 (the reference of its era) runs the frame


NS2_DESCRIPTION = (
    "The paper does not name its simulator. ns-2.35's Queue/dsRED runs the frame: scenario 1 "
    "(N_AF sources on E1 lines, border1's RIO buffer, Table 1's RIO curves and w_q, 576-byte "
    "packets, 64 KiB windows, 500 ms tick) with a plain TokenBucket policy per input line (r = "
    "1000 kb/s, b1 × 576 B, the excess downgraded to best effort), a plain 30.792 Mb/s backbone "
    "and ns-2's Reno (afsim/ns2/giacomazzi.tcl; afsim runs token-bucket.toml with its ns2 "
    "preset). No row of the paper maps: every row of Tables 2–9 meters with the enhanced token "
    "bucket (Fig. 5: a conformant and a non-conformant bucket in front of an input buffer that "
    "holds what neither admits — a shaper ns-2's dsPolicy has no counterpart of), most move α "
    "with the CSA, and the E3 backbone carries ATM cells (AAL5 cell tax), which ns-2 does not "
    "model. The frame has no published values: it says whether afsim and ns-2 agree on the "
    "network the paper's mechanisms sit in.")
NOT_IN_NS2 = ("the enhanced token bucket (Fig. 5: dual bucket with an input buffer), the CSA and "
              "the E3 backbone's ATM cells are not in ns-2")


def ns2_args(e: Experiment, overrides: Mapping[str, str], seed: int) -> list[str] | NotInNs2:
    """The frame's ns-2 arguments for one afsim run; every other experiment is absent."""
    from afsim import ns2

    p = ns2.scenario_params(e.scenario, overrides)
    return [f"seed={seed}", f"duration={float(p['duration_s']):g}", f"n_af={int(p['n_af'])}",
            f"cbs={int(p['depth'].removesuffix('B'))}", f"access_delay={p['access_delay']}",
            f"backbone_delay={p['backbone_delay']}", f"w_q={float(p['w_q']):g}",
            f"limit={int(p['rio_limit'])}"]


def ns2_results(raw: dict[str, Any]) -> Any:
    """A giacomazzi.tcl run in afsim's table shapes: flows (bits sent, delivered), border1's RIO
    buffer per colour (code point 10: green, level 0; 0: best effort, level 2)."""
    import pandas as pd

    from afsim import ns2

    end = float(raw["duration_s"])
    n = int(raw["n_af"])
    flows = ns2.flows_table([f"af{i}" for i in range(n)], end, delivered_bytes=raw["delivered"],
                            extra={"bytes_sent": raw["sent"]})
    colours = pd.DataFrame([
        {"queue": FRAME_QUEUE, "level": level, "arrivals": c["arrivals"],
         "drops_overflow": c["other_drops"], "drops_early": c["early_drops"]}
        for level, c in ((0, raw["border1"]["10"]), (2, raw["border1"]["0"]))])
    return ns2.Ns2Results(flows=flows, colours=colours, end_time_s=end, raw=raw)


TWIN = Twin("giacomazzi.tcl", ns2_args, ns2_results, NS2_DESCRIPTION,
            absent=dict.fromkeys(("table2", "table3", "appendix_a", "appendix_b", "appendix_c", "b1"), NOT_IN_NS2))


VARIANTS = (
    Variant("periodic", "periodic token grid", {"token_clock": "periodic"},
            "afsim's first reading (issue 5): whole tokens on a grid shared from time 0. It was "
            "adopted because continuous credit missed the paper's congested rows, which is a "
            "reading chosen to match; the text says only that the buckets are \"filled at\" a "
            "rate, and ns-2's dsRED token bucket (dsPolicy.cc TBPolicy::applyMeter) credits "
            "continuously", ("table2", "table3")),
    Variant("per_period", "CSA timers restarted per congestion period",
            {"csa_rules": "per_period"},
            "afsim's first reading of the CSA (issue 5): T1, T2 and t0 restarted at every "
            "congestion period and at the floor, a period ended by one uncongested OUT arrival. "
            "The text restarts the timers only \"after α has been decreased\" and defines T2 as "
            "\"α has not been decreased for T2 consecutive seconds\"", ("table2", "table3")),
    Variant("per_bucket", "one CSA controller per bucket, counting its own OUT packets",
            {"csa_scope": "per_bucket"},
            "each bucket's α is driven by its own OUT packets only, so α differs between flows. "
            "The text's counter counts \"the 8-th OUT packet\" arriving at the buffer, whoever "
            "sent it, with one set of CSA parameters for every PHB (Table 1)", ("table2", "table3")),
    Variant("own_phase", "whole tokens, each bucket's own phase",
            {"token_clock": "periodic_own_phase"},
            "Figs. 3 and 5 label the buckets' input \"Tokens arriving at rate r\": whole tokens, "
            "as the periodic grid has them, but with each generator started at its bucket's first "
            "packet instead of with the simulation. No sentence says when a generator starts; "
            "this reading separates whole tokens from buckets in step (issue 21)",
            ("table2", "table3")),
    Variant("start_together", "every source starts at time 0", {"start_step": "0s"},
            "start times are not given; every source starting at once is the simplest reading, "
            "and with continuous credit a backlogged bucket keeps the phase its source started "
            "with, so the start times set how the paced streams interleave (issue 21)",
            ("table2", "table3")),
)

UNSTATED = (
    Unstated("access_delay", "propagation delay of each E1 access line", "1ms",
             "the paper gives no delays; 1 ms is a local line of ~200 km. Range: a line in the "
             "same building (0.1 ms) to a long regional line (5 ms)",
             low=0.1, high=5.0, unit="ms", log=True),
    Unstated("backbone_delay", "propagation delay of each E3 ATM connection between routers",
             "10ms", "the paper gives no delays; 10 ms is a national backbone of ~2000 km. Range: "
             "a metropolitan (1 ms) to a continental (25 ms) connection",
             low=1.0, high=25.0, unit="ms"),
    Unstated("w_q", "RIO's EWMA weight w_q", "0.002",
             "not given; Floyd & Jacobson [13] use 0.002, as does ns-2 (red.cc q_weight_). Range: "
             "0.001, the smallest Floyd & Jacobson recommend, to 0.01", low=0.001, high=0.01, log=True),
    Unstated("rio_limit", "RIO buffer size (packets)", "240",
             "not given; it must hold max_th_in = 120. Default 2 × max_th_in; range 150 to 480 "
             "(4 × max_th_in)", low=150, high=480, integer=True),
    Unstated("be_variant", "best-effort sources' TCP (scenario 2)", "reno",
             "\"All TCP sources are supposed always to have data to transmit\": greedy TCP, "
             "whose congestion control the paper gives only for its TCP sources in general "
             "(RFC 2581: Reno). Range: Reno or NewReno", choices=("reno", "newreno"),
             scenarios=("scenario2.toml",)),
)


def mode(quick: bool, budget: int | None = None, replications: int | None = None) -> Mode:
    """Full (the paper's 40 million data packets) or quick mode, optionally with another budget
    or number of replications; a budget below the paper's is always reported as reduced."""
    import dataclasses

    base = QUICK if quick else FULL
    return dataclasses.replace(base, budget=budget or base.budget,
                               replications=replications or base.replications)
