#!/usr/bin/env python3
"""Holds the plane's modules to a one-way graph: no cycle among the top-level modules of
`plane/src` (`http`, `service`, `link`, `store`, `api`, …), nor among the domain modules inside
`plane/src/service`.

An edge is a path in code (comments and `#[cfg(test)]` modules left out) that names another
module: `crate::link::…` from a file under `plane/src/service/` is the edge service → link;
inside `service/`, `super::channels::…` or `crate::service::channels::…` from
`service/notifications.rs` is notifications → channels (a domain's own submodules count as the
domain). Names brought in with `use super::*;` are not followed: a file that leans on them is
written against its parent module, which is not an edge between siblings.

Prints each cycle with one path that closes it, and exits 1 if there is one. Run from the
repository's root (check-invariants.sh does)."""
import os
import re
import sys

ROOT = "plane/src"


def code_of(path):
    text = open(path, encoding="utf-8").read()
    # Test modules may reach anywhere: they are not part of the build's graph.
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == "#[cfg(test)]" and i + 1 < len(lines) and re.match(r"\s*(pub(\(.*\))? )?mod \w+ \{", lines[i + 1]):
            depth = 0
            i += 1
            while i < len(lines):
                depth += lines[i].count("{") - lines[i].count("}")
                i += 1
                if depth <= 0:
                    break
            continue
        out.append(re.sub(r"//.*", "", line))
        i += 1
    return "\n".join(out)


def files():
    for dp, _, fn in os.walk(ROOT):
        for f in fn:
            if f.endswith(".rs"):
                yield os.path.join(dp, f)


def find_cycles(edges):
    """Strongly connected components of more than one node, each with a path around it."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
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
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def witness(edges, comp):
    start = comp[0]
    members = set(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return " → ".join(list(reversed(path)) + [start])
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return ", ".join(comp)


top = {}
inner = {}
for path in files():
    rel = os.path.relpath(path, ROOT).split(os.sep)
    me = rel[0][:-3] if rel[0].endswith(".rs") else rel[0]
    if me in ("lib", "main"):
        continue
    code = code_of(path)
    for m in re.finditer(r"\bcrate::([a-z_]+)", code):
        if m.group(1) != me:
            top.setdefault(me, set()).add(m.group(1))
    if me == "service" and len(rel) > 1:
        dom = rel[1][:-3] if rel[1].endswith(".rs") else rel[1]
        if dom == "mod":
            continue
        refs = re.findall(r"\bcrate::service::([a-z_]+)::", code)
        if len(rel) == 2:
            refs += re.findall(r"\bsuper::([a-z_]+)::", code)
        else:
            refs += re.findall(r"\bsuper::super::([a-z_]+)::", code)
        for r in refs:
            if r != dom and os.path.exists(os.path.join(ROOT, "service", r + ".rs")) or os.path.isdir(os.path.join(ROOT, "service", r)):
                if r != dom:
                    inner.setdefault(dom, set()).add(r)

problems = []
for name, edges in (("plane/src", top), ("plane/src/service", inner)):
    for comp in find_cycles(edges):
        problems.append(f"a cycle among the modules of {name}: {witness(edges, comp)}")
for p in problems:
    print(f"module cycles: {p}")
sys.exit(1 if problems else 0)
