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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce import core
from afsim.reproduce.claims import Checks, ClaimResult, Kind, Statement, ge, gt, le, lt
from afsim.reproduce.claims import claim as _claim
from afsim.reproduce.core import Experiment, Figure, Mode, Paper, Point, Variant, View
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
DATA = Path(__file__).parent / "data" / "giacomazzi.json"

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


def _prob(name: str, events: int, trials: int) -> dict[str, float]:
    """A probability with its counts; 0 where nothing was counted among (the paper prints 0)."""
    return {name: events / trials if trials else 0.0, f"{name}.events": float(events),
            f"{name}.trials": float(trials)}


def _level_loss(name: str, colours: pd.DataFrame, queue: str, level: int) -> dict[str, float]:
    """Drops ÷ arrivals of one level at one queue (P_c,i, P_be,i)."""
    return _prob(name, *_drops_and_arrivals(colours, queue, level))


def _phb_loss(name: str, colours: pd.DataFrame, queue: str, level: int, conditioners: pd.DataFrame,
              pattern: str) -> dict[str, float]:
    """P_nc,i: drops of one level at one queue ÷ every packet the PHB's buckets forwarded (green
    and yellow): the share of the PHB's packets lost as non-conformant at that router."""
    drops, _ = _drops_and_arrivals(colours, queue, level)
    c = conditioners[conditioners["name"].str.fullmatch(pattern)]
    return _prob(name, drops, int(c["green_packets"].sum()) + int(c["yellow_packets"].sum()))


def _inb(name: str, conditioners: pd.DataFrame, pattern: str) -> dict[str, float]:
    """P_inb: input-buffer drops ÷ arrivals over the conditioners whose name matches."""
    c = conditioners[conditioners["name"].str.fullmatch(pattern)]
    return _prob(name, int(c["dropped_buffer"].sum()), int(c["matched"].sum()))


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
    m |= _prob("p_c_1", green_drops, green)
    m |= _prob("p_be_1", be_drops, be)
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
            absent={e: NOT_IN_NS2 for e in ("table2", "table3", "appendix_a", "appendix_b",
                                             "appendix_c", "b1")})


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


# ---------------------------------------------------------------------------------------------
# Statements

T2, T3 = "table2", "table3"


def _p2(mode: str, n: int) -> dict[str, str | int]:
    return {"alpha": mode, "n_af": n}


def _p3(case: str, internal: bool) -> dict[str, str | bool]:
    return {"case": case, "internal_csa": internal}


def _thr(c: Checks, mode: str, n: int) -> float | None:
    return c.mean(f"thr {mode} N={n}", T2, _p2(mode, n), "throughput_kbps")


def _ros(c: Checks, mode: str, n: int) -> float | None:
    return c.mean(f"RoS {mode} N={n}", T2, _p2(mode, n), "ros_pct")


def _t3(c: Checks, case: str, internal: bool, metric: str) -> float | None:
    tag = "with" if internal else "without"
    return c.mean(f"{case} {tag} IR CSA: {metric}", T3, _p3(case, internal), metric)


def _unsaturated(n: int, alpha: float) -> bool:
    return n * R_PHB2_KBPS * (1 + alpha) < BACKBONE_KBPS


@_claim
def _csa_rate_everywhere(c: Checks) -> None:
    """CSA: every source above r at every N_AF (scenario 1) and every PHB above its rate in
    every case with the CSA in the internal router (scenario 2)."""
    for n in N_AF:
        c.that(gt(_thr(c, "CSA", n), R_PHB2_KBPS))
    for case in CASES:
        c.that(ge(_t3(c, case, True, "af1.throughput_kbps"), R_PHB1_KBPS))
        c.that(ge(_t3(c, case, True, "af3.throughput_kbps"), R_PHB3_KBPS))


@_claim
def _fixed_alpha_poor_at_load(c: Checks) -> None:
    for a in ("0.4", "0.2"):
        c.that(lt(_thr(c, a, 30), R_PHB2_KBPS))
        c.that(lt(_ros(c, a, 30), HIGH_ROS))


@_claim
def _csa_rate_scenario1(c: Checks) -> None:
    for n in N_AF:
        c.that(gt(_thr(c, "CSA", n), R_PHB2_KBPS))


@_claim
def _csa_ros_scenario1(c: Checks) -> None:
    for n in N_AF:
        c.that(gt(_ros(c, "CSA", n), SATISFACTORY_ROS))


@_claim
def _csa_degrades_less(c: Checks) -> None:
    # the degradation is of RoS where the fixed α still wins throughput (N_AF = 25), and of
    # both where it collapses (N_AF = 30)
    for n in (25, 30):
        c.that(gt(_ros(c, "CSA", n), _ros(c, "0.4", n)))
    c.that(gt(_thr(c, "CSA", 30), _thr(c, "0.4", 30)))


@_claim
def _csa_fairer(c: Checks) -> None:
    for n in (25, 30):
        j_csa = c.mean(f"Jain CSA N={n}", T2, _p2("CSA", n), "jain")
        j_fix = c.mean(f"Jain 0.4 N={n}", T2, _p2("0.4", n), "jain")
        c.that(ge(j_csa, j_fix))


@_claim
def _out_loss_hurts_despite_room_for_in(c: Checks) -> None:
    # at N_AF = 30 the in-profile load, 30 × 1000 kb/s, fits the 30.792 Mb/s link
    for a in ("0.4", "0.2"):
        c.that(lt(_ros(c, a, 30), HIGH_ROS))


@_claim
def _downgraded_share_matters(c: Checks) -> None:
    r0 = _ros(c, "0", 30)
    for a in ("0.4", "0.2"):
        r = _ros(c, a, 30)
        c.that(None if r is None or r0 is None else r < r0 - INSIGNIFICANT_ROS)


@_claim
def _out_lost_more_than_in(c: Checks) -> None:
    for a in ("0.4", "0.2"):
        out = c.mean(f"P_nc,1 of level {a} N=30", T2, _p2(a, 30), "p_nc_1_of_level")
        in_ = c.mean(f"P_c,1 {a} N=30", T2, _p2(a, 30), "p_c_1")
        c.that(gt(out, in_))
        c.that(c.seen(f"P_nc,1 of level {a} N=30", T2, _p2(a, 30), "p_nc_1_of_level"))


