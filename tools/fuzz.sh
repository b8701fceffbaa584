#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 20) on the stable toolchain, without a
# sanitizer, and prints executions per second per target. New inputs go to a scratch corpus;
# the committed seeds in fuzz/corpus/<target> are read, never written.
#   usage: tools/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-20}"
shift || true
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz from crates.io" >&2
  cargo install cargo-fuzz --locked >&2
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
status=0
printf '%-20s %12s %10s\n' target execs/s runs
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t"
  log="$scratch/$t.log"
  if ! cargo fuzz run --features libfuzzer --sanitizer none "$t" "$scratch/$t" "fuzz/corpus/$t" -- \
      -max_total_time="$secs" -print_final_stats=1 -rss_limit_mb=2048 >"$log" 2>&1; then
    echo "fuzz: $t FAILED; the end of its log:" >&2
    tail -n 40 "$log" >&2
    status=1
    continue
  fi
  rate=$(grep -E 'stat::average_exec_per_sec' "$log" | awk '{print $2}' | tail -n1)
  runs=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -n1)
  printf '%-20s %12s %10s\n' "$t" "${rate:-?}" "${runs:-?}"
done
exit $status
