#!/bin/sh
# termplane-node installer, served by a termplane plane at /install.sh.
#
#   curl -fsSL <plane>/install.sh | sh -s -- --setup-key nsk_...
#
# Options:
#   --setup-key KEY  the setup key from the plane's "Add a node" dialog (used once, printed nowhere)
#   --name NAME      the node's name (default: this machine's host name)
#   --dir DIR        where the program goes (default: ~/.local/bin; /usr/local/bin for root)
#   --no-service     enroll, then print the command that runs the node in the foreground
#   --reenroll       enroll again with a new setup key although a node is enrolled here
#
# TERMPLANE_CA_FILE, when set, names a PEM CA bundle to trust besides the system's (a plane whose
# certificate a private CA signed): the download, the enrollment and the service trust it, and the
# foreground command printed names it. Fetch the script itself with the same trust:
#   curl --cacert ca.pem -fsSL https://<plane>/install.sh | TERMPLANE_CA_FILE=ca.pem sh -s -- ...
#
# In order, it:
#   1. finds this machine's platform (uname) among the ones the plane serves a program for,
#      and refuses any other plainly;
#   2. downloads the plane's termplane-node for it (curl, or wget) to a temporary file in the
#      target directory, checks its SHA-256 (sha256sum, or shasum -a 256) against the digest the
#      plane wrote into this script, and moves it into place; a program whose digest differs is
#      deleted, nothing is installed, and an installed program that is already the plane's stays;
#   3. enrolls the node with the plane (termplane-node enroll), unless a node is enrolled here
#      already (its config file is read with termplane-node status): running this again is safe;
#   4. installs and starts the service (termplane-node service install: a systemd user unit,
#      with lingering so it outlives the login session, or a launchd agent); where no service
#      manager answers (a container, no login session), it prints the command that runs the
#      node in the foreground instead.
#
# Everything runs from main, called on the last line, so a script cut short by the network
# runs nothing, and no command reads the rest of the script from standard input.

set -eu

# Filled in by the plane as it serves this script: its address, and one "<platform>=<sha256>"
# word for each node program it serves.
PLANE_URL='@PLANE_URL@'
SERVED='@SERVED@'

say() { printf 'termplane: %s\n' "$*"; }
warn() { printf 'termplane: warning: %s\n' "$*" >&2; }
die() {
  printf 'termplane: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
Installs termplane-node from the plane at $PLANE_URL, enrolls this machine as a node and starts it.

usage: curl -fsSL $PLANE_URL/install.sh | sh -s -- --setup-key nsk_... [options]

  --setup-key KEY  the setup key from the plane's "Add a node" dialog
  --name NAME      the node's name (default: this machine's host name)
  --dir DIR        where the program goes (default: ~/.local/bin; /usr/local/bin for root)
  --no-service     enroll, then print the command that runs the node in the foreground
  --reenroll       enroll again with a new setup key although a node is enrolled here

TERMPLANE_CA_FILE=ca.pem (in sh's environment) trusts a private CA besides the system's.
EOF
}

# quote WORD: WORD written as one shell word, for the commands printed to be pasted.
quote() {
  case $1 in
    '' | *[!A-Za-z0-9_@%+=:,./-]*)
      rest=$1
      printf "'"
      while :; do
        case $rest in
          *"'"*)
            printf '%s' "${rest%%"'"*}'\\''"
            rest=${rest#*"'"}
            ;;
          *)
            printf '%s' "$rest"
            break
            ;;
        esac
      done
      printf "'"
      ;;
    *) printf '%s' "$1" ;;
  esac
}

# sha256_of FILE: the file's SHA-256 in lowercase hex, with whichever tool this machine has.
sha256_of() {
  case $hasher in
    sha256sum) sum=$(sha256sum "$1" </dev/null) ;;
    shasum) sum=$(shasum -a 256 "$1" </dev/null) ;;
  esac
  # Both print "<hex>  <file>"; a file name with a backslash gets a leading "\".
  sum=${sum#\\}
  printf '%s' "${sum%% *}"
}

