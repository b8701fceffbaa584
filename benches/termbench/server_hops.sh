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
# Each side is split by the thread whose wait returned: the thread that then writes (`in`,
# `out`), or another thread of the server, which then had to wake the writing one
# (`in_handoff`, `out_handoff`). In termplane that other thread is async-io's helper thread
# ("async-io") or smol's executor thread, when one of them holds the reactor instead of the
# terminal sockets' thread; ttyd has one thread.
#
#   TERMBENCH_DIR=/path/to/termbench benches/termbench/server_hops.sh termplane BIN_DIR [RUNS]
#   TERMBENCH_DIR=/path/to/termbench benches/termbench/server_hops.sh ttyd [RUNS]
#
# GAP_MS (default 2) is the pause between keystrokes, SAMPLES (default 6000) their number and
# WINDOW_S (default 4) how long the trace runs; at GAP_MS=50, SAMPLES=600 WINDOW_S=12.
#
# STEPS=1 (termplane only) splits instead the way in of the wake-ups the main thread took
# itself into its steps, each a histogram of its own:
#
#   wake_to_read:   epoll_pwait returning to the read of the viewer's socket (the reactor's
#                   own calls after its wait, the executor, the WebSocket stack);
#   read_to_check:  that read's return to the exit-file check (the frame, the typist's queue,
#                   the input mark, the node's lock);
#   check:          the exit-file check itself (one `newfstatat`);
#   check_to_write: its return to the write to tmux (the command line, the client's lock).
#
# Each probe adds about 1 µs, so these add up to more than `in` without them.
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
gap_ms="${GAP_MS:-2}"
samples="${SAMPLES:-6000}"
window_s="${WINDOW_S:-4}"

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
    python3 "$here/bench_termplane.py" --node local --bin-dir "$bin_dir" --samples "$samples" \
      --gap-ms "$gap_ms" --skip-throughput >/dev/null 2>&1 &
  else
    python3 "$TERMBENCH_DIR/bench_ttyd.py" --samples "$samples" --gap-ms "$gap_ms" \
      --skip-throughput >/dev/null 2>&1 &
  fi
  bench=$!
  # Past the start-up and the warm-up (100 keystrokes): the echo loop runs on past the window.
  sleep $((4 + gap_ms * 100 / 1000 + 1))
  if [ "$server" = termplane ]; then
    pid="$(pgrep -f "^$bin_dir/termplane serve" | head -1)"
    ctl="$(pgrep -P "$pid" -f "attach-session" | head -1)"
    infd="args->fd == $(pipe_to_stdin_of "$pid" "$ctl")"
  else
    pid="$(pgrep -n -x 'ttyd(\.[a-z0-9_]+)?')"
    infd="$(pty_of_child "$pid")"
  fi
  sock="$(newest_socket "$pid")"
  if [ "${STEPS:-0}" = 1 ] && [ "$server" = termplane ]; then
    program="
    tracepoint:syscalls:sys_exit_epoll_pwait /tid == $pid/ { @wake = nsecs; @rd = 0; @rx = 0; @ck = 0; @cx = 0; }
    tracepoint:syscalls:sys_enter_recvfrom /tid == $pid && args->fd == $sock && @wake/ { @rd = nsecs; }
    tracepoint:syscalls:sys_exit_recvfrom /tid == $pid && @rd && !@rx/ { @rx = nsecs; }
    tracepoint:syscalls:sys_enter_newfstatat /tid == $pid && @rx/ { @ck = nsecs; }
    tracepoint:syscalls:sys_exit_newfstatat /tid == $pid && @ck/ { @cx = nsecs; }
    tracepoint:syscalls:sys_enter_write /tid == $pid && ($infd) && @wake && @cx/ {
      @wake_to_read = lhist((@rd - @wake) / 1000, 0, 100, 1);
      @read_to_check = lhist((@ck - @rx) / 1000, 0, 100, 1);
      @check = lhist((@cx - @ck) / 1000, 0, 100, 1);
      @check_to_write = lhist((nsecs - @cx) / 1000, 0, 100, 1);
      @in = lhist((nsecs - @wake) / 1000, 0, 100, 1);
      @wake = 0; }
    interval:s:$window_s { exit(); }
    END { clear(@wake); clear(@rd); clear(@rx); clear(@ck); clear(@cx); }"
  else
    program="
    tracepoint:syscalls:sys_exit_epoll_pwait, tracepoint:syscalls:sys_exit_epoll_wait
    /pid == $pid/ { @wake = nsecs; @waker = tid; }
    tracepoint:syscalls:sys_enter_write, tracepoint:syscalls:sys_enter_writev
    /tid == $pid && ($infd) && @wake/ {
      if (@waker == $pid) { @in = lhist((nsecs - @wake) / 1000, 0, 100, 1); }
      else { @in_handoff = lhist((nsecs - @wake) / 1000, 0, 100, 1); }
      @wake = 0; }
    tracepoint:syscalls:sys_enter_sendto
    /tid == $pid && args->fd == $sock && @wake/ {
      if (@waker == $pid) { @out = lhist((nsecs - @wake) / 1000, 0, 100, 1); }
      else { @out_handoff = lhist((nsecs - @wake) / 1000, 0, 100, 1); }
      @wake = 0; }
    interval:s:$window_s { exit(); }
    END { clear(@wake); clear(@waker); }"
  fi
  bpftrace -q -e "$program" 2>/dev/null | python3 "$here/server_hops_summary.py" "$server" "$run"
  wait "$bench" || true
done
