"""The build's identity (``afsim.__build__``, in every run key and store) hashes the Rust code
that computes, not its comments, layout or unit tests: crates/afsim-py/build.rs with
crates/afsim-py/source_hash.rs, compiled here with rustc (skipped where there is none) and run
on a copy of the sources edited each way."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import afsim

REPO = Path(__file__).resolve().parents[2]
PY = REPO / "crates" / "afsim-py"
RUSTC = shutil.which("rustc")

pytestmark = pytest.mark.skipif(RUSTC is None or not (PY / "build.rs").is_file(),
                                reason="needs rustc and the crates' sources")


def test_the_canonical_text_unit_tests_pass(tmp_path: Path) -> None:
    exe = tmp_path / "source_hash_tests"
    subprocess.run([RUSTC, "--edition", "2021", "--test", str(PY / "source_hash.rs"), "-o", str(exe)],
                   check=True, capture_output=True, cwd=tmp_path)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0 and "test result: ok" in out.stdout, out.stdout + out.stderr


@pytest.fixture(scope="module")
def hasher(tmp_path_factory: pytest.TempPathFactory):
    """build.rs compiled for a copy of crates/ (its manifest dir is fixed when it compiles):
    ``hasher(edit)`` applies ``edit(crates_copy)`` and returns the hash it prints."""
    root = tmp_path_factory.mktemp("crates")
    crates = root / "crates"
    for part in ("afsim-core/src", "afsim-py/src"):
        shutil.copytree(REPO / "crates" / part, crates / part)
    for f in ("build.rs", "source_hash.rs"):
        shutil.copy(PY / f, crates / "afsim-py" / f)
    exe = root / "build"
    subprocess.run([RUSTC, "--edition", "2021", str(crates / "afsim-py" / "build.rs"), "-o", str(exe)],
                   check=True, capture_output=True, cwd=root,
                   env={**os.environ, "CARGO_MANIFEST_DIR": str(crates / "afsim-py")})
    pristine = {p: p.read_bytes() for p in crates.rglob("*.rs")}

    def run(edit=None) -> str:
        for p, b in pristine.items():
            p.write_bytes(b)
        if edit is not None:
            edit(crates / "afsim-core" / "src")
        out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
        m = re.search(r"AFSIM_SOURCE_HASH=([0-9a-f]{12})", out)
        assert m, out
        return m.group(1)

    return run


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _first_code_line(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("pub ") and "fn " in line:
            return line
    raise AssertionError(path)


def test_the_hash_is_the_builds(hasher) -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+\+[0-9a-f]{12}", afsim.__build__)
    assert hasher() == hasher(), "the same sources, the same hash"
    # the installed extension (``make test`` builds it from this checkout) carries this hash
    assert afsim.__build__.endswith("+" + hasher()), "a stale build: reinstall (make install)"


def test_comments_doc_comments_and_layout_keep_the_hash(hasher) -> None:
    base = hasher()

    def comment(src: Path) -> None:
        p = src / "metrics" / "fairness.rs"
        line = _first_code_line(p)
        _replace(p, line, f"// a new comment\n/// a new doc line\n{line} /* inline */")
        _replace(src / "world.rs", "\n", "\n//! more module docs\n")

    def layout(src: Path) -> None:
        p = src / "metrics" / "fairness.rs"
        line = _first_code_line(p)
        _replace(p, line, line.replace(" ", "  ").replace("(", "(\n    "))

    assert hasher(comment) == base
    assert hasher(layout) == base


def test_unit_tests_keep_the_hash(hasher) -> None:
    base = hasher()

    def inline_test(src: Path) -> None:
        _replace(src / "metrics" / "fairness.rs", "#[cfg(test)]\nmod tests {",
                 "#[cfg(test)]\nmod tests {\n    #[test]\n    fn added() { assert_eq!(1 + 1, 2); }")

    def tests_file(src: Path) -> None:
        # a test module in its own file (`#[cfg(test)] mod tests;` in world.rs)
        p = src / "world" / "tests.rs"
        p.write_text(p.read_text(encoding="utf-8") + "\n#[test]\nfn added() {}\n", encoding="utf-8")

    assert hasher(inline_test) == base
    assert hasher(tests_file) == base


def test_code_that_computes_changes_the_hash(hasher) -> None:
    base = hasher()

    def code(src: Path) -> None:
        _replace(src / "metrics" / "fairness.rs", "sum * sum / (n * sum_sq)", "sum * sum / (n * sum_sq) * 1.0")

    def string(src: Path) -> None:
        # a string literal is code, even one that looks like a comment
        p = src / "metrics" / "fairness.rs"
        line = _first_code_line(p)
        _replace(p, line, f'const _S: &str = "// x";\n{line}')

    assert hasher(code) != base
    assert hasher(string) != base
