"""Reproductions of the papers afsim implements: ``afsim reproduce PAPER``.

Read this first: ``core`` is the machinery shared by every paper (experiments over parameter
grids and seeds, parallel runs, confidence intervals, comparison with the published values,
claims, reports and figures); each paper has a module (``giacomazzi``) that defines its
experiments, claims and figures, and a data file of its published values (``data/``).

    >>> from afsim import reproduce
    >>> rep = reproduce.run("giacomazzi", quick=True, only=["table2"])   # doctest: +SKIP
    >>> reproduce.write_outputs(rep, "out/giacomazzi")                  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from afsim.reproduce.core import (
    Aggregates,
    Claim,
    ClaimResult,
    Comparison,
    Experiment,
    Figure,
    Mode,
    Paper,
    PaperValue,
    Point,
    Reproduction,
    RunFailed,
    Stat,
    compare,
    load_paper_values,
    print_summary,
    render_markdown,
    reproduce,
    t_quantile,
    to_json,
    within_tolerance,
    write_outputs,
)

__all__ = [
    "PAPERS", "Aggregates", "Claim", "ClaimResult", "Comparison", "Experiment", "Figure", "Mode",
    "Paper", "PaperValue", "Point", "Reproduction", "RunFailed", "Stat", "compare", "load_paper_values",
    "paper_module", "print_summary", "render_markdown", "reproduce", "run", "t_quantile",
    "to_json", "within_tolerance", "write_outputs",
]

#: The papers ``afsim reproduce`` knows, by name: their module under afsim.reproduce.
PAPERS = {"giacomazzi": "afsim.reproduce.giacomazzi"}


def paper_module(name: str):  # noqa: ANN201 (a module)
    """The module of a paper; KeyError (listing the papers) for an unknown name."""
    if name not in PAPERS:
        raise KeyError(f"no reproduction of {name!r}; the papers are: {', '.join(PAPERS)}")
    return importlib.import_module(PAPERS[name])


def run(name: str, *, quick: bool = False, jobs: int | None = None,
        only: Sequence[str] | None = None, max_packets: int | None = None,
        replications: int | None = None, scenarios_dir: Path | None = None,
        show_progress: bool = False) -> Reproduction:
    """Runs a paper's reproduction: full mode (the paper's budget) or ``quick``."""
    mod = paper_module(name)
    return reproduce(mod.paper(scenarios_dir), mod.mode(quick, max_packets, replications),
                     jobs=jobs, only=only, show_progress=show_progress)
