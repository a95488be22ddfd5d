#!/usr/bin/env bash
# A PostgreSQL server from Debian's `postgresql` package, on 127.0.0.1, data under .infra/postgres.
#   infra/postgres.sh up      install the package if missing, initdb (once), start; idempotent
#   infra/postgres.sh down    stop (pg_ctl stop -m fast, which signals the postmaster pid)
#   infra/postgres.sh url     print the admin DATABASE_URL
# Local-only trust authentication: the server listens on 127.0.0.1 and a private socket folder.
source "$(dirname "$0")/lib.sh"

DIR="$INFRA_DIR/postgres"
DATA="$DIR/data"
mkdir -p "$DIR"

pg_bin() {
  local found
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  if [[ -z "$found" ]]; then
    log "postgres: installing Debian's postgresql package"
    if [[ "$(id -u)" -eq 0 ]]; then apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    else sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2; fi
    found="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  fi
  echo "$found"
}

# PostgreSQL refuses to run as root: as root, run its tools as the `postgres` user the package creates.
as_owner() {
  if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

running() { [[ -f "$DATA/postmaster.pid" ]] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

up() {
  BIN="$(pg_bin)"
  if running; then log "postgres: already running ($(url))"; return 0; fi
  if [[ "$(id -u)" -eq 0 ]]; then
    chown postgres:postgres "$DIR"
    # The postgres user must be able to reach its folder (mktemp folders are 0700).
    chmod o+x "$INFRA_DIR"
  fi
  if [[ ! -f "$DATA/PG_VERSION" ]]; then
    if ! as_owner "$BIN/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --no-locale >"$DIR/initdb.log" 2>&1; then
      log "postgres: initdb failed:"; cat "$DIR/initdb.log" >&2; return 1
    fi
  fi
  local port
  if [[ -f "$DIR/port" ]]; then port="$(cat "$DIR/port")"; else port="${POSTGRES_PORT:-$(free_port)}"; fi
  echo "$port" >"$DIR/port"
  log "postgres: starting on 127.0.0.1:$port"
  # fsync stays on: the fault tests rely on committed rows surviving, as in production.
  as_owner "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$DIR -c max_connections=200" start >&2
  head -1 "$DATA/postmaster.pid" >"$DIR/pid"
  log "postgres: up (pid $(cat "$DIR/pid"))"
}

down() {
  BIN="$(pg_bin)"
  if running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2; fi
  log "postgres: stopped"
}

url() { echo "postgres://postgres@127.0.0.1:$(cat "$DIR/port")/postgres"; }

case "${1:-}" in
  up) up ;;
  down) down ;;
  url) url ;;
  *) echo "usage: $0 up|down|url" >&2; exit 2 ;;
esac
