#!/usr/bin/env python3
"""Holds ARCHITECTURE.md's code map to the tree, both ways.

Each top-level bullet of the "Code map" section that starts with a folder (`- `plane/``) is that
folder's entry. Inside it:
  * every module file under `<crate>/src/` is named: `x.rs` by its file name, `x/mod.rs` by its
    folder (`x/`); a crate's own `lib.rs`, `main.rs` and `build.rs` need no mention;
  * every folder of tests, examples, benchmarks or fuzz targets the crate has is named
    (`tests/`, `examples/`, `benches/`, `fuzz_targets/`);
  * every `*.rs` file name the entry mentions exists somewhere in that folder, so the map does
    not describe files that are gone.
Prints each problem and exits 1 if there is one. Run from the repository's root (check-invariants.sh
does)."""
import os
import re
import sys

text = open("ARCHITECTURE.md", encoding="utf-8").read()
if "## Code map" not in text:
    print("ARCHITECTURE.md has no '## Code map' section")
    sys.exit(1)
codemap = text.split("## Code map", 1)[1].split("\n## ", 1)[0]

entries = {}
current = None
for line in codemap.splitlines():
    m = re.match(r"- `([^`]+?)/?`", line)
    if m:
        current = m.group(1).rstrip("/")
        entries[current] = ""
    if current is not None:
        entries[current] += line + "\n"

problems = []
rust_crates = [d for d in sorted(os.listdir(".")) if os.path.isfile(os.path.join(d, "Cargo.toml"))]
for crate in rust_crates:
    if crate not in entries:
        problems.append(f"{crate}/ has no entry in the code map")
        continue
    entry = entries[crate]
    names_here = set()
    for root, dirs, files in os.walk(crate):
        dirs[:] = [d for d in dirs if d not in ("target", "node_modules", "corpus", "artifacts", "campaign", "coverage")]
        for f in files:
            if f.endswith(".rs"):
                names_here.add(f)
                path = os.path.join(root, f)
                rel = os.path.relpath(path, crate)
                parts = rel.split(os.sep)
                if parts[0] != "src":
                    continue
                if len(parts) == 2 and f in ("lib.rs", "main.rs"):
                    continue
                wanted = parts[-2] + "/" if f == "mod.rs" else f
                # A domain's file in a folder split by domain (`store/subshells.rs` beside
                # `service/subshells/`) is named by the domain.
                by_domain = f != "mod.rs" and f[:-3] + "/" in entry
                if wanted not in entry and not by_domain:
                    problems.append(f"{path} is not named in {crate}/'s code-map entry (want `{wanted}`)")
    for folder in ("tests", "examples", "benches", "fuzz_targets"):
        if os.path.isdir(os.path.join(crate, folder)) and f"{folder}/" not in entry:
            problems.append(f"{crate}/{folder}/ is not named in {crate}/'s code-map entry")
    for named in sorted(set(re.findall(r"([A-Za-z0-9_]+\.rs)\b", entry))):
        if named not in names_here:
            problems.append(f"{crate}/'s code-map entry names {named}, which {crate}/ does not have")

for p in problems:
    print(f"code map: {p}")
sys.exit(1 if problems else 0)
