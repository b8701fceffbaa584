#!/usr/bin/env bash
# Checks the architecture invariants of ARCHITECTURE.md that a compiler cannot.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
bad() { echo "invariant broken: $*" >&2; fail=1; }

# No tokio runtime: hyper links tokio for its `sync` module only. Any other tokio feature (the
# runtime, its reactor, timers, I/O, processes, signals, macros) is refused, and so is tokio
# reached by any crate but hyper.
tokio_features=$(cargo tree --workspace --edges normal,build,dev --prefix none -e features -i tokio 2>/dev/null \
  | grep -oE '^tokio feature "[a-z0-9_-]+"' | sed -E 's/.*"(.*)"/\1/' | sort -u || true)
for f in $tokio_features; do
  case "$f" in
    default|sync) ;;
    *) bad "tokio feature $f is enabled (only sync, for hyper, is allowed)" ;;
  esac
done
tokio_users=$(cargo tree --workspace --edges normal,build,dev --prefix none -i tokio --depth 1 2>/dev/null \
  | grep -vE '^(tokio|hyper) v' | grep -E ' v[0-9]' || true)
[ -z "$tokio_users" ] || bad "tokio is reached by more than hyper: $tokio_users"

# proto and machines depend on no runtime, socket or async crate.
for crate in termplane-proto termplane-machines; do
  deps=$(cargo tree -p "$crate" --edges normal --prefix none 2>/dev/null)
  for banned in smol async-io async-std async-tungstenite tungstenite tide sqlx getrandom; do
    if printf '%s\n' "$deps" | grep -qE "^$banned v"; then
      # p256's std feature links getrandom's crate but no machine calls it (clippy forbids it).
      [ "$banned" = getrandom ] && continue
      bad "$crate depends on $banned"
    fi
  done
done

# The executor knows nothing of the binaries that embed it: no async runtime, socket or HTTP crate
# and neither binary in its dependency tree (the node daemon runs it, and the plane can).
deps=$(cargo tree -p termplane-exec --edges normal --prefix none 2>/dev/null)
[ -n "$deps" ] || bad "cargo tree -p termplane-exec failed"
for banned in smol async-io async-std async-tungstenite tungstenite sqlx rustls termplane-node termplane termplane-runtime-smol; do
  if printf '%s\n' "$deps" | grep -qE "^$banned v"; then
    bad "termplane-exec depends on $banned"
  fi
done

# The HTTP wire (httparse, the connection types of the plane's server) is named only inside the
# plane's HTTP adapter; no HTTP framework is in the graph at all.
if grep -rIl --include='*.rs' -E '\bhttparse::' proto machines runtime-smol exec agent fuzz benches 2>/dev/null | grep -q .; then
  bad "a crate other than the plane names httparse"
fi
if [ -d plane/src ]; then
  outside=$(grep -rIl --include='*.rs' -E '\bhttparse::|\bhyper::|http::server::|http::wire::' plane/src | grep -v '^plane/src/http/' || true)
  [ -n "$outside" ] && bad "the HTTP wire is named outside plane/src/http: $outside"
fi
# hyper's HTTP/1.1 connection is the server; no framework sits on it (the plane's router,
# extractors and edge rules are its own).
for framework in tide async-h1 http-types axum actix-web trillium hyper-util tower; do
  if cargo tree --workspace --edges normal --prefix none 2>/dev/null | grep -qE "^$framework v"; then
    bad "$framework is in the dependency graph (the plane serves through hyper's connection)"
  fi
done

# Clocks and OS randomness are read only in runtime-smol and the binaries' runtimes: clippy's
# disallowed-methods lists in proto/clippy.toml and machines/clippy.toml enforce it for the
# IO-free crates (run with -D warnings); here we check the lists are in place.
for f in proto/clippy.toml machines/clippy.toml plane/clippy.toml; do
  grep -q 'Instant::now' "$f" && grep -q 'SystemTime::now' "$f" || bad "$f does not forbid clocks"
done

# Every store transaction begins through Store::write_tx (BEGIN IMMEDIATE on SQLite, so a writer
# waits for the lock instead of being refused when another wrote between its read and its write).
if [ -d plane/src ]; then
  begins=$(grep -rIn --include='*.rs' -E 'pool\.begin(_with)?\(|\.try_begin(_with)?\(' plane/src | grep -v '^plane/src/store/mod.rs:' || true)
  [ -n "$begins" ] && bad "a transaction begins outside Store::write_tx: $begins"
fi

# A node row's liveness mirrors the link registry of the replica that holds it: a replica writes
# its own hold only in LinkHub::write_liveness (under the per-node liveness lock, so writes for
# ended sockets can never land out of order); the links of replicas whose lease lapsed are
# released only by link::reconcile and the services' start.
if [ -d plane/src ]; then
  for w in hold_link release_link; do
    writers=$(grep -rIn --include='*.rs' -E "\.$w\(" plane/src | grep -v '^plane/src/link/mod.rs:' || true)
    [ -n "$writers" ] && bad "$w called outside LinkHub::write_liveness: $writers"
    n=$(grep -c -E "\.$w\(" plane/src/link/mod.rs || true)
    [ "$n" = 1 ] || bad "plane/src/link/mod.rs calls $w in $n places (want only write_liveness)"
  done
  lapsed=$(grep -rIn --include='*.rs' -E '\.release_lapsed_links\(' plane/src | grep -v -E '^plane/src/(link/mod|service/mod)\.rs:' || true)
  [ -n "$lapsed" ] && bad "release_lapsed_links called outside link::reconcile and the services' start: $lapsed"
fi

# The plane's one seam between local and remote nodes: only plane/src/local.rs names the
# executor crate; the services reach the local node through the dispatcher's LocalNode trait.
if [ -d plane/src ]; then
  outside=$(grep -rIl --include='*.rs' -E '\btermplane_exec\b' plane/src | grep -v '^plane/src/local.rs$' || true)
  [ -n "$outside" ] && bad "termplane_exec is named outside plane/src/local.rs: $outside"
fi

# The protocol document's worked example is checked against the code.
if [ -f docs/protocol-14.md ]; then
  grep -q 'include_str!("../../../docs/protocol-14.md")' machines/tests/suite/protocol_doc.rs 2>/dev/null \
    || bad "docs/protocol-14.md is not checked by machines/tests/suite/protocol_doc.rs"
  grep -q '<!-- check: ' docs/protocol-14.md || bad "docs/protocol-14.md has no checked blocks"
fi

# unsafe is forbidden workspace-wide.
grep -q 'unsafe_code = "forbid"' Cargo.toml || bad "unsafe_code is not forbidden"

# The plane sends requests only to URLs its accounts choose (push endpoints), and always through
# request_reaching, whose Reach decides whether private addresses may be reached.
if [ -d plane/src ]; then
  direct=$(grep -rIn --include='*.rs' -E 'http::(request|request_headers|request_with|download|download_with)\(' plane/src || true)
  [ -n "$direct" ] && bad "the plane sends a request without a Reach: $direct"
fi

# ARCHITECTURE.md's code map names every module file, and every file it names exists.
python3 tools/check-codemap.py || bad "ARCHITECTURE.md's code map and the tree differ (above)"
python3 tools/check-module-cycles.py || bad "the plane's modules form a cycle (above)"
# No type of the service layer has more than about 40 methods (the composition root is mostly
# accessors): a domain that outgrows it is split, not grown.
python3 tools/check-service-sizes.py || bad "a service type is too large (above)"

[ $fail -eq 0 ] && echo "architecture invariants hold"
exit $fail
