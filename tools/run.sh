#!/usr/bin/env bash
# Builds the browser app and starts the termplane control plane with its embedded SQLite database in the
# per-user data directory, listening on loopback; it prints the URL to open. Panes on this host
# (the local node) run in tmux, which is installed when missing (Debian, as root).
# Extra arguments go to `termplane serve` (e.g. --listen 0.0.0.0:7420, --data-dir DIR,
# --database-url postgres://...).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo is required (install Rust with rustup)" >&2; exit 1; }
command -v npm >/dev/null || { echo "npm is required (Node.js 20 or newer)" >&2; exit 1; }
# The browser app and the API reference's front end, embedded into the plane when it compiles.
if [ ! -d plane/ui/node_modules ] || [ plane/ui/package-lock.json -nt plane/ui/node_modules ]; then
  npm ci --silent --no-audit --no-fund --ignore-scripts --prefix plane/ui
fi
npm run --silent --prefix plane/ui build
if ! command -v tmux >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
  else
    echo "tmux is required for panes on this host: install it (apt-get install tmux)," >&2
    echo "or pass --no-local-node to run the plane for enrolled nodes only" >&2
    exit 1
  fi
fi
cargo build --release --locked -p termplane -p termplane-node
exec target/release/termplane serve "$@"
