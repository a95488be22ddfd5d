#!/usr/bin/env bash
# The signal executor end to end against the running demo (npm test tier `executor`): subscription ->
# signed delivery -> verification -> local limits -> dry-run order; tampered and replayed deliveries.
# The demo may deliver to 127.0.0.1 here only (WEBHOOK_ALLOWED_HOSTS); nothing leaves the machine and no
# order is ever submitted (dry-run; live submission is never exercised in tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="$(bash clients/python/venv.sh)"
DEMO_ENV="WEBHOOK_ALLOWED_HOSTS=127.0.0.1 WEBHOOK_POLL_INTERVAL_MS=200"
source test/support/start-demo.sh
REPORT_ARGS=()
if [ -n "${JUNIT_REPORT:-}" ]; then REPORT_ARGS=(--junitxml "$JUNIT_REPORT"); fi
"$VENV/bin/python" -m pytest clients/executor/tests -q -p no:cacheprovider "${REPORT_ARGS[@]}" "$@"
