#!/usr/bin/env bash
# The time a keystroke spends inside the terminal server on each side of its echo, measured
# with bpftrace on the server's own system calls while termbench's echo runs (2 ms gap):
#
#   in:  from the wake-up that brought the keystroke (epoll_pwait returning) to the write that
#        passes it on (termplane: to its tmux control client; ttyd: to the pty);
#   out: from the wake-up that brought the echo to the send of its frame.
#
# Unlike the echo's latency, which also holds every other process's wake-up on a small host,
# this is the server's own work, and it is steady from run to run. Prints one JSON line per run
# with the median and p90 of each side, in microseconds (bpftrace's own probes add about 1 µs).
#
#   TERMBENCH_DIR=/path/to/termbench benches/termbench/server_hops.sh termplane BIN_DIR [RUNS]
#   TERMBENCH_DIR=/path/to/termbench benches/termbench/server_hops.sh ttyd [RUNS]
#
# Needs root, bpftrace (`apt-get install bpftrace`) and what bench_termplane.py / bench_ttyd.py
# need.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${TERMBENCH_DIR:?set TERMBENCH_DIR to a termbench checkout}"
server="${1:?termplane BIN_DIR | ttyd}"
if [ "$server" = termplane ]; then
  bin_dir="$(cd "${2:?the directory of the termplane binary}" && pwd)"
  runs="${3:-3}"
else
  runs="${2:-3}"
fi
command -v bpftrace >/dev/null || { echo "bpftrace is needed" >&2; exit 1; }

# The newest socket of a process: the viewer's WebSocket, opened last.
newest_socket() {
  local fd
  for fd in /proc/"$1"/fd/*; do
    case "$(readlink "$fd")" in socket:*) basename "$fd" ;; esac
  done | sort -n | tail -1
}

# The descriptor of process $1 that is the same pipe as descriptor 0 of process $2.
pipe_to_stdin_of() {
  local want fd
  want="$(readlink "/proc/$2/fd/0")"
  for fd in /proc/"$1"/fd/*; do
    if [ "$(readlink "$fd")" = "$want" ] && [ "$(basename "$fd")" != 0 ]; then
      basename "$fd"
      return
    fi
  done
}

# ttyd's descriptors of the pty master whose terminal is the shell's standard input (it holds
# the master more than once), as a bpftrace condition.
pty_of_child() {
  local child pts fd cond="0"
  child="$(pgrep -P "$1" | head -1)"
  pts="$(readlink "/proc/$child/fd/0")"
  for fd in /proc/"$1"/fdinfo/*; do
    if grep -q "^tty-index:[[:space:]]*${pts##*/}\$" "$fd" 2>/dev/null; then
      cond="$cond || args->fd == $(basename "$fd")"
    fi
  done
  echo "$cond"
}

for run in $(seq 1 "$runs"); do
  if [ "$server" = termplane ]; then
    python3 "$here/bench_termplane.py" --node local --bin-dir "$bin_dir" --samples 6000 \
      --skip-throughput >/dev/null 2>&1 &
  else
    python3 "$TERMBENCH_DIR/bench_ttyd.py" --samples 6000 --skip-throughput >/dev/null 2>&1 &
  fi
  bench=$!
  # Past the start-up and the warm-up: the echo loop runs for 12 s from here on.
  sleep 10
  if [ "$server" = termplane ]; then
    pid="$(pgrep -f "^$bin_dir/termplane serve" | head -1)"
    ctl="$(pgrep -f "tmux -u -S .*/local-node/tmux.sock -f /dev/null -C attach-session" | head -1)"
    infd="args->fd == $(pipe_to_stdin_of "$pid" "$ctl")"
  else
    pid="$(pgrep -n -x 'ttyd(\.[a-z0-9_]+)?')"
    infd="$(pty_of_child "$pid")"
  fi
  sock="$(newest_socket "$pid")"
  bpftrace -q -e "
    tracepoint:syscalls:sys_exit_epoll_pwait, tracepoint:syscalls:sys_exit_epoll_wait
    /tid == $pid/ { @wake = nsecs; }
    tracepoint:syscalls:sys_enter_write, tracepoint:syscalls:sys_enter_writev
    /tid == $pid && ($infd) && @wake/ { @in = lhist((nsecs - @wake) / 1000, 0, 100, 1); @wake = 0; }
    tracepoint:syscalls:sys_enter_sendto
    /tid == $pid && args->fd == $sock && @wake/ { @out = lhist((nsecs - @wake) / 1000, 0, 100, 1); @wake = 0; }
    interval:s:4 { exit(); }
    END { clear(@wake); }" 2>/dev/null |
    python3 "$here/server_hops_summary.py" "$server" "$run"
  wait "$bench" || true
done
