#!/usr/bin/env bash
# Instructions per request through the plane's HTTP server, counted by callgrind.
#
#   benches/http/callgrind_requests.sh PATH/TO/termplane [REQUESTS] [PATH]
#
# Starts `termplane serve` (SQLite, no local node) on loopback under valgrind's callgrind,
# sends 300 kept-alive GETs of PATH (default /healthz) on one connection as warm-up, zeroes the
# counts, sends REQUESTS (default 2,000) more, dumps the counts and prints the instructions per
# request, then the functions with the largest inclusive shares. Needs valgrind and python3.
set -euo pipefail
bin=$1
n=${2:-2000}
path=${3:-/healthz}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$dir/cg.%p" \
  "$bin" serve --listen "127.0.0.1:$port" --data-dir "$dir/data" --local-node off >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 300); do
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
python3 "$here/keepalive.py" 127.0.0.1 "$port" "$path" 300 1 >/dev/null
callgrind_control -z "$pid" >/dev/null 2>&1
python3 "$here/keepalive.py" 127.0.0.1 "$port" "$path" "$n" 1 >/dev/null
callgrind_control -d "$pid" >/dev/null 2>&1
out=$(ls "$dir"/cg.*.1)
total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
echo "instructions per request: $((total / n)) ($total over $n requests of $path)"
callgrind_annotate --inclusive=yes "$out" 2>/dev/null | grep -v '^-\|^$' | sed -n '17,60p'
