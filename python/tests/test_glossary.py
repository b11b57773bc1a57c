"""docs/glossary.md is what tools/glossary.py makes of the code, and names every column a run
produces."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import afsim

ROOT = Path(__file__).resolve().parents[2]


def _tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("glossary", ROOT / "tools" / "glossary.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["glossary"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_committed_glossary_is_what_the_code_generates() -> None:
    text = _tool().render()
    committed = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert committed == text, "docs/glossary.md is stale: run python3 tools/glossary.py"


def test_every_column_of_a_run_is_in_the_glossary_with_a_unit_and_an_interval() -> None:
    text = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (\w+)\n(.*?)(?=^## |\Z)", text, re.S | re.M))
    r = afsim.run(afsim.load_scenario(afsim.builtin_scenario("examples/three-customers"),
                                      overrides={"ecn": "true"}))
    for table in ("flows", "queues", "colours", "code_points", "conditioners", "groups",
                  "delay_classes"):
        df = getattr(r, table)
        assert len(df), table
        rows = {m.group(1): m.group(2) for m in re.finditer(
            r"^\| `([^`]+)` \| ([^|]+) \| ([^|]+) \|", sections[table], re.M)}
        for col in df.columns:
            key = "drops_<reason>" if table == "queues" and col.startswith("drops_") \
                and col not in rows else col
            assert key in rows, f"{table}.{col} is not in docs/glossary.md"
    from afsim.results import SERIES_GLOSSARY

    for table, (_, cols) in SERIES_GLOSSARY.items():
        df = getattr(r, table)
        assert len(df), table
        assert list(df.columns) == list(cols), f"{table}: the glossary's columns are not the run's"
        assert all(f"| `{c}` |" in sections[table] for c in cols), table


def test_the_unit_and_interval_rules_read_names_and_doc_comments() -> None:
    g = _tool()
    assert g.unit("groups", "throughput_kbps_total", "f64").startswith("kb/s")
    assert g.unit("flows", "timeouts", "Option<u64>") == "count"
    assert g.unit("colours", "drops_early", "u64") == "packets"
    assert g.unit("flows", "mean_delay_s", "Option<f64>") == "s"
    assert g.interval("flows", "goodput_kbps", "in the measured interval", "kb/s") == \
        "after warm-up"
    assert g.interval("flows", "packets_sent", "from time 0", "packets") == "whole run"
    assert g.interval("queues", "len_packets_end", "", "packets") == "at the end"
