#!/usr/bin/env bash
# A real Apache Kafka broker (KRaft, single node acting as broker and controller) on 127.0.0.1.
#   infra/kafka.sh up      fetch the jars (once), format storage (once), start; idempotent
#   infra/kafka.sh down    stop by pid
#   infra/kafka.sh url     print host:port of the running broker
# Env: KAFKA_PORT (default: a free port, remembered in .infra/kafka/port), KAFKA_HEAP (512m).
source "$(dirname "$0")/lib.sh"

DIR="$INFRA_DIR/kafka"
LIBS="$CACHE_DIR/kafka-libs"
PIDFILE="$DIR/pid"
mkdir -p "$DIR"

fetch_jars() {
  local stamp="$LIBS/.pom.sha"
  local sum
  sum="$(sha256sum "$INFRA_SCRIPTS/kafka/pom.xml" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then return 0; fi
  log "kafka: resolving broker jars from Maven Central (cached in ~/.m2)"
  rm -rf "$LIBS" && mkdir -p "$LIBS"
  mvn -B -q -f "$INFRA_SCRIPTS/kafka/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$LIBS" >&2
  echo "$sum" >"$stamp"
}

# JVM flags for a small test broker: serial GC and C1 only start faster on 2 cores.
java_args() {
  JAVA_ARGS=(-Xmx"${KAFKA_HEAP:-512m}" -Xms128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
    -Dlog4j2.configurationFile="$INFRA_SCRIPTS/kafka/log4j2.properties"
    -Dkafka.logs.dir="$DIR/logs" -cp "$LIBS/*")
}

write_config() {
  local port="$1" cport="$2"
  cat >"$DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DIR/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
# Durable enough for tests on one node; a kill -9 must not lose acknowledged (acks=all) records
# that reached the page cache, which a process crash (not a machine crash) cannot lose.
log.flush.interval.messages=9223372036854775807
PROPS
}

up() {
  if pid_alive "$PIDFILE"; then
    log "kafka: already running (pid $(cat "$PIDFILE"), 127.0.0.1:$(cat "$DIR/port"))"
    return 0
  fi
  fetch_jars
  local port cport
  if [[ -f "$DIR/port" ]]; then port="$(cat "$DIR/port")"; else port="${KAFKA_PORT:-$(free_port)}"; fi
  if [[ -f "$DIR/controller-port" ]]; then cport="$(cat "$DIR/controller-port")"; else cport="$(free_port)"; fi
  echo "$port" >"$DIR/port"
  echo "$cport" >"$DIR/controller-port"
  write_config "$port" "$cport"
  java_args
  if [[ ! -f "$DIR/data/meta.properties" ]]; then
    local cluster_id
    cluster_id="$(java "${JAVA_ARGS[@]}" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)"
    java "${JAVA_ARGS[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$DIR/server.properties" --ignore-formatted >"$DIR/format.log" 2>&1
  fi
  log "kafka: starting on 127.0.0.1:$port"
  nohup java "${JAVA_ARGS[@]}" kafka.Kafka "$DIR/server.properties" >"$DIR/broker.log" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  if ! wait_for_port "$port" 90 "$PIDFILE"; then
    log "kafka: did not open its port; last log lines:"; tail -30 "$DIR/broker.log" >&2
    stop_pid "$PIDFILE" 5
    return 1
  fi
  log "kafka: up (pid $(cat "$PIDFILE"))"
}

case "${1:-}" in
  up) up ;;
  down) stop_pid "$PIDFILE" 30 && log "kafka: stopped" ;;
  url) echo "127.0.0.1:$(cat "$DIR/port")" ;;
  *) echo "usage: $0 up|down|url" >&2; exit 2 ;;
esac
