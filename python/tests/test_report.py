"""The HTML report (afsim/report): self-contained, its plots present, and rendered by a real
headless browser (Debian's chromium) with no console error; the screenshot is kept."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from afsim.report import Document, flow_bars, metric_vs_param, store_report
from afsim.store import Store
from afsim.sweep import sweep

from conftest import DATA, afsim_cmd


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "store"
    sweep(DATA / "tcp_ecn.toml", {"bottleneck": ["1Mbps", "2Mbps", "4Mbps"]}, replications=3,
          store=path, workers=2)
    return path


@pytest.fixture(scope="module")
def html_file(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html") / "report.html"
    p = afsim_cmd("report", store, "-o", out)
    assert p.returncode == 0, p.stderr
    return out


def test_the_report_is_one_file_that_fetches_nothing(html_file: Path) -> None:
    text = html_file.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"(src|href)=\"(https?:)?//", text), "no network resource"
    assert "<script" not in text and "<img" not in text and "<link" not in text
    ids = re.findall(r'\sid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), "figure ids are unique across the page"


def test_the_report_has_the_expected_tables_and_plots(html_file: Path) -> None:
    text = html_file.read_text(encoding="utf-8")
    assert "Scenario tcp-ecn" in text
    assert "Grid points: mean ± 95% confidence half-width" in text
    # metric against the swept parameter with a CI band, per-flow bars, cwnd traces
    assert "total throughput (kb/s) against bottleneck" in text
    assert "Throughput per flow at bottleneck = 1Mbps" in text
    assert "TCP congestion window over time" in text
    assert text.count("<svg") >= 5
    # series are named on the plot itself: the flows of the cwnd figure, t0..t2
    cwnd = next(f for f in text.split("<figure") if "TCP congestion window over time" in f)
    assert all(re.search(rf">t{i}\s*<", cwnd) for i in range(3))


def test_a_document_takes_generic_tables_and_figures(tmp_path: Path) -> None:
    doc = Document("Generic")
    doc.heading("A section")
    doc.table(pd.DataFrame({"x": [1, 2], "y": [0.5, float("nan")], "name": ["a", "<b>"]}),
              caption="numbers")
    points = pd.DataFrame({"n": [1, 2, 3, 1, 2, 3], "k": ["a"] * 3 + ["b"] * 3,
                           "m.mean": [1.0, 2, 3, 2, 3, 4], "m.ci95": [0.1] * 6})
    doc.figure(metric_vs_param(points, "m", "n", "k"), caption="m against n")
    doc.figure(flow_bars(["f0", "f1"], [1.0, 2.0], [0.1, float("nan")], title="bars",
                         ylabel="kb/s"))
    html = doc.write(tmp_path / "g.html").read_text()
    assert "<td>–</td>" in html and "&lt;b&gt;" in html
    assert re.search(r">k = a\s*<", html) and re.search(r">k = b\s*<", html), \
        "series labelled at their ends"
    assert html.count("<svg") == 2


def test_an_empty_store_makes_a_report_that_says_so(tmp_path: Path) -> None:
    Store.open(tmp_path / "empty").close()
    with Store.open(tmp_path / "empty", write=False) as s:
        assert "The store holds no runs yet." in store_report(s).html()


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (.ci/run installs it)")
    pytest.skip("chromium is not installed (apt-get install chromium)")


def render(page: Path, shot: Path, profile: Path) -> list[str]:
    """Renders ``page`` in headless chromium into the screenshot ``shot``; returns the page's
    console lines (console.error and the like, uncaught exceptions, failed loads)."""
    args = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0",
            f"--user-data-dir={profile}", "--window-size=1280,4000",
            f"--screenshot={shot}", page.as_uri()]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    # the browser's own complaints about the sandbox's missing D-Bus or GPU are not the page's
    return [line for line in p.stderr.splitlines() if "CONSOLE" in line
            or "Failed to load resource" in line or "Uncaught" in line]


def test_the_console_check_sees_a_page_error(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text("<html><body><script>console.error('boom')</script></body></html>")
    lines = render(page, tmp_path / "bad.png", tmp_path / "profile")
    assert any("boom" in line for line in lines), lines


def test_a_headless_browser_renders_it_without_console_errors(html_file: Path,
                                                             tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    assert render(html_file, shot, tmp_path / "profile") == []
    assert shot.is_file() and shot.stat().st_size > 20_000
    print(f"\nreport screenshot: {shot}")
    # not blank: a real rendering has many colours (plots, table borders, text)
    from PIL import Image

    with Image.open(shot) as im:
        colours = im.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50
