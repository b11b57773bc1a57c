"""Giacomazzi, Musumeci, Verticale, "Transport of TCP/IP Traffic over Assured Forwarding
IP-Differentiated Services": the experiments of Table 2 (and Figs. 7–8), Table 3 and the
Appendix (Tables 4–9), and the paper's checkable claims.

Read this first. The networks are ``scenarios/giacomazzi/scenario1.toml`` (Fig. 6a) and
``scenario2.toml`` (Fig. 6b); every value the paper leaves open is an assumption written beside
it there and in docs/assumptions.md. This module only chooses the grid (the paper's) and says
how a run becomes the paper's numbers:

- throughput: "the total number of bits transmitted by a source during a simulation [÷] total
  simulation time" (§V.B) — each source's IP bytes sent (retransmissions and packets lost later
  included) × 8 ÷ the run's simulated time, averaged over the sources of the row;
- RoS: afsim's ``respect_of_service`` (green bytes leaving the source's meter ÷ r), averaged
  over the sources, in percent;
- P_inb: input-buffer drops ÷ arrivals over the row's enhanced token buckets;
- P_nc,i / P_c,i / P_be,i: drops ÷ arrivals of the downgraded / in-profile / best-effort
  packets at router i's RIO buffer on the path (colour rows of the report).

The fixed-α rows are runs whose CSA has min_α = max_α = α (it then never moves α), and
"CSA not applied in the IR" is an internal CSA with min_α = max_α = 0.4: a scenario file cannot
leave a ``[[csa]]`` out, and such a CSA changes nothing.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce.core import (
    Aggregates,
    Claim,
    ClaimResult,
    Experiment,
    Figure,
    Mode,
    Paper,
    Point,
)

if TYPE_CHECKING:
    import pandas as pd

    from afsim.results import Results

PAPER_ID = "giacomazzi"
TITLE = ("Giacomazzi, Musumeci, Verticale — Transport of TCP/IP Traffic over Assured "
         "Forwarding IP-Differentiated Services")
CITATION = ("S. Giacomazzi, L. Musumeci, G. Verticale, \"Transport of TCP/IP Traffic over "
            "Assured Forwarding IP-Differentiated Services\", IEEE Network (magazine version) "
            "and conference version; Tables 2–9, Figs. 7–8.")
DATA = Path(__file__).parent / "data" / "giacomazzi.json"

#: §V.A: "40 million packets were generated for each simulation".
PAPER_PACKETS = 40_000_000
#: Full mode: the paper's budget; three replications give a confidence interval (the paper
#: reports one run per point).
FULL = Mode("full", PAPER_PACKETS, replications=3, paper_packets=PAPER_PACKETS)
#: Quick mode: a tenth of the paper's budget, two replications. Shorter runs are dominated by
#: the start-up (the sources' slow starts against a full α: timeouts with back-off), which
#: the paper's 40 million packets dilute: at N_AF = 30 with the CSA, 2 million packets give a
#: RoS near 90 %, 4 million near 95 %, 40 million near 99 %.
QUICK = Mode("quick", 4_000_000, replications=2, paper_packets=PAPER_PACKETS)

N_AF = (10, 15, 20, 25, 30)
#: Table 2's α modes: fixed values, and "CSA" (α between min_α 0.04 and max_α 0.4).
ALPHA_MODES = ("0.4", "0.2", "0", "CSA")
#: Table 1.
R_PHB1_KBPS, R_PHB2_KBPS, R_PHB3_KBPS = 1600.0, 1000.0, 400.0
#: §V.A: 34·576/(576 + 60) Mb/s, the E3's capacity at the IP level.
BACKBONE_KBPS = 30_792.0
#: Table 1's CSA and bucket settings, written out in every run's overrides so that identical
#: runs of different experiments are recognised as one.
DEFAULTS = {"t1": "30ms", "t2": "90ms", "b2": "1", "buffer": "100"}
#: Appendix A's timer settings (T1/T2 in ms).
TIMERS = ("15/45", "15/60", "30/90", "30/120")
B2_VALUES = (1, 2, 3, 4, 5)
BUFFERS = (80, 100, 120, 130, 150)
#: Table 3's cases: (N_AF, N_BE), and its split of N_AF (AF_PHB_1 gets the odd source).
CASES = {"a": (10, 10), "b": (25, 10), "c": (10, 40), "d": (25, 40)}


# ---------------------------------------------------------------------------------------------
# Where the scenario files are


def find_scenarios_dir(start: Path | None = None) -> Path:
    """The folder holding scenario1.toml and scenario2.toml: ``$AFSIM_SCENARIOS/giacomazzi``
    if set; else ``scenarios/giacomazzi`` in the current directory (or ``start``) or one above
    it, so that a checkout's files, edited or not, are the ones run; else the copies shipped
    in the package (``afsim scenarios`` lists them as ``giacomazzi/...``)."""
    env = os.environ.get("AFSIM_SCENARIOS")
    candidates = []
    if env:
        candidates.append(Path(env) / "giacomazzi")
    here = (start or Path.cwd()).resolve()
    candidates += [d / "scenarios" / "giacomazzi" for d in (here, *here.parents)]
    candidates.append(Path(str(resources.files("afsim") / "scenarios" / "giacomazzi")))
    for c in candidates:
        if (c / "scenario1.toml").is_file() and (c / "scenario2.toml").is_file():
            return c
    raise FileNotFoundError(
        "cannot find giacomazzi/scenario1.toml: not under $AFSIM_SCENARIOS, the current "
        "directory, nor the installed package (reinstall afsim)")


# ---------------------------------------------------------------------------------------------
# From a run to the paper's numbers


def _mean_sent_kbps(flows: pd.DataFrame, end_s: float) -> float:
    """§V.B throughput: bits sent by each source over the whole run, mean over the sources."""
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


def _loss(colours: pd.DataFrame, queue: str, level: int) -> float:
    """Drops ÷ arrivals of one drop-precedence level at one queue; 0 when none arrived (the
    paper prints 0 where nothing was lost)."""
    drops, arrivals = _drops_and_arrivals(colours, queue, level)
    return drops / arrivals if arrivals else 0.0


def _loss_of_phb(colours: pd.DataFrame, queue: str, level: int, conditioners: pd.DataFrame,
                 pattern: str) -> float:
    """Drops of one level at one queue ÷ every packet the PHB's meters forwarded (green and
    yellow): the share of the PHB's packets lost as non-conformant at that router, the
    paper's P_nc,i. The paper does not define it; its own Table 3 does. RIO drops an OUT packet
    with a probability that depends on avg_q_tot alone, so downgraded and best-effort packets
    at the internal router are dropped alike, and in every row of Table 3 P_nc,ir / P_be,ir
    equals the PHB's non-conformant share (1 − RoS·r/throughput): only this denominator gives
    that."""
    drops, _ = _drops_and_arrivals(colours, queue, level)
    c = conditioners[conditioners["name"].str.fullmatch(pattern)]
    sent = int(c["green_packets"].sum()) + int(c["yellow_packets"].sum())
    return drops / sent if sent else 0.0


def _inb(conditioners: pd.DataFrame, pattern: str) -> float:
    """Input-buffer drops ÷ arrivals over the conditioners whose name matches ``pattern``."""
    c = conditioners[conditioners["name"].str.fullmatch(pattern)]
    matched = int(c["matched"].sum())
    return int(c["dropped_buffer"].sum()) / matched if matched else math.nan


def _alpha_mean(alpha: pd.DataFrame, csa: str, end_s: float) -> float:
    """Time-average of a CSA's α over the run (its trace holds every change)."""
    a = alpha[alpha["csa"] == csa].sort_values("time_s")
    if not len(a) or end_s <= 0:
        return math.nan
    t = list(a["time_s"]) + [end_s]
    v = list(a["alpha"])
    return sum(v[i] * max(0.0, t[i + 1] - t[i]) for i in range(len(v))) / end_s


