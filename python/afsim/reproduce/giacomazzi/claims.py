"""giacomazzi: the claims — each a test of the paper's statements (statements.toml) on a reading's
numbers; ``STATEMENTS`` joins the two."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from afsim.reproduce.claims import (
    Checks,
    ClaimResult,
    Statement,
    claim,
    ge,
    gt,
    le,
    load_statements,
    lt,
)
from afsim.reproduce.core import View
from afsim.reproduce.giacomazzi.paper import (
    B1_VALUES,
    B2_VALUES,
    BACKBONE_KBPS,
    BUFFERS,
    CASES,
    HIGH_ROS,
    INSIGNIFICANT_ROS,
    INSIGNIFICANT_THR,
    N_AF,
    NEGLIGIBLE_FACTOR,
    R_PHB1_KBPS,
    R_PHB2_KBPS,
    R_PHB3_KBPS,
    SATISFACTORY_ROS,
    TIMERS,
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


@claim
def _csa_rate_everywhere(c: Checks) -> None:
    """CSA: every source above r at every N_AF (scenario 1) and every PHB above its rate in
    every case with the CSA in the internal router (scenario 2)."""
    for n in N_AF:
        c.that(gt(_thr(c, "CSA", n), R_PHB2_KBPS))
    for case in CASES:
        c.that(ge(_t3(c, case, True, "af1.throughput_kbps"), R_PHB1_KBPS))
        c.that(ge(_t3(c, case, True, "af3.throughput_kbps"), R_PHB3_KBPS))


@claim
def _fixed_alpha_poor_at_load(c: Checks) -> None:
    for a in ("0.4", "0.2"):
        c.that(lt(_thr(c, a, 30), R_PHB2_KBPS))
        c.that(lt(_ros(c, a, 30), HIGH_ROS))


@claim
def _csa_rate_scenario1(c: Checks) -> None:
    for n in N_AF:
        c.that(gt(_thr(c, "CSA", n), R_PHB2_KBPS))


@claim
def _csa_ros_scenario1(c: Checks) -> None:
    for n in N_AF:
        c.that(gt(_ros(c, "CSA", n), SATISFACTORY_ROS))


@claim
def _csa_degrades_less(c: Checks) -> None:
    # the degradation is of RoS where the fixed α still wins throughput (N_AF = 25), and of
    # both where it collapses (N_AF = 30)
    for n in (25, 30):
        c.that(gt(_ros(c, "CSA", n), _ros(c, "0.4", n)))
    c.that(gt(_thr(c, "CSA", 30), _thr(c, "0.4", 30)))


@claim
def _csa_fairer(c: Checks) -> None:
    for n in (25, 30):
        j_csa = c.mean(f"Jain CSA N={n}", T2, _p2("CSA", n), "jain")
        j_fix = c.mean(f"Jain 0.4 N={n}", T2, _p2("0.4", n), "jain")
        c.that(ge(j_csa, j_fix))


@claim
def _out_loss_hurts_despite_room_for_in(c: Checks) -> None:
    # at N_AF = 30 the in-profile load, 30 × 1000 kb/s, fits the 30.792 Mb/s link
    for a in ("0.4", "0.2"):
        c.that(lt(_ros(c, a, 30), HIGH_ROS))


@claim
def _downgraded_share_matters(c: Checks) -> None:
    r0 = _ros(c, "0", 30)
    for a in ("0.4", "0.2"):
        r = _ros(c, a, 30)
        c.that(None if r is None or r0 is None else r < r0 - INSIGNIFICANT_ROS)


@claim
def _out_lost_more_than_in(c: Checks) -> None:
    for a in ("0.4", "0.2"):
        out = c.mean(f"P_nc,1 of level {a} N=30", T2, _p2(a, 30), "p_nc_1_of_level")
        in_ = c.mean(f"P_c,1 {a} N=30", T2, _p2(a, 30), "p_c_1")
        c.that(gt(out, in_))
        c.that(c.seen(f"P_nc,1 of level {a} N=30", T2, _p2(a, 30), "p_nc_1_of_level"))


@claim
def _alpha0_rate(c: Checks) -> None:
    thr = [_thr(c, "0", n) for n in N_AF]
    for t in thr:
        c.that(None if t is None else abs(t - R_PHB2_KBPS) <= INSIGNIFICANT_THR * R_PHB2_KBPS)
    if all(t is not None for t in thr):
        ts = [t for t in thr if t is not None]
        c.that((max(ts) - min(ts)) <= INSIGNIFICANT_THR * min(ts))


@claim
def _alpha0_ros(c: Checks) -> None:
    for n in N_AF:
        c.that(gt(_ros(c, "0", n), 99.0))


@claim
def _alpha0_input_buffer_limits(c: Checks) -> None:
    for n in N_AF:
        c.that(c.seen(f"P_inb 0 N={n}", T2, _p2("0", n), "p_inb"))


def _small_n_above_r(a: str) -> Callable[[View], ClaimResult]:
    @claim
    def f(c: Checks) -> None:
        for n in (10, 15):
            c.that(gt(_thr(c, a, n), R_PHB2_KBPS))
    return f


def _small_n_input_buffer(a: str) -> Callable[[View], ClaimResult]:
    @claim
    def f(c: Checks) -> None:
        for n in (10, 15):
            c.that(c.seen(f"P_inb {a} N={n}", T2, _p2(a, n), "p_inb"))
    return f


@claim
def _alpha02_below_r_at_30(c: Checks) -> None:
    c.that(lt(_thr(c, "0.2", 30), R_PHB2_KBPS))


@claim
def _alpha02_ros_70(c: Checks) -> None:
    r = _ros(c, "0.2", 30)
    c.that(None if r is None else 65.0 <= r <= 75.0)


def _heavy_rio_loss(a: str) -> Callable[[View], ClaimResult]:
    @claim
    def f(c: Checks) -> None:
        p20 = c.mean(f"P_nc,1 {a} N=20", T2, _p2(a, 20), "p_nc_1")
        p30 = c.mean(f"P_nc,1 {a} N=30", T2, _p2(a, 30), "p_nc_1")
        c.that(c.seen(f"P_nc,1 {a} N=30", T2, _p2(a, 30), "p_nc_1"))
        c.that(None if p20 is None or p30 is None else p30 > NEGLIGIBLE_FACTOR * p20)
    return f


@claim
def _alpha04_same_phenomena(c: Checks) -> None:
    for n in (10, 15):
        c.that(gt(_thr(c, "0.4", n), R_PHB2_KBPS))
        c.that(c.seen(f"P_inb 0.4 N={n}", T2, _p2("0.4", n), "p_inb"))
    c.that(lt(_thr(c, "0.4", 30), R_PHB2_KBPS))
    p20 = c.mean("P_nc,1 0.4 N=20", T2, _p2("0.4", 20), "p_nc_1")
    p30 = c.mean("P_nc,1 0.4 N=30", T2, _p2("0.4", 30), "p_nc_1")
    c.that(None if p20 is None or p30 is None else p30 > NEGLIGIBLE_FACTOR * p20)


@claim
def _alpha04_degrades_more(c: Checks) -> None:
    rs = [_ros(c, "0.4", n) for n in (15, 20, 25, 30)]
    for a, b in zip(rs, rs[1:], strict=False):
        c.that(None if a is None or b is None else b <= a + INSIGNIFICANT_ROS)
    for n in (20, 25, 30):
        r4, r2 = _ros(c, "0.4", n), _ros(c, "0.2", n)
        c.that(None if r4 is None or r2 is None else r4 <= r2 + INSIGNIFICANT_ROS)


@claim
def _fixed_alpha_exceeds_r_unsaturated(c: Checks) -> None:
    for a in ("0.4", "0.2"):
        for n in N_AF:
            if _unsaturated(n, float(a)):
                c.that(gt(_thr(c, a, n), R_PHB2_KBPS))


@claim
def _csa_rio_loss_grows(c: Checks) -> None:
    for n in (25, 30):
        c.that(c.seen(f"P_nc,1 CSA N={n}", T2, _p2("CSA", n), "p_nc_1"))
    p = [c.mean(f"P_nc,1 CSA N={n}", T2, _p2("CSA", n), "p_nc_1") for n in (20, 25, 30)]
    c.that(None if None in p else p[0] <= p[1] <= p[2])  # type: ignore[operator]


@claim
def _csa_thr_and_pinb_fall(c: Checks) -> None:
    t = [_thr(c, "CSA", n) for n in (20, 25, 30)]
    p = [c.mean(f"P_inb CSA N={n}", T2, _p2("CSA", n), "p_inb") for n in (20, 25, 30)]
    c.that(None if None in t else t[0] >= t[1] >= t[2])  # type: ignore[operator]
    c.that(None if None in p else p[0] >= p[1] >= p[2])  # type: ignore[operator]


@claim
def _csa_ros_does_not_fall(c: Checks) -> None:
    base = _ros(c, "CSA", 15)
    for n in (20, 25, 30):
        r = _ros(c, "CSA", n)
        c.that(None if r is None or base is None else r >= base - INSIGNIFICANT_ROS)


@claim
def _csa_leaves_excess_at_20(c: Checks) -> None:
    t_csa, t_04 = _thr(c, "CSA", 20), _thr(c, "0.4", 20)
    c.that(None if t_csa is None or t_04 is None else t_csa < t_04 * (1 - INSIGNIFICANT_THR))
    c.that(None if t_csa is None else 20 * t_csa < BACKBONE_KBPS)


@claim
def _case_a_no_congestion(c: Checks) -> None:
    for internal in (False, True):
        c.that(le(_t3(c, "a", internal, "core.congested_share"), 0.05))
        c.that(le(_t3(c, "a", internal, "border1.congested_share"), 0.05))


@claim
def _case_a_above_target(c: Checks) -> None:
    for internal in (False, True):
        c.that(gt(_t3(c, "a", internal, "af1.throughput_kbps"), R_PHB1_KBPS))
        c.that(gt(_t3(c, "a", internal, "af3.throughput_kbps"), R_PHB3_KBPS))


@claim
def _case_a_ros_high(c: Checks) -> None:
    for internal in (False, True):
        for p in ("af1.", "af3."):
            c.that(ge(_t3(c, "a", internal, p + "ros_pct"), HIGH_ROS))


@claim
def _case_a_ir_negligible(c: Checks) -> None:
    for p in ("af1.", "af3."):
        t0, t1 = _t3(c, "a", False, p + "throughput_kbps"), _t3(c, "a", True, p + "throughput_kbps")
        r0, r1 = _t3(c, "a", False, p + "ros_pct"), _t3(c, "a", True, p + "ros_pct")
        c.that(None if t0 is None or t1 is None else abs(t1 - t0) <= INSIGNIFICANT_THR * t0)
        c.that(None if r0 is None or r1 is None else abs(r1 - r0) <= INSIGNIFICANT_ROS)


@claim
def _case_b_border_loss_low(c: Checks) -> None:
    for p in ("af1.", "af3."):
        c.that(lt(_t3(c, "b", False, p + "p_nc_br"), _t3(c, "b", False, p + "p_nc_ir")))


@claim
def _case_b_phb1_not_guaranteed(c: Checks) -> None:
    c.that(lt(_t3(c, "b", False, "af1.throughput_kbps"), R_PHB1_KBPS))


@claim
def _case_b_ir_losses(c: Checks) -> None:
    c.that(c.seen("b without: P_c,ir", T3, _p3("b", False), "af1.p_c_ir"))
    c.that(c.seen("b without: P_nc,ir AF_PHB_1", T3, _p3("b", False), "af1.p_nc_ir"))
    c.that(gt(_t3(c, "b", False, "af1.p_nc_ir"), _t3(c, "b", False, "af1.p_nc_br")))
    c.that(lt(_t3(c, "b", False, "af1.ros_pct"), HIGH_ROS))


@claim
def _case_b_ir_csa_guarantees(c: Checks) -> None:
    c.that(ge(_t3(c, "b", True, "af1.throughput_kbps"), R_PHB1_KBPS))
    c.that(ge(_t3(c, "b", True, "af3.throughput_kbps"), R_PHB3_KBPS))


@claim
def _case_b_ros_99(c: Checks) -> None:
    for p in ("af1.", "af3."):
        c.that(gt(_t3(c, "b", True, p + "ros_pct"), 99.0))


@claim
def _case_c_significant_ir_loss(c: Checks) -> None:
    for p in ("af1.", "af3."):
        pa, pc = _t3(c, "a", False, p + "p_nc_ir"), _t3(c, "c", False, p + "p_nc_ir")
        c.that(c.seen(f"c without: P_nc,ir {p}", T3, _p3("c", False), p + "p_nc_ir"))
        c.that(None if pa is None or pc is None else pc > NEGLIGIBLE_FACTOR * pa)


@claim
def _case_c_phb1_rate_but_low_ros(c: Checks) -> None:
    c.that(ge(_t3(c, "c", False, "af1.throughput_kbps"), R_PHB1_KBPS))
    c.that(lt(_t3(c, "c", False, "af1.ros_pct"), HIGH_ROS))


@claim
def _case_c_ir_csa(c: Checks) -> None:
    c.that(ge(_t3(c, "c", True, "af1.throughput_kbps"), R_PHB1_KBPS))
    c.that(ge(_t3(c, "c", True, "af3.throughput_kbps"), R_PHB3_KBPS))
    for p in ("af1.", "af3."):
        c.that(ge(_t3(c, "c", True, p + "ros_pct"), HIGH_ROS))


@claim
def _case_d_congestion_both(c: Checks) -> None:
    c.that(c.seen("d without: P_nc,br AF_PHB_1", T3, _p3("d", False), "af1.p_nc_br"))
    c.that(c.seen("d without: P_nc,ir AF_PHB_1", T3, _p3("d", False), "af1.p_nc_ir"))


@claim
def _case_d_unfair(c: Checks) -> None:
    c.that(ge(_t3(c, "d", False, "af3.throughput_kbps"), R_PHB3_KBPS))
    c.that(lt(_t3(c, "d", False, "af1.throughput_kbps"), R_PHB1_KBPS))


@claim
def _case_d_ros_poor(c: Checks) -> None:
    r1, r3 = _t3(c, "d", False, "af1.ros_pct"), _t3(c, "d", False, "af3.ros_pct")
    c.that(lt(r1, HIGH_ROS))
    c.that(lt(r3, HIGH_ROS))
    c.that(lt(r1, r3))


@claim
def _case_d_ir_csa(c: Checks) -> None:
    c.that(ge(_t3(c, "d", True, "af1.throughput_kbps"), R_PHB1_KBPS))
    c.that(ge(_t3(c, "d", True, "af3.throughput_kbps"), R_PHB3_KBPS))
    for p in ("af1.", "af3."):
        c.that(ge(_t3(c, "d", True, p + "ros_pct"), HIGH_ROS))


@claim
def _ir_congestion_hurts(c: Checks) -> None:
    for case in ("b", "d"):
        c.that(gt(_t3(c, case, False, "af1.p_nc_ir_of_level"), _t3(c, case, False, "af1.p_c_ir")))
        c.that(lt(_t3(c, case, False, "af1.ros_pct"), HIGH_ROS))


@claim
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


#: Each claim's test, under its statement's id (the statements: statements.toml).
EVALUATE: dict[str, Callable[[View], ClaimResult]] = {
    "abs-rate": _csa_rate_everywhere,
    "intro-degradation-lower": _csa_degrades_less,
    "intro-fairness": _csa_fairer,
    "intro-poor-performance": _out_loss_hurts_despite_room_for_in,
    "ctrl-poor-if-not-low": _downgraded_share_matters,
    "ctrl-out-lost-more": _out_lost_more_than_in,
    "rem-high-loss": _ir_congestion_hurts,
    "pa-poor": _fixed_alpha_poor_at_load,
    "gs-b1": _insensitive("b1", "b1", B1_VALUES),
    "s1-a0-rate": _alpha0_rate,
    "s1-a0-ros": _alpha0_ros,
    "s1-a0-inb": _alpha0_input_buffer_limits,
    "s1-a02-above": _small_n_above_r("0.2"),
    "s1-a02-inb": _small_n_input_buffer("0.2"),
    "s1-a02-below": _alpha02_below_r_at_30,
    "s1-a02-ros70": _alpha02_ros_70,
    "s1-a02-heavy-loss": _heavy_rio_loss("0.2"),
    "s1-a04-same": _alpha04_same_phenomena,
    "s1-a04-degrades": _alpha04_degrades_more,
    "s1-fixed-above": _fixed_alpha_exceeds_r_unsaturated,
    "s1-fixed-decrease": _fixed_alpha_poor_at_load,
    "s1-csa-rate": _csa_rate_scenario1,
    "s1-csa-ros": _csa_ros_scenario1,
    "s1-csa-rio-loss": _csa_rio_loss_grows,
    "s1-csa-thr-inb-fall": _csa_thr_and_pinb_fall,
    "s1-csa-ros-holds": _csa_ros_does_not_fall,
    "s1-csa-excess": _csa_leaves_excess_at_20,
    "s2-a-no-congestion": _case_a_no_congestion,
    "s2-a-above": _case_a_above_target,
    "s2-a-ros-high": _case_a_ros_high,
    "s2-a-negligible": _case_a_ir_negligible,
    "s2-b-border-low": _case_b_border_loss_low,
    "s2-b-not-guaranteed": _case_b_phb1_not_guaranteed,
    "s2-b-ir-loss": _case_b_ir_losses,
    "s2-b-guaranteed": _case_b_ir_csa_guarantees,
    "s2-b-ros99": _case_b_ros_99,
    "s2-c-significant": _case_c_significant_ir_loss,
    "s2-c-rate-low-ros": _case_c_phb1_rate_but_low_ros,
    "s2-c-ir-csa": _case_c_ir_csa,
    "s2-d-congestion": _case_d_congestion_both,
    "s2-d-unfair": _case_d_unfair,
    "s2-d-ros-poor": _case_d_ros_poor,
    "s2-d-ir-csa": _case_d_ir_csa,
    "appa": _insensitive("appendix_a", "timers", TIMERS),
    "appb": _insensitive("appendix_b", "b2", B2_VALUES),
    "appc": _insensitive("appendix_c", "buffer", BUFFERS),
    "conc-ros-100": _ros_near_100_in_congestion,
}

#: Every statement of the paper, in its order, each claim with its test.
STATEMENTS: tuple[Statement, ...] = load_statements(Path(__file__).with_name("statements.toml"), EVALUATE)
