"""Fuzzing the scenario loader through afsim.load_scenario(text=...).

Whatever the text, loading either gives a Scenario or raises ScenarioError (with a place):
never a panic, another exception, or a hang. Deterministic (derandomize=True), about 300
examples in all. data/fuzz/ holds adversarial scenarios (and any input that once broke the
loader), each with the place its error must name (``# expect: line N, field F``): each must
be refused at that line and field, through the API and through ``afsim run`` (exit 2,
``afsim: error: file:line:column: field: message``), never a crash.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import afsim

DATA = Path(__file__).parent / "data"
VALID = (DATA / "busy.toml").read_text(encoding="utf-8")
# Bases to mutate: a plain scenario, and the built-in default (groups, counts, start steps).
BASES = [VALID, afsim.builtin_scenario("default").read_text(encoding="utf-8")]
CORPUS = sorted((DATA / "fuzz").glob("*.toml"))

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def check_loads_or_scenario_error(text: str) -> None:
    try:
        scenario = afsim.load_scenario(text=text, name="fuzz.toml")
    except afsim.ScenarioError as e:
        assert e.file == "fuzz.toml"
        assert e.line >= 0 and e.column >= 0
        assert e.message
        return
    # a scenario that loads is one afsim can run: nodes to run on, something that stops it
    assert scenario.n_nodes >= 1, "a scenario without nodes loaded"


_EXPECT = re.compile(r"^# expect: line (\d+), field (\S+)$", re.M)


def _expected(path: Path) -> tuple[int, str]:
    m = _EXPECT.search(path.read_text(encoding="utf-8"))
    assert m, f"{path.name}: no '# expect: line N, field F' line"
    return int(m.group(1)), m.group(2)


def test_the_corpus_is_there() -> None:
    assert len(CORPUS) >= 12, "the adversarial scenarios of data/fuzz/"


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_each_adversarial_scenario_is_refused_at_its_line_and_field(path: Path) -> None:
    line, field = _expected(path)
    with pytest.raises(afsim.ScenarioError) as info:
        afsim.load_scenario(path)
    e = info.value
    assert (Path(e.file).name, e.line, e.field) == (path.name, line, field), e.message
    assert e.column >= 1 and e.message
    check_loads_or_scenario_error(path.read_text(encoding="utf-8"))  # as text, the same


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_afsim_run_refuses_each_with_exit_2_and_its_place(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from afsim.cli import main

    line, field = _expected(path)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert re.search(rf"^afsim: error: \S*{re.escape(path.name)}:{line}:\d+: {re.escape(field)}: \S",
                     err, re.M), err


@settings(FUZZ, max_examples=100)
@given(st.text(max_size=400))
def test_random_text(text: str) -> None:
    check_loads_or_scenario_error(text)


# Values that stress units, numbers and references.
ODD_VALUES = [
    '""', '"0"', '"-1Mbps"', '"1e400Mbps"', '"18446744073709551616bps"', '"1.5.5ms"', '"NaNms"',
    '"infs"', '"5 ms"', '"5MS"', '"$"', '"$rate"', '"$nope"', '"$$rate"', '"${rate}"', "0",
    "-1", "1e308", "nan", "inf", "true", "[]", "{}", '["a"]', '["a", "a"]', '["zz", "b"]',
    '"\\u0000"', '"pkt"', '"0pkt"', '"4294967296pkt"', '"99999999999999999999B"', '"0.0000001ns"',
    '"1Gbps"', '"2s"', '"10ms"', "'''multi\nline'''",
]

TOKENS = ["[", "]", "[[", "]]", "=", '"', ",", "\n", "#", "{", "}", ".", "$", "node", "link",
          "flow", "params", "scenario", "route", "between", "rate", "delay", "queue", "kind"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    lines = draw(st.sampled_from(BASES)).splitlines()
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["value", "delete_line", "duplicate_line", "swap", "insert",
                                   "cut", "key"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        if op == "value" and "=" in line:
            key = line.split("=", 1)[0]
            lines[i] = f"{key}= {draw(st.sampled_from(ODD_VALUES))}"
        elif op == "delete_line" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate_line":
            lines.insert(i, line)
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "insert":
            k = draw(st.integers(0, len(line)))
            token = draw(st.sampled_from(TOKENS) | st.text(max_size=3))
            lines[i] = line[:k] + token + line[k:]
        elif op == "cut":
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k]
        elif op == "key" and "=" in line:
            value = line.split("=", 1)[1]
            key = draw(st.sampled_from(TOKENS[13:]) | st.text(min_size=1, max_size=5))
            lines[i] = f"{key} ={value}"
    return "\n".join(lines) + "\n"


@settings(FUZZ, max_examples=200)
@given(mutated())
def test_mutations_of_a_valid_scenario(text: str) -> None:
    check_loads_or_scenario_error(text)


def test_the_unmutated_scenario_loads() -> None:
    assert afsim.load_scenario(text=VALID, name="fuzz.toml").n_flows == 2
