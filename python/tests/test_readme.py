"""README.md stays true: its table of the reproductions is what tools/readme_numbers.py writes
from their results.json, its quickstart commands are the two the project supports, and its
example's output is what afsim prints for that scenario."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


def _tool():
    spec = importlib.util.spec_from_file_location("readme_numbers", REPO / "tools" / "readme_numbers.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_reproductions_table_is_generated_from_results_json() -> None:
    tool = _tool()
    text = README.read_text(encoding="utf-8")
    assert tool.render(text) == text, "run python3 tools/readme_numbers.py"
    assert tool.main(["--check"]) == 0


def test_the_table_would_catch_a_drifted_number() -> None:
    tool = _tool()
    text = README.read_text(encoding="utf-8")
    drifted = re.sub(r"\| (\d+) of (\d+) \|", lambda m: f"| {int(m.group(1)) + 1} of {m.group(2)} |", text, count=1)
    assert drifted != text and tool.render(drifted) == text


def test_the_quickstart_commands_are_there() -> None:
    text = README.read_text(encoding="utf-8")
    assert "```sh\npip install . && afsim run\n```" in text
    assert "```sh\nmake test\n```" in text


def test_the_example_output_is_what_afsim_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from afsim.cli import main

    block = re.search(r"```console\n\$ afsim run (\S+)\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block, "the README's example"
    assert main(["run", str(REPO / block.group(1))]) == 0
    out = capsys.readouterr().out
    shown = [line for line in block.group(2).splitlines() if not line.startswith("  …")]
    assert len(shown) >= 8
    for line in shown:
        assert line.rstrip() in out, line
