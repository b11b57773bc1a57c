"""The small package every ns-2 cross-check here is built on: one runner, one comparison, one
table writer. Read this first.

Each script in validation/ns2 (run.py, diffserv.py, diffserv_ecn.py, tfrc.py, grid.py, ties.py,
exact.py, speed.py, leung_gap.py, gtfrc_slowstart.py, cwnd_part.py) runs ns-2 2.35 and afsim
on the same network with the same seeds, reduces each run to metrics, and sets the two side by
side. The script declares its configurations (its grid), the Tcl and scenario arguments of a
point, and how a report reduces to metrics; everything else is here, once:

- ``runner``: ``ns2(tcl, args)`` is the one way an ns-2 script is run (an ``Ns2Run``: stdout,
  wall time, and readers for the two output shapes: ``report()`` for the validation scripts'
  JSON with tagged lines after it, ``twin()`` for the reproductions' twins,
  ``afsim.ns2.parse``); ``afsim_reports(tasks)`` runs afsim points through the project's sweep
  machinery (``afsim.sweep.execute``: a local process pool, optionally a results store that
  keeps every run once), returning each run's report; ``run_jobs(jobs, ...)`` is the one loop
  over a script's runs in both simulators (a row per run); ``afsim_results(task)`` runs one point
  in this process when a script needs what a stored run does not keep (rate and window
  traces); ``run_all`` maps a function over a thread pool.
- ``compare``: ``stat``/``summarise`` (mean, sample sd, n over seeds), ``compare(ns, af)``
  (a ``Diff``: afsim − ns-2, relative and in %, Welch's z) and ``within`` (the tolerance rule
  of the parity grid: |difference| within the metric's tolerance, or |z| < 2, or an absolute
  difference below the metric's floor).
- ``tables``: the Markdown comparison table (| metric | ns-2.35 | afsim | afsim − ns-2 | z |),
  the text of a mean ± sd, a difference and a z, and the JSON writer (one line per run).

The scripts are run as files (``python3 validation/ns2/grid.py``), so this folder is on
``sys.path`` and they import this package by name.
"""

from __future__ import annotations

from ns2kit.compare import Diff, compare, jain, stat, summarise, within
from ns2kit.runner import HERE, REPO, Ns2Run, afsim_reports, afsim_results, git_head, ns2, run_all, run_jobs, task
from ns2kit.tables import dump_json, fmt, pct_text, table, write_text, z_text

__all__ = ["HERE", "REPO", "Diff", "Ns2Run", "afsim_reports", "afsim_results", "compare",
           "dump_json", "fmt", "git_head", "jain", "ns2", "pct_text", "run_all", "run_jobs", "stat",
           "summarise", "table", "task", "within", "write_text", "z_text"]
