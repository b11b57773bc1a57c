#!/usr/bin/env python3
"""Show the import cycles of afsim's Rust core and Python package (stdlib only).

    python3 tools/import_cycles.py              # both; exit 1 if either has a cycle
    python3 tools/import_cycles.py --rust-only  # crates/afsim-core only (what `make lint` runs)
    python3 tools/import_cycles.py --edges      # also print every module's dependencies
    python3 tools/import_cycles.py --layers     # also print the top-level modules' dependencies

A *module* is a file or a folder under the source root: `crates/afsim-core/src` (a folder
module is `x/mod.rs` or `x.rs` beside `x/`) and `python/afsim` (a folder is a package, its
`__init__.py` the folder's own file).

Dependencies (edges), read from the source text:

- Rust: every `crate::…`, `super::…` and `self::…` path, in `use` declarations (groups
  `{…}` expanded) and in code, comments and string literals removed. A path is resolved
  segment by segment to the deepest module file it names; an item the module re-exports
  (`pub use child::Item`) resolves to where it comes from. Test code (`#[cfg(test)]` modules,
  inline or in their own file) is left out: tests may use any layer, as a dev-dependency.
- Python: every `import afsim…`, `from afsim… import …` and relative import, at any depth
  (imports inside functions too: a lazy import is still a dependency).

Cycles are looked for where the tree makes them meaningful: a module depends on its parent's
own items and a parent holds its children, so those two directions are the tree, not edges.
An edge between two modules is lifted to the pair of siblings under their lowest common
ancestor (`queue/red.rs` -> `scenario/spec.rs` is the edge `queue` -> `scenario` among the
crate's top-level modules); every strongly connected component of more than one sibling is a
cycle, printed with the edges that make it. Exit status: 0 without cycles, 1 with.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUST_SRC = ROOT / "crates" / "afsim-core" / "src"
PY_SRC = ROOT / "python" / "afsim"

Module = tuple[str, ...]  # path of names from the root; () is the root (lib.rs, afsim/__init__)


# ---------------------------------------------------------------- Rust


def rust_modules(src: Path) -> dict[Module, Path]:
    """Every module of the crate and its file."""
    mods: dict[Module, Path] = {(): src / "lib.rs"}
    for f in sorted(src.rglob("*.rs")):
        rel = f.relative_to(src)
        if rel == Path("lib.rs"):
            continue
        parts = rel.with_suffix("").parts
        if parts[-1] == "mod":
            parts = parts[:-1]
        mods[tuple(parts)] = f
    return mods


def strip_rust(text: str) -> str:
    """The text without comments and string/char literals (lengths kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + m.end())
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i : j + 1]))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:]):
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            out.append(" " * m.end())
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def drop_cfg_test(text: str) -> tuple[str, set[str]]:
    """The text without inline `#[cfg(test)] mod x { … }` blocks; the names of
    `#[cfg(test)] mod x;` declarations (test modules in their own files)."""
    decl = r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;"
    test_files = set(re.findall(decl, text))
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
        if not m:
            return text, test_files
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        text = text[: m.start()] + re.sub(r"[^\n]", " ", text[m.start() : j]) + text[j:]


