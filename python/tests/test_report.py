"""The HTML report (afsim/report): self-contained, its plots present, and rendered by a real
headless browser (Debian's chromium) with no console error; the screenshot is kept."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import DATA, afsim_cmd

from afsim.report import Document, flow_bars, metric_vs_param, store_report
from afsim.store import Store
from afsim.sweep import sweep


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


# ---------------------------------------------------------------------------------------------
# Unit-valued parameters, extremes, bands, numbers, labels (issue #24, case 5)

#: Grid values given out of order, in two units: by value 400k < 800k < 1M < 1.2M < 1.6M.
UNIT_GRID = ["1200kbps", "400kbps", "1Mbps", "1600kbps", "800kbps"]
BY_VALUE = ["400kbps", "800kbps", "1Mbps", "1200kbps", "1600kbps"]


@pytest.fixture(scope="module")
def unit_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("units")
    sweep(DATA / "busy.toml", {"rate": UNIT_GRID}, replications=2, overrides={"duration": "2s"},
          store=path / "store", workers=2)
    p = afsim_cmd("report", path / "store", "-o", path / "report.html")
    assert p.returncode == 0, p.stderr
    return path / "report.html"


_PROBE = """<pre id="afsim-probe"></pre><script>
// the x position, as laid out by the browser, of each tick label of the first figure
const fig = [...document.querySelectorAll('figure')].find(
    f => f.textContent.includes('total throughput (kb/s) against rate'));
const ticks = [...fig.querySelectorAll('text')].filter(t => /^[0-9.]+[kMG]?bps$/.test(
    t.textContent.trim())).map(t => [t.textContent.trim(), t.getBoundingClientRect().left]);
document.getElementById('afsim-probe').textContent = JSON.stringify(ticks);
</script></body>"""


def test_a_unit_valued_parameter_is_ordered_by_value_in_the_browser(unit_report: Path,
                                                                   tmp_path: Path) -> None:
    import json

    page = tmp_path / "probe.html"
    page.write_text(unit_report.read_text(encoding="utf-8").replace("</body>", _PROBE),
                    encoding="utf-8")
    p = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                        "--window-size=1280,4000", "--dump-dom", page.as_uri()],
                       capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    found = re.search(r'<pre id="afsim-probe">([^<]*)</pre>', p.stdout)
    assert found, p.stdout[-2000:]
    ticks = json.loads(html.unescape(found.group(1)))
    assert [t for t, _ in sorted(ticks, key=lambda t: t[1])] == BY_VALUE
    assert "rate (Mb/s)" in unit_report.read_text(encoding="utf-8"), "axis in a display unit"


def test_the_table_and_the_flow_bars_take_the_extremes_by_value(unit_report: Path) -> None:
    text = unit_report.read_text(encoding="utf-8")
    table = text[text.index("Grid points"):text.index("</table>", text.index("Grid points"))]
    rows = re.findall(r'<tr><td class="text">([^<]+)</td>', table)
    assert rows == BY_VALUE
    assert "Throughput per flow at rate = 400kbps" in text
    assert "Throughput per flow at rate = 1600kbps" in text


def test_numbers_are_in_engineering_notation_to_the_intervals_digits(unit_report: Path) -> None:
    from afsim.stats import format_eng, format_mean_ci

    assert format_mean_ci(11630.0, 200.0) == "11.63 ± 0.20 ×10³"
    assert format_mean_ci(1.0, 5.3e-18) == "1.000 ± 0.000"
    assert format_mean_ci(0.05, 0.003) == "50.0 ± 3.0 ×10⁻³"
    assert format_mean_ci(786.2, 41.3) == "786 ± 41"
    assert format_mean_ci(2.5, float("nan")) == "2.500"
    assert format_eng(1200.0, 3) == "1.20 ×10³"
    text = unit_report.read_text(encoding="utf-8")
    table = text[text.index("Grid points"):text.index("</table>", text.index("Grid points"))]
    assert not re.search(r"\de[+-]\d", table), "no computer exponents"
    assert "×10³" in table


def test_bands_are_clipped_at_physical_bounds() -> None:
    points = pd.DataFrame({"rate": ["1Mbps", "2Mbps"],
                           "throughput_kbps_total.mean": [10.0, 20.0],
                           "throughput_kbps_total.ci95": [30.0, 5.0],
                           "jain.mean": [0.9, 0.99], "jain.ci95": [0.3, 0.05]})
    # throughput: 10 ± 30 is clipped at 0 below, not above; Jain's index at 1 above
    for metric, (lo, hi) in (("throughput_kbps_total", (0.0, 40.0)), ("jain", (0.6, 1.0))):
        fig = metric_vs_param(points, metric, "rate")
        band = fig.axes[0].collections[0].get_paths()[0].vertices[:, 1]
        assert band.min() == pytest.approx(lo) and band.max() == hi, (metric, band)


def test_end_of_line_labels_do_not_collide() -> None:
    points = pd.DataFrame({"n": [1, 2] * 4, "k": [c for c in "abcd" for _ in range(2)],
                           "m.mean": [1.0, 2.0, 1.5, 2.01, 1.2, 2.02, 1.1, 1.99],
                           "m.ci95": [0.1] * 8})
    fig = metric_vs_param(points, "m", "n", "k")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    from matplotlib.text import Text

    # the labels themselves, not their leaders
    boxes = [Text.get_window_extent(t, renderer) for t in fig.axes[0].texts]
    assert len(boxes) == 4
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)
