#!/usr/bin/env bash
# The whole test suite of termplane, from a fresh Debian machine with Rust, Node.js and Python.
# Installs what is missing (idempotently), builds the browser app, then runs: formatting, clippy
# (warnings are errors), the architecture-invariant checks, every crate's tests (including the PyNaCl and jose
# cross-checks, the OpenAPI validation, the Schemathesis run, the MCP client test with real panes, the
# real agent CLIs in panes and the fuzz-corpus replay), the executor's and the node daemon's tests
# again with no locale, the plane's in-process tests again on PostgreSQL, the browser suite
# (Playwright driving Chromium), a build of the benchmarks, and a fuzz smoke run of every target.
#
# Environment:
#   TERMPLANE_FUZZ_SECONDS  seconds per fuzz target (default 20; 0 skips the smoke run)
#   TERMPLANE_FUZZ_BUILD    the fuzz smoke's build, quick (default) or release (tools/fuzz.sh)
#   TERMPLANE_TEST_POSTGRES_URL  an existing PostgreSQL database for the storage tests, whose role
#                           may create databases (each test plane on PostgreSQL gets its own);
#                           default: install and start a local cluster with tools/ci/postgres.sh
#   TERMPLANE_SHARED_DIR    the folder of third-party test vectors (default: ../shared, or the
#                           one beside the repository this clone was made from)
#   CI                      when set, a missing cross-check peer fails its test instead of noting it
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says when it began, in minutes and seconds since the suite started (the suite's
# time by step, for benches/README.md).
step() { printf '\n==> %s  [at %dm%02ds]\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }
have() { command -v "$1" >/dev/null 2>&1; }

apt_updated=0
apt_install() {
  # apt_install PACKAGE... : installs the Debian packages that are missing, updating once.
  local missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "need root to install: ${missing[*]}" >&2
    return 1
  fi
  if [ $apt_updated -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# A CI run builds once: incremental compilation only costs disk there.
if [ -n "${CI:-}" ]; then
  export CARGO_INCREMENTAL=0
fi

# Third-party test vectors live in the `shared` folder beside the repository (`../shared`). A
# clone made elsewhere (`git clone . /tmp/x`) finds it beside the repository it was cloned from.
if [ -z "${TERMPLANE_SHARED_DIR:-}" ] && [ ! -d ../shared ]; then
  origin=$(git config --get remote.origin.url 2>/dev/null || true)
  if [ -n "$origin" ] && [ -d "$origin/../shared/vectors" ]; then
    TERMPLANE_SHARED_DIR=$(cd "$origin/../shared" && pwd)
    export TERMPLANE_SHARED_DIR
  fi
fi

step "prerequisites"
have cargo || { echo "cargo is required (install Rust with rustup)" >&2; exit 1; }
have node || { echo "node is required (Node.js 20 or newer)" >&2; exit 1; }
have python3 || { echo "python3 is required" >&2; exit 1; }
have g++ || apt_install g++
# The node daemon's executor tests drive a real tmux.
have tmux || apt_install tmux
# The attach-replay tests bring a viewer back to a running vim.
have vim || have vim.tiny || apt_install vim-tiny
if ! python3 -c 'import nacl' >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check pynacl
fi
if ! python3 -c 'import openapi_spec_validator' >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check openapi-spec-validator
fi
# The official MCP client that agent/tests/suite/subshells.rs drives the pane's MCP server with.
# Asked by its installed version: `import mcp` run here would find the repository's own `mcp/`
# folder (a namespace package) and pass with nothing installed.
if [ "$(python3 -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null)" != 2.3.0 ]; then
  python3 -m pip install --quiet --disable-pip-version-check 'mcp==2.3.0'
fi
# The OpenAPI fuzzer run against the plane by plane/tests/suite/schemathesis.rs.
# Pinned: the run's options and its zero-failure gate were set against this version.
if [ "$(python3 -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" != 4.32.5 ]; then
  python3 -m pip install --quiet --disable-pip-version-check 'schemathesis==4.32.5'
fi
# The player that agent/tests/suite/subshells.rs plays a pane's exported recording with.
if [ "$(python3 -c 'import importlib.metadata as m; print(m.version("asciinema"))' 2>/dev/null)" != 2.4.0 ]; then
  python3 -m pip install --quiet --disable-pip-version-check 'asciinema==2.4.0'
fi
if [ ! -d tools/interop/jose/node_modules/jose ]; then
  npm ci --silent --no-audit --no-fund --prefix tools/interop/jose
fi
# The browser tests drive Debian's Chromium headless (playwright-core from npm talks to it).
have chromium || apt_install chromium
# ... and use a minted system key with curl, as a script would.
have curl || apt_install curl
# The node installer the plane serves (/install.sh) is linted by plane/tests/suite/install.rs.
have shellcheck || apt_install shellcheck
# The operations tests: promtool checks a scrape and a Prometheus server scrapes a running plane;
# systemd-analyze verifies the units `termplane service install` writes (no systemd running needed).
have promtool && have prometheus || apt_install prometheus
have systemd-analyze || apt_install systemd
# The three-replica cluster test (agent/tests/suite/cluster.rs) puts Debian's HAProxy in front
# of its replicas, for the node's link and the API alike.
have haproxy || apt_install haproxy
# The plane embeds the browser app (built here with Vite) and the API reference's front end
# (swagger-ui-dist) at compile time; install scripts are not needed (and not run).
npm ci --silent --no-audit --no-fund --ignore-scripts --prefix plane/ui
npm run --silent --prefix plane/ui build
# The real agent CLIs that agent/tests/suite/harness_clis.rs runs in panes, at the versions pinned in
# tools/harness-clis.txt, from npm into target/harness-clis (about 1.3 GB; half a minute from a
# warm npm cache). Their install scripts fetch nothing: they place the platform binary that
# came as an optional dependency.
harness_clis=()
while read -r pin; do
  case "$pin" in '' | '#'*) continue ;; esac
  harness_clis+=("$pin")
done <tools/harness-clis.txt
for pin in "${harness_clis[@]}"; do
  if [ "$(node -p "require('./target/harness-clis/node_modules/${pin%@*}/package.json').version" 2>/dev/null)" != "${pin##*@}" ]; then
    npm install --silent --no-audit --no-fund --prefix target/harness-clis "${harness_clis[@]}"
    break
  fi
done
export TERMPLANE_HARNESS_CLIS="$PWD/target/harness-clis"
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --quiet
fi

if [ -z "${TERMPLANE_TEST_POSTGRES_URL:-}" ]; then
  # Installs PostgreSQL if missing, starts the cluster, creates the test role and database.
  TERMPLANE_TEST_POSTGRES_URL="$(bash tools/ci/postgres.sh)"
  export TERMPLANE_TEST_POSTGRES_URL
fi

step "formatting"
cargo fmt --all -- --check

step "clippy (all crates, all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "architecture invariants"
tools/check-invariants.sh

step "tests"
cargo test --workspace --locked --no-fail-fast

step "the executor's and the node daemon's tests again, with no locale"
# A daemon in a container or under a service manager often runs with no LANG or LC_* at all, and
# a tmux client in that environment rewrites what it prints. The executor's and the daemon's
# integration tests that drive tmux run once more that way (the tmux servers, planes and node
# daemons they start inherit it): the binaries the workspace build above made, run as cargo runs
# them, so nothing is built again. Left out by module: the CLI and HTTPS-client tests, which
# start no tmux, and the MCP-client suite (`subshells`, minutes long), whose panes take the
# executor paths the others cover.
built_tests="$(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null)"
exec_bins="$(python3 tools/ci/test-binaries.py termplane-exec <<<"$built_tests")"
node_bins="$(python3 tools/ci/test-binaries.py termplane-node <<<"$built_tests")"
[ -n "$exec_bins" ] && [ -n "$node_bins" ] ||
  { echo "no executor or node test binaries found for the pass without a locale" >&2; exit 1; }
no_locale=(env -u LANG -u LANGUAGE)
while read -r name; do
  case "$name" in LC_*) no_locale+=(-u "$name") ;; esac
done < <(compgen -e)
without_locale() { # the binaries (lines: directory, tab, executable), then the test harness's flags
  local bins="$1" dir bin
  shift
  while IFS=$'\t' read -r dir bin; do
    [ -n "$bin" ] || continue
    echo "--- $(basename "$bin") with no locale"
    (cd "$dir" && "${no_locale[@]}" "$bin" "$@")
  done <<<"$bins"
}
without_locale "$exec_bins"
without_locale "$node_bins" --skip cli:: --skip https_client:: --skip subshells::

step "the plane's tests again, each test plane on a PostgreSQL database of its own"
# Every route family through the real server on the second backend (the storage tests above
# already ran on both; the real-binary tests run SQLite, the default; schemathesis runs once).
# These are the binaries the workspace build above made, run as cargo runs them (from the
# package's directory): `cargo test -p termplane` would resolve the plane's features on their
# own and build all of it again (several GB of disk in a CI run). Left out by module: the
# real-binary tests and Schemathesis (`binary::`, `schemathesis::`) and the storage tests
# (`storage::`, which ran on both backends above).
pg_bins="$(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
  python3 tools/ci/test-binaries.py termplane)"
[ "$(grep -c . <<<"$pg_bins")" -ge 2 ] ||
  { echo "no plane test binaries found for the PostgreSQL pass" >&2; exit 1; }
while IFS=$'\t' read -r dir bin; do
  echo "--- $(basename "$bin") on PostgreSQL"
  (cd "$dir" && TERMPLANE_TEST_PLANE_DB=postgres "$bin" \
    --skip binary:: --skip schemathesis:: --skip storage::)
done <<<"$pg_bins"

step "browser tests (the app in Chromium against a real plane, node daemon and tmux)"
# The binaries the tests above built (the integration tests run them), with the app embedded.
# The same run checks that the app's API types are what this plane's OpenAPI document gives
# (plane/ui/tests/api-types.test.mjs; `npm run --prefix plane/ui api-types` regenerates them).
for b in termplane termplane-node; do
  [ -x "target/debug/$b" ] || { echo "target/debug/$b is missing after the tests" >&2; exit 1; }
done
TERMPLANE_BIN="$PWD/target/debug/termplane" TERMPLANE_NODE_BIN="$PWD/target/debug/termplane-node" \
  node --test plane/ui/tests/

step "benchmarks build"
# The criterion benchmarks compile and link (they run with `cargo bench`, see benches/README.md).
# Built in the dev profile from the debug build the tests above made, so only the bench
# targets themselves are compiled here; a release build of them would start from nothing.
cargo build --workspace --benches --locked

# A CI run is a clean clone that ends after this suite: the debug build (several GB) is deleted
# once no later step runs it, so the fuzz build below never sits on the disk beside it.
free_build() {
  if [ -n "${CI:-}" ]; then
    rm -rf "$@"
  fi
}
free_build target/debug

fuzz_secs="${TERMPLANE_FUZZ_SECONDS:-20}"
if [ "$fuzz_secs" != 0 ]; then
  step "fuzz smoke (${fuzz_secs}s per target)"
  # The quick build (tools/fuzz.sh says what it is): a smoke run's time goes to fuzzing, not
  # to optimising the plane's dependencies with one codegen unit.
  TERMPLANE_FUZZ_BUILD="${TERMPLANE_FUZZ_BUILD:-quick}" tools/fuzz.sh "$fuzz_secs"
fi

step "done"
