"""gtfrc: the claims — each a test of the paper's statements (statements.toml) on a reading's
numbers; ``STATEMENTS`` joins the two."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from afsim.reproduce.claims import Checks, ClaimResult, Statement, claim, gt, load_statements, lt
from afsim.reproduce.core import View
from afsim.reproduce.gtfrc.paper import (
    ALMOST,
    EPS,
    ORDER_OF_MAGNITUDE,
    PANEL,
    PANELS,
    SAME_THR,
    SIMILAR_LOSS,
    SIMILAR_SHARE,
    STEADY_FROM_S,
    series_bins,
)

# ---------------------------------------------------------------------------------------------
# Reading a view


def _exp(fig: str) -> str:
    return PANEL[fig].experiment


def _full(c: Checks, fig: str, flow: str, metric: str, from_s: int = 0) -> float | None:
    window = "steady" if from_s else "100 s"
    return c.mean(f"{fig} {flow} {metric} ({window})", _exp(fig), {"fig": fig, "from_s": from_s},
                  f"{flow}.{metric}")


def _thr(c: Checks, fig: str, flow: str) -> float | None:
    """Long-term throughput: the whole 100 s."""
    return _full(c, fig, flow, "thr_kbps")


def _steady(c: Checks, fig: str, flow: str) -> float | None:
    """Steady throughput: 20–100 s."""
    return _full(c, fig, flow, "thr_kbps", STEADY_FROM_S)


def _q(c: Checks, fig: str, metric: str) -> float | None:
    return c.mean(f"{fig} {metric}", _exp(fig), {"fig": fig, "from_s": 0}, metric)


def _resolved(c: Checks, fig: str, metric: str) -> bool | None:
    return c.seen(f"{fig} {metric}", _exp(fig), {"fig": fig, "from_s": 0}, metric)


@dataclass(frozen=True)
class Bin:
    """One bin of a flow's time series over the replications: the rate's mean and its
    variance over them (population: ÷ n; 0 for the null model's constant)."""

    t0: float
    t: float
    mean: float
    var: float


def series(view: View, fig: str, flow: str, metric: str = "rate_kbps") -> list[Bin] | None:
    """A flow's time series in a view; None when it did not run or has one replication
    (a spread needs two)."""
    rows = []
    for t0, t in series_bins():
        s = view.stat(f"{_exp(fig)}_t", {"fig": fig, "t": t}, f"{flow}.{metric}")
        if s is None or s.n == 0 or not math.isfinite(s.mean):
            return None
        if view.name == "null":
            var = 0.0
        elif s.n > 1 and math.isfinite(s.std):
            var = s.std ** 2 * (s.n - 1) / s.n
        else:
            return None
        rows.append(Bin(float(t0), float(t), s.mean, var))
    return rows


def _steady_bins(bins: Sequence[Bin]) -> list[Bin]:
    return [b for b in bins if b.t0 >= STEADY_FROM_S]


def pooled_rms(bins: Sequence[Bin], centre: float) -> float:
    """Root mean square distance of the rate from ``centre`` over every run and bin (equal
    bins): sqrt(mean over the bins of variance + (mean − centre)²)."""
    return math.sqrt(sum(b.var + (b.mean - centre) ** 2 for b in bins) / len(bins))


def variation(view: View, fig: str, flow: str) -> float | None:
    """The variation of a flow's instantaneous rate from 20 s on: its RMS distance from its
    mean over every run and bin (``pooled_rms``), ÷ that mean — a coefficient of variation."""
    bins = series(view, fig, flow)
    if bins is None:
        return None
    b = _steady_bins(bins)
    mean = sum(x.mean for x in b) / len(b)
    return pooled_rms(b, mean) / mean if mean > 0 else None


def rms_from_target(view: View, fig: str, flow: str, target: float) -> float | None:
    """The RMS distance of a flow's instantaneous rate from its target, from 20 s on, over
    every run and bin (``pooled_rms``)."""
    bins = series(view, fig, flow)
    return None if bins is None else pooled_rms(_steady_bins(bins), target)


def _record(c: Checks, name: str, value: float | None) -> float | None:
    """A number a claim computed itself (not a plain mean): recorded; None marks it missing."""
    c.measured[name] = value if value is not None else math.nan
    if value is None:
        c.missing = True
    return value



def _within(a: float | None, b: float | None, rel: float) -> bool | None:
    """|a − b| ≤ rel·|b| (up to rounding: the paper's own pairs sit on the boundary)."""
    return None if a is None or b is None else abs(a - b) <= rel * abs(b) * (1 + EPS)


GTFRC_PANELS = tuple(p.fig for p in PANELS if p.of_kind("gTFRC"))


# ---------------------------------------------------------------------------------------------
# The claims


@claim
def _gtfrc_reaches_target(c: Checks) -> None:
    for fig in GTFRC_PANELS:
        for f in PANEL[fig].of_kind("gTFRC"):
            c.that(gt(_steady(c, fig, f.name), f.target_kbps * (1 - SAME_THR)))


@claim
def _tfrc_smoother_than_tcp(c: Checks) -> None:
    for fig in ("6a", "7a", "12a", "13a", "14a", "15a"):
        p = PANEL[fig]
        v_tfrc = [_record(c, f"{fig} {f.name} variation", variation(c.view, fig, f.name))
                  for f in p.of_kind("TFRC")]
        v_tcp = [_record(c, f"{fig} {f.name} variation", variation(c.view, fig, f.name))
                 for f in p.of_kind("TCP")]
        if None in v_tfrc or None in v_tcp:
            c.that(None)
            continue
        c.that(sum(v_tfrc) / len(v_tfrc) < sum(v_tcp) / len(v_tcp))  # type: ignore[arg-type]


def _drops(c: Checks, fig: str, tag: str) -> tuple[float | None, float | None]:
    """A colour's drops (ldrops + edrops) ÷ its arrivals, and how many were counted (None
    where the view has no counts: the null model)."""
    ld, ed = _q(c, fig, f"{tag}.ldrops"), _q(c, fig, f"{tag}.edrops")
    pt = {"fig": fig, "from_s": 0}
    counts = [c.view.total(_exp(fig), pt, f"{tag}.{col}.events") for col in ("ldrops", "edrops")]
    events = None if None in counts else sum(counts)  # type: ignore[arg-type]
    counted = c.view.stat(_exp(fig), pt, f"{tag}.ldrops.events")
    if events is not None and counted is not None:
        c.count(f"{fig} {tag} drops counted", events, counted.n)
    return (None if ld is None or ed is None else ld + ed), events


@claim
def _out_losses(c: Checks) -> None:
    from afsim.reproduce.scoring import MIN_EVENTS

    for fig in ("4a", "4b", "6a", "6b", "10a", "10b"):
        out, events = _drops(c, fig, "out")
        c.that(out is not None and out > 0 if events is None else events >= MIN_EVENTS)
        c.that(gt(out, _drops(c, fig, "in")[0]))


@claim
def _tfrc_rate_below_target(c: Checks) -> None:
    for fig in ("4a", "10a"):
        c.that(gt(_full(c, fig, "a", "x_below_share"), 0.0))


def _reach_quicker(fig_tfrc: str, fig_gtfrc: str) -> Callable[[View], ClaimResult]:
    @claim
    def f(c: Checks) -> None:
        c.that(lt(_full(c, fig_gtfrc, "a", "reach_s"), _full(c, fig_tfrc, "a", "reach_s")))
    return f


@claim
def _first_decrease_11s(c: Checks) -> None:
    t = _full(c, "4a", "a", "ss_exit_s")
    c.that(None if t is None else abs(t - 11.0) <= 0.5)


@claim
def _gtfrc_not_below_target(c: Checks) -> None:
    for f in ("a", "b"):
        c.that(None if (x := _full(c, "4b", f, "x_below_share")) is None else x == 0.0)


@claim
def _constrained_to_200(c: Checks) -> None:
    c.that(_within(_steady(c, "4b", "b"), 200.0, SAME_THR))


def _same_behaviour(fig_a: str, fig_b: str) -> Callable[[View], ClaimResult]:
    @claim
    def f(c: Checks) -> None:
        for fl in PANEL[fig_a].flows:
            c.that(_within(_thr(c, fig_b, fl.name), _thr(c, fig_a, fl.name), SAME_THR))
    return f


@claim
def _nearer_target(c: Checks) -> None:
    dev = {}
    for fig in ("5a", "5b"):
        total = 0.0
        for f in PANEL[fig].flows:
            d = _record(c, f"{fig} {f.name} RMS from target", rms_from_target(c.view, fig, f.name, f.target_kbps))
            total = math.nan if d is None else total + d
        dev[fig] = total
    c.that(None if math.isnan(dev["5a"] + dev["5b"]) else dev["5b"] < dev["5a"])


def _more_in_profile(fig_tfrc: str, fig_gtfrc: str) -> Callable[[View], ClaimResult]:
    @claim
    def f(c: Checks) -> None:
        c.that(gt(_q(c, fig_gtfrc, "in.share_pct"), _q(c, fig_tfrc, "in.share_pct")))
    return f


@claim
def _nearer_average(c: Checks) -> None:
    for f in PANEL["4a"].flows:
        ta, tb = _thr(c, "4a", f.name), _thr(c, "4b", f.name)
        c.that(None if ta is None or tb is None
               else abs(tb - f.target_kbps) < abs(ta - f.target_kbps))


@claim
def _exactly_provisioned_guarantee(c: Checks) -> None:
    for fig in ("4b", "5b"):
        for f in PANEL[fig].flows:
            c.that(gt(_steady(c, fig, f.name), f.target_kbps * (1 - SAME_THR)))


@claim
def _same_order(c: Checks) -> None:
    for tcp_fig, tfrc_fig in (("6a", "4a"), ("6b", "4b"), ("7a", "5a"), ("7b", "5b")):
        a, b = _thr(c, tcp_fig, "b"), _thr(c, tfrc_fig, "b")
        c.that(None if a is None or b is None or a <= 0 or b <= 0
               else max(a / b, b / a) <= ORDER_OF_MAGNITUDE)


@claim
def _table2_similar(c: Checks) -> None:
    for t2, t1 in (("6a", "4a"), ("6b", "4b")):
        for tag in ("in", "out"):
            a, b = _q(c, t2, f"{tag}.share_pct"), _q(c, t1, f"{tag}.share_pct")
            c.that(None if a is None or b is None else abs(a - b) <= SIMILAR_SHARE + EPS)
            for col in ("ldrops", "edrops"):
                if (t2, tag, col) == ("6b", "out", "ldrops"):
                    continue  # the one the next sentence calls very high
                ra, rb = _resolved(c, t2, f"{tag}.{col}"), _resolved(c, t1, f"{tag}.{col}")
                if ra is None or rb is None:
                    c.that(None)
                elif ra and rb:
                    a, b = _q(c, t2, f"{tag}.{col}"), _q(c, t1, f"{tag}.{col}")
                    c.that(None if not a or not b else max(a / b, b / a) <= SIMILAR_LOSS + EPS)


@claim
def _ldrops_very_high(c: Checks) -> None:
    high, t1 = _q(c, "6b", "out.ldrops"), _q(c, "4b", "out.ldrops")
    c.that(_resolved(c, "6b", "out.ldrops"))
    c.that(None if high is None or t1 is None else high > SIMILAR_LOSS * t1)


@claim
def _figures_6_oscillate(c: Checks) -> None:
    for tcp_fig, tfrc_fig in (("6a", "4a"), ("6b", "4b")):
        v_tcp = _record(c, f"{tcp_fig} b (TCP) variation", variation(c.view, tcp_fig, "b"))
        v_tfrc = _record(c, f"{tfrc_fig} b (TFRC) variation", variation(c.view, tfrc_fig, "b"))
        c.that(gt(v_tcp, v_tfrc))


@claim
def _tcp_tries_to_outperform(c: Checks) -> None:
    c.that(gt(_full(c, "6b", "b", "sent_kbps"), 200.0 * (1 + SAME_THR)))


@claim
def _tcp_does_not_reach(c: Checks) -> None:
    for fig in ("8a", "8b"):
        c.that(lt(_steady(c, fig, "a"), PANEL[fig].flow("a").target_kbps * (1 - SAME_THR)))


@claim
def _fig8a_around_200(c: Checks) -> None:
    thr = _steady(c, "8a", "a")
    c.that(None if thr is None else abs(thr - 200.0) <= 50.0)


@claim
def _fig8b_oscillates_under(c: Checks) -> None:
    c.that(lt(_steady(c, "8b", "a"), 200.0))
    bins = series(c.view, "8b", "a")
    if bins is None:
        _record(c, "8b a share of the bins below 200 kb/s", None)
        return
    b = _steady_bins(bins)
    under = _record(c, "8b a share of the bins below 200 kb/s", sum(x.mean < 200.0 for x in b) / len(b))
    c.that(gt(under, 0.5))


@claim
def _not_prejudicial_to_tcp(c: Checks) -> None:
    for fig in ("6a", "6b", "7a", "7b"):
        c.that(gt(_steady(c, fig, "b"), PANEL[fig].flow("b").target_kbps * (1 - SAME_THR)))


@claim
def _fig10a_b_outperforms(c: Checks) -> None:
    c.that(gt(_steady(c, "10a", "b"), 200.0 * (1 + SAME_THR)))


@claim
def _fig10a_a_does_not_reach(c: Checks) -> None:
    c.that(lt(_steady(c, "10a", "a"), 600.0 * (1 - SAME_THR)))


@claim
def _fig10b_reaches(c: Checks) -> None:
    c.that(gt(_steady(c, "10b", "a"), 600.0 * (1 - SAME_THR)))


def _tcp_not_disturbed(fig_tfrc: str, fig_gtfrc: str, tcp: str) -> Callable[[Checks], None]:
    def check(c: Checks) -> None:
        a, b = _thr(c, fig_tfrc, tcp), _thr(c, fig_gtfrc, tcp)
        c.that(None if a is None or b is None else b >= a * (1 - SAME_THR))
    return check


def _tcp_most_aggressive(fig: str) -> Callable[[Checks], None]:
    def check(c: Checks) -> None:
        c.that(gt(_full(c, fig, "b", "thr_over_target"), _full(c, fig, "a", "thr_over_target")))
    return check


@claim
def _fig12_tcp_not_disturbed(c: Checks) -> None:
    _tcp_not_disturbed("12a", "12b", "b")(c)


@claim
def _fig12_tcp_most_aggressive(c: Checks) -> None:
    for fig in ("12a", "12b"):
        _tcp_most_aggressive(fig)(c)


@claim
def _fig12_two_times(c: Checks) -> None:
    for fig in ("12a", "12b"):
        r = _full(c, fig, "b", "thr_over_target", STEADY_FROM_S)
        c.that(None if r is None else abs(r - 2.0) <= 0.5)


@claim
def _fig13_confirms(c: Checks) -> None:
    _tcp_not_disturbed("13a", "13b", "b")(c)
    for fig in ("13a", "13b"):
        _tcp_most_aggressive(fig)(c)


@claim
def _fig13_standard_algorithm(c: Checks) -> None:
    floor = _full(c, "13b", "a", "x_floor_share")
    c.that(None if floor is None else floor <= 1 - ALMOST)


@claim
def _fig14_tcp_not_disturbed(c: Checks) -> None:
    _tcp_not_disturbed("14a", "14b", "one")(c)


@claim
def _table4_tcp_same(c: Checks) -> None:
    c.that(_within(_thr(c, "14b", "one"), _thr(c, "14a", "one"), SAME_THR))


@claim
def _fig15_gtfrc_better(c: Checks) -> None:
    d = {fig: _record(c, f"{fig} one RMS from 400 kb/s", rms_from_target(c.view, fig, "one", 400.0))
         for fig in ("15a", "15b")}
    c.that(lt(d["15b"], d["15a"]))


@claim
def _table5_similar(c: Checks) -> None:
    c.that(_within(_thr(c, "15b", "one"), _thr(c, "15a", "one"), SAME_THR))


#: Each claim's test, under its statement's id (the statements: statements.toml).
EVALUATE: dict[str, Callable[[View], ClaimResult]] = {
    "abs-reach": _gtfrc_reaches_target,
    "intro-smoother": _tfrc_smoother_than_tcp,
    "ps-out-losses": _out_losses,
    "ps-below-target": _tfrc_rate_below_target,
    "e1-quicker": _reach_quicker("4a", "4b"),
    "e1-t11": _first_decrease_11s,
    "e1-not-lower": _gtfrc_not_below_target,
    "e1-constrained": _constrained_to_200,
    "e1-same-behaviour": _same_behaviour("5a", "5b"),
    "e1-nearer": _nearer_target,
    "t1-more-in": _more_in_profile("4a", "4b"),
    "t1-near-target": _nearer_average,
    "e1-compliant": _exactly_provisioned_guarantee,
    "e2-order": _same_order,
    "t2-similar": _table2_similar,
    "t2-very-high": _ldrops_very_high,
    "e2-oscillation": _figures_6_oscillate,
    "e2-outperform": _tcp_tries_to_outperform,
    "e2-tcp-not-reach": _tcp_does_not_reach,
    "e2-8a": _fig8a_around_200,
    "e2-8b": _fig8b_oscillates_under,
    "e2-not-prejudicial": _not_prejudicial_to_tcp,
    "e3-9-quicker": _reach_quicker("9a", "9b"),
    "e3-10a-b": _fig10a_b_outperforms,
    "e3-10a-a": _fig10a_a_does_not_reach,
    "e3-10b": _fig10b_reaches,
    "t3-more-in": _more_in_profile("10a", "10b"),
    "e3-11": _same_behaviour("11a", "11b"),
    "e4-not-disturbed": _fig12_tcp_not_disturbed,
    "e4-aggressive": _fig12_tcp_most_aggressive,
    "e4-two-times": _fig12_two_times,
    "e4-13-confirm": _fig13_confirms,
    "e4-13-identical": _same_behaviour("13a", "13b"),
    "e4-13-standard": _fig13_standard_algorithm,
    "e5-14-not-disturb": _fig14_tcp_not_disturbed,
    "t4-same": _table4_tcp_same,
    "e5-15-better": _fig15_gtfrc_better,
    "t5-similar": _table5_similar,
}

#: Every statement of the paper, in its order, each claim with its test.
STATEMENTS: tuple[Statement, ...] = load_statements(Path(__file__).with_name("statements.toml"), EVALUATE)
