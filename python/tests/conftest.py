"""Shared fixtures: the test scenarios in data/, and running the `afsim` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def child_env(**extra: str) -> dict[str, str]:
    """This environment for a child process that may run in another directory: the afsim
    package imported here comes first on its path (a relative PYTHONPATH would not)."""
    import afsim

    here = str(Path(afsim.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


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
