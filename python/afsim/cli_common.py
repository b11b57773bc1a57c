"""What every ``afsim`` subcommand shares: the exit codes, the usage error, and the checks and
printing of the command line (a scenario path, an output directory, the loader's warnings, the
console). ``afsim.cli`` (run, live, bench, scenarios), ``afsim.cli_reproduce`` (reproduce) and
``afsim.cli_store`` (sweep, results, report) build on it; it imports none of them.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import afsim
from afsim._core import ScenarioError

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK = 0
EXIT_CONSERVATION = 1
EXIT_USAGE = 2
EXIT_RUNS_FAILED = 3
EXIT_STORE_DAMAGED = 4
EXIT_OUTPUT = 5  # an output could not be written whole (afsim.output.OutputError)
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a filter killed by it


class UsageError(Exception):
    """Bad input found before anything ran (exit 2)."""


def _error(message: str) -> None:
    print(f"afsim: error: {message}", file=sys.stderr)


def format_scenario_error(e: ScenarioError) -> str:
    """``file:line:column: field: message`` (the field part left out when no field applies)."""
    place = f"{e.file}:{e.line}:{e.column}"
    return f"{place}: {e.field}: {e.message}" if e.field else f"{place}: {e.message}"


def scenario_path(text: str | None) -> Path:
    """The scenario file a command line names: a file path, else a built-in scenario's name.
    A path that exists but is no regular file (a directory, a FIFO, a symlink loop or a link to
    nothing) is named as what it is."""
    if text is None:
        return afsim.builtin_scenario("default")
    path = Path(text)
    try:
        st = os.stat(path)
    except OSError as e:
        import errno

        if e.errno == errno.ELOOP:
            raise UsageError(f"{text}: a symbolic link loop (too many levels of symbolic links), "
                             "not a scenario file") from None
        if path.is_symlink():
            raise UsageError(f"{text}: a symbolic link to '{os.readlink(path)}', which does not "
                             "exist") from None
        if e.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise UsageError(f"{text}: {e.strerror}") from None
        # not a file: a built-in scenario's name (`afsim scenarios` lists them)?
        try:
            return afsim.builtin_scenario(text)
        except FileNotFoundError as missing:
            raise UsageError(f"{text}: no such scenario file, nor a built-in scenario "
                             f"({str(missing).split('; ', 1)[-1]})") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{text}: a directory, not a scenario file")
    if stat.S_ISFIFO(st.st_mode):
        raise UsageError(f"{text}: a FIFO (named pipe), not a scenario file")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{text}: not a regular file, so not a scenario file")
    return path


def check_out_dir(out: Path, option: str) -> None:
    """Fails (exit 2, before anything runs) unless ``out`` is a writable directory or can be
    created as one in an existing, writable directory."""
    if out.exists():
        if not out.is_dir():
            raise UsageError(f"{option} {out}: a file is in the way (it takes a directory)")
        if not os.access(out, os.W_OK | os.X_OK):
            raise UsageError(f"{option} {out}: the directory is not writable")
        return
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise UsageError(f"{option} {out}: its parent directory {parent} {what}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {out}: cannot create it: {parent} is not writable")


def prepare_out_dir(out: Path, option: str, parents: bool = False) -> None:
    """Makes ``out`` (if need be) and proves it writable with a probe file, before anything
    runs: a directory that passes ``check_out_dir`` can still refuse (``/proc/x``, a read-only
    mount, a full disk). UsageError naming the path otherwise."""
    import tempfile

    try:
        out.mkdir(parents=parents, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".afsim-probe-"):
            pass
    except OSError as e:
        raise UsageError(f"{option} {out}: cannot write there: {e.strerror or e}") from None


def print_warnings(warnings: list[dict[str, Any]]) -> None:
    """The loader's warnings, one line each on stderr: ``afsim: warning: file:line:col: ...``."""
    for w in warnings:
        place = f"{w['file']}:{w['line']}:{w['column']}"
        field = f" {w['field']}:" if w["field"] else ""
        print(f"afsim: warning: {place}:{field} {w['message']}", file=sys.stderr)


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich exits with status 1 here; hand it to main(), which stops every output
            # format the same way (EXIT_BROKEN_PIPE, as a filter killed by SIGPIPE)
            self.quiet = True
            raise BrokenPipeError

    stream = sys.stderr if stderr else sys.stdout
    # Off a terminal rich assumes 80 columns; the queue table is wider than that.
    return _Console(file=stream, width=None if stream.isatty() else 132, highlight=False)
