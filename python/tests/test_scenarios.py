"""Every scenario file the project ships loads, runs and keeps packet conservation.

Covers the files under the repository's `scenarios/` (examples, validation and the papers'
experiments) and the built-in scenarios of the package. Long runs are shortened through their
own parameters (`duration`, `max_packets`, `max_data_packets`; `warmup` to 0 with them) where a
file exposes them: what matters here is that every file is valid and conserves packets; the
reproductions check the numbers.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import afsim
from afsim.results import Results

REPO = Path(__file__).resolve().parents[2]
BUILTIN = Path(afsim.__file__).parent / "scenarios"

# scenarios/giacomazzi is a link to the package's copy (shipped so that `afsim reproduce`
# works from an installed package): each file once, by its real path
FILES = sorted({p.resolve() for p in (*(REPO / "scenarios").rglob("*.toml"), *BUILTIN.rglob("*.toml"))})


def test_the_repository_ships_scenarios() -> None:
    assert len(FILES) >= 5, FILES


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_scenario_runs_and_conserves_packets(path: Path) -> None:
    params = tomllib.loads(path.read_text(encoding="utf-8")).get("params", {})
    short = {"duration": "5s", "max_packets": "200000", "max_data_packets": "100000", "warmup": "0s"}
    overrides = {k: v for k, v in short.items() if k in params} or None
    results = afsim.simulate(path, overrides=overrides)
    c = results.conservation
    assert c["holds"], c["identity"]
    assert c["sent"] == c["delivered"] + c["dropped_total"] + c["in_flight"]
    assert len(results.flows) > 0
    assert (results.flows["packets_sent"] > 0).all(), results.flows[["name", "packets_sent"]]


def test_e3_example_nets_the_papers_ip_capacity() -> None:
    """Giacomazzi et al. §V.A: 34 Mb/s E3 carries 34·576/636 = 30.792 Mb/s of IP packets."""
    results = afsim.simulate(REPO / "scenarios" / "examples" / "e3-atm.toml")
    mbps = float(results.flows["throughput_kbps"].iloc[0]) / 1e3
    assert mbps == pytest.approx(30.792, abs=0.005)


def test_finite_transfers_example_ends_when_the_last_transfer_completes() -> None:
    results = afsim.simulate(REPO / "scenarios" / "examples" / "finite-transfers.toml")
    assert results.summary["stop_reason"] == "transfers_complete"
    done = results.flows["completion_time_s"]
    assert results.flows["completed"].all()
    assert results.summary["end_time_s"] == pytest.approx(float(done.max()))


LAATU = BUILTIN / "laatu"


def transfer_time(results: afsim.Results, flow: str = "tcp", start_s: float = 2.0) -> float:
    row = results.flows.set_index("name").loc[flow]
    assert row["completed"], f"{flow} did not finish"
    return float(row["completion_time_s"]) - start_s


def test_laatu_best_effort_tcp_collapses_as_the_background_nears_the_link_rate() -> None:
    """Table I's shape: 8.5 Mb/s of best-effort UDP leaves TCP a share, 9.6 Mb/s almost none."""
    best_effort = LAATU / "best_effort.toml"
    times = {rate: transfer_time(afsim.simulate(best_effort, overrides={"bg_rate": rate}))
             for rate in ("850kbps", "960kbps")}
    alone = transfer_time(afsim.simulate(best_effort, overrides={"bg_flows": "0"}))
    assert alone < times["850kbps"] < times["960kbps"] / 5, (alone, times)