def _group_metrics(prefix: str, flows: pd.DataFrame, end_s: float) -> dict[str, float]:
    ros = flows["respect_of_service"].astype(float)
    return {
        f"{prefix}throughput_kbps": _mean_sent_kbps(flows, end_s),
        f"{prefix}delivered_kbps": float(flows["throughput_kbps"].mean()),
        f"{prefix}goodput_kbps": float(flows["goodput_kbps"].astype(float).mean()),
        f"{prefix}ros_pct": 100.0 * float(ros.mean()) if ros.notna().any() else math.nan,
        f"{prefix}timeouts_per_flow": float(flows["timeouts"].astype(float).mean()),
        f"{prefix}flows": float(len(flows)),
    }


def scenario1_metrics(results: Results) -> dict[str, float]:
    """Table 2's columns (and a few more that explain them) from one scenario-1 run."""
    end = results.end_time_s
    f = results.flows
    m = _group_metrics("", f[f["group"] == "af"], end)
    backbone = "border1->border2"
    m["p_inb"] = _inb(results.conditioners, r"etb\d+")
    # rfc2597 colour table: AF11 (in profile) level 0, downgraded best effort level 2
    m["p_c_1"] = _loss(results.colours, backbone, 0)
    # compared: the PHB's share lost as non-conformant (see _loss_of_phb); kept beside it, the
    # probability that a downgraded packet is lost
    m["p_nc_1"] = _loss_of_phb(results.colours, backbone, 2, results.conditioners, r"etb\d+")
    m["p_nc_1_of_level"] = _loss(results.colours, backbone, 2)
    m["alpha_mean"] = _alpha_mean(results.alpha, "border1", end)
    q = results.queues[results.queues["name"] == backbone]
    m["backbone_utilisation"] = float(q["utilization"].iloc[0]) if len(q) else math.nan
    m["simulated_s"] = end
    return m


