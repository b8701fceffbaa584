#!/usr/bin/env bash
# Runs each named fuzz target for RUNS executions (default 10,000,000), one after another, on the
# stable toolchain without a sanitizer, and prints one row per target of the campaign table in
# benches/README.md: executions, wall time, coverage (cov, ft) and the corpus size. The corpus
# grows in fuzz/campaign/<target> (ignored by git) from the committed seeds in
# fuzz/corpus/<target>, which are read, never written; a crash is saved in fuzz/artifacts/.
#   usage: tools/fuzz-campaign.sh [RUNS] TARGET...
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10000000}"
shift || true
if [ $# -eq 0 ]; then
  echo "usage: tools/fuzz-campaign.sh [RUNS] TARGET..." >&2
  exit 2
fi
mkdir -p fuzz/campaign
status=0
for t in "$@"; do
  mkdir -p "fuzz/campaign/$t"
  log="fuzz/campaign/$t.log"
  started=$(date +%s)
  if ! cargo fuzz run --features libfuzzer --sanitizer none "$t" "fuzz/campaign/$t" "fuzz/corpus/$t" -- \
      -runs="$runs" -print_final_stats=1 -rss_limit_mb=2048 >"$log" 2>&1; then
    echo "fuzz-campaign: $t FAILED; the end of its log ($log):" >&2
    tail -n 40 "$log" >&2
    status=1
    continue
  fi
  secs=$(($(date +%s) - started))
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n1)
  execs=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -n1)
  cov=$(sed -E 's/.* cov: +([0-9]+).*/\1/' <<<"$done_line")
  ft=$(sed -E 's/.* ft: +([0-9]+).*/\1/' <<<"$done_line")
  corp=$(sed -E 's/.* corp: +([^ ]+).*/\1/' <<<"$done_line")
  printf '| %s | %s | %s s | %s | %s | %s |\n' "$t" "$execs" "$secs" "$cov" "$ft" "$corp"
done
exit $status
