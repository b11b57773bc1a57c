"""tools/compare_reproductions.py: two reproduction outputs are the same when only their run
times, figure dates and matplotlib's per-process ids differ, and differ on any number.
tools/callgrind_by_file.py: a profile's instructions by source file, inlined code counted where
it was written, each instruction once."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _tool(name: str = "compare_reproductions"):
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _out(d: Path, *, wall: float, thr: float, date: str, clip: str) -> Path:
    d.mkdir()
    (d / "results.json").write_text(json.dumps({"wall_seconds": wall, "engine_seconds": wall * 2,
                                                 "runs": [{"wall_s": wall / 3, "metrics": {"thr": thr}}]}))
    (d / "report.md").write_text(f"- runs: 3 simulations in {wall} s of wall time; they took {wall * 2} s of engine time\n"
                                 f"- thr {thr}\n")
    (d / "runs.csv").write_text(f"seed,wall_s,thr\n1,{wall / 3},{thr}\n")
    (d / "fig.svg").write_text(f'<dc:date>{date}</dc:date><clipPath id="{clip}"/><g clip-path="url(#{clip})"/>')
    return d


def test_times_dates_and_ids_do_not_count_and_numbers_do(tmp_path: Path) -> None:
    tool = _tool()
    a = _out(tmp_path / "a", wall=1.5, thr=812.25, date="2026-01-01", clip="p0123456789")
    b = _out(tmp_path / "b", wall=7.25, thr=812.25, date="2026-02-02", clip="pabcdef0123")
    c = _out(tmp_path / "c", wall=1.5, thr=812.26, date="2026-01-01", clip="p0123456789")
    assert tool.main([str(a), str(b)]) == 0
    lines = tool.compare(a, c)
    assert tool.main([str(a), str(c)]) == 1
    assert sorted(x for x in lines if x.endswith("DIFFERS")) == [
        "report.md: DIFFERS", "results.json: DIFFERS", "runs.csv: DIFFERS"]


#: A callgrind profile in its compressed form: `loop` (in run.rs) with code inlined from
#: queue.rs (fi=, back by fe=) and a call to `helper` (in tcp.rs), whose inclusive cost (the
#: line after calls=) is the callee's, counted in its own function.
CALLGRIND = """# callgrind format
events: Ir
fl=(1) /src/run.rs
fn=(1) loop
10 5
fi=(2) /src/queue.rs
20 7
+1 3
fe=(1)
11 2
cfl=(3) /src/tcp.rs
cfn=(2) helper
calls=4 30
12 40
13 1
fl=(3)
fn=(2)
30 40
fl=(2)
fn=(3) pop
21 9
"""


def test_callgrind_cost_by_the_file_each_line_was_written_in(tmp_path: Path, capsys) -> None:
    tool = _tool("callgrind_by_file")
    assert dict(tool.by_file(CALLGRIND.splitlines())) == {
        "/src/run.rs": 5 + 2 + 1, "/src/queue.rs": 7 + 3 + 9, "/src/tcp.rs": 40}
    out = tmp_path / "callgrind.out"
    out.write_text(CALLGRIND)
    assert tool.main([str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "67 instructions"
    assert lines[1].split()[-1] == "/src/tcp.rs" and lines[2].split()[-1] == "/src/queue.rs"
    assert tool.main([str(tmp_path / "missing.out")]) == 2
    (tmp_path / "empty.out").write_text("events: Ir\n")
    assert tool.main([str(tmp_path / "empty.out")]) == 2
