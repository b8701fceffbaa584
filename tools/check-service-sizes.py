#!/usr/bin/env python3
"""No type of the plane's service layer has more than LIMIT methods.

Counts the functions declared directly inside the inherent `impl <Type> {` blocks of
plane/src/service (every file; a type's blocks in several files add up). Trait impls
(`impl Trait for Type`) are not counted: their methods are the trait's. A test module's
helpers are not inside an inherent impl block and are not counted either.

Prints every type with its count when run with `-v`; exits 1 naming the types over the limit.
"""

import pathlib
import re
import sys

LIMIT = 45
ROOT = pathlib.Path(__file__).resolve().parent.parent / "plane" / "src" / "service"

IMPL = re.compile(r"^impl(?:<[^>]*>)?\s+([A-Za-z_][A-Za-z0-9_]*)(?:<[^>]*>)?\s*\{\s*$")
FN = re.compile(r"^    (?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?fn\s")


def count() -> dict:
    counts: dict = {}
    for path in sorted(ROOT.rglob("*.rs")):
        current = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if current is None:
                m = IMPL.match(line)
                if m:
                    current = m.group(1)
                    counts.setdefault(current, 0)
                continue
            if line == "}":
                current = None
            elif FN.match(line):
                counts[current] += 1
    return counts


def main() -> int:
    counts = count()
    if not counts:
        print(f"no impl blocks found under {ROOT}", file=sys.stderr)
        return 1
    if "-v" in sys.argv[1:]:
        for name, n in sorted(counts.items(), key=lambda kv: -kv[1]):
            print(f"{n:4} {name}")
    over = {k: v for k, v in counts.items() if v > LIMIT}
    for name, n in sorted(over.items()):
        print(f"service sizes: {name} has {n} methods (the limit is {LIMIT}): split it by domain",
              file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
