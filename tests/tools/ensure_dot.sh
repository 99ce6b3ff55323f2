#!/usr/bin/env bash
# Make sure Graphviz's `dot` binary is on PATH: the lessons draw every graph with it.
# On Debian or Ubuntu as root it is installed with apt-get; elsewhere one message says how.
set -euo pipefail
if command -v dot >/dev/null 2>&1 && dot -V >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && grep -qiE 'debian|ubuntu' /etc/os-release 2>/dev/null; then
  echo "Graphviz's dot is missing: installing the graphviz package with apt-get ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq graphviz >/dev/null
  dot -V
  exit 0
fi
cat >&2 <<'MSG'
Graphviz's `dot` program is missing; the lessons draw every graph with it. Install it, then rerun:
  conda:          conda install -c conda-forge graphviz   (or: make ENV=conda ...)
  Debian/Ubuntu:  sudo apt-get install graphviz
  macOS:          brew install graphviz
  Windows:        winget install graphviz   (then open a new terminal so dot is on PATH)
MSG
exit 1