@_claim
def _alpha0_rate(c: Checks) -> None:
    thr = [_thr(c, "0", n) for n in N_AF]
    for t in thr:
        c.that(None if t is None else abs(t - R_PHB2_KBPS) <= INSIGNIFICANT_THR * R_PHB2_KBPS)
    if all(t is not None for t in thr):
        ts = [t for t in thr if t is not None]
        c.that((max(ts) - min(ts)) <= INSIGNIFICANT_THR * min(ts))


@_claim
def _alpha0_ros(c: Checks) -> None:
    for n in N_AF:
        c.that(gt(_ros(c, "0", n), 99.0))


@_claim
def _alpha0_input_buffer_limits(c: Checks) -> None:
    for n in N_AF:
        c.that(c.seen(f"P_inb 0 N={n}", T2, _p2("0", n), "p_inb"))


def _small_n_above_r(a: str) -> Callable[[View], ClaimResult]:
    @_claim
    def f(c: Checks) -> None:
        for n in (10, 15):
            c.that(gt(_thr(c, a, n), R_PHB2_KBPS))
    return f


def _small_n_input_buffer(a: str) -> Callable[[View], ClaimResult]:
    @_claim
    def f(c: Checks) -> None:
        for n in (10, 15):
            c.that(c.seen(f"P_inb {a} N={n}", T2, _p2(a, n), "p_inb"))
    return f


@_claim
def _alpha02_below_r_at_30(c: Checks) -> None:
    c.that(lt(_thr(c, "0.2", 30), R_PHB2_KBPS))


@_claim
def _alpha02_ros_70(c: Checks) -> None:
    r = _ros(c, "0.2", 30)
    c.that(None if r is None else 65.0 <= r <= 75.0)


def _heavy_rio_loss(a: str) -> Callable[[View], ClaimResult]:
    @_claim
    def f(c: Checks) -> None:
        p20 = c.mean(f"P_nc,1 {a} N=20", T2, _p2(a, 20), "p_nc_1")
        p30 = c.mean(f"P_nc,1 {a} N=30", T2, _p2(a, 30), "p_nc_1")
        c.that(c.seen(f"P_nc,1 {a} N=30", T2, _p2(a, 30), "p_nc_1"))
        c.that(None if p20 is None or p30 is None else p30 > NEGLIGIBLE_FACTOR * p20)
    return f


@_claim
def _alpha04_same_phenomena(c: Checks) -> None:
    for n in (10, 15):
        c.that(gt(_thr(c, "0.4", n), R_PHB2_KBPS))
        c.that(c.seen(f"P_inb 0.4 N={n}", T2, _p2("0.4", n), "p_inb"))
    c.that(lt(_thr(c, "0.4", 30), R_PHB2_KBPS))
    p20 = c.mean("P_nc,1 0.4 N=20", T2, _p2("0.4", 20), "p_nc_1")
    p30 = c.mean("P_nc,1 0.4 N=30", T2, _p2("0.4", 30), "p_nc_1")
    c.that(None if p20 is None or p30 is None else p30 > NEGLIGIBLE_FACTOR * p20)


@_claim
def _alpha04_degrades_more(c: Checks) -> None:
    rs = [_ros(c, "0.4", n) for n in (15, 20, 25, 30)]
    for a, b in zip(rs, rs[1:], strict=False):
        c.that(None if a is None or b is None else b <= a + INSIGNIFICANT_ROS)
    for n in (20, 25, 30):
        r4, r2 = _ros(c, "0.4", n), _ros(c, "0.2", n)
        c.that(None if r4 is None or r2 is None else r4 <= r2 + INSIGNIFICANT_ROS)


@_claim
def _fixed_alpha_exceeds_r_unsaturated(c: Checks) -> None:
    for a in ("0.4", "0.2"):
        for n in N_AF:
            if _unsaturated(n, float(a)):
                c.that(gt(_thr(c, a, n), R_PHB2_KBPS))


@_claim
def _csa_rio_loss_grows(c: Checks) -> None:
    for n in (25, 30):
        c.that(c.seen(f"P_nc,1 CSA N={n}", T2, _p2("CSA", n), "p_nc_1"))
    p = [c.mean(f"P_nc,1 CSA N={n}", T2, _p2("CSA", n), "p_nc_1") for n in (20, 25, 30)]
    c.that(None if None in p else p[0] <= p[1] <= p[2])  # type: ignore[operator]


@_claim
def _csa_thr_and_pinb_fall(c: Checks) -> None:
    t = [_thr(c, "CSA", n) for n in (20, 25, 30)]
    p = [c.mean(f"P_inb CSA N={n}", T2, _p2("CSA", n), "p_inb") for n in (20, 25, 30)]
    c.that(None if None in t else t[0] >= t[1] >= t[2])  # type: ignore[operator]
    c.that(None if None in p else p[0] >= p[1] >= p[2])  # type: ignore[operator]


@_claim
def _csa_ros_does_not_fall(c: Checks) -> None:
    base = _ros(c, "CSA", 15)
    for n in (20, 25, 30):
        r = _ros(c, "CSA", n)
        c.that(None if r is None or base is None else r >= base - INSIGNIFICANT_ROS)


@_claim
def _csa_leaves_excess_at_20(c: Checks) -> None:
    t_csa, t_04 = _thr(c, "CSA", 20), _thr(c, "0.4", 20)
    c.that(None if t_csa is None or t_04 is None else t_csa < t_04 * (1 - INSIGNIFICANT_THR))
    c.that(None if t_csa is None else 20 * t_csa < BACKBONE_KBPS)


@_claim
def _case_a_no_congestion(c: Checks) -> None:
    for internal in (False, True):
        c.that(le(_t3(c, "a", internal, "core.congested_share"), 0.05))
        c.that(le(_t3(c, "a", internal, "border1.congested_share"), 0.05))


@_claim
def _case_a_above_target(c: Checks) -> None:
    for internal in (False, True):
        c.that(gt(_t3(c, "a", internal, "af1.throughput_kbps"), R_PHB1_KBPS))
        c.that(gt(_t3(c, "a", internal, "af3.throughput_kbps"), R_PHB3_KBPS))


@_claim
def _case_a_ros_high(c: Checks) -> None:
    for internal in (False, True):
        for p in ("af1.", "af3."):
            c.that(ge(_t3(c, "a", internal, p + "ros_pct"), HIGH_ROS))


