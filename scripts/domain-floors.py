#!/usr/bin/env python3
"""The domain crate's floors (docs/architecture.md "The domain's floors").

Reads every `crate::…` path of domain/src (in `use` items and in code) and fails when
- `common` (the ground floor) names any context,
- two contexts name each other (A uses B and B uses A), or
- a context names one on a floor above it (the floors are listed below), or
- a file cycle remains: files that reach each other through `crate::` paths.
`--report` prints the graph's figures (and each cycle's edges) instead of failing. Every rule holds today:
there is no list of exceptions.
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "domain" / "src"

# Floors, bottom first: a context may name only contexts on floors below its own.
FLOORS = [
    ["common"],
    ["membership"],
    ["mail"],
    ["audit"],
    ["identity"],
    ["media"],
    ["orgs"],
    ["tokens"],
    ["apps"],
    ["uptime"],
    ["review"],
    ["webhooks"],
]
# Test helpers of the crate (`#[cfg(test)]` builders shared by contexts) sit outside the floors.
OUTSIDE = {"testing"}

USE_ITEM = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
INLINE = re.compile(r"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def module_of(path: Path) -> tuple[str, ...]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def skip_block(text: str, at: int) -> int:
    """The index just past the `{ … }` block whose `{` is before `at`."""
    depth = 1
    while depth and at < len(text):
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        at += 1
    return at


def production_text(text: str) -> str:
    """The file without its `#[cfg(test)] mod … { … }` blocks (tests may reach anywhere)."""
    marker = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
    out, i = [], 0
    while (m := marker.search(text, i)) is not None:
        out.append(text[i : m.start()])
        i = skip_block(text, m.end())
    out.append(text[i:])
    return "".join(out)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def split_top(body: str) -> list[str]:
    items, depth, cur = [], 0, ""
    for ch in body:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    return [item.strip() for item in items if item.strip()]


def expand(tree: str) -> list[tuple[list[str], str]]:
    """The paths of a use tree with the name each brings in: `a::{b, c::{d as e}, self}`."""
    tree = " ".join(tree.split())
    brace = tree.find("{")
    if brace < 0:
        path, _, alias = tree.partition(" as ")
        segs = [seg.strip() for seg in path.split("::") if seg.strip() and seg.strip() != "*"]
        return [(segs, alias.strip() or (segs[-1] if segs else ""))] if segs else []
    head = [seg.strip() for seg in tree[:brace].split("::") if seg.strip()]
    out = []
    for item in split_top(tree[brace + 1 : tree.rfind("}")]):
        if item == "self":
            out.append((head, head[-1]))
            continue
        out += [(head + segs, alias) for segs, alias in expand(item)]
    return out


def absolute(segs: list[str], module: tuple[str, ...], children: set[str]) -> list[str] | None:
    """A `crate::`, `super::`, `self::` or child path made crate-rooted (without `crate`); others: None."""
    if not segs:
        return None
    if segs[0] == "crate":
        return segs[1:]
    if segs[0] in ("self", "super"):
        base, rest = list(module), segs
        while rest and rest[0] in ("self", "super"):
            base = base[:-1] if rest[0] == "super" else base
            rest = rest[1:]
        return base + rest
    if segs[0] in children:
        return list(module) + segs
    return None


def main() -> int:
    report = "--report" in sys.argv
    files = {module_of(p): p for p in ROOT.rglob("*.rs")}
    contexts = sorted({m[0] for m in files if m and m[0] not in OUTSIDE})
    floor_of = {c: n for n, floor in enumerate(FLOORS) for c in floor}
    named: dict[tuple, list] = {}
    exports: dict[tuple, dict] = {}
    for module, path in files.items():
        children = {m[-1] for m in files if len(m) == len(module) + 1 and m[:-1] == module}
        text = strip_comments(production_text(path.read_text()))
        named[module], exports[module] = [], {}
        for m in USE_ITEM.finditer(text):
            for segs, alias in expand(m.group(2)):
                full = absolute(segs, module, children)
                if full is None:
                    continue
                if m.group(1):
                    exports[module][alias] = full
                else:
                    named[module].append(full)
                if m.group(1) and not (full[: len(module)] == list(module) and len(full) > len(module)):
                    named[module].append(full)
        # Paths in code (`crate::a::B::new()`), outside the use items read above: a grouped `use a::{B}`
        # names `B`'s file, not `a`'s.
        for m in INLINE.finditer(USE_ITEM.sub("", text)):
            full = absolute(m.group(1).split("::"), module, children)
            if full:
                named[module].append(full)

    def resolve(full: list[str], depth: int = 0) -> tuple[str, ...] | None:
        """The file that defines what `full` names, through the modules' re-exports."""
        for n in range(len(full), 0, -1):
            prefix = tuple(full[:n])
            if prefix in files:
                rest = full[n:]
                if rest and depth < 8 and rest[0] in exports.get(prefix, {}):
                    target = exports[prefix][rest[0]] + rest[1:]
                    if target != full:
                        return resolve(target, depth + 1) or prefix
                return prefix
        return None

    file_edges: dict[tuple, set] = defaultdict(set)
    ctx_edges: dict[str, set] = defaultdict(set)
    for module in files:
        if not module or module[0] in OUTSIDE:
            continue
        for full in named[module]:
            if not full or full[0] not in contexts:
                continue
            if full[0] != module[0]:
                ctx_edges[module[0]].add(full[0])
            landed = resolve(full)
            if landed and landed != module:
                file_edges[module].add(landed)

    problems = [f"context `{c}` is on no floor (scripts/domain-floors.py FLOORS)" for c in contexts if c not in floor_of]
    pairs = sorted({tuple(sorted((a, b))) for a in ctx_edges for b in ctx_edges[a] if a in ctx_edges.get(b, ())})
    problems += [f"`{a}` and `{b}` name each other" for a, b in pairs]
    for a in sorted(ctx_edges):
        for b in sorted(ctx_edges[a]):
            if a in floor_of and b in floor_of and floor_of[b] >= floor_of[a] and tuple(sorted((a, b))) not in pairs:
                problems.append(f"`{a}` (floor {floor_of[a]}) names `{b}` (floor {floor_of[b]}), not below it")
    cycles = strongly_connected(file_edges)
    for c in cycles:
        members = set(c)
        edges = "; ".join(
            "/".join(m) + " -> " + ", ".join("/".join(t) for t in sorted(file_edges[m] & members)) for m in sorted(c)
        )
        problems.append(f"file cycle ({len(c)} files): {edges}")

    if report:
        print(f"contexts: {len(contexts)}; pairs naming each other: {len(pairs)}; file cycles: {len(cycles)}")
        for a in sorted(ctx_edges):
            print(f"  {a} -> {', '.join(sorted(ctx_edges[a]))}")
        for line in problems:
            print("  " + line)
        return 0
    if problems:
        for line in problems:
            print(f"domain-floors: {line}", file=sys.stderr)
        return 1
    print(f"domain-floors: ok: {len(contexts)} contexts on {len(FLOORS)} floors: no back-import, no file cycle")
    return 0


def strongly_connected(edges: dict[tuple, set]) -> list[list[tuple]]:
    """Tarjan's components of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(edges) | {t for ts in edges.values() for t in ts}

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
