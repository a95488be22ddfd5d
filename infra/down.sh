#!/usr/bin/env bash
# Stops the engines infra/up.sh started, each by its own pid. Data stays under .infra/ (delete it to reset).
source "$(dirname "$0")/lib.sh"
status=0
"$INFRA_SCRIPTS/registry.sh" down || status=1
"$INFRA_SCRIPTS/kafka.sh" down || status=1
"$INFRA_SCRIPTS/postgres.sh" down || status=1
rm -f "$INFRA_DIR/env"
exit $status
