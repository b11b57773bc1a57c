"""laatu: the claims — each a test of the paper's statements (statements.toml) on a reading's
numbers; ``STATEMENTS`` joins the two."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from afsim.reproduce.claims import Checks, ClaimResult, Statement, claim, gt, load_statements, lt
from afsim.reproduce.core import Stat, View
from afsim.reproduce.laatu.paper import (
    DP4_MBPS,
    INSIGNIFICANT_RTT,
    INSIGNIFICANT_RTT_DEV,
    INSIGNIFICANT_THR,
    INSIGNIFICANT_TIME,
    LEFT_FOR_DP4_KBPS,
    LINK_MBPS,
    NBRS,
    SEGMENT_B,
    T1OFF,
    T1ON,
    T2,
    T3,
    TABLE1_NBR_KBPS,
    TABLE3_FLOWS,
    TABLE3_NBR_KBPS,
)

# ---------------------------------------------------------------------------------------------
# Statements


def _off(b: float) -> dict[str, float]:
    return {"background_mbps": b}


def _nbr(n: int) -> dict[str, int]:
    return {"nbr_kbps": n}


ON0: dict[str, float] = {"background_mbps": 0}
FOUR: dict[str, int] = {"flows": TABLE3_FLOWS}
LOADED = (8.5, 9.6, 9.7)


def _t2(c: Checks, n: int, metric: str) -> float | None:
    return c.mean(f"NBR {n}: {metric}", T2, _nbr(n), metric)


def _be(c: Checks, b: float, metric: str) -> float | None:
    return c.mean(f"off {b}: {metric}", T1OFF, _off(b), metric)


def _t3(c: Checks, metric: str) -> float | None:
    return c.mean(f"four flows: {metric}", T3, FOUR, metric)


def _ci(c: Checks, experiment: str, labels: Mapping[str, Any], metric: str) -> float:
    """The 95 % half-width of a reading's value, 0 where it has none (one run, the paper, the
    null model)."""
    s: Stat | None = c.view.stat(experiment, labels, metric)
    return s.ci95 if s is not None and s.n > 1 and math.isfinite(s.ci95) else 0.0


def _completes(c: Checks, experiment: str, labels: Mapping[str, Any], tag: str) -> bool | None:
    """Whether every replication completed. A reading without the count (the paper's numbers)
    completed where it prints a transfer time."""
    share = c.view.mean(experiment, labels, "completed")
    if share is not None:
        c.measured[f"{tag}: completed share"] = share
        return share >= 1.0
    return c.mean(f"{tag}: transfer_time_s", experiment, labels, "transfer_time_s") is not None


def _between(x: float | None, lo: float, hi: float) -> bool | None:
    return None if x is None else lo <= x < hi


@claim
def _sima_rtt_lower(c: Checks) -> None:
    # §3.2: "The larger the RTT, the more time is needed to recover after a packet loss. That's
    # why we were also interested to see if this effect is diminished by the use of our DS scheme."
    sima = [_t2(c, n, "rtt_mean_ms") for n in NBRS]
    best = [_be(c, b, "rtt_mean_ms") for b in LOADED]
    if None in sima or None in best:
        c.that(None)
        return
    s = sum(x for x in sima if x is not None) / len(sima)
    b = sum(x for x in best if x is not None) / len(best)
    c.measured["SIMA mean RTT over NBRs"] = s
    c.measured["best-effort mean RTT over loads"] = b
    c.that(s < b * (1 - INSIGNIFICANT_RTT))


@claim
def _ca_with_sima(c: Checks) -> None:
    s = _t2(c, 1600, "ca_share")
    c.that(gt(s, 0.5))
    c.that(gt(s, _be(c, 8.5, "ca_share")))


@claim
def _light_vs_congested(c: Checks) -> None:
    thr = c.mean("on, no background: throughput_mbps", T1ON, ON0, "throughput_mbps")
    c.that(None if thr is None else 1000.0 * thr > TABLE1_NBR_KBPS)
    rx = c.mean("on, no background: rexmt_bytes", T1ON, ON0, "rexmt_bytes")
    c.that(None if rx is None else rx == 0)
    for n in NBRS:
        c.that(gt(_t2(c, n, "rexmt_bytes"), 0.0))


def _non_increasing(c: Checks, values: Sequence[float | None], cis: Sequence[float],
                    slack: float) -> None:
    """Each step down, or up by at most ``slack`` plus the larger of the two 95 % half-widths."""
    for k in range(1, len(values)):
        a, b = values[k - 1], values[k]
        c.that(None if a is None or b is None else b <= a + slack + max(cis[k - 1], cis[k]))


@claim
def _rexmt_falls_with_nbr(c: Checks) -> None:
    r = [_t2(c, n, "rexmt_bytes") for n in NBRS]
    _non_increasing(c, r, [_ci(c, T2, _nbr(n), "rexmt_bytes") for n in NBRS], SEGMENT_B)
    c.that(lt(r[-1], r[0]))


#: The largest DP 4 loss Table II implies: 502.6 kb/s of 8500 (NBR 1000).
MAX_DP4_LOSS = 502.6 / 8500.0


@claim
def _dp4_accepted(c: Checks) -> None:
    for n in NBRS:
        c.that(None if (x := _t2(c, n, "bg4_loss")) is None else x <= MAX_DP4_LOSS)
        c.that(gt(_t2(c, n, "low_loss"), 0.5))


@claim
def _not_depending_on_qos(c: Checks) -> None:
    for metric, tol in (("throughput_mbps", INSIGNIFICANT_THR), ("transfer_time_s", INSIGNIFICANT_TIME),
                        ("rtt_mean_ms", INSIGNIFICANT_RTT), ("rtt_dev_ms", INSIGNIFICANT_RTT_DEV)):
        off = c.mean(f"off, no background: {metric}", T1OFF, _off(0), metric)
        on = c.mean(f"on, no background: {metric}", T1ON, ON0, metric)
        c.that(None if off is None or on is None else abs(on - off) <= tol * min(on, off))
    off = c.mean("off, no background: rexmt_bytes", T1OFF, _off(0), "rexmt_bytes")
    on = c.mean("on, no background: rexmt_bytes", T1ON, ON0, "rexmt_bytes")
    c.that(None if off is None or on is None else off == on)


@claim
def _no_bandwidth_at_capacity(c: Checks) -> None:
    done = c.mean("off 10: completed", T1OFF, _off(10), "completed")
    c.that(None if done is None else done == 0)
    thr = _be(c, 10, "throughput_mbps")
    c.that(None if thr is None else thr < 0.005)


@claim
def _mostly_below_dp4(c: Checks) -> None:
    thr = c.mean("on, no background: throughput_mbps", T1ON, ON0, "throughput_mbps")
    c.that(None if thr is None else 1000.0 * thr > TABLE1_NBR_KBPS)
    c.that(gt(c.mean("on, no background: dp_below4_share", T1ON, ON0, "dp_below4_share"), 0.5))


#: "almost all its packets": the paper's own figure for DP 4 UDP under SIMA (§4.2, "98 percents").
ALMOST_ALL_LOSS = 0.02


@claim
def _udp_takes_over(c: Checks) -> None:
    thr = [_be(c, b, "throughput_mbps") for b in LOADED]
    for b, t in zip(LOADED, thr, strict=True):
        c.that(None if (x := _be(c, b, "bg_loss")) is None else x <= ALMOST_ALL_LOSS)
        c.that(None if t is None else t < LINK_MBPS - b)
    c.that(None if None in thr else thr[0] > thr[1] > thr[2])  # type: ignore[operator]


@claim
def _below_nbr_everywhere(c: Checks) -> None:
    for n in NBRS:
        c.that(lt(_t2(c, n, "throughput_kbps"), float(n)))


@claim
def _nbr400_low_and_dp4_through(c: Checks) -> None:
    t400 = _t2(c, 400, "throughput_kbps")
    for n in NBRS[1:]:
        c.that(lt(t400, _t2(c, n, "throughput_kbps")))
    red = _t2(c, 400, "bg4_reduction_kbps")
    through = None if red is None else 100.0 * (1.0 - red / (1000.0 * DP4_MBPS))
    c.measured["NBR 400: DP 4 delivered %"] = through if through is not None else math.nan
    c.that(_between(through, 97.5, 98.5))


@claim
def _much_less_than_available(c: Checks) -> None:
    for n in NBRS:
        c.that(lt(_t2(c, n, "throughput_kbps"), LEFT_FOR_DP4_KBPS / 2))


@claim
def _too_many_low_dp(c: Checks) -> None:
    low = _t2(c, 400, "dp_below4_share")
    c.that(gt(low, 0.5))
    c.that(gt(low, _t2(c, 1600, "dp_below4_share")))


@claim
def _nbr1600_few_rexmt(c: Checks) -> None:
    r = _t2(c, 1600, "rexmt_bytes")
    for n in NBRS:
        if n < 1600:
            c.that(lt(r, _t2(c, n, "rexmt_bytes")))


@claim
def _high_nbr_more_above4(c: Checks) -> None:
    c.that(gt(_t2(c, 1600, "dp_above4_share"), _t2(c, 400, "dp_above4_share")))


@claim
def _too_high_nbr_burst(c: Checks) -> None:
    c.that(gt(_t2(c, 1800, "dp6_share"), 0.5))
    c.that(gt(_t2(c, 1800, "first_second_packets"), _t2(c, 1600, "first_second_packets")))


@claim
def _rtt_ranges(c: Checks) -> None:
    for n in NBRS:
        c.that(_between(_t2(c, n, "rtt_mean_ms"), 44.0, 180.0 + 1e-9))
    for b in LOADED:
        c.that(_between(_be(c, b, "rtt_mean_ms"), 165.0, 265.0))


@claim
def _rtt_varies_at_extremes(c: Checks) -> None:
    middle = [_t2(c, n, "rtt_dev_ms") for n in (1000, 1200, 1400)]
    top = None if None in middle else max(x for x in middle if x is not None)
    for n in (600, 1800):
        c.that(gt(_t2(c, n, "rtt_dev_ms"), top))


@claim
def _none_reaches_share(c: Checks) -> None:
    for k in range(1, TABLE3_FLOWS + 1):
        c.that(lt(_t3(c, f"flow{k}.throughput_kbps"), TABLE3_NBR_KBPS / TABLE3_FLOWS))


def _aggregate(c: Checks, metric: str) -> float | None:
    parts = [_t3(c, f"flow{k}.{metric}") for k in range(1, TABLE3_FLOWS + 1)]
    return None if None in parts else sum(x for x in parts if x is not None)


@claim
def _aggregate_above_single(c: Checks) -> None:
    total = _aggregate(c, "throughput_kbps")
    single = _t2(c, TABLE3_NBR_KBPS, "throughput_kbps")
    c.measured["four flows: aggregate kbps"] = total if total is not None else math.nan
    c.that(None if total is None or single is None else total > single * (1 + INSIGNIFICANT_THR))


@claim
def _parallel_more_rexmt(c: Checks) -> None:
    total = _aggregate(c, "throughput_kbps")
    single = _t2(c, TABLE3_NBR_KBPS, "throughput_kbps")
    c.that(None if total is None or single is None else total > single * (1 + INSIGNIFICANT_THR))
    rx = _aggregate(c, "rexmt_bytes")
    c.measured["four flows: retransmitted bytes together"] = rx if rx is not None else math.nan
    c.that(gt(rx, _t2(c, TABLE3_NBR_KBPS, "rexmt_bytes")))


@claim
def _parallel_rtt_varies_more(c: Checks) -> None:
    devs = [_t3(c, f"flow{k}.rtt_dev_ms") for k in range(1, TABLE3_FLOWS + 1)]
    top = None if None in devs else max(x for x in devs if x is not None)
    c.that(gt(top, _t2(c, TABLE3_NBR_KBPS, "rtt_dev_ms")))


#: "unfairly": the paper gives no threshold (its own split is 139.0 / 79.5 = 1.75); afsim's:
#: the fastest flow's bandwidth at least a quarter above the slowest's.
UNFAIR_RATIO = 1.25


@claim
def _unfair_split(c: Checks) -> None:
    hi, lo = _t3(c, "flow1.throughput_kbps"), _t3(c, f"flow{TABLE3_FLOWS}.throughput_kbps")
    c.that(None if hi is None or lo is None else (lo > 0 and hi / lo >= UNFAIR_RATIO) or (lo == 0 < hi))


@claim
def _no_gain_above_optimum(c: Checks) -> None:
    t16, t18 = _t2(c, 1600, "throughput_kbps"), _t2(c, 1800, "throughput_kbps")
    c.that(None if t16 is None or t18 is None else t18 <= t16 * (1 + INSIGNIFICANT_THR))


@claim
def _protects_tcp(c: Checks) -> None:
    for n in NBRS:
        c.that(_completes(c, T2, _nbr(n), f"NBR {n}"))
        c.that(gt(_t2(c, n, "throughput_kbps"), 0.0))
    done = c.mean("off 10: completed", T1OFF, _off(10), "completed")
    c.that(None if done is None else done < 1.0)


_ABS, _INTRO, _S2, _S32 = "Abstract", "§1 Introduction", "§2 The SIMA service model", "§3.2"
_S33, _S34, _S35 = "§3.3", "§3.4", "§3.5"
_S41, _S42, _S43, _CONC = "§4.1", "§4.2", "§4.3", "§5 Conclusions"


#: Each claim's test, under its statement's id (the statements: statements.toml).
EVALUATE: dict[str, Callable[[View], ClaimResult]] = {
    "abs-recover": _sima_rtt_lower,
    "abs-ca": _ca_with_sima,
    "s2-light-congested": _light_vs_congested,
    "s2-reliability": _rexmt_falls_with_nbr,
    "s35-dp4-accepted": _dp4_accepted,
    "s41-not-depending": _not_depending_on_qos,
    "s41-no-bandwidth": _no_bandwidth_at_capacity,
    "s41-below4": _mostly_below_dp4,
    "s41-udp-through": _udp_takes_over,
    "s42-falls-short": _below_nbr_everywhere,
    "s42-400": _nbr400_low_and_dp4_through,
    "s42-much-less": _much_less_than_available,
    "s42-low-dp": _too_many_low_dp,
    "s42-1600": _nbr1600_few_rexmt,
    "s42-above4": _high_nbr_more_above4,
    "s42-too-high": _too_high_nbr_burst,
    "s42-rtt-ranges": _rtt_ranges,
    "s42-rtt-variation": _rtt_varies_at_extremes,
    "s43-none": _none_reaches_share,
    "s43-aggregate-up": _aggregate_above_single,
    "s43-more-rexmt": _parallel_more_rexmt,
    "s43-rtt-var": _parallel_rtt_varies_more,
    "s43-unfair": _unfair_split,
    "conc-no-gain": _no_gain_above_optimum,
    "conc-protect": _protects_tcp,
}

#: Every statement of the paper, in its order, each claim with its test.
STATEMENTS: tuple[Statement, ...] = load_statements(Path(__file__).with_name("statements.toml"), EVALUATE)
