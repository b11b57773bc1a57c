"""Reproductions of the papers afsim implements: ``afsim reproduce PAPER``.

Read this first: the machinery is shared by every paper — ``core`` (experiments, variants,
modes, runs, aggregates), ``scoring`` (published values against afsim, the null model and each
variant, with tolerances from the paper's precision), ``claims`` (every statement of the text,
classified; the claims decided on each reading), ``robustness`` (the unstated parameters, a
design over their ranges, and whether each claim holds across it) and ``report`` (Markdown,
JSON, CSV, figures). Each paper is a package (``giacomazzi``, ``laatu``, ``leung``,
``gtfrc``): ``paper.py`` (its constants, metrics, null model, experiments, variants and
unstated parameters), ``claims.py`` (each claim's test, joined by id with
``statements.toml``, the paper's quoted sentences as data: ``claims.load_statements``),
``figures.py``, ``values.json`` (its published values and their tolerances) and an
``__init__.py`` whose ``paper()`` assembles the ``Paper``. Helpers more than one paper needs
live here: ``core.prob`` (a loss probability with its counts), ``core.find_scenarios_dir``,
``afsim.stats.jain``/``fieb``, ``afsim.units.number_in``.

    >>> from afsim import reproduce
    >>> rep = reproduce.run("giacomazzi", quick=True, only=["table2"])   # doctest: +SKIP
    >>> reproduce.write_outputs(rep, "out/giacomazzi")                  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from afsim.reproduce.claims import Checks, ClaimResult, Kind, Statement
from afsim.reproduce.core import (
    Aggregates,
    Experiment,
    Figure,
    Mode,
    Paper,
    Point,
    Reproduction,
    RunFailed,
    Stat,
    Variant,
    View,
    judge,
    reproduce,
    rerun,
    t_quantile,
)
from afsim.reproduce.report import print_summary, render_markdown, to_json, write_outputs
from afsim.reproduce.robustness import Unstated
from afsim.reproduce.scoring import (
    Comparison,
    PaperValue,
    Tolerance,
    Verdict,
    compare,
    load_paper_values,
)

__all__ = [
    "PAPERS", "Aggregates", "Checks", "ClaimResult", "Comparison", "Experiment", "Figure", "Kind",
    "Mode", "Paper", "PaperValue", "Point", "Reproduction", "RunFailed", "Stat", "Statement",
    "Tolerance", "Unstated", "Variant", "Verdict", "View", "compare", "judge",
    "load_paper_values", "paper_module", "print_summary", "render_markdown", "reproduce", "rerun", "run",
    "t_quantile", "to_json", "write_outputs",
]

#: The papers ``afsim reproduce`` knows, by name: their module under afsim.reproduce.
PAPERS = {"giacomazzi": "afsim.reproduce.giacomazzi", "laatu": "afsim.reproduce.laatu",
          "leung": "afsim.reproduce.leung", "gtfrc": "afsim.reproduce.gtfrc"}


def paper_module(name: str):
    """The module of a paper; KeyError (listing the papers) for an unknown name."""
    if name not in PAPERS:
        raise KeyError(f"no reproduction of {name!r}; the papers are: {', '.join(PAPERS)}")
    return importlib.import_module(PAPERS[name])


def run(name: str, *, quick: bool = False, jobs: int | None = None,
        only: Sequence[str] | None = None, budget: int | None = None,
        replications: int | None = None, scenarios_dir: Path | None = None,
        show_progress: bool = False, variants: bool = True, robustness: bool = True,
        store: str | Path | None = None, ns2: str = "committed", live: str = "committed") -> Reproduction:
    """Runs a paper's reproduction: full mode (the paper's budget) or ``quick``; with a
    ``store`` folder, finished runs are kept and an interrupted run resumes; ``ns2``: where the
    ns-2 column comes from (``"committed"``, ``"run"``, ``"off"``; ``afsim.reproduce.twin``),
    ``live`` the live column likewise (``afsim.reproduce.live``; papers with a live spec)."""
    mod = paper_module(name)
    return reproduce(mod.paper(scenarios_dir), mod.mode(quick, budget, replications),
                     jobs=jobs, only=only, show_progress=show_progress, variants=variants,
                     robustness=robustness, store=store, ns2=ns2, live=live)
