#!/usr/bin/env bash
# Creates (or reuses) the repo-local virtual environment of the Python clients, clients/python/.venv,
# from the machine's python3 and PyPI: the pinned test requirements, then the tapeline SDK and the
# executor installed editable from this checkout. Nothing is installed system-wide. Rebuilt when the
# requirements or the package metadata change. Prints the venv path.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${TAPELINE_PY_VENV:-$HERE/.venv}"
STAMP_INPUT="$(cat "$HERE/requirements-dev.txt" "$HERE/pyproject.toml" "$ROOT/clients/executor/pyproject.toml" 2>/dev/null; python3 --version)"
STAMP="$(printf '%s' "$STAMP_INPUT" | sha256sum | cut -c1-16)"
if [ ! -f "$VENV/.tapeline-stamp" ] || [ "$(cat "$VENV/.tapeline-stamp")" != "$STAMP" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/requirements-dev.txt" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation -e "$HERE" >&2
  if [ -f "$ROOT/clients/executor/pyproject.toml" ]; then
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e "$ROOT/clients/executor" >&2
  fi
  echo "$STAMP" > "$VENV/.tapeline-stamp"
fi
echo "$VENV"
