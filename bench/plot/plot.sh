#!/usr/bin/env bash
# Plots a soak result (bench/results/soak.json) to a PNG: RSS and per-window p99 over time, with the
# injected faults marked. matplotlib comes from PyPI into a repo-local virtual environment
# (bench/plot/.venv, not committed), created on first use.
#   bash bench/plot/plot.sh <soak.json> <out.png>
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VENV="$HERE/.venv"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import matplotlib' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'matplotlib==3.11.2'
fi
MPLBACKEND=Agg "$VENV/bin/python" "$HERE/plot_soak.py" "$1" "$2"