def expand_use_tree(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]; `x as y` -> "x"."""
    tree = tree.strip()
    m = re.match(r"^(.*?)\{(.*)\}$", tree, re.S)
    if not m:
        return [re.sub(r"\s+as\s+\w+$", "", tree).replace(" ", "")]
    prefix, body = m.group(1).strip(), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p.strip():
            for sub in expand_use_tree(p):
                out.append(prefix + sub if sub != "self" else prefix.rstrip(":"))
    return out


USE_RE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
PATH_RE = re.compile(r"\b((?:crate|super|self)(?:\s*::\s*(?:super|\w+))+)")


Graph = tuple[dict[Module, Path], dict[Module, set[Module]], dict]


def rust_graph(src: Path, with_tests: bool) -> Graph:
    mods = rust_modules(src)
    texts: dict[Module, str] = {}
    test_mods: set[Module] = set()
    for mod, f in mods.items():
        text = strip_rust(f.read_text())
        if not with_tests:
            text, test_children = drop_cfg_test(text)
            test_mods |= {mod + (c,) for c in test_children}
        texts[mod] = text
    # a test module's own children are test code too
    test_mods = {m for m in mods if any(m[: len(t)] == t for t in test_mods)}

    def absolute(mod: Module, path: str) -> list[str] | None:
        segs = [s for s in re.split(r"\s*::\s*", path) if s]
        base: list[str] | None = None
        while segs and segs[0] in ("crate", "super", "self"):
            s = segs.pop(0)
            if s == "crate":
                base = []
            elif s == "self":
                base = list(mod) if base is None else base
            else:
                base = (list(mod) if base is None else base)[:-1]
        if base is None:
            # a relative `use` path names a child module or an item in scope: child only
            if segs and mod + (segs[0],) in mods:
                return list(mod) + segs
            return None
        return base + segs

    # re-exports: module -> name -> absolute path
    reexports: dict[Module, dict[str, list[str]]] = defaultdict(dict)
    for mod, text in texts.items():
        for m in USE_RE.finditer(text):
            if not m.group(1):
                continue
            for p in expand_use_tree(m.group(2)):
                if p.endswith("*"):
                    continue
                a = absolute(mod, p)
                if a:
                    name = re.split(r"\s+as\s+", m.group(2))[-1] if " as " in p else a[-1]
                    reexports[mod][a[-1] if " as " not in m.group(2) else name] = a

    def resolve(segs: list[str], seen: int = 0) -> Module:
        mod: Module = ()
        for i, s in enumerate(segs):
            if mod + (s,) in mods:
                mod = mod + (s,)
                continue
            target = reexports.get(mod, {}).get(s)
            if target and seen < 20 and target != segs[: i + 1]:
                return resolve(target + segs[i + 1 :], seen + 1)
            break
        return mod

    edges: dict[Module, set[Module]] = defaultdict(set)
    where: dict[tuple[Module, Module], set[str]] = defaultdict(set)
    for mod, text in texts.items():
        if mod in test_mods:
            continue
        paths = []
        for m in USE_RE.finditer(text):
            paths += expand_use_tree(m.group(2))
        paths += [m.group(1) for m in PATH_RE.finditer(text)]
        for p in paths:
            a = absolute(mod, p)
            if a is None:
                continue
            t = resolve(a)
            if t != mod:
                edges[mod].add(t)
                where[(mod, t)].add("::".join(a[:4]))
    mods = {m: f for m, f in mods.items() if m not in test_mods}
    return mods, edges, where


# ---------------------------------------------------------------- Python


def py_modules(src: Path) -> dict[Module, Path]:
    mods: dict[Module, Path] = {}
    for f in sorted(src.rglob("*.py")):
        rel = f.relative_to(src)
        parts = rel.with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[tuple(parts)] = f
    return mods


def py_graph(src: Path) -> Graph:
    mods = py_modules(src)
    top = src.name
    reexports: dict[Module, dict[str, Module]] = defaultdict(dict)
    imports: dict[Module, list[tuple[list[str], list[str]]]] = {}
    for mod, f in mods.items():
        tree = ast.parse(f.read_text(), str(f))
        pkg = mod if f.name == "__init__.py" else mod[:-1]
        found = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    parts = a.name.split(".")
                    if parts[0] == top:
                        found.append((parts[1:], []))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = list(pkg[: len(pkg) - (node.level - 1)])
                    parts = base + (node.module.split(".") if node.module else [])
                elif node.module and node.module.split(".")[0] == top:
                    parts = node.module.split(".")[1:]
                else:
                    continue
                names = [a.name for a in node.names]
                found.append((parts, names))
                if f.name == "__init__.py":
                    for a in node.names:
                        reexports[mod][a.asname or a.name] = tuple(parts)
        imports[mod] = found

    def resolve(parts: list[str]) -> Module:
        mod: Module = ()
        for s in parts:
            if mod + (s,) in mods:
                mod = mod + (s,)
            else:
                t = reexports.get(mod, {}).get(s)
                return t if t is not None and t in mods else mod
        return mod

    edges: dict[Module, set[Module]] = defaultdict(set)
    where: dict[tuple[Module, Module], set[str]] = defaultdict(set)
    for mod, found in imports.items():
        for parts, names in found:
            targets = [resolve(parts + [n]) for n in names if n != "*"] or [resolve(parts)]
            for t in targets:
                if t != mod:
                    edges[mod].add(t)
                    where[(mod, t)].add(".".join([top] + list(t)))
    return mods, edges, where


# ---------------------------------------------------------------- cycles


def lift(a: Module, b: Module) -> tuple[Module, str, str] | None:
    """The edge a -> b as an edge between siblings under their lowest common ancestor,
    or None when one contains the other (the tree itself)."""
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    if k == len(a) or k == len(b):
        return None
    return a[:k], a[k], b[k]


def sccs(nodes: set[str], succ: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(succ.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def report(
    name: str,
    mods: dict[Module, Path],
    edges,
    where,
    sep: str,
    show_edges: bool,
    layers: bool = False,
) -> int:
    """Print the cycles of one graph; return how many."""
    levels: dict[Module, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    why: dict[tuple[Module, str, str], set[str]] = defaultdict(set)
    for a, targets in edges.items():
        for b in targets:
            lifted = lift(a, b)
            if lifted is None:
                continue
            parent, x, y = lifted
            levels[parent][x].add(y)
            why[lifted].add(f"{sep.join(a) or '(root)'} -> {sep.join(b)}")
    n_edges = sum(len(t) for t in edges.values())
    print(f"{name}: {len(mods)} modules, {n_edges} module dependencies")
    if show_edges:
        for a in sorted(edges):
            targets = ", ".join(sorted(sep.join(b) or "(root)" for b in edges[a]))
            print(f"  {sep.join(a) or '(root)'} -> {targets}")
    if layers:
        top = levels.get((), {})
        for x in sorted(set(top) | {m[0] for m in mods if m}):
            print(f"  layer {x} -> {', '.join(sorted(top.get(x, ()))) or '(nothing)'}")
    found = 0
    for parent in sorted(levels):
        succ = levels[parent]
        nodes = set(succ) | {y for ys in succ.values() for y in ys}
        for comp in sccs(nodes, succ):
            found += 1
            where_ = sep.join(parent) or "(top level)"
            print(f"  cycle in {where_}: {' <-> '.join(comp)}")
            for x in comp:
                for y in sorted(succ[x]):
                    if y in comp:
                        for w in sorted(why[(parent, x, y)]):
                            print(f"      {x} -> {y}: {w}")
    print(f"  {found} cycle{'s' if found != 1 else ''}")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rust-only", action="store_true", help="only crates/afsim-core")
    ap.add_argument("--python-only", action="store_true", help="only python/afsim")
    ap.add_argument("--with-tests", action="store_true", help="count Rust test modules too")
    ap.add_argument("--edges", action="store_true", help="print every dependency")
    ap.add_argument(
        "--layers", action="store_true", help="print the top-level modules' dependencies"
    )
    args = ap.parse_args(argv)
    total = 0
    if not args.python_only:
        total += report(
            "afsim-core (Rust)",
            *rust_graph(RUST_SRC, args.with_tests),
            "/",
            args.edges,
            args.layers,
        )
    if not args.rust_only:
        total += report("afsim (Python)", *py_graph(PY_SRC), ".", args.edges, args.layers)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