main() {
  key='' name='' dir='' service=1 reenroll=0
  while [ $# -gt 0 ]; do
    case $1 in
      --setup-key | --name | --dir)
        [ $# -ge 2 ] || die "$1 needs a value"
        case $1 in
          --setup-key) key=$2 ;;
          --name) name=$2 ;;
          --dir) dir=$2 ;;
        esac
        shift 2
        ;;
      --setup-key=*)
        key=${1#*=}
        shift
        ;;
      --name=*)
        name=${1#*=}
        shift
        ;;
      --dir=*)
        dir=${1#*=}
        shift
        ;;
      --no-service)
        service=0
        shift
        ;;
      --reenroll)
        reenroll=1
        shift
        ;;
      -h | --help)
        usage
        exit 0
        ;;
      # A stray key is not repeated back.
      nsk_*) die "unexpected argument: pass the setup key as --setup-key KEY" ;;
      *) die "unknown argument $1 (--help lists the options)" ;;
    esac
  done

  case $PLANE_URL in
    http://* | https://*) ;;
    *) die "this script is meant to be fetched from a termplane plane, at <plane>/install.sh" ;;
  esac
  if [ -n "$key" ]; then
    case $key in
      nsk_?*) ;;
      *) die "the setup key must start with nsk_ (copy it from the plane's Add a node dialog)" ;;
    esac
    case ${key#nsk_} in
      *[!A-Za-z0-9_-]*) die "the setup key has characters no setup key has (copy it again)" ;;
    esac
  fi

  # 1. The platform, as the plane names it.
  os=$(uname -s)
  arch=$(uname -m)
  case $os in
    Linux) platform_os=linux ;;
    Darwin) platform_os=darwin ;;
    *) platform_os=$(printf '%s' "$os" | tr '[:upper:]' '[:lower:]') ;;
  esac
  case $arch in
    x86_64 | amd64) platform_arch=x86_64 ;;
    aarch64 | arm64) platform_arch=aarch64 ;;
    *) platform_arch=$arch ;;
  esac
  platform=$platform_os-$platform_arch
  want='' served=''
  for entry in $SERVED; do
    served="$served${served:+, }${entry%%=*}"
    case $entry in
      "$platform="*) want=${entry#*=} ;;
    esac
  done
  if [ -z "$served" ]; then
    die "the plane at $PLANE_URL serves no node program yet (its administrator puts them in TERMPLANE_NODE_DOWNLOADS)"
  fi
  if [ -z "$want" ]; then
    die "the plane at $PLANE_URL serves no termplane-node for this machine ($os $arch, platform $platform); it serves: $served"
  fi

  # What the later steps need, looked for before anything is written.
  command -v tmux >/dev/null 2>&1 ||
    die "a node runs its panes in tmux, which is not installed here: install it (apt-get install tmux, dnf install tmux, brew install tmux) and run this again"
  if command -v curl >/dev/null 2>&1; then
    fetch=curl
  elif command -v wget >/dev/null 2>&1; then
    fetch=wget
  else
    die "neither curl nor wget is installed: install one and run this again"
  fi
  # A plane whose certificate a private CA signed: the CA bundle termplane-node trusts
  # (TERMPLANE_CA_FILE) is trusted for the download too, and named in the foreground command.
  ca=${TERMPLANE_CA_FILE:-}
  if [ -n "$ca" ]; then
    [ -r "$ca" ] || die "TERMPLANE_CA_FILE names $ca, which cannot be read"
    case $ca in
      /*) ;;
      *) ca=$(pwd)/$ca ;;
    esac
    TERMPLANE_CA_FILE=$ca
    export TERMPLANE_CA_FILE
  fi
  if command -v sha256sum >/dev/null 2>&1; then
    hasher=sha256sum
  elif command -v shasum >/dev/null 2>&1; then
    hasher=shasum
  else
    die "neither sha256sum nor shasum is installed, so the download cannot be checked: install one (coreutils, or perl's shasum) and run this again"
  fi

  # 2. The program, checked, in its directory.
  if [ -z "$dir" ]; then
    if [ "$(id -u)" = 0 ]; then
      dir=/usr/local/bin
    else
      [ -n "${HOME:-}" ] || die "HOME is not set: pass --dir DIR"
      dir=$HOME/.local/bin
    fi
  fi
  case $dir in
    /*) ;;
    *) dir=$(pwd)/$dir ;;
  esac
  mkdir -p "$dir" || die "cannot make $dir (pass --dir DIR)"
  bin=$dir/termplane-node
  if [ -f "$bin" ] && [ -x "$bin" ] && [ "$(sha256_of "$bin")" = "$want" ]; then
    say "$bin is already the plane's termplane-node for $platform"
    replaced=0
  else
    replaced=0
    if [ -e "$bin" ]; then
      replaced=1
    fi
    url=$PLANE_URL/api/downloads/node/$platform
    tmp=$(mktemp "$dir/.termplane-node.XXXXXX") ||
      die "cannot write in $dir (pass --dir DIR, or run as root for /usr/local/bin)"
    # The temporary file goes whatever ends the script.
    trap 'rm -f "$tmp"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM HUP
    say "downloading $url"
    set -- "$url"
    case $fetch in
      curl)
        if [ -n "$ca" ]; then
          set -- --cacert "$ca" "$@"
        fi
        curl -fsSL -o "$tmp" "$@" </dev/null
        ;;
      wget)
        if [ -n "$ca" ]; then
          set -- --ca-certificate="$ca" "$@"
        fi
        wget -q -O "$tmp" "$@" </dev/null
        ;;
    esac || die "the download failed ($url); nothing was installed"
    got=$(sha256_of "$tmp")
    if [ "$got" != "$want" ]; then
      die "the downloaded program's SHA-256 is $got, not the plane's $want: nothing was installed (something between here and the plane changed it, or the plane's program changed since this script was fetched: fetch the script again)"
    fi
    chmod 755 "$tmp"
    version=$("$tmp" --version </dev/null 2>&1) ||
      die "the downloaded program does not run here ($version); nothing was installed"
    mv -f "$tmp" "$bin"
    trap - EXIT INT TERM HUP
    say "installed $bin ($version, SHA-256 $want)"
  fi
  case ":${PATH:-}:" in
    *":$dir:"* | *":$dir/:"*) ;;
    *) warn "$dir is not on your PATH, so the commands below call termplane-node by its full path (add the directory to PATH in your shell's profile to type termplane-node alone)" ;;
  esac
  bin_q=$(quote "$bin")

  # 3. Enrollment, once.
  if [ "$reenroll" = 0 ] && "$bin" status </dev/null >/dev/null 2>&1; then
    server=$("$bin" status </dev/null 2>/dev/null | sed -n 's/^server: //p')
    say "a node is enrolled here already (with $server); keeping it (--reenroll with a new setup key enrolls it again)"
    if [ "$server" != "$PLANE_URL" ]; then
      warn "that is not this plane ($PLANE_URL)"
    fi
  else
    [ -n "$key" ] || die "no setup key: pass --setup-key nsk_... (the plane's Add a node dialog mints one)"
    set -- enroll --server "$PLANE_URL" --setup-key "$key"
    if [ -n "$name" ]; then
      set -- "$@" --name "$name"
    fi
    if [ "$reenroll" = 1 ]; then
      set -- "$@" --force
    fi
    "$bin" "$@" </dev/null ||
      die "enrollment failed (see above); the program is installed, so with a new setup key if this one is spent, run this again"
  fi

  # 4. The service, or the foreground command.
  foreground="$bin_q run"
  if [ -n "$ca" ]; then
    foreground="TERMPLANE_CA_FILE=$(quote "$ca") $foreground"
  fi
  if [ "$service" = 0 ]; then
    say "not installing a service (--no-service); run the node in the foreground with:"
    printf '    %s\n' "$foreground"
    return 0
  fi
  manager=''
  case $platform_os in
    linux)
      if command -v systemctl >/dev/null 2>&1 && systemctl --user show-environment </dev/null >/dev/null 2>&1; then
        manager=systemd
      fi
      ;;
    darwin)
      if command -v launchctl >/dev/null 2>&1; then
        manager=launchd
      fi
      ;;
  esac
  if [ -z "$manager" ]; then
    say "no service manager answers here (systemd's user manager needs a login session, and a container usually has none); run the node in the foreground, under whatever keeps your programs running:"
    printf '    %s\n' "$foreground"
    return 0
  fi
  if ! "$bin" service install </dev/null; then
    warn "the service could not be installed (see above); run the node in the foreground instead:"
    printf '    %s\n' "$foreground" >&2
    exit 1
  fi
  if [ "$manager" = systemd ]; then
    say "the node runs as the systemd user unit termplane-node.service; lingering (loginctl enable-linger, reported above) keeps it running after you log out"
  else
    say "the node runs as the launchd agent dev.termplane.node"
  fi
  if [ "$replaced" = 1 ]; then
    say "a daemon already running keeps its old program until it restarts: $bin_q service restart (its panes stop)"
  fi
  say "check it with: $bin_q status"
}

main "$@"
