#!/usr/bin/env python3
"""Prints the integration-test executables of one package, read from cargo's JSON messages.

    cargo test --workspace --no-run --message-format=json | tools/ci/test-binaries.py PACKAGE [SKIP...]

One line per integration-test target of PACKAGE, leaving out the targets named in SKIP: the
package's directory, a tab, the executable. Running the binaries of the workspace build, rather
than `cargo test -p PACKAGE`, spares a second build of the package with the features it would
resolve on its own.
"""
import json
import os
import sys

package, skip = sys.argv[1], set(sys.argv[2:])
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
        continue
    target = msg["target"]
    if target["kind"] != ["test"] or target["name"] in skip:
        continue
    # A package id reads `path+file:///…/dir#name@version`.
    name = msg["package_id"].rsplit("#", 1)[-1].rsplit("@", 1)[0]
    if name != package:
        continue
    print(f"{os.path.dirname(msg['manifest_path'])}\t{msg['executable']}")
