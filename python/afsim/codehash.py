"""A hash of the Python code that computes stored numbers, so that a stored result is reused
only while that code is unchanged.

Read this first. ``fingerprint(fns)`` hashes each function's code (its syntax tree: comments and
docstrings left out) and, transitively, every
afsim function it reaches — a function of its own module or of another ``afsim`` module, by
name (``helper(x)``) or through a module (``core.prob(...)``) — and the value of every
module-level constant (number, string, tuple) it reads. Code it never reaches (a claim, a
figure, a docstring elsewhere in the module) does not count, so editing it keeps every store;
editing the metrics code, a helper it calls or a constant it reads changes the hash.

Users: ``afsim.store.CODE_VERSION`` (the default metrics every stored run gets, in every run
key and store), ``afsim.sweep.execute`` (a sweep's own reducer, in its run keys) and
``afsim.reproduce.core.store_dir`` (a reproduction's metrics, in its store's name). The Rust
side is ``afsim._core.__build__``: a hash of the simulator's sources (crates/afsim-py/build.rs).
This module imports nothing of afsim.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import textwrap
import types
from collections.abc import Callable, Iterable
from typing import Any


def _ours(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == "afsim" or module.startswith("afsim.")


def _code_text(fn: types.FunctionType) -> str:
    """The function's code without its comments and docstrings: the dump of its syntax tree
    (so a comment or docstring edit keeps the hash); its bytecode when there is no source."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return fn.__code__.co_code.hex()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def fingerprint(fns: Iterable[Callable[..., Any]]) -> str:
    """12 hex digits: a hash of the code ``fns`` run (see the module header). Functions
    outside afsim (a test's, a user's reducer) count with their own source and what they reach
    in their own module."""
    h = hashlib.sha256()
    seen: set[str] = set()

    def visit(fn: types.FunctionType) -> None:
        name = f"{fn.__module__}.{fn.__qualname__}"
        if name in seen:
            return
        seen.add(name)
        h.update(name.encode() + b"\0" + _code_text(fn).encode())
        module_globals = fn.__globals__
        codes = [fn.__code__]
        k = 0
        while k < len(codes):  # nested functions and comprehensions too
            codes += [c for c in codes[k].co_consts if isinstance(c, types.CodeType)]
            k += 1
        names = [n for c in codes for n in c.co_names]
        for ref in names:
            value = module_globals.get(ref)
            if isinstance(value, types.FunctionType):
                if value.__module__ == fn.__module__ or _ours(value):
                    visit(value)
            elif isinstance(value, types.ModuleType) and _ours(value):
                # ``core.prob(...)``: the module's functions and constants this code names
                for attr in names:
                    member = getattr(value, attr, None)
                    if isinstance(member, types.FunctionType) and _ours(member):
                        visit(member)
                    elif isinstance(member, (int, float, str, bytes, tuple, frozenset)):
                        h.update(f"{value.__name__}.{attr}={member!r}".encode())
            elif isinstance(value, (int, float, str, bytes, tuple, frozenset)):
                h.update(f"{ref}={value!r}".encode())

    for fn in sorted(set(fns), key=lambda f: (f.__module__, f.__qualname__)):
        visit(fn)  # type: ignore[arg-type]
    return h.hexdigest()[:12]
