#!/usr/bin/env bash
# The Python SDK's pytest suite against the running demo (npm test tier `python`). The virtual
# environment is repo-local (clients/python/venv.sh); JUNIT_REPORT (set by test/run-tiers.mjs) gets
# pytest's JUnit report, which the tier runner counts.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="$(bash clients/python/venv.sh)"
source test/support/start-demo.sh
REPORT_ARGS=()
if [ -n "${JUNIT_REPORT:-}" ]; then REPORT_ARGS=(--junitxml "$JUNIT_REPORT"); fi
"$VENV/bin/python" -m pytest clients/python/tests -q -p no:cacheprovider "${REPORT_ARGS[@]}" "$@"
