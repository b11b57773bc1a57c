"""Issue 27's experiment as the built-in example examples/three-customers: per-member
contracts, one typed ECN parameter, the contract check, the policing warning, code points."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import afsim_cmd

import afsim

EXAMPLE = afsim.builtin_scenario("examples/three-customers")


@pytest.fixture(scope="module", params=["false", "true"])
def run(request: pytest.FixtureRequest) -> tuple[str, afsim.Results]:
    s = afsim.load_scenario(EXAMPLE, overrides={"ecn": request.param})
    return request.param, afsim.run(s)


def test_one_typed_parameter_turns_ecn_on_in_tcp_and_in_the_queue(run) -> None:  # type: ignore[no-untyped-def]
    ecn, r = run
    q = r.queues.set_index("name").loc["r1->r2"]
    tcp = r.flows[r.flows["group"].isin(["a", "b", "c"])]
    if ecn == "true":
        assert q["ecn_marks"] > 0 and (tcp["ecn_reductions"] > 0).any()
    else:
        assert q["ecn_marks"] == 0 and (tcp["ecn_reductions"] == 0).all()


def test_each_customer_has_its_contract_and_the_check_compares_delivered_traffic(run) -> None:  # type: ignore[no-untyped-def]
    _, r = run
    c = r.conditioners.set_index("name")
    assert list(c["contract_kbps"]) == [1000.0, 2000.0, 4000.0]
    assert list(c["flows"]) == [4, 4, 4]
    for i, name in enumerate(c.index):
        mine = r.flows[r.flows["group"] == "abc"[i]]
        assert len(mine) == 4
        assert c.loc[name, "delivered_kbps"] == pytest.approx(mine["throughput_kbps"].sum())
        assert c.loc[name, "delivered_ros"] == pytest.approx(
            c.loc[name, "delivered_kbps"] / c.loc[name, "contract_kbps"])
    # a customer's flow group is metered by its conditioner alone: the group gets its contract
    groups = r.groups.set_index("name")
    for i, name in enumerate(c.index):
        g = groups.loc["abc"[i]]
        assert g["contract_kbps"] == c.loc[name, "contract_kbps"]
        assert g["delivered_ros"] == pytest.approx(c.loc[name, "delivered_ros"])
    # the UDP flow is metered by no conditioner: its group has no contract
    assert r.groups.set_index("name")["contract_kbps"].isna()["be"]


def test_code_points_keep_af13_best_effort_apart_from_their_shared_level(run) -> None:  # type: ignore[no-untyped-def]
    _, r = run
    cp = r.code_points[r.code_points["queue"] == "r1->r2"].set_index("code_point")
    assert set(cp.index) == {"BE", "AF11", "AF12", "AF13"}
    assert cp.loc["BE", "colour"] == cp.loc["AF13", "colour"] == "red"
    red = r.colours[(r.colours["queue"] == "r1->r2") & (r.colours["colour"] == "red")].iloc[0]
    assert cp.loc["BE", "arrivals"] + cp.loc["AF13", "arrivals"] == red["arrivals"]
    assert cp.loc["BE", "arrivals"] > 10 * cp.loc["AF13", "arrivals"], "mostly UDP"
    back = r.code_points[r.code_points["direction"] == "reverse"]
    assert len(back) and set(back["code_point"]) == {"BE"}, "the TCP ACKs, apart"


def test_a_conditioner_that_polices_by_default_is_warned_about() -> None:
    text = EXAMPLE.read_text().replace('yellow = "AF12"\nred = "AF13"\n', 'yellow = "AF12"\n')
    s = afsim.load_scenario(text=text, name="three.toml")
    [w] = s.warnings
    assert w["field"] == "conditioner[0].red"
    assert "polices by default: its red packets are dropped" in str(w["message"])


def test_a_link_group_with_too_few_per_member_values_exits_2(tmp_path: Path) -> None:
    text = (
        '[scenario]\nduration = "1s"\n[[node]]\nname = "h"\ncount = 3\n[[node]]\nname = "r"\n'
        '[[link]]\nbetween = ["h", "r"]\nrate = ["1Mbps", "2Mbps"]\ndelay = "1ms"\n'
    )
    f = tmp_path / "links.toml"
    f.write_text(text)
    p = afsim_cmd("run", f)
    assert p.returncode == 2 and p.stdout == ""
    assert (f"{f}:10:8: link[0].rate: 2 per-member values for link[0] (between 'h' and 'r'), "
            "which makes 3 links") in p.stderr


def test_fairness_is_computed_within_contracts_and_normalised_by_them(run) -> None:  # type: ignore[no-untyped-def]
    from afsim.stats import jain
    from afsim.store.metrics import default_metrics

    _, r = run
    m = default_metrics(r.summary)
    groups = r.groups.set_index("name")
    f = r.flows[r.flows["group"].isin(["a", "b", "c"])]
    share = (groups.loc[f["group"], "contract_kbps"].to_numpy()
             / groups.loc[f["group"], "flows"].to_numpy())
    assert m["jain_contracted"] == pytest.approx(jain(list(f["throughput_kbps"] / share)))
    # three classes of four flows: 1, 2 and 4 Mb/s customers' flows (250, 500, 1000 kb/s each)
    classes = sorted(k for k in m if k.startswith("contract."))
    assert len(classes) == len(set(share)) == 3
    for c in set(share):
        xs = f.loc[share == c, "throughput_kbps"]
        assert m[f"contract.{c:g}kbps.jain"] == pytest.approx(jain(list(xs)))
    # the best-effort UDP flow has no contract and is in the headline only
    assert "be" in set(r.flows["name"]) and m["jain"] != m["jain_contracted"]


def test_the_run_plot_checks_each_contract_against_delivered_traffic(run) -> None:  # type: ignore[no-untyped-def]
    from afsim.plot import contract_check

    _, r = run
    t = contract_check(r).set_index("who")
    c = r.conditioners.set_index("name")
    for name in c.index:
        assert t.loc[f"conditioner {name}", "delivered_kbps"] == c.loc[name, "delivered_kbps"]
        assert t.loc[f"conditioner {name}", "contract_kbps"] == c.loc[name, "contract_kbps"]
    g = r.groups.set_index("name")
    for name in ("a", "b", "c"):
        assert t.loc[f"group {name}", "delivered_kbps"] == g.loc[name, "throughput_kbps_total"]
    assert "group be" not in t.index, "best effort has no contract"


def test_the_sweep_report_draws_the_contract_check_and_the_delays(tmp_path: Path) -> None:
    from afsim.report import store_report
    from afsim.store import Store
    from afsim.sweep import sweep

    store = tmp_path / "s"
    sweep(str(EXAMPLE), {"ecn": ["false", "true"]}, store=store, workers=1,
          overrides={"duration": "3s", "warmup": "1s"})
    with Store.open(store, write=False) as s:
        assert len(s.table("queue_delay_hist")), "the queue monitor's histogram is stored"
        page = store_report(s).html()
    for caption in ("Contract check at ecn = false", "Contract check at ecn = true",
                    "One-way delay percentiles per flow group", "Queueing-delay histogram"):
        assert caption in page, caption
    assert "conditioner contract0" in page and "group a" in page
