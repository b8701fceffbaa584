#!/usr/bin/env bash
# Requests through the plane's HTTP server against a real `termplane serve` on loopback (no
# local node), and the plane's own CPU time per request from /proc.
#
#   benches/http/bench_requests.sh PATH/TO/termplane [REQUESTS] [CONCURRENCY...]
#
# For `/api/setup/status` (a route that reads the database) and `/healthz` (one that does not),
# at each concurrency, after 2,000 of warm-up:
# * `ab` (Debian's apache2-utils): REQUESTS GETs in HTTP/1.0, a connection each (the plane offers
#   no persistent HTTP/1.0 connection, so ab's `-k` is refused: each answer closes);
# * `keepalive.py`: REQUESTS GETs in HTTP/1.1 over CONCURRENCY kept-alive connections.
# Prints one JSON line per run: requests per second, latency, failures, and the plane's CPU time
# (user + system) per request in microseconds.
set -euo pipefail
bin=$1
n=${2:-20000}
shift 2 || shift $#
concs=("$@")
[ ${#concs[@]} -gt 0 ] || concs=(1 8)
dir=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
"$bin" serve --listen "127.0.0.1:$port" --data-dir "$dir" --local-node off >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
here=$(dirname "$0")
for path in /api/setup/status /healthz; do
  for c in "${concs[@]}"; do
    ab -q -n 2000 -c "$c" "http://127.0.0.1:$port$path" >/dev/null
    before=$(cpu)
    out=$(ab -q -n "$n" -c "$c" "http://127.0.0.1:$port$path")
    after=$(cpu)
    rps=$(awk '/^Requests per second/ {print $4}' <<<"$out")
    mean=$(awk '/^Time per request/ && /\(mean\)/ {print $4; exit}' <<<"$out")
    failed=$(awk '/^Failed requests/ {print $3}' <<<"$out")
    us=$(awk -v a="$after" -v b="$before" -v t="$ticks" -v n="$n" 'BEGIN {printf "%.1f", (a - b) / t * 1e6 / n}')
    printf '{"bin":"%s","client":"ab, HTTP/1.0, a connection per request","path":"%s","concurrency":%s,"requests":%s,"failed":%s,"rps":%s,"mean_ms":%s,"plane_cpu_us_per_request":%s}\n' \
      "$bin" "$path" "$c" "$n" "$failed" "$rps" "$mean" "$us"
    per=$((n / c))
    python3 "$here/keepalive.py" 127.0.0.1 "$port" "$path" 200 "$c" >/dev/null
    before=$(cpu)
    out=$(python3 "$here/keepalive.py" 127.0.0.1 "$port" "$path" "$per" "$c")
    after=$(cpu)
    us=$(awk -v a="$after" -v b="$before" -v t="$ticks" -v n="$((per * c))" 'BEGIN {printf "%.1f", (a - b) / t * 1e6 / n}')
    printf '{"bin":"%s","client":"keepalive.py, HTTP/1.1 kept alive","path":"%s","concurrency":%s,"result":%s,"plane_cpu_us_per_request":%s}\n' \
      "$bin" "$path" "$c" "$out" "$us"
  done
done
