#!/usr/bin/env bash
# The browser tests and bench/webui.bench.ts drive Debian's `chromium` package (playwright-core does
# not download browsers, and nothing but package registries may be reached). Installs it with apt
# when missing: as root (CI on a clean machine runs as root), or through passwordless sudo.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
# Present and able to start (a distribution's placeholder that only points to a snap is not).
if [ -x "$CHROMIUM" ] && "$CHROMIUM" --version > /dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ]; then
  as_root=()
elif command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null; then
  as_root=(sudo -n)
else
  echo "Chromium is missing at $CHROMIUM; install Debian's package: sudo apt-get install -y chromium (or set CHROMIUM_PATH)" >&2
  exit 1
fi
echo "installing Debian's chromium package for the browser tests"
${as_root[@]+"${as_root[@]}"} apt-get update -qq
${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium > /dev/null
"$CHROMIUM" --version