def test_laatu_sima_marks_the_transfer_and_keeps_it_below_its_nbr() -> None:
    r = afsim.simulate(LAATU / "sima.toml")
    tcp = r.flows.set_index("name").loc["tcp"]
    counts = [int(tcp[f"dp{k}_packets"]) for k in range(8)]
    assert sum(counts) == tcp["packets_sent"], "every data packet is marked once, at border1"
    assert counts[7] == 0, "equation (1) never gives the reserved DP 7"
    background = r.flows[r.flows["group"].str.startswith("bg")]
    assert background["dp4_packets"].isna().all(), "pre-marked by the generator, not by a SIMA meter"
    rate_bps = 8 * 1_000_000 / transfer_time(r)
    assert rate_bps < 1_200_000, rate_bps
    # the bottleneck admits the DP 4 background and cuts the levels below
    lv = r.sima_levels.set_index(["queue", "dp"]).loc["core1->core2"]
    assert lv.loc[4, "loss_ratio"] < 0.05 < lv.loc[2, "loss_ratio"]
    dpa = r.sima_queues.set_index("queue").loc["core1->core2"]["dpa_time_share"]
    assert dpa[3] + dpa[4] > 0.8, "DP_a stays at the 3/4 boundary the background sets"


def test_laatu_four_flows_share_one_aggregate_nbr() -> None:
    """Table III's configuration: one meter for four 250 kB transfers."""
    r = afsim.simulate(LAATU / "sima.toml",
                       overrides={"n_tcp": "4", "transfer": "250kB", "nbr": "800kbps"})
    tcp = r.flows[r.flows["group"] == "tcp"]
    assert list(tcp["name"]) == ["tcp0", "tcp1", "tcp2", "tcp3"] and tcp["completed"].all()
    access = r.conditioners.set_index("name").loc["access"]
    assert access["matched"] == tcp["packets_sent"].sum()
    assert access["committed_rate_bps"] == 800_000


def _in_profile_share(results: Results) -> float:
    rows = results.colours[results.colours["queue"] == "core->egress"].set_index("colour")
    return float(rows.loc["green", "arrivals"] / rows["arrivals"].sum())


def test_gtfrc_holds_the_high_rtt_flow_nearer_its_target_than_tfrc() -> None:
    """The gTFRC paper's Fig. 4 / Table 1, ordinally: with gTFRC the 640 ms, 800 kb/s flow
    gets more than with TFRC, and more of the bottleneck's traffic is in profile."""
    path = afsim.builtin_scenario("gtfrc/two-tfrc")
    tfrc = afsim.simulate(path)
    gtfrc = afsim.simulate(path, overrides={"target_a": "800kbps", "target_b": "200kbps"})
    a_tfrc, a_gtfrc = (float(r.flows.set_index("name").loc["a", "throughput_kbps"]) for r in (tfrc, gtfrc))
    assert list(gtfrc.flows["kind"]) == ["gtfrc", "gtfrc"]
    assert list(tfrc.flows["kind"]) == ["tfrc", "tfrc"]
    assert a_gtfrc > a_tfrc + 50, (a_tfrc, a_gtfrc)
    assert _in_profile_share(gtfrc) > _in_profile_share(tfrc) + 0.05


def test_every_shipped_conditioner_sits_on_an_input_line() -> None:
    # RFC 2475 §2.1.2: an ingress node conditions the traffic entering the domain; a
    # conditioner without `from` meters everything its node forwards, the ACKs returning to
    # the senders included (cc/af-mix did until issue 26's fix: docs/cc-af.md)
    missing = [(p.name, c.get("name")) for p in FILES
               for c in tomllib.loads(p.read_text(encoding="utf-8")).get("conditioner", [])
               if "from" not in c]
    assert not missing, missing


def test_af_mix_buckets_meter_the_senders_data_only() -> None:
    # 1500-byte segments (and one 40-byte SYN each); with the receivers' ACKs metered too the
    # green packets averaged 742-919 B (docs/validation.md, "BBR's Respect of Service in the AF network")
    r = afsim.simulate(BUILTIN / "cc" / "af-mix.toml", overrides={"duration": "3s", "warmup": "1s"})
    c = r.conditioners
    assert len(c) == 9
    for row in c.itertuples():
        assert row.green_packets > 0
        assert row.green_bytes / row.green_packets > 1400, (row.name, row.green_bytes / row.green_packets)
