"""Shared fixtures: the test scenarios in data/, and running the `afsim` command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def tiny() -> Path:
    """One CBR flow over one link, 2 s, parameter `rate`."""
    return DATA / "tiny.toml"


@pytest.fixture
def busy() -> Path:
    """Two jittered CBR flows overloading a bottleneck; parameters `duration` and `rate`."""
    return DATA / "busy.toml"


def afsim_cmd(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Runs `python -m afsim ARGS` (the same entry point as the `afsim` script)."""
    return subprocess.run(
        [sys.executable, "-m", "afsim", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
