"""Jourjon, Lochin, Sénac: gTFRC: ``afsim reproduce gtfrc``.

The package: ``paper`` (constants, metrics, null model, grid, variants, unstated
parameters, the ns-2 twin where there is one, ``mode``), ``claims`` (each claim's test;
``STATEMENTS`` joins them with statements.toml, the paper's sentences as data),
``figures``, and ``values.json`` (its published values and their tolerances).
"""

from __future__ import annotations

from pathlib import Path

from afsim.reproduce.core import Paper
from afsim.reproduce.gtfrc.claims import (
    EVALUATE,
    STATEMENTS,
    Bin,
    pooled_rms,
)
from afsim.reproduce.gtfrc.figures import (
    extra_figures,
)
from afsim.reproduce.gtfrc.paper import (
    BOTTLENECK_KBPS,
    CITATION,
    DATA,
    EXPERIMENT_FILES,
    FIGURE_NUMBERS,
    NULL_DESCRIPTION,
    PANEL,
    PANELS,
    PAPER_ID,
    QUICK,
    SAME_THR,
    SERIES_TIMES,
    SIMILAR_LOSS,
    SIMILAR_SHARE,
    TITLE,
    TWIN,
    UNSTATED,
    VARIANTS,
    Panel,
    access_delay_ms,
    design_overrides,
    experiments,
    find_scenarios_dir,
    mode,
    ns2_args,
    ns2_results,
    null_model,
    panel_overrides,
    pick_series,
    queue_metrics,
    run_metrics,
    series_bins,
    series_metrics,
    tfrc_trace_metrics,
)

__all__ = [
    "BOTTLENECK_KBPS",
    "CITATION",
    "DATA",
    "EVALUATE",
    "EXPERIMENT_FILES",
    "FIGURE_NUMBERS",
    "NULL_DESCRIPTION",
    "PANEL",
    "PANELS",
    "PAPER_ID",
    "QUICK",
    "SAME_THR",
    "SERIES_TIMES",
    "SIMILAR_LOSS",
    "SIMILAR_SHARE",
    "STATEMENTS",
    "TITLE",
    "TWIN",
    "UNSTATED",
    "VARIANTS",
    "Bin",
    "Panel",
    "access_delay_ms",
    "design_overrides",
    "experiments",
    "extra_figures",
    "find_scenarios_dir",
    "mode",
    "ns2_args",
    "ns2_results",
    "null_model",
    "panel_overrides",
    "paper",
    "pick_series",
    "pooled_rms",
    "queue_metrics",
    "run_metrics",
    "series_bins",
    "series_metrics",
    "tfrc_trace_metrics",
]


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, statements, published values, null model
    and unstated parameters; its figures are time series (``extra_figures``)."""
    return Paper(id=PAPER_ID, title=TITLE, citation=CITATION,
                 experiments=experiments(scenarios_dir), statements=STATEMENTS, figures=(),
                 data=DATA, null_model=null_model, null_description=NULL_DESCRIPTION,
                 variants=VARIANTS, unstated=UNSTATED, design_overrides=design_overrides,
                 extra_figures=extra_figures, ns2=TWIN)
