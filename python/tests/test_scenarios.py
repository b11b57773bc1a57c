"""Every scenario file the project ships loads, runs and keeps packet conservation.

Covers the files under the repository's `scenarios/` (examples, validation and the papers'
experiments) and the built-in scenarios of the package. Long runs are shortened through their
own parameters (`duration`, `max_packets`; `warmup` to 0 with them) where a file exposes them:
what matters here is that every file is valid and conserves packets; the reproductions check
the numbers.
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
    short = {"duration": "5s", "max_packets": "200000", "warmup": "0s"}
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