def scenario2_metrics(results: Results) -> dict[str, float]:
    """Table 3's columns from one scenario-2 run (levels as scenario2.toml's [diffserv]:
    AF11/AF31 0, AF12 1, AF32 2, best effort 3)."""
    end = results.end_time_s
    f, col = results.flows, results.colours
    br, ir = "border1->core", "core->border2"
    m: dict[str, float] = {}
    for prefix, group, etb, level in (("af1.", "af1_", r"etb1_\d+", 1), ("af3.", "af3_", r"etb3_\d+", 2)):
        m |= _group_metrics(prefix, f[f["group"] == group], end)
        m[f"{prefix}p_inb"] = _inb(results.conditioners, etb)
        # compared: the PHB's share lost as non-conformant (see _loss_of_phb); kept beside
        # it, the probability that a downgraded packet is lost
        m[f"{prefix}p_nc_br"] = _loss_of_phb(col, br, level, results.conditioners, etb)
        m[f"{prefix}p_nc_ir"] = _loss_of_phb(col, ir, level, results.conditioners, etb)
        m[f"{prefix}p_nc_br_of_level"] = _loss(col, br, level)
        m[f"{prefix}p_nc_ir_of_level"] = _loss(col, ir, level)
        # one IN level for both PHBs: the conformant losses are counted together
        m[f"{prefix}p_c_br"] = _loss(col, br, 0)
        m[f"{prefix}p_c_ir"] = _loss(col, ir, 0)
    be = f[f["group"] == "be_"]
    m["be.throughput_kbps"] = _mean_sent_kbps(be, end)
    m["be.delivered_kbps"] = float(be["throughput_kbps"].mean()) if len(be) else math.nan
    m["be.p_ir"] = _loss(col, ir, 3)
    m["be.p_be_br"] = _loss(col, "border_be->core", 3)
    m["alpha_mean.border1"] = _alpha_mean(results.alpha, "border1", end)
    m["alpha_mean.core"] = _alpha_mean(results.alpha, "core", end)
    q = results.queues[results.queues["name"] == ir]
    m["ir_utilisation"] = float(q["utilization"].iloc[0]) if len(q) else math.nan
    m["simulated_s"] = end
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
        "throughput is §V.B's: the bits each source sent over the whole run (retransmissions "
        "and packets lost later included) ÷ the simulated time, mean over the N_AF sources",
        "afsim's max_packets counts every packet generated, ACKs included, so 40 million "
        "packets here are about 20 million data segments",
        "fixed α: the CSA runs with min_α = max_α = α, so α never moves",
    )
    table2 = Experiment(
        "table2", "Table 2 and Figs. 7–8: scenario 1, α fixed at 0.4, 0.2, 0 or set by the CSA",
        s1,
        tuple(Point({"alpha": mode, "n_af": n}, _s1(n, mode)) for mode in ALPHA_MODES for n in N_AF),
        scenario1_metrics,
        s1_notes + ("P_nc,1: drops of downgraded packets at border1's RIO buffer towards "
                    "border2 ÷ all packets the buckets forwarded (the PHB's share lost as "
                    "non-conformant; the paper's own Table 3 implies this denominator, see "
                    "docs/assumptions.md); runs.csv also gives p_nc_1_of_level (÷ downgraded "
                    "arrivals only). P_c,1: drops ÷ arrivals of AF11 packets there",),
    )
    table2_continuous = Experiment(
        "table2_continuous",
        "Table 2 with continuous token credit: the points of Table 2 with token_clock = "
        "\"continuous\" instead of the scenario's \"periodic\" (an assumption, checked)",
        s1,
        tuple(Point(p.labels, {**dict(p.overrides), "token_clock": "continuous"}) for p in table2.points),
        scenario1_metrics,
        ("the same network, except that every token bucket credits its tokens continuously "
         "from its own start (each bucket with its own phase) instead of whole tokens on a "
         "clock shared from time 0",),
        variant_of=("table2", "continuous token credit"),
    )
    table3_points = []
    for case, (n_af, n_be) in CASES.items():
        for internal in (False, True):
            table3_points.append(Point(
                {"case": case, "internal_csa": internal},
                {"n_af1": str(math.ceil(n_af / 2)), "n_af3": str(n_af // 2), "n_be": str(n_be),
                 "alpha": "0.4", "min_alpha": "0.04",
                 "internal_min_alpha": "0.04" if internal else "0.4", **DEFAULTS}))
    table3 = Experiment(
        "table3", "Table 3: scenario 2, cases a–d, CSA in the internal router (IR) or not",
        s2, tuple(table3_points), scenario2_metrics,
        ("throughput as in scenario 1 (bits sent ÷ simulated time), mean over the PHB's sources",
         "P_nc,br and P_nc,ir: drops of the PHB's downgraded packets at that router ÷ all "
         "packets its buckets forwarded, as for P_nc,1; runs.csv also gives *_of_level",
         "P_c,br and P_c,ir: afsim counts in-profile losses of both AF PHBs at one IN level, so "
         "the AF_PHB_1 and AF_PHB_3 rows carry the same aggregate value",
         "best-effort sources are greedy TCP Reno sources like the AF ones (assumption); their "
         "'packet loss in the internal router' is the best-effort loss ratio at core → border2",
         "CSA not applied in the IR: the internal CSA runs with min_α = max_α = 0.4"),
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
    return (table2, table3, appendix_a, appendix_b, appendix_c, table2_continuous)


# ---------------------------------------------------------------------------------------------
# Claims


def _need(agg: Aggregates, exp: str, labels: Mapping[str, Any], metric: str,
          measured: dict[str, Any], name: str) -> float | None:
    v = agg.mean(exp, labels, metric)
    measured[name] = v if v is not None else math.nan
    return v


def _verdict(checks: Sequence[bool | None], measured: dict[str, Any], detail: str = "") -> ClaimResult:
    if not checks or any(c is None for c in checks):
        return ClaimResult(None, measured, "not every point it needs ran")
    return ClaimResult(all(checks), measured, detail)


def _fixed_alpha_exceeds_r(agg: Aggregates) -> ClaimResult:
    measured: dict[str, Any] = {}
    checks: list[bool | None] = []
    for a in ("0.4", "0.2"):
        for n in N_AF:
            if n * R_PHB2_KBPS * (1 + float(a)) < BACKBONE_KBPS:
                v = _need(agg, "table2", {"alpha": a, "n_af": n}, "throughput_kbps", measured,
                          f"thr α={a} N={n}")
                checks.append(None if v is None else v > R_PHB2_KBPS)
    return _verdict(checks, measured)


def _fixed_alpha_collapses(agg: Aggregates) -> ClaimResult:
    measured: dict[str, Any] = {}
    checks: list[bool | None] = []
    for a in ("0.4", "0.2"):
        thr = _need(agg, "table2", {"alpha": a, "n_af": 30}, "throughput_kbps", measured, f"thr α={a} N=30")
        ros = _need(agg, "table2", {"alpha": a, "n_af": 30}, "ros_pct", measured, f"RoS α={a} N=30")
        checks.append(None if thr is None else thr < R_PHB2_KBPS)
        checks.append(None if ros is None else 60.0 <= ros <= 80.0)
    return _verdict(checks, measured)


def _alpha_zero(agg: Aggregates) -> ClaimResult:
    measured: dict[str, Any] = {}
    checks: list[bool | None] = []
    for n in N_AF:
        thr = _need(agg, "table2", {"alpha": "0", "n_af": n}, "throughput_kbps", measured, f"thr N={n}")
        ros = _need(agg, "table2", {"alpha": "0", "n_af": n}, "ros_pct", measured, f"RoS N={n}")
        checks.append(None if thr is None else abs(thr - R_PHB2_KBPS) <= 0.02 * R_PHB2_KBPS)
        checks.append(None if ros is None else ros > 99.0)
    return _verdict(checks, measured)


def _csa_guarantees(agg: Aggregates) -> ClaimResult:
    measured: dict[str, Any] = {}
    checks: list[bool | None] = []
    for n in N_AF:
        thr = _need(agg, "table2", {"alpha": "CSA", "n_af": n}, "throughput_kbps", measured, f"thr N={n}")
        ros = _need(agg, "table2", {"alpha": "CSA", "n_af": n}, "ros_pct", measured, f"RoS N={n}")
        checks.append(None if thr is None else thr > R_PHB2_KBPS)
        checks.append(None if ros is None else ros > 98.0)
    return _verdict(checks, measured)


def _internal_csa_restores(agg: Aggregates) -> ClaimResult:
    measured: dict[str, Any] = {}
    checks: list[bool | None] = []
    for case in ("b", "d"):
        t0 = _need(agg, "table3", {"case": case, "internal_csa": False}, "af1.throughput_kbps", measured, f"{case}: thr without")
        t1 = _need(agg, "table3", {"case": case, "internal_csa": True}, "af1.throughput_kbps", measured, f"{case}: thr with")
        r0 = _need(agg, "table3", {"case": case, "internal_csa": False}, "af1.ros_pct", measured, f"{case}: RoS without")
        r1 = _need(agg, "table3", {"case": case, "internal_csa": True}, "af1.ros_pct", measured, f"{case}: RoS with")
        if None in (t0, t1, r0, r1):
            checks.append(None)
            continue
        assert t0 is not None and t1 is not None and r0 is not None and r1 is not None
        checks += [t0 < R_PHB1_KBPS, t1 >= R_PHB1_KBPS, r1 > r0, r1 >= 98.0]
    return _verdict(checks, measured)


def _best_effort_pays(agg: Aggregates) -> ClaimResult:
    measured: dict[str, Any] = {}
    checks: list[bool | None] = []
    for case in ("b", "d"):
        b0 = _need(agg, "table3", {"case": case, "internal_csa": False}, "be.throughput_kbps", measured, f"{case}: BE thr without")
        b1 = _need(agg, "table3", {"case": case, "internal_csa": True}, "be.throughput_kbps", measured, f"{case}: BE thr with")
        checks.append(None if b0 is None or b1 is None else b1 < b0)
    return _verdict(checks, measured)


def _sensitivity(experiment: str, label: str, settings: Sequence[Any]):
    def evaluate(agg: Aggregates) -> ClaimResult:
        measured: dict[str, Any] = {}
        checks: list[bool | None] = []
        for n in N_AF:
            thr = [agg.mean(experiment, {label: s, "n_af": n}, "throughput_kbps") for s in settings]
            ros = [agg.mean(experiment, {label: s, "n_af": n}, "ros_pct") for s in settings]
            if any(v is None for v in thr + ros):
                checks.append(None)
                continue
            t = [v for v in thr if v is not None]
            r = [v for v in ros if v is not None]
            spread_t = (max(t) - min(t)) / min(t)
            spread_r = max(r) - min(r)
            measured[f"N={n} thr spread %"] = 100.0 * spread_t
            measured[f"N={n} RoS spread pts"] = spread_r
            checks += [spread_t <= 0.05, spread_r <= 2.0]
        return _verdict(checks, measured)
    return evaluate


@cache
def _paper_table2_throughput() -> dict[tuple[str, int], float]:
    doc = json.loads(DATA.read_text(encoding="utf-8"))
    return {(v["point"]["alpha"], v["point"]["n_af"]): float(v["value"]) for v in doc["values"]
            if v["table"] == "Table 2" and v["metric"] == "throughput_kbps"}


def _token_bucket_points(agg: Aggregates) -> ClaimResult:
    paper = _paper_table2_throughput()
    measured: dict[str, Any] = {}
    checks: list[bool | None] = []
    points = [(a, n) for a in ALPHA_MODES for n in (10, 15)] + [("0", n) for n in (20, 25, 30)]
    for a, n in points:
        v = agg.mean("table2", {"alpha": a, "n_af": n}, "throughput_kbps")
        p = paper[(a, n)]
        if v is None:
            checks.append(None)
            continue
        rel = (v - p) / p
        measured[f"α={a} N={n} diff %"] = 100.0 * rel
        checks.append(abs(rel) <= 0.03)
    return _verdict(checks, measured)


CLAIMS = (
    Claim("fixed-alpha-exceeds-r",
          "With a fixed α > 0, throughput exceeds r while the backbone is not saturated (§V.C).",
          "α = 0.2 and 0.4, every N_AF with N_AF·r·(1 + α) < 30.792 Mb/s: throughput > 1000 kb/s",
          _fixed_alpha_exceeds_r),
    Claim("fixed-alpha-collapses",
          "With a fixed α > 0, throughput and RoS collapse at N_AF = 30: RoS drops to about 70 % "
          "(§V.C, Fig. 8).",
          "α = 0.2 and 0.4 at N_AF = 30: throughput < 1000 kb/s and 60 % ≤ RoS ≤ 80 %",
          _fixed_alpha_collapses),
    Claim("alpha-zero-holds-r",
          "With α = 0, throughput stays at the provisioned 1000 kb/s and RoS above 99 % (§V.C).",
          "α = 0, every N_AF: |throughput − 1000| ≤ 20 kb/s and RoS > 99 %",
          _alpha_zero),
    Claim("csa-guarantees-r",
          "With the CSA, throughput is always above r and RoS always above 98 % (§V.C).",
          "CSA, every N_AF: throughput > 1000 kb/s and RoS > 98 %",
          _csa_guarantees),
    Claim("internal-csa-restores-phb1",
          "In scenario 2, the internal router's CSA restores AF_PHB_1's throughput and RoS in "
          "cases b and d (§V.D, Table 3).",
          "cases b and d: AF_PHB_1 throughput < 1600 kb/s without the IR's CSA and ≥ 1600 kb/s "
          "with it; RoS higher with it, and ≥ 98 %",
          _internal_csa_restores),
    Claim("best-effort-pays",
          "In scenario 2, best effort pays for it: its throughput falls when the internal router "
          "runs the CSA (Table 3, cases b and d).",
          "cases b and d: best-effort throughput with the IR's CSA < without",
          _best_effort_pays),
    Claim("timers-insensitive",
          "Throughput and RoS do not significantly depend on T1 and T2 (Appendix A).",
          "every N_AF: across the four timer settings, throughput spread ≤ 5 % and RoS spread "
          "≤ 2 points",
          _sensitivity("appendix_a", "timers", TIMERS)),
    Claim("b2-insensitive",
          "Throughput and RoS do not significantly depend on b2 (Appendix B).",
          "every N_AF: across b2 = 1 … 5, throughput spread ≤ 5 % and RoS spread ≤ 2 points",
          _sensitivity("appendix_b", "b2", B2_VALUES)),
    Claim("buffer-insensitive",
          "Throughput and RoS do not significantly depend on B (Appendix C).",
          "every N_AF: across B = 80 … 150, throughput spread ≤ 5 % and RoS spread ≤ 2 points",
          _sensitivity("appendix_c", "buffer", BUFFERS)),
    Claim("token-bucket-points-match",
          "The token-bucket-limited points (every α at N_AF = 10 and 15, and α = 0 everywhere) "
          "match the paper's throughput within a few percent.",
          "those 11 points of Table 2: |afsim − paper| ≤ 3 % of the paper's throughput",
          _token_bucket_points),
)

FIGURES = (
    Figure("fig7_throughput", "Fig. 7: throughput versus number of AF sources (scenario 1)",
           "table2", "throughput_kbps", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="throughput per source (kbit/s)", reference=(R_PHB2_KBPS, "r = 1000 kbit/s"),
           series_name="α"),
    Figure("fig8_ros", "Fig. 8: Respect of Service versus number of AF sources (scenario 1)",
           "table2", "ros_pct", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="Respect of Service (%)", series_name="α"),
    Figure("fig7_throughput_continuous",
           "Fig. 7 with continuous token credit (experiment table2_continuous)",
           "table2_continuous", "throughput_kbps", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="throughput per source (kbit/s)", reference=(R_PHB2_KBPS, "r = 1000 kbit/s"),
           series_name="α"),
    Figure("fig8_ros_continuous",
           "Fig. 8 with continuous token credit (experiment table2_continuous)",
           "table2_continuous", "ros_pct", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="Respect of Service (%)", series_name="α"),
)


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, claims, figures and published values."""
    return Paper(PAPER_ID, TITLE, CITATION, experiments(scenarios_dir), CLAIMS, FIGURES, DATA)


def mode(quick: bool, max_packets: int | None = None, replications: int | None = None) -> Mode:
    """Full (the paper's 40 million packets) or quick mode, optionally with another budget or
    number of replications; a budget below the paper's is always reported as reduced."""
    base = QUICK if quick else FULL
    return Mode(base.name, max_packets or base.max_packets, replications or base.replications,
                base.base_seed, base.paper_packets)
