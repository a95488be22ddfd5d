#!/usr/bin/env bash
# Starts every real engine the project runs on without Docker (Kafka, the schema registry,
# PostgreSQL), on 127.0.0.1, and writes their addresses to .infra/env for `source`-ing.
# Idempotent: engines already running are left alone. `infra/down.sh` stops them.
# ClickHouse is not here: no package registry ships a modern server (see infra/README.md).
source "$(dirname "$0")/lib.sh"

"$INFRA_SCRIPTS/postgres.sh" up
"$INFRA_SCRIPTS/kafka.sh" up
"$INFRA_SCRIPTS/registry.sh" up
{
  echo "export KAFKA_BROKERS=$("$INFRA_SCRIPTS/kafka.sh" url)"
  echo "export SCHEMA_REGISTRY_URL=$("$INFRA_SCRIPTS/registry.sh" url)"
  echo "export DATABASE_URL=$("$INFRA_SCRIPTS/postgres.sh" url)"
} >"$INFRA_DIR/env"
cat "$INFRA_DIR/env"
log "all up; in a shell: source $INFRA_DIR/env"