@_claim
def _case_a_ir_negligible(c: Checks) -> None:
    for p in ("af1.", "af3."):
        t0, t1 = _t3(c, "a", False, p + "throughput_kbps"), _t3(c, "a", True, p + "throughput_kbps")
        r0, r1 = _t3(c, "a", False, p + "ros_pct"), _t3(c, "a", True, p + "ros_pct")
        c.that(None if t0 is None or t1 is None else abs(t1 - t0) <= INSIGNIFICANT_THR * t0)
        c.that(None if r0 is None or r1 is None else abs(r1 - r0) <= INSIGNIFICANT_ROS)


@_claim
def _case_b_border_loss_low(c: Checks) -> None:
    for p in ("af1.", "af3."):
        c.that(lt(_t3(c, "b", False, p + "p_nc_br"), _t3(c, "b", False, p + "p_nc_ir")))


@_claim
def _case_b_phb1_not_guaranteed(c: Checks) -> None:
    c.that(lt(_t3(c, "b", False, "af1.throughput_kbps"), R_PHB1_KBPS))


@_claim
def _case_b_ir_losses(c: Checks) -> None:
    c.that(c.seen("b without: P_c,ir", T3, _p3("b", False), "af1.p_c_ir"))
    c.that(c.seen("b without: P_nc,ir AF_PHB_1", T3, _p3("b", False), "af1.p_nc_ir"))
    c.that(gt(_t3(c, "b", False, "af1.p_nc_ir"), _t3(c, "b", False, "af1.p_nc_br")))
    c.that(lt(_t3(c, "b", False, "af1.ros_pct"), HIGH_ROS))


@_claim
def _case_b_ir_csa_guarantees(c: Checks) -> None:
    c.that(ge(_t3(c, "b", True, "af1.throughput_kbps"), R_PHB1_KBPS))
    c.that(ge(_t3(c, "b", True, "af3.throughput_kbps"), R_PHB3_KBPS))


@_claim
def _case_b_ros_99(c: Checks) -> None:
    for p in ("af1.", "af3."):
        c.that(gt(_t3(c, "b", True, p + "ros_pct"), 99.0))


@_claim
def _case_c_significant_ir_loss(c: Checks) -> None:
    for p in ("af1.", "af3."):
        pa, pc = _t3(c, "a", False, p + "p_nc_ir"), _t3(c, "c", False, p + "p_nc_ir")
        c.that(c.seen(f"c without: P_nc,ir {p}", T3, _p3("c", False), p + "p_nc_ir"))
        c.that(None if pa is None or pc is None else pc > NEGLIGIBLE_FACTOR * pa)


@_claim
def _case_c_phb1_rate_but_low_ros(c: Checks) -> None:
    c.that(ge(_t3(c, "c", False, "af1.throughput_kbps"), R_PHB1_KBPS))
    c.that(lt(_t3(c, "c", False, "af1.ros_pct"), HIGH_ROS))


@_claim
def _case_c_ir_csa(c: Checks) -> None:
    c.that(ge(_t3(c, "c", True, "af1.throughput_kbps"), R_PHB1_KBPS))
    c.that(ge(_t3(c, "c", True, "af3.throughput_kbps"), R_PHB3_KBPS))
    for p in ("af1.", "af3."):
        c.that(ge(_t3(c, "c", True, p + "ros_pct"), HIGH_ROS))


@_claim
def _case_d_congestion_both(c: Checks) -> None:
    c.that(c.seen("d without: P_nc,br AF_PHB_1", T3, _p3("d", False), "af1.p_nc_br"))
    c.that(c.seen("d without: P_nc,ir AF_PHB_1", T3, _p3("d", False), "af1.p_nc_ir"))


@_claim
def _case_d_unfair(c: Checks) -> None:
    c.that(ge(_t3(c, "d", False, "af3.throughput_kbps"), R_PHB3_KBPS))
    c.that(lt(_t3(c, "d", False, "af1.throughput_kbps"), R_PHB1_KBPS))


@_claim
def _case_d_ros_poor(c: Checks) -> None:
    r1, r3 = _t3(c, "d", False, "af1.ros_pct"), _t3(c, "d", False, "af3.ros_pct")
    c.that(lt(r1, HIGH_ROS))
    c.that(lt(r3, HIGH_ROS))
    c.that(lt(r1, r3))


@_claim
def _case_d_ir_csa(c: Checks) -> None:
    c.that(ge(_t3(c, "d", True, "af1.throughput_kbps"), R_PHB1_KBPS))
    c.that(ge(_t3(c, "d", True, "af3.throughput_kbps"), R_PHB3_KBPS))
    for p in ("af1.", "af3."):
        c.that(ge(_t3(c, "d", True, p + "ros_pct"), HIGH_ROS))


@_claim
def _ir_congestion_hurts(c: Checks) -> None:
    for case in ("b", "d"):
        c.that(gt(_t3(c, case, False, "af1.p_nc_ir_of_level"), _t3(c, case, False, "af1.p_c_ir")))
        c.that(lt(_t3(c, case, False, "af1.ros_pct"), HIGH_ROS))


@_claim
def _ros_near_100_in_congestion(c: Checks) -> None:
    for n in (25, 30):
        c.that(ge(_ros(c, "CSA", n), 100.0 - INSIGNIFICANT_ROS))
    for case in ("b", "d"):
        for p in ("af1.", "af3."):
            c.that(ge(_t3(c, case, True, p + "ros_pct"), 100.0 - INSIGNIFICANT_ROS))


def _insensitive(experiment: str, label: str, settings: Sequence[object]) -> Callable[[View], ClaimResult]:
    """Throughput and RoS spreads over the settings, at every N_AF, within what the paper calls
    not significant (1.9 % and 1.8 points)."""
    def evaluate(view: View) -> ClaimResult:
        c = Checks(view)
        for n in N_AF:
            thr = [c.mean(f"thr {label}={s} N={n}", experiment, {label: s, "n_af": n}, "throughput_kbps")
                   for s in settings]
            ros = [c.mean(f"RoS {label}={s} N={n}", experiment, {label: s, "n_af": n}, "ros_pct")
                   for s in settings]
            if any(v is None for v in thr + ros):
                c.that(None)
                continue
            t = [v for v in thr if v is not None]
            r = [v for v in ros if v is not None]
            c.measured[f"N={n} thr spread %"] = 100.0 * (max(t) - min(t)) / min(t)
            c.measured[f"N={n} RoS spread pts"] = max(r) - min(r)
            c.that((max(t) - min(t)) / min(t) <= INSIGNIFICANT_THR)
            c.that(max(r) - min(r) <= INSIGNIFICANT_ROS)
        # the raw per-setting values are long; keep only the spreads in the report
        c.measured = {k: v for k, v in c.measured.items() if "spread" in k}
        return c.result()
    return evaluate


