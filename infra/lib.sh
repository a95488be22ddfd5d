# Shared helpers for the infra/ scripts (sourced, not run). Everything binds to 127.0.0.1.
# State lives under $TAPELINE_INFRA_DIR (default <repo>/.infra): one folder per engine with its
# data, log file, pid file and the port it listens on. Downloads are cached outside the repo
# (~/.m2 for Maven artifacts, ~/.cache/tapeline for unpacked archives) so a second run is fast.
set -euo pipefail

INFRA_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$INFRA_SCRIPTS/.." && pwd)"
INFRA_DIR="${TAPELINE_INFRA_DIR:-$REPO_ROOT/.infra}"
CACHE_DIR="${TAPELINE_CACHE_DIR:-$HOME/.cache/tapeline}"
mkdir -p "$INFRA_DIR" "$CACHE_DIR"

log() { echo "[infra] $*" >&2; }

# A free TCP port on 127.0.0.1, chosen by the kernel.
free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# True when the pid in $1 (a pid file) names a live process.
pid_alive() {
  [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

# Waits until 127.0.0.1:$1 accepts connections, or fails after $2 seconds.
wait_for_port() {
  local port="$1" seconds="$2" pidfile="${3:-}"
  local deadline=$((SECONDS + seconds))
  while ((SECONDS < deadline)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    if [[ -n "$pidfile" ]] && ! pid_alive "$pidfile"; then return 1; fi
    sleep 0.2
  done
  return 1
}

# Stops the process whose pid is in $1: SIGTERM, then SIGKILL after $2 seconds. Only that pid.
stop_pid() {
  local pidfile="$1" grace="${2:-20}"
  if ! pid_alive "$pidfile"; then rm -f "$pidfile"; return 0; fi
  local pid
  pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + grace))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$pidfile"
}
