"""leung: the claims — each a test of the paper's statements (statements.toml) on a reading's
numbers; ``STATEMENTS`` joins the two."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from afsim.reproduce.claims import Checks, ClaimResult, Statement, claim, gt, load_statements, lt
from afsim.reproduce.core import View
from afsim.reproduce.leung.paper import (
    BOTTLENECKS_1,
    ECN_STRATEGIES,
    FIEB_TOL,
    IMPROVEMENT_TOL,
    NEARLY_SAME_KBPS,
    PRINTED,
    SCHEMES,
    SIMILAR_FIEB,
    STRATEGIES,
    TARGETS_1,
    TARGETS_2,
)

# ---------------------------------------------------------------------------------------------
# Claims

F35, F6, F79, F10 = "fig3_5", "fig6", "fig7_9", "fig10"



def _m(c: Checks, exp: str, labels: dict[str, Any], metric: str) -> float | None:
    tag = ", ".join(f"{v}" for v in labels.values())
    return c.mean(f"{metric} [{tag}]", exp, labels, metric)


def _f35(c: Checks, b: int, s: str, metric: str) -> float | None:
    return _m(c, F35, {"bottleneck": b, "strategy": s}, metric)


def _f6(c: Checks, r: int, s: str, metric: str) -> float | None:
    return _m(c, F6, {"rtt_set": r, "strategy": s}, metric)


def _f79(c: Checks, sc: str, s: str, metric: str) -> float | None:
    return _m(c, F79, {"scheme": sc, "strategy": s}, metric)


def _f10(c: Checks, sc: str, s: str, metric: str) -> float | None:
    return _m(c, F10, {"scheme": sc, "strategy": s}, metric)


def _all_known(*xs: float | None) -> bool:
    return all(x is not None for x in xs)


@claim
def _ecn_beats_non_ecn_fig5(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        base = _f35(c, b, "non-ECN", "fieb")
        for s in ECN_STRATEGIES:
            c.that(gt(_f35(c, b, s, "fieb"), base))


@claim
def _tail_targets_and_fairer(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        c.that(lt(_f35(c, b, "mark-tail", "shortfall_kbps"), 1.0))
        c.that(gt(_f35(c, b, "mark-tail", "fieb"), _f35(c, b, "non-ECN", "fieb")))


@claim
def _high_reservation_below_target(c: Checks) -> None:
    # [4][17][18]: the larger reservation below its target, the smaller one above it; the
    # paper's evidence: non-ECN (no scheme) in Fig. 4
    for b in BOTTLENECKS_1:
        c.that(lt(_f35(c, b, "non-ECN", "excess.f2"), 0.0))
        c.that(gt(_f35(c, b, "non-ECN", "excess.f1"), 0.0))


@claim
def _claim_more_than_targets(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        for s in STRATEGIES:
            c.that(gt(_f35(c, b, s, "total_kbps"), sum(TARGETS_1)))
    for r in (1, 2):
        for s in STRATEGIES:
            c.that(gt(_f6(c, r, s, "total_kbps"), sum(TARGETS_2)))


@claim
def _tail_closest_to_targets(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        tail = _f35(c, b, "mark-tail", "shortfall_kbps")
        for s in ("non-ECN", "mark-front", "mark-random"):
            c.that(lt(tail, _f35(c, b, s, "shortfall_kbps")))


def _excess_extreme(flow: int, largest: bool, strategies: Sequence[str]) -> Callable[[View], ClaimResult]:
    """Topology 1, both bottlenecks, ``strategies``: flow ``flow``'s excess is the largest (or
    the smallest) of the three."""
    @claim
    def f(c: Checks) -> None:
        for b in BOTTLENECKS_1:
            for s in strategies:
                e = _f35(c, b, s, f"excess.f{flow}")
                for other in {1, 2, 3} - {flow}:
                    c.that((gt if largest else lt)(e, _f35(c, b, s, f"excess.f{other}")))
    return f


_lowest_target_claims_more = _excess_extreme(1, True, ("non-ECN", "mark-front", "mark-random"))
_s2_smallest_excess = _excess_extreme(2, False, STRATEGIES)
_s1_largest_excess = _excess_extreme(1, True, STRATEGIES)


@claim
def _front_random_nearly_same(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        for s in ("mark-front", "mark-random"):
            t = [_f35(c, b, s, f"thr.f{i}") for i in (1, 2, 3)]
            c.that(None if not _all_known(*t) else
                   max(x for x in t if x is not None) - min(x for x in t if x is not None) < NEARLY_SAME_KBPS)


@claim
def _only_tail_satisfies_targets(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        c.that(lt(_f35(c, b, "mark-tail", "shortfall_kbps"), 1.0))
        for s in ("non-ECN", "mark-front", "mark-random"):
            c.that(gt(_f35(c, b, s, "shortfall_kbps"), 0.0))


@claim
def _tail_best_front_random_not_significant(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        base = _f35(c, b, "non-ECN", "fieb")
        tail = _f35(c, b, "mark-tail", "fieb")
        for s in ("mark-front", "mark-random"):
            x = _f35(c, b, s, "fieb")
            c.that(gt(tail, x))
            c.that(None if base is None or x is None else abs(x - base) <= FIEB_TOL)


@claim
def _fig6a_significant(c: Checks) -> None:
    base = _f6(c, 1, "non-ECN", "fieb")
    for s in ECN_STRATEGIES:
        x = _f6(c, 1, s, "fieb")
        c.that(None if base is None or x is None else x - base > FIEB_TOL)


def _improvement(c: Checks, s: str) -> float | None:
    base, x = _f6(c, 1, "non-ECN", "fieb"), _f6(c, 1, s, "fieb")
    if base is None or x is None or base <= 0:
        return None
    v = x / base - 1.0
    c.measured[f"improvement {s}"] = v
    return v


@claim
def _fig6a_numbers(c: Checks) -> None:
    tail, front, rnd = (_improvement(c, s) for s in ECN_STRATEGIES)
    c.that(None if tail is None else abs(tail - 0.16) <= IMPROVEMENT_TOL)
    c.that(None if front is None else abs(front - 0.09) <= IMPROVEMENT_TOL)
    c.that(None if rnd is None else abs(rnd - 0.09) <= IMPROVEMENT_TOL)
    c.that(gt(tail, front))
    c.that(gt(tail, rnd))


@claim
def _fig6b_tail_best(c: Checks) -> None:
    tail = _f6(c, 2, "mark-tail", "fieb")
    for s in ("non-ECN", "mark-front", "mark-random"):
        c.that(gt(tail, _f6(c, 2, s, "fieb")))


@claim
def _fig6b_others_alike(c: Checks) -> None:
    base = _f6(c, 2, "non-ECN", "fieb")
    for s in ("mark-front", "mark-random"):
        x = _f6(c, 2, s, "fieb")
        c.that(gt(x, base))
        c.that(None if base is None or x is None else abs(x - base) <= FIEB_TOL)


@claim
def _random_marks_the_fastest(c: Checks) -> None:
    for b in BOTTLENECKS_1:
        thr = [_f35(c, b, "mark-random", f"thr.f{i}") for i in (1, 2, 3)]
        ce = [_f35(c, b, "mark-random", f"ce.f{i}") for i in (1, 2, 3)]
        if not (_all_known(*thr) and _all_known(*ce)):
            c.that(None)
            continue
        fastest = max(range(3), key=lambda i: thr[i] or 0.0)
        c.that(all((ce[fastest] or 0.0) >= (ce[i] or 0.0) for i in range(3)))


@claim
def _out_scheme_keeps_targets(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        c.that(lt(_f79(c, "out", s, "shortfall_kbps"), 1.0))


@claim
def _schemes_better_control(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        base = _f79(c, "none", s, "unfairness_kbps")
        for sc in ("tss", "out"):
            c.that(lt(_f79(c, sc, s, "unfairness_kbps"), base))


def _spread(vals: Sequence[float | None]) -> float | None:
    if not _all_known(*vals):
        return None
    xs = [v for v in vals if v is not None]
    return max(xs) - min(xs)


@claim
def _either_scheme_strategy_blind(c: Checks) -> None:
    for sc in ("tss", "out"):
        sp = _spread([_f79(c, sc, s, "fieb") for s in ECN_STRATEGIES])
        c.that(None if sp is None else sp <= SIMILAR_FIEB)


@claim
def _both_like_one(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        both = _f79(c, "both", s, "fieb")
        for sc in ("tss", "out"):
            x = _f79(c, sc, s, "fieb")
            c.that(None if both is None or x is None else abs(both - x) <= SIMILAR_FIEB)


@claim
def _schemes_help_front_random(c: Checks) -> None:
    for s in ("mark-front", "mark-random"):
        base = _f79(c, "none", s, "fieb")
        for sc in ("tss", "out", "both"):
            x = _f79(c, sc, s, "fieb")
            c.that(None if base is None or x is None else x - base > FIEB_TOL)


@claim
def _fig9_none_range(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        x = _f79(c, "none", s, "fieb")
        c.that(None if x is None else 0.85 - PRINTED <= x <= 0.92 + PRINTED)


@claim
def _fig9_strategies_similar(c: Checks) -> None:
    for sc in SCHEMES:
        sp = _spread([_f79(c, sc, s, "fieb") for s in ECN_STRATEGIES])
        c.that(None if sp is None else sp <= SIMILAR_FIEB)


@claim
def _fig9_thresholds(c: Checks) -> None:
    for s in ECN_STRATEGIES:
        c.that(gt(_f79(c, "out", s, "fieb"), 0.94 - PRINTED))
        c.that(gt(_f79(c, "tss", s, "fieb"), 0.95 - PRINTED))


@claim
def _fig9_both(c: Checks) -> None:
    best = [_f79(c, "both", s, "fieb") for s in ECN_STRATEGIES]
    c.that(None if not _all_known(*best) else max(x or 0.0 for x in best) >= 0.97 - PRINTED)


@claim
def _fig10_none_order(c: Checks) -> None:
    tail, front, rnd = (_f10(c, "none", s, "fieb") for s in ECN_STRATEGIES)
    c.that(gt(tail, front))
    c.that(gt(tail, rnd))
    c.that(gt(front, rnd))


@claim
def _fig10_random_with_schemes(c: Checks) -> None:
    base = _f10(c, "none", "mark-random", "fieb")
    out = _f10(c, "out", "mark-random", "fieb")
    tss = _f10(c, "tss", "mark-random", "fieb")
    # "yields the best result (near 0.8) when OUT Marking Scheme is used"
    for s in ("mark-tail", "mark-front"):
        c.that(gt(out, _f10(c, "out", s, "fieb")))
    c.that(None if out is None else abs(out - 0.8) <= FIEB_TOL)
    # "shows a great improvement ... with Throughput Sustaining Scheme": more than significant
    c.that(None if base is None or tss is None else tss - base > FIEB_TOL)


@claim
def _fig10_tail_unaffected(c: Checks) -> None:
    sp = _spread([_f10(c, sc, "mark-tail", "fieb") for sc in SCHEMES])
    c.that(None if sp is None else sp <= SIMILAR_FIEB)


@claim
def _fig10_only_random_both_over_08(c: Checks) -> None:
    for sc in SCHEMES:
        for s in ECN_STRATEGIES:
            x = _f10(c, sc, s, "fieb")
            if (sc, s) == ("both", "mark-random"):
                c.that(gt(x, 0.8))
            else:
                c.that(None if x is None else x <= 0.8)


@claim
def _schemes_improve_throughput(c: Checks) -> None:
    # the conclusion's "significant improvement in the TCP throughput performance": with both
    # schemes every flow meets its target and the excess is shared more fairly than without
    for s in ECN_STRATEGIES:
        c.that(lt(_f79(c, "both", s, "shortfall_kbps"), 1.0))
        x, base = _f79(c, "both", s, "fieb"), _f79(c, "none", s, "fieb")
        c.that(None if x is None or base is None else x - base > FIEB_TOL)


_ABS, _INTRO, _BG = "Abstract", "§1 Introduction", "§2 Background and Related Work"
_TOPO, _METR = "§3.1 Network Topology", "§3.2 Performance Metrics"
_R41, _S5, _S51, _S52, _CONC = ("§4.1 Results", "§5 Integration of ECN and Diffserv",
                                "§5.1 Improving Cooperation", "§5.2 Results", "§6 Conclusions")


#: Each claim's test, under its statement's id (the statements: statements.toml).
EVALUATE: dict[str, Callable[[View], ClaimResult]] = {
    "abs-schemes": _schemes_improve_throughput,
    "bg-higher-reservation": _high_reservation_below_target,
    "bg-ecn-target-and-fair": _tail_targets_and_fairer,
    "metr-more-than-target": _claim_more_than_targets,
    "f3-tail-closer": _tail_closest_to_targets,
    "f3-low-target-more": _lowest_target_claims_more,
    "f3-nearly-same": _front_random_nearly_same,
    "f4-only-tail": _only_tail_satisfies_targets,
    "f4-s2-smallest": _s2_smallest_excess,
    "f4-s1-largest": _s1_largest_excess,
    "f5-ecn-better": _ecn_beats_non_ecn_fig5,
    "f5-tail-best": _tail_best_front_random_not_significant,
    "f6a-significant": _fig6a_significant,
    "f6a-numbers": _fig6a_numbers,
    "f6b-tail-best": _fig6b_tail_best,
    "f6b-alike": _fig6b_others_alike,
    "f6-random-marks-fastest": _random_marks_the_fastest,
    "s51-out-no-harm": _out_scheme_keeps_targets,
    "f7-better-control": _schemes_better_control,
    "f7-strategy-blind": _either_scheme_strategy_blind,
    "f7-both-like-one": _both_like_one,
    "f8-front-random-improve": _schemes_help_front_random,
    "f9-none-range": _fig9_none_range,
    "f9-similar": _fig9_strategies_similar,
    "f9-thresholds": _fig9_thresholds,
    "f9-both": _fig9_both,
    "f10-none-order": _fig10_none_order,
    "f10-random-schemes": _fig10_random_with_schemes,
    "f10-tail-unaffected": _fig10_tail_unaffected,
    "f10-only-random-both": _fig10_only_random_both_over_08,
}

#: Every statement of the paper, in its order, each claim with its test.
STATEMENTS: tuple[Statement, ...] = load_statements(Path(__file__).with_name("statements.toml"), EVALUATE)
