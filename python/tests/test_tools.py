"""tools/compare_reproductions.py: two reproduction outputs are the same when only their run
times, figure dates and matplotlib's per-process ids differ, and differ on any number."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("compare_reproductions", REPO / "tools" / "compare_reproductions.py")
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
