#!/usr/bin/env bash
# Installs a supported Node.js from the npm registry (the node-<os>-<cpu>
# packages carry the binary, its headers and common.gypi) into a cache
# directory, and prints the two variables that put it to use:
#
#   eval "$(bash scripts/node.sh 22)"     # or 24, 26, or an exact 22.23.5
#
# PATH gets the Node binary first; npm_config_nodedir points node-gyp at the
# package's own headers, so native modules (better-sqlite3) build offline
# against the Node that runs them. npm itself is the machine's: it runs on
# whichever node is first on PATH. The cache is $SYSPROMPT_NODE_CACHE, else
# $XDG_CACHE_HOME/sysprompt/node, else ~/.cache/sysprompt/node; a version
# already there is reused. Everything this prints goes to stdout; progress
# and errors go to stderr.
set -euo pipefail

# The versions CI tests; a bare major picks its line here.
pinned() {
  case "$1" in
    22) echo 22.23.5 ;;
    24) echo 24.22.3 ;;
    26) echo 26.12.1 ;;
    *) return 1 ;;
  esac
}

want="${1:-}"
if [ -z "$want" ]; then
  echo "usage: bash scripts/node.sh VERSION   (22, 24, 26, or an exact version such as 22.23.5)" >&2
  exit 2
fi
case "$want" in
  v*) want="${want#v}" ;;
esac
if [[ "$want" =~ ^[0-9]+$ ]]; then
  version="$(pinned "$want")" || {
    echo "scripts/node.sh: no pinned release for Node $want; give an exact version (22.23.5) or one of 22, 24, 26" >&2
    exit 2
  }
elif [[ "$want" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  version="$want"
else
  echo "scripts/node.sh: '$want' is not a Node version; give 22, 24, 26 or an exact version such as 22.23.5" >&2
  exit 2
fi

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "scripts/node.sh: $(uname -s) is not supported; install Node $version by other means" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) echo "scripts/node.sh: $(uname -m) is not supported; install Node $version by other means" >&2; exit 2 ;;
esac

pkg="node-$os-$cpu"
cache="${SYSPROMPT_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sysprompt/node}"
dir="$cache/$pkg-$version"

if ! [ -x "$dir/bin/node" ] || ! [ -f "$dir/include/node/common.gypi" ]; then
  mkdir -p "$cache"
  work="$(mktemp -d "$cache/.install.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "installing $pkg@$version from the npm registry into $dir" >&2
  # npm pack checks the tarball against the registry's integrity hash.
  (cd "$work" && npm pack --silent "$pkg@$version" >/dev/null)
  tar -xzf "$work"/"$pkg"-"$version".tgz -C "$work"
  if ! [ -x "$work/package/bin/node" ]; then
    echo "scripts/node.sh: $pkg@$version holds no bin/node" >&2
    exit 1
  fi
  rm -rf "$dir"
  mv "$work/package" "$dir"
fi

got="$("$dir/bin/node" --version)"
if [ "$got" != "v$version" ]; then
  echo "scripts/node.sh: $dir/bin/node says $got, not v$version; remove $dir and run again" >&2
  exit 1
fi

printf 'export PATH=%q:"$PATH"\n' "$dir/bin"
printf 'export npm_config_nodedir=%q\n' "$dir"
