#!/usr/bin/env bash
# The browser tests and bench/webui.bench.ts drive Debian's `chromium` package (playwright-core does
# not download browsers). Installs it when missing; CI runs as root on a clean machine.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "Chromium is missing at $CHROMIUM; install Debian's package: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "installing Debian's chromium package for the browser tests"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium > /dev/null
"$CHROMIUM" --version
