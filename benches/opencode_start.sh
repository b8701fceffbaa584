#!/usr/bin/env bash
# How long opencode takes to show its first screen, with and without a plugin like the pane's,
# on a machine that cannot reach the npm registry: opencode installs its plugin package
# (`@opencode-ai/plugin`) in its configuration folder and waits for that install before it
# loads a plugin.
#
#   bash benches/opencode_start.sh [ROUNDS]
#
# Needs tmux and the pinned opencode in target/harness-clis (tools/test.sh installs both).
# Four cases, each in a fresh HOME: no plugin; the plugin with no network (connections refused
# at once); the plugin behind a proxy that refuses connections (opencode's npm client retries);
# the plugin with the package already installed (as opencode's first start with a network
# leaves its folder). Prints one line per case and round: the case and the seconds until the
# input prompt shows.
set -euo pipefail
rounds=${1:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/target/harness-clis/node_modules/opencode-linux-x64/bin/opencode
[ -x "$bin" ] || { echo "no opencode at $bin (run tools/test.sh once)" >&2; exit 1; }
work=$(mktemp -d)
trap 'tmux -L opencode-start kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -m 700 "$work/mcp"
printf 'export const Plugin = async () => ({ event: async () => {} });\n' > "$work/mcp/p.js"
with_plugin='{"plugin":["file://'"$work"'/mcp/p.js"]}'

start() { # case-name config proxy installed
  local home=$work/home
  rm -rf "$home" && mkdir -p "$home"
  if [ "$4" = yes ]; then
    local dir=$home/.config/opencode
    mkdir -p "$dir/node_modules"
    echo '{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}' > "$dir/package.json"
    echo '{"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}' > "$dir/package-lock.json"
  fi
  local env=(-e "HOME=$home" -e OPENCODE_DISABLE_AUTOUPDATE=1 -e "OPENCODE_CONFIG_CONTENT=$2")
  if [ "$3" = yes ]; then
    env+=(-e HTTPS_PROXY=http://127.0.0.1:9 -e HTTP_PROXY=http://127.0.0.1:9)
  fi
  tmux -L opencode-start kill-server 2>/dev/null || true
  local t0 t1
  t0=$(date +%s.%N)
  tmux -L opencode-start new-session -d -x 120 -y 40 "${env[@]}" -c "$work" "$bin"
  local deadline=$(( $(date +%s) + 300 ))
  until tmux -L opencode-start capture-pane -p | grep -q "Ask anything"; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "$1: no prompt in 300 s" >&2; return 1; }
    sleep 0.2
  done
  t1=$(date +%s.%N)
  printf '%-40s %6.1f s\n' "$1" "$(echo "$t1 - $t0" | bc)"
}

for _ in $(seq "$rounds"); do
  start "no plugin" '{}' no no
  start "plugin, no network" "$with_plugin" no no
  start "plugin, proxy refusing" "$with_plugin" yes no
  start "plugin, package installed" "$with_plugin" no yes
done