_ABS, _INTRO, _RW = "Abstract", "Introduction", "Related Work"
_MOD = "Modeling Network Devices and Traffic Conditioning Procedures"
_CTRL = "Control of the Percentage of Non-conformant Packets at the Token Bucket"
_REM = "Remote Control of the Percentage of Non-conformant Packets"
_PA, _GS, _PP = "Performance Analysis", "General Settings of Parameters", "Performance Parameters"
_S1, _S2, _CONC = "Scenario 1", "Scenario 2", "Conclusions"

STATEMENTS: tuple[Statement, ...] = (
    # -- abstract and introduction ------------------------------------------------------------
    Statement("abs-mismatch", "poor performance of TCP traffic flows can result from the "
              "existing mismatch between the assured forwarding traffic conditioning procedures "
              "and the TCP congestion management.", _ABS, Kind.RESTATEMENT,
              "said with numbers in §Performance Analysis", restates="pa-poor"),
    Statement("abs-rate", "We show that with this policy the provisioned rate for TCP flows can be "
              "achieved.", _ABS, Kind.CLAIM,
              "with the CSA (in the border router, and in the internal router in scenario 2), every "
              "source's throughput ≥ its r: scenario 1 at every N_AF, scenario 2 in every case",
              _csa_rate_everywhere),
    Statement("intro-csa-guarantees", "The article shows that a simple congestion signaling "
              "technique, named Congestion Signaling Algorithm (CSA), can guarantee the required "
              "rate of TCP traffic flows.", _INTRO, Kind.RESTATEMENT,
              "the abstract's claim again", restates="abs-rate"),
    Statement("intro-degradation-lower", "In this way, the performance degradation due to excess "
              "packets during congestion periods is significantly lower.", _RW + " (closing)",
              Kind.CLAIM, "scenario 1, N_AF = 25 and 30: RoS with the CSA above RoS with α fixed at "
              "0.4; at N_AF = 30, where the fixed α collapses, throughput too", _csa_degrades_less),
    Statement("intro-no-overprovisioning", "Target throughput is obtained without a need for "
              "over-provisioning.", _RW + " (closing)", Kind.RESTATEMENT,
              "at N_AF = 30, Σr = 30 Mb/s of the 30.792 Mb/s link: the CSA claim of §Scenario 1 at "
              "that point", restates="s1-csa-rate"),
    Statement("intro-fairness", "Fairness improvements are also observed and could represent an "
              "interesting subject for further research.", _RW + " (closing)", Kind.CLAIM,
              "scenario 1, N_AF = 25 and 30: Jain's index of the sources' throughput with the CSA ≥ "
              "with α fixed at 0.4", _csa_fairer),
    Statement("intro-poor-performance", "Even if the network has sufficient bandwidth for "
              "in-profile packets, the losses experienced by out-of-profile packets downgrade the "
              "overall performance of the TCP flow.", _INTRO, Kind.CLAIM,
              f"scenario 1, N_AF = 30 (in-profile load 30 Mb/s fits the 30.792 Mb/s link), α fixed "
              f"at 0.4 and 0.2: RoS < {HIGH_ROS:g} % (below 'satisfactory' by more than the "
              "insignificant spread)", _out_loss_hurts_despite_room_for_in),
    Statement("intro-out-component", "the performance of a TCP flow transported with the Assured "
              "Forwarding service is mainly determined by its out-of-profile component.", _INTRO,
              Kind.RESTATEMENT, "the previous sentence's claim", restates="intro-poor-performance"),
    # -- models ---------------------------------------------------------------------------------
    Statement("mod-rio-out-higher", "when buffer occupancy is high, out-of-profile packets are "
              "dropped with higher probability than in-profile packets.", _MOD, Kind.IDENTITY,
              "Table 1's RIO curves (OUT 10/60/0.2 against IN 70/120/0.01); queue/rio.rs unit tests"),
    Statement("mod-drop-increases", "The packet dropping probability increases with the congestion "
              "level and is higher for the Best-Effort traffic.", _MOD, Kind.IDENTITY,
              "RIO's curves by construction"),
    Statement("mod-tb-splits", "the token bucket splits the traffic flow into a conformant flow "
              "(in-profile packets) at an average r (kb/s) rate, and a non-conformant flow "
              "(out-of-profile packets), whose per hop behavior is downgraded.", _MOD, Kind.IDENTITY,
              "the meter by construction; edge/enhanced_token_bucket.rs unit tests"),
    Statement("mod-alpha-share", "The α parameter represents the percentage of non-conformant "
              "packets transmitted by the token bucket.", _CTRL, Kind.IDENTITY,
              "a backlogged enhanced token bucket sends r in profile and α·r downgraded by "
              "construction (world test the_enhanced_token_bucket_passes_r_conformant_and_alpha_r_"
              "downgraded)"),
    Statement("mod-dec-rate", "α can be decreased at most by Δα every T_1 seconds; thus, the maximum "
              "decreasing rate of α evaluates to Δα/T_1.", _CTRL, Kind.IDENTITY,
              "the CSA's rule; edge/csa.rs at_most_one_decrease_per_t1_under_sustained_congestion"),
    Statement("mod-inc-rate", "In this way, the maximum increasing rate of the α parameter after a "
              "congestion period is set to Δα/T_2.", _CTRL, Kind.IDENTITY,
              "the CSA's rule; edge/csa.rs recovery_is_one_step_per_t2_after_congestion_ends"),
    Statement("ctrl-poor-if-not-low", "a poor performance in the transport of TCP traffic over the "
              "Assured Forwarding service is observed if the percentage of downgraded Assured "
              "Forwarding packets is not kept low.", _CTRL, Kind.CLAIM,
              f"scenario 1, N_AF = 30: RoS with α fixed at 0.4 and at 0.2 is below RoS with α = 0 "
              f"by more than the insignificant {INSIGNIFICANT_ROS:g} points",
              _downgraded_share_matters),
    Statement("ctrl-out-lost-more", "This traffic is forwarded through the RIO buffer with a higher "
              "packet loss probability.", _CTRL, Kind.CLAIM,
              "scenario 1, N_AF = 30, α = 0.4 and 0.2: the loss ratio of downgraded packets at the "
              "RIO buffer is observed (≥ 10 losses) and above that of in-profile packets",
              _out_lost_more_than_in),
    Statement("ctrl-reduces-throughput", "This can significantly reduce the throughput of TCP "
              "connections.", _CTRL, Kind.RESTATEMENT, "§Scenario 1's fixed-α claims",
              restates="s1-fixed-decrease"),
    Statement("ctrl-negative-effect", "Thus, even if conformant packets are forwarded with a lower "
              "loss probability, the higher loss probability of non-conformant packets has a "
              "negative effect on the overall performance of TCP flows.", _CTRL, Kind.RESTATEMENT,
              "the introduction's claim", restates="intro-poor-performance"),
    Statement("ctrl-not-guaranteed", "Therefore, if the percentage of non-conformant packets is not "
              "kept low, the provisioned throughput of Assured Forwarding flows cannot be "
              "guaranteed.", _CTRL, Kind.RESTATEMENT, "§Scenario 1's fixed-α claims",
              restates="s1-fixed-decrease"),
    Statement("ctrl-lower-degree", "In this way, Assured Forwarding packets, which are mostly "
              "conformant, are discarded with a lower probability, and therefore the performance of "
              "the Assured Forwarding traffic is downgraded to a lower degree during congestion "
              "periods in the RIO buffer.", _CTRL, Kind.RESTATEMENT,
              "the CSA against fixed α at the congested points", restates="intro-degradation-lower"),
    Statement("ctrl-delay", "Note that for TCP applications the queuing delay is not critical.",
              _CTRL, Kind.NOT_CHECKABLE, "a judgement about applications, no quantity"),
    Statement("rem-high-loss", "If these traffic flows enter a congested RIO buffer of an internal "
              "router, they are likely to experience high packet loss due to their non-conformant "
              "component. This packet loss will in turn significantly downgrade TCP performance.",
              _REM, Kind.CLAIM,
              f"scenario 2, cases b and d without the internal CSA: AF_PHB_1's downgraded packets "
              f"are lost at the internal router more often than its in-profile ones, and its RoS is "
              f"< {HIGH_ROS:g} %", _ir_congestion_hurts),
    # -- performance analysis and settings ----------------------------------------------------
    Statement("pa-poor", "We will show that the basic Assured Forwarding service has poor "
              "performance without congestion notification.", _PA, Kind.CLAIM,
              f"scenario 1, N_AF = 30, α fixed at 0.4 and 0.2: throughput < r and RoS < {HIGH_ROS:g} %",
              _fixed_alpha_poor_at_load),
    Statement("pa-guaranteed", "By adopting the enhanced token bucket and the Congestion Signaling "
              "Algorithm described in the previous section, the provisioned rate of TCP traffic "
              "flows can be guaranteed.", _PA, Kind.RESTATEMENT, "the abstract's claim",
              restates="abs-rate"),
    Statement("pa-more-complex", "Results obtained for more complex scenarios are not reported here "
              "as they confirm the observations that can be drawn from reference scenarios.", _PA,
              Kind.NOT_CHECKABLE, "the scenarios are not given"),
    Statement("gs-atm", "Each IP packet generates 12 ATM cells, with an ATM overhead evaluating to "
              "12 · 5 = 60 bytes. Therefore, the net capacity of ATM CBR connections at the IP level "
              "is equal to … 34 · 576 / (576 + 60) = 30.792 Mb/s.", _GS, Kind.IDENTITY,
              "the backbone's framing (atm_cell_tax) by construction; net/framing.rs unit tests"),
    Statement("gs-buffer-appropriate", "With several simulation experiments, we have determined that "
              "an input buffer with capacity B = 100 packets is appropriate when the access rate "
              "evaluates to 2 Mb/s and b_1 ranges from 10 tokens to 50 tokens.", _GS,
              Kind.NOT_CHECKABLE, "'appropriate' has no criterion (Appendix C tests B)"),
    Statement("gs-b1", "It has been verified that performance is not influenced by the value of "
              "b_1 which, in the following, has been set to 10.", _GS, Kind.CLAIM,
              "scenario 1 with the CSA, b1 = 10 … 50 (experiment b1, not a table of the paper): at "
              "every N_AF the throughput spread ≤ 1.9 % and the RoS spread ≤ 1.8 points",
              _insensitive("b1", "b1", B1_VALUES)),
    Statement("gs-b1-bursts", "The value of b_1 determines the length of conformant packet bursts "
              "in the output flow.", _GS, Kind.IDENTITY, "a token bucket's depth by construction"),
    Statement("gs-b2-bursts", "By choosing b_2 = 1, we prevent excess traffic from producing bursts "
              "of packets.", _GS, Kind.IDENTITY, "a one-token bucket by construction"),
    Statement("gs-b2", "Performance is not significantly sensitive to b_2, as shown in Appendix B.",
              _GS, Kind.RESTATEMENT, "Appendix B's claim", restates="appb"),
    Statement("gs-b", "Moreover, shown in Appendix C, performance is not significantly sensitive to "
              "input buffer capacity, B.", _GS, Kind.RESTATEMENT, "Appendix C's claim",
              restates="appc"),
    Statement("gs-timers", "For an appropriate and predictable operation of the Congestion "
              "Signaling Algorithm, it is important that system performance does not significantly "
              "depend on the settings of timers T_1 and T_2.", _GS, Kind.NOT_CHECKABLE,
              "a requirement; Appendix A tests it"),
    Statement("pp-throughput", "Throughput is measured in kb/s and is defined as the ratio of the "
              "total number of bits transmitted by a source during a simulation to total simulation "
              "time.", _PP, Kind.IDENTITY, "a definition (applied in this module's metrics)"),
    Statement("pp-ros", "The Respect of Service (RoS) is defined as the ratio of the actual rate of "
              "conformant packets exiting the meter to the provisioned token bucket rate r.", _PP,
              Kind.IDENTITY, "a definition (afsim's respect_of_service)"),
    Statement("pp-ros-range", "Obviously, RoS ranges from zero to one.", _PP, Kind.IDENTITY,
              "by the definition"),
    # -- scenario 1 -----------------------------------------------------------------------------
    Statement("s1-a0-rate", "When α = 0, throughput is constant and equal to the provisioned "
              "1000 kb/s.", _S1 + " ¶2", Kind.CLAIM,
              "α = 0, every N_AF: |throughput − 1000| ≤ 1.9 % and the spread over N_AF ≤ 1.9 %",
              _alpha0_rate),
    Statement("s1-a0-ros", "Moreover, Respect of Service is high, greater than 99 percent.",
              _S1 + " ¶2", Kind.CLAIM, "α = 0, every N_AF: RoS > 99 %", _alpha0_ros),
    Statement("s1-a0-why", "The value of Respect of Service is high because the network does not "
              "allocate more bandwidth than the provisioned 1000 kb/s.", _S1 + " ¶2", Kind.IDENTITY,
              "with α = 0 no packet is downgraded: the bucket caps each source at r"),
    Statement("s1-a0-spare", "The provisioned rate is strictly guaranteed, but spare capacity, "
              "available when the number of sources is small, is not used.", _S1 + " ¶2",
              Kind.IDENTITY, "with α = 0 each source is capped at r, so at N_AF = 10 at most 10 of "
              "the 30.792 Mb/s are used, by construction"),
    Statement("s1-a0-inb", "Throughput is regulated by packet losses in the input buffer.",
              _S1 + " ¶2", Kind.CLAIM,
              "α = 0, every N_AF: input-buffer losses observed (≥ 10 counted)",
              _alpha0_input_buffer_limits),
    Statement("s1-a02-above", "When α = 0.2, throughput is higher than the provisioned 1000 kb/s "
              "when the number of sources is small.", _S1 + " ¶3", Kind.CLAIM,
              "α = 0.2, N_AF = 10 and 15: throughput > 1000 kb/s", _small_n_above_r("0.2")),
    Statement("s1-a02-inb", "Throughput is adjusted by packet loss in the input buffer (Table 2).",
              _S1 + " ¶3", Kind.CLAIM, "α = 0.2, N_AF = 10 and 15: input-buffer losses observed",
              _small_n_input_buffer("0.2")),
    Statement("s1-a02-below", "When the number of sources is high, throughput can decrease below the "
              "provisioned 1000 kb/s.", _S1 + " ¶3", Kind.CLAIM,
              "α = 0.2, N_AF = 30: throughput < 1000 kb/s", _alpha02_below_r_at_30),
    Statement("s1-a02-ros70", "From Fig. 8, it can be noted that in this case Respect of Service "
              "dramatically decreases to 70 percent with 30 Assured Forwarding sources.",
              _S1 + " ¶3", Kind.CLAIM,
              "α = 0.2, N_AF = 30: 65 % ≤ RoS ≤ 75 % (the text rounds to the nearest ten)",
              _alpha02_ros_70),
    Statement("s1-a02-heavy-loss", "The network tries to allocate more bandwidth than the "
              "provisioned 1000 kb/s, but this leads to heavy packet loss in the RIO buffer, as "
              "shown in Table 2.", _S1 + " ¶3", Kind.CLAIM,
              "α = 0.2: P_nc,1 at N_AF = 30 observed and more than 1.6 × (the factor the paper "
              "calls negligible) its value at N_AF = 20", _heavy_rio_loss("0.2")),
    Statement("s1-a04-same", "The same phenomena occur for α = 0.4.", _S1 + " ¶4", Kind.CLAIM,
              "α = 0.4: throughput > 1000 kb/s and input-buffer losses observed at N_AF = 10 and 15; "
              "throughput < 1000 kb/s at N_AF = 30; P_nc,1 at 30 > 1.6 × at 20",
              _alpha04_same_phenomena),
    Statement("s1-a04-degrades", "In particular, a higher degradation of Respect of Service can be "
              "observed as the number of sources grows (Fig. 8).", _S1 + " ¶4", Kind.CLAIM,
              "α = 0.4: RoS non-increasing in N_AF from 15 to 30 (within 1.8 points), and at N_AF = "
              "20, 25, 30 not above α = 0.2's (within 1.8 points)", _alpha04_degrades_more),
    Statement("s1-fixed-above", "We can conclude that when the α parameter is fixed and greater "
              "than 0, it is possible to achieve a per-connection throughput greater than the "
              "provisioned 1000 kb/s when the ATM link is not overloaded (i.e., when the number of "
              "sources is not too large).", _S1 + " ¶5", Kind.CLAIM,
              "α = 0.2 and 0.4, every N_AF with N_AF·r·(1 + α) < 30.792 Mb/s: throughput > 1000 kb/s",
              _fixed_alpha_exceeds_r_unsaturated),
    Statement("s1-fixed-decrease", "However, throughput and Respect of Service can significantly "
              "decrease as the number of sources grows and provisioned rates are not guaranteed.",
              _S1 + " ¶5", Kind.CLAIM,
              f"α = 0.2 and 0.4, N_AF = 30: throughput < 1000 kb/s and RoS < {HIGH_ROS:g} %",
              _fixed_alpha_poor_at_load),
    Statement("s1-csa-rate", "In this case, throughput is always greater than the provisioned "
              "1000 kb/s", _S1 + " ¶6", Kind.CLAIM, "CSA, every N_AF: throughput > 1000 kb/s",
              _csa_rate_scenario1),
    Statement("s1-csa-ros", "and Respect of Service is always greater than 98 percent, that is, "
              "satisfactory.", _S1 + " ¶6", Kind.CLAIM, "CSA, every N_AF: RoS > 98 %",
              _csa_ros_scenario1),
    Statement("s1-csa-rio-loss", "As the number of sources grows and congestion arises, packet "
              "losses are also observed in the RIO buffer (Table 2).", _S1 + " ¶6", Kind.CLAIM,
              "CSA: P_nc,1 observed at N_AF = 25 and 30, and non-decreasing from N_AF = 20 to 30",
              _csa_rio_loss_grows),
    Statement("s1-csa-thr-inb-fall", "This reduces the throughput of TCP connections and, in turn, "
              "the packet loss of the input buffer.", _S1 + " ¶6", Kind.CLAIM,
              "CSA: throughput and P_inb non-increasing from N_AF = 20 to 25 to 30",
              _csa_thr_and_pinb_fall),
    Statement("s1-csa-ros-holds", "However, as throughput decreases, Respect of Service does not "
              "decrease.", _S1 + " ¶6", Kind.CLAIM,
              "CSA: RoS at N_AF = 20, 25, 30 not below RoS at N_AF = 15 by more than 1.8 points",
              _csa_ros_does_not_fall),
    Statement("s1-csa-in-guaranteed", "This shows that the provisioned throughput of IN packets is "
              "guaranteed.", _S1 + " ¶6", Kind.RESTATEMENT,
              "RoS is the in-profile rate over r: the RoS claim", restates="s1-csa-ros"),
    Statement("s1-csa-excess", "As a drawback, in some cases it is not possible to allocate all of "
              "the … excess bandwidth to connections, as shown in Fig. 7 for 20 sources.", _S1 + " ¶6",
              Kind.CLAIM, "N_AF = 20: throughput with the CSA below α = 0.4's by more than 1.9 %, "
              "with capacity left (20 × throughput < 30.792 Mb/s)", _csa_leaves_excess_at_20),
    # -- scenario 2 -----------------------------------------------------------------------------
    Statement("s2-setup", "Border routers always perform the Congestion Signaling Algorithm, while "
              "internal routers may or may not perform the Congestion Signaling Algorithm.",
              _S2 + " ¶2", Kind.IDENTITY, "the experiment's design"),
    Statement("s2-a-no-congestion", "Load is relatively low and no congestion occurs in border and "
              "internal routers.", _S2 + ", case (a)", Kind.CLAIM,
              "case a, with and without the internal CSA: at most 5 % of OUT arrivals find the "
              "border or the internal RIO buffer congested (avg_q_tot > min_th_out); the paper "
              "gives no threshold, 5 % is afsim's", _case_a_no_congestion),
    Statement("s2-a-above", "Throughput is greater than the target value in the per hop behavior,",
              _S2 + ", case (a)", Kind.CLAIM,
              "case a, with and without the internal CSA: AF_PHB_1 > 1600 kb/s, AF_PHB_3 > 400 kb/s",
              _case_a_above_target),
    Statement("s2-a-ros-high", "Respect of Service is high,", _S2 + ", case (a)", Kind.CLAIM,
              f"case a, both PHBs, with and without the internal CSA: RoS ≥ {HIGH_ROS:g} % (the "
              "paper's 'satisfactory' 98 % within its insignificant 1.8 points)", _case_a_ros_high),
    Statement("s2-a-loss", "and packet loss is acceptable.", _S2 + ", case (a)", Kind.NOT_CHECKABLE,
              "'acceptable' has no threshold in the paper"),
    Statement("s2-a-negligible", "With the adoption of the Congestion Signaling Algorithm in the "
              "internal router, performance improvements are negligible.", _S2 + ", case (a)",
              Kind.CLAIM, "case a, both PHBs: with and without the internal CSA, throughput within "
              "1.9 % and RoS within 1.8 points", _case_a_ir_negligible),
    Statement("s2-b-may", "In case (b), the Assured Forwarding traffic is heavier and congestion may "
              "occur.", _S2 + ", case (b)", Kind.NOT_CHECKABLE, "a hedge ('may')"),
    Statement("s2-b-border-low", "Without the Congestion Signaling Algorithm in the internal router, "
              "the packet loss in the border router, P_nc,br, is low,", _S2 + ", case (b)",
              Kind.CLAIM, "case b without the internal CSA, both PHBs: P_nc,br < P_nc,ir ('low' "
              "read against the internal router's)", _case_b_border_loss_low),
    Statement("s2-b-not-guaranteed", "but the throughput of AF_PBH_1 is not guaranteed.",
              _S2 + ", case (b)", Kind.CLAIM, "case b without the internal CSA: AF_PHB_1 < 1600 kb/s",
              _case_b_phb1_not_guaranteed),
    Statement("s2-b-ir-loss", "A high percentage of non-conformant packets can reach the internal "
              "router, where a considerable loss of both conformant and non-conformant packets is "
              "observed with a consequent reduction of Respect of Service.", _S2 + ", case (b)",
              Kind.CLAIM, f"case b without the internal CSA: P_c,ir and AF_PHB_1's P_nc,ir observed "
              f"(≥ 10 losses), P_nc,ir > P_nc,br, AF_PHB_1 RoS < {HIGH_ROS:g} %", _case_b_ir_losses),
    Statement("s2-b-guaranteed", "If the Congestion Signaling Algorithm is activated in the internal "
              "router, it is possible to guarantee the provisioned throughput of Assured Forwarding "
              "per hop behaviors.", _S2 + ", case (b)", Kind.CLAIM,
              "case b with the internal CSA: AF_PHB_1 ≥ 1600, AF_PHB_3 ≥ 400 kb/s",
              _case_b_ir_csa_guarantees),
    Statement("s2-b-ros99", "Moreover, Respect of Service is greater than 99 percent.",
              _S2 + ", case (b)", Kind.CLAIM, "case b with the internal CSA, both PHBs: RoS > 99 %",
              _case_b_ros_99),
    Statement("s2-c-significant", "Therefore, a significant loss of non-conformant packets is "
              "observed in the internal router.", _S2 + ", case (c)", Kind.CLAIM,
              "case c without the internal CSA, both PHBs: P_nc,ir observed and more than 1.6 × "
              "case a's", _case_c_significant_ir_loss),
    Statement("s2-c-rate-low-ros", "Without the Congestion Signaling Algorithm in the internal "
              "router, the provisioned throughput of the AF_PHB_1 flow is guaranteed, but Respect "
              "of Service is low.", _S2 + ", case (c)", Kind.CLAIM,
              f"case c without the internal CSA: AF_PHB_1 ≥ 1600 kb/s and RoS < {HIGH_ROS:g} %",
              _case_c_phb1_rate_but_low_ros),
    Statement("s2-c-damaged", "The AF_PHB_1 flow is heavily damaged by congestion, as it can carry a "
              "high percentage of non-conformant packets.", _S2 + ", case (c)", Kind.NOT_CHECKABLE,
              "an explanation; the damage is the previous claim's RoS, and the paper's own numbers "
              "give AF_PHB_3 the higher non-conformant share"),
    Statement("s2-c-ir-csa", "If the Congestion Signaling Algorithm is activated in the internal "
              "router, the expected throughput is fully guaranteed for both AF_PHB_1 and AF_PHB_3 "
              "with high values of Respect of Service.", _S2 + ", case (c)", Kind.CLAIM,
              f"case c with the internal CSA: AF_PHB_1 ≥ 1600, AF_PHB_3 ≥ 400 kb/s, both RoS ≥ "
              f"{HIGH_ROS:g} %", _case_c_ir_csa),
    Statement("s2-d-congestion", "In case (d), with a large number of both Assured Forwarding and "
              "Best-Effort sources, congestion can occur both in border and internal routers.",
              _S2 + ", case (d)", Kind.CLAIM,
              "case d without the internal CSA: AF_PHB_1's downgraded packets are lost (≥ 10 "
              "losses) at both the border and the internal router", _case_d_congestion_both),
    Statement("s2-d-unfair", "Without the Congestion Signaling Algorithm in the internal router, "
              "only the throughput of the AF_PHB_3 flow is guaranteed, that is, the service of "
              "different Assured Forwarding flows is unfair.", _S2 + ", case (d)", Kind.CLAIM,
              "case d without the internal CSA: AF_PHB_3 ≥ 400 kb/s and AF_PHB_1 < 1600 kb/s",
              _case_d_unfair),
    Statement("s2-d-ros-poor", "Furthermore, Respect of Service is poor, especially for the "
              "AF_PHB_1 flow.", _S2 + ", case (d)", Kind.CLAIM,
              f"case d without the internal CSA: both RoS < {HIGH_ROS:g} %, AF_PHB_1's below "
              "AF_PHB_3's", _case_d_ros_poor),
    Statement("s2-d-ir-csa", "the adoption of the Congestion Signaling Algorithm "
              "guarantees throughput and, at the same time, a high value of Respect of Service.",
              _S2 + ", case (d)", Kind.CLAIM,
              f"case d with the internal CSA: AF_PHB_1 ≥ 1600, AF_PHB_3 ≥ 400 kb/s, both RoS ≥ "
              f"{HIGH_ROS:g} %", _case_d_ir_csa),
    # -- appendices ------------------------------------------------------------------------------
    Statement("appa-implementation", "A relationship between timers and performance would raise "
              "implementation problems.", "Appendix A", Kind.NOT_CHECKABLE, "a motivation"),
    Statement("appa", "Simulation results confirm that throughput and Respect of Service, shown in "
              "Tables 4 and 5, respectively, do not significantly depend on the values of timers "
              "T_1 and T_2.", "Appendix A", Kind.CLAIM,
              "the four timer settings, every N_AF: throughput spread ≤ 1.9 %, RoS spread ≤ 1.8 "
              "points (the largest spreads the paper itself calls not significant)",
              _insensitive("appendix_a", "timers", TIMERS)),
    Statement("appa-conclusion", "We can conclude that the values of timers are not critical for "
              "the implementation of the Congestion Signaling Algorithm.", "Appendix A",
              Kind.RESTATEMENT, "Appendix A's claim", restates="appa"),
    Statement("appb", "Simulation results confirm that throughput and Respect of Service do not "
              "significantly depend on the values of b_2.", "Appendix B", Kind.CLAIM,
              "b2 = 1 … 5, every N_AF: throughput spread ≤ 1.9 %, RoS spread ≤ 1.8 points",
              _insensitive("appendix_b", "b2", B2_VALUES)),
    Statement("appc", "Simulation results confirm that throughput and Respect of Service do not "
              "significantly depend on the value of B.", "Appendix C", Kind.CLAIM,
              "B = 80 … 150, every N_AF: throughput spread ≤ 1.9 %, RoS spread ≤ 1.8 points",
              _insensitive("appendix_c", "buffer", BUFFERS)),
    # -- conclusions -----------------------------------------------------------------------------
    Statement("conc-poor", "Results show that TCP sources may experience poor performance with the "
              "Assured Forwarding service.", _CONC, Kind.RESTATEMENT, "§Performance Analysis",
              restates="pa-poor"),
    Statement("conc-above-target", "We have shown that our solution can achieve values of Assured "
              "Forwarding throughput higher than target values. This holds in different traffic "
              "load conditions and regardless of the congestion caused by the Best-Effort traffic "
              "at border and internal routers.", _CONC, Kind.RESTATEMENT, "the abstract's claim",
              restates="abs-rate"),
    Statement("conc-ros-100", "We have observed values of Respect of Service close to 100 percent "
              "during congestion periods.", _CONC, Kind.CLAIM,
              "with the CSA at the congested points (scenario 1 N_AF = 25, 30; scenario 2 cases b "
              "and d with the internal CSA): RoS ≥ 98.2 % (100 within the insignificant 1.8 points)",
              _ros_near_100_in_congestion),
    Statement("conc-be", "This result confirms that our algorithm guarantees the expected throughput "
              "in case of congestion caused by excess Best-Effort traffic.", _CONC,
              Kind.RESTATEMENT, "cases c and d with the internal CSA", restates="s2-d-ir-csa"),
    Statement("conc-simple", "One of the most important features of our algorithm is that it does "
              "not require a complex traffic flow management in internal routers, in compliance "
              "with the DiffServ architecture,", _CONC, Kind.NOT_CHECKABLE, "a design property"),
)

