#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 20) on the stable toolchain, without a
# sanitizer, and prints executions per second per target. New inputs go to a scratch corpus;
# the committed seeds in fuzz/corpus/<target> are read, never written.
#   usage: tools/fuzz.sh [SECONDS] [TARGET...]
#
# TERMPLANE_FUZZ_BUILD chooses the build the targets run from:
#   release  cargo fuzz's own (optimised, one codegen unit): the build for recorded campaigns.
#   quick    the dev profile at opt-level 1 (the crates the dev profile already optimises stay
#            at 3): built in about 8 minutes on two cores against about 20 for `release`, and it
#            runs the targets at roughly the same rate (benches/README.md has both). The test
#            suite's smoke run uses it.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-20}"
shift || true
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz from crates.io" >&2
  cargo install cargo-fuzz --locked >&2
fi
build=()
case "${TERMPLANE_FUZZ_BUILD:-release}" in
  release) ;;
  quick)
    build=(--dev)
    export CARGO_PROFILE_DEV_OPT_LEVEL=1
    ;;
  *)
    echo "fuzz: TERMPLANE_FUZZ_BUILD is release or quick, not '$TERMPLANE_FUZZ_BUILD'" >&2
    exit 2
    ;;
esac
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
# The targets are built in one cargo run first (they share their dependencies and cargo links
# them in parallel), so the seconds below are fuzzing time only. `cargo fuzz build` takes one
# target or builds them all.
one=()
[ ${#targets[@]} -eq 1 ] && one=("${targets[0]}")
cargo fuzz build "${build[@]}" --features libfuzzer --sanitizer none "${one[@]}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
status=0
printf '%-20s %12s %10s\n' target execs/s runs
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t"
  log="$scratch/$t.log"
  if ! cargo fuzz run "${build[@]}" --features libfuzzer --sanitizer none "$t" "$scratch/$t" "fuzz/corpus/$t" -- \
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
