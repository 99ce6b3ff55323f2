#!/usr/bin/env bash
# Make sure a Chromium is there for `make lab-check` (tests/browser/check_lab.py drives it with
# playwright; playwright's own browser download is never used). On Debian as root it is installed
# with apt-get; elsewhere one message says how.
set -euo pipefail
for candidate in "${CHROMIUM:-}" /usr/bin/chromium "$(command -v chromium || true)" \
                 "$(command -v chromium-browser || true)" "$(command -v google-chrome || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    exit 0
  fi
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && grep -q '^ID=debian' /etc/os-release 2>/dev/null; then
  echo "Chromium is missing: installing the chromium package with apt-get (a few minutes) ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq chromium >/dev/null
  exit 0
fi
cat >&2 <<'MSG'
`make lab-check` needs a Chromium (or Chrome) browser, run headless. Install one, then rerun:
  Debian:   sudo apt-get install chromium
  Ubuntu:   install Google Chrome or Chromium (Ubuntu's apt package is a snap), then
            make lab-check CHROMIUM=/path/to/chrome
  macOS:    brew install --cask chromium   (then CHROMIUM=/Applications/Chromium.app/Contents/MacOS/Chromium)
Or point at any Chromium-based browser: make lab-check CHROMIUM=/path/to/browser
MSG
exit 1