FIGURES = (
    Figure("fig7_throughput", "Fig. 7: throughput versus number of AF sources (scenario 1)",
           "table2", "throughput_kbps", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="throughput per source (kbit/s)", reference=(R_PHB2_KBPS, "r = 1000 kbit/s"),
           series_name="α"),
    Figure("fig8_ros", "Fig. 8: Respect of Service versus number of AF sources (scenario 1)",
           "table2", "ros_pct", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="Respect of Service (%)", series_name="α"),
    Figure("fig7_throughput_periodic",
           "Fig. 7 under the variant 'periodic token grid' (experiment table2@periodic)",
           "table2@periodic", "throughput_kbps", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="throughput per source (kbit/s)", reference=(R_PHB2_KBPS, "r = 1000 kbit/s"),
           series_name="α"),
    Figure("fig8_ros_periodic",
           "Fig. 8 under the variant 'periodic token grid' (experiment table2@periodic)",
           "table2@periodic", "ros_pct", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="Respect of Service (%)", series_name="α"),
)


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, statements, figures, published values,
    null model, variants and unstated parameters."""
    return Paper(PAPER_ID, TITLE, CITATION, experiments(scenarios_dir), STATEMENTS, FIGURES, DATA,
                 null_model, NULL_DESCRIPTION, VARIANTS, UNSTATED, ns2=TWIN)


def mode(quick: bool, budget: int | None = None, replications: int | None = None) -> Mode:
    """Full (the paper's 40 million data packets) or quick mode, optionally with another budget
    or number of replications; a budget below the paper's is always reported as reduced."""
    import dataclasses

    base = QUICK if quick else FULL
    return dataclasses.replace(base, budget=budget or base.budget,
                               replications=replications or base.replications)

