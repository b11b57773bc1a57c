"""Golden outputs: the summary JSON of every built-in scenario, byte for byte (issue 23).

Read this first. Each built-in scenario (the bench references, the default, the examples, each
paper's scenarios and the validation scenarios) runs shortened (``GOLDEN`` gives the overrides)
and its report — afsim-core's deterministic JSON — must equal the file committed in
``golden/`` byte for byte. Code that only moves (a restructuring, a speed-up) leaves every file
as it is; a change of behaviour shows as a diff here and is committed with the change, after
reading it:

    python python/tests/test_golden.py --update      # rewrite golden/*.json
    python python/tests/test_golden.py --diff NAME   # what changed in one scenario

The runs take about 15 seconds in all.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

import pytest

import afsim

GOLDEN_DIR = Path(__file__).parent / "golden"
#: The built-in scenarios (shipped in the package) …
BUILTIN = Path(afsim.builtin_scenario("default")).parent
#: … and the checkout's own (examples and validation), which the package does not ship.
CHECKOUT = Path(__file__).resolve().parents[2] / "scenarios"

#: Every scenario with the overrides that keep its run short (the bench scenarios run whole, as
#: `afsim bench` runs them). A scenario added to the tree without an entry here fails
#: `test_every_builtin_scenario_has_a_golden_entry`.
GOLDEN: dict[str, dict[str, str]] = {
    "default": {},
    "cc/af-mix": {"duration": "20s"},
    "examples/cc-dumbbell": {"duration": "10s"},
    "examples/e3-atm": {},
    "examples/explicit-routes": {},
    "examples/finite-transfers": {},
    "examples/udp-dumbbell": {},
    "examples/three-customers": {"ecn": "true"},
    "giacomazzi/scenario1": {"max_data_packets": "300000"},
    "giacomazzi/scenario2": {"max_data_packets": "300000"},
    "giacomazzi/token-bucket": {"duration_s": "20"},
    "gtfrc/tcp-4-tfrc": {"duration": "20s"},
    "gtfrc/tfrc-4-tcp": {"duration": "20s"},
    "gtfrc/tfrc-tcp": {"duration": "20s"},
    "gtfrc/two-tcp": {"duration": "20s"},
    "gtfrc/two-tfrc": {"duration": "20s"},
    "laatu/best_effort": {"duration": "60s"},
    "scale/tcp-dumbbell": {"flows": "10", "start_step": "100ms", "duration": "5s"},
    "scale/tcp-tree": {"flows": "12", "access": "4", "agg": "2", "start_step": "80ms",
                       "duration": "5s"},
    "laatu/sima": {"duration": "60s"},
    "leung/topology1": {"duration_s": "10"},
    "leung/topology2": {"duration_s": "10"},
    "validation/af-rio": {},
    "validation/diffserv-rio": {},
    "validation/diffserv-rio-ecn": {},
    "validation/dumbbell": {},
    "validation/dumbbell-droptail": {},
    "validation/live-rate": {},
    "validation/tcp-dumbbell-10": {},
    "validation/tcp-dumbbell-10-ecn": {},
    "validation/tcp-dumbbell-100": {},
    "validation/tfrc-bernoulli": {},
    "validation/tfrc-dumbbell": {},
}


def _bench_names() -> list[str]:
    return sorted(p.stem for p in (BUILTIN / "bench").glob("*.toml"))


def scenario_file(name: str) -> Path:
    """The scenario file: built-in if the package ships it, else the checkout's own."""
    builtin = BUILTIN / f"{name}.toml"
    if builtin.is_file():
        return builtin
    root = CHECKOUT if name.split("/")[0] in ("examples", "validation") else BUILTIN
    return root / f"{name}.toml"


def cases() -> dict[str, dict[str, str]]:
    """Every golden scenario (by its path under scenarios/, without .toml) and its overrides."""
    out: dict[str, dict[str, str]] = {f"bench/{n}": {} for n in _bench_names()}
    out.update(GOLDEN)
    return out


def summary(name: str, overrides: dict[str, str]) -> str:
    """The scenario's report as afsim-core writes it, shortened as ``cases`` says."""
    scenario = afsim.load_scenario(scenario_file(name), overrides=overrides)
    return afsim._core.run(scenario).summary_json() + "\n"


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / (name.replace("/", "__") + ".json")


def test_every_builtin_scenario_has_a_golden_entry() -> None:
    on_disk = {str(p.relative_to(BUILTIN).with_suffix("")) for p in BUILTIN.rglob("*.toml")}
    on_disk |= {str(p.relative_to(CHECKOUT).with_suffix(""))
                for d in ("examples", "validation") for p in (CHECKOUT / d).glob("*.toml")}
    assert on_disk == set(cases()), "add the scenario to GOLDEN (with overrides that keep it short)"


@pytest.mark.parametrize("name", sorted(cases()))
def test_the_summary_is_byte_identical_to_the_golden_file(name: str) -> None:
    want = golden_path(name)
    assert want.exists(), f"no golden file for {name}: python python/tests/test_golden.py --update"
    got = summary(name, cases()[name])
    if got != want.read_text(encoding="utf-8"):
        diff = "".join(difflib.unified_diff(
            _pretty(want.read_text(encoding="utf-8")), _pretty(got), "golden", "now", n=1))
        pytest.fail(f"{name}: the report changed (python python/tests/test_golden.py --diff "
                    f"{name}); first lines of the difference:\n" + diff[:3000])


def _pretty(text: str) -> list[str]:
    return json.dumps(json.loads(text), indent=1, sort_keys=False).splitlines(keepends=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="rewrite or compare the golden summaries")
    ap.add_argument("--update", action="store_true", help="rewrite golden/*.json")
    ap.add_argument("--diff", metavar="NAME", help="show what changed in one scenario")
    args = ap.parse_args(argv)
    if args.diff:
        got = summary(args.diff, cases()[args.diff])
        sys.stdout.writelines(difflib.unified_diff(
            _pretty(golden_path(args.diff).read_text(encoding="utf-8")), _pretty(got),
            "golden", "now"))
        return 0
    if args.update:
        GOLDEN_DIR.mkdir(exist_ok=True)
        for old in GOLDEN_DIR.glob("*.json"):
            old.unlink()
        for name, overrides in sorted(cases().items()):
            golden_path(name).write_text(summary(name, overrides), encoding="utf-8")
            print(f"wrote {golden_path(name).name}", file=sys.stderr)
        return 0
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
