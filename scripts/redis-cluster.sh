#!/usr/bin/env bash
# A local Redis Cluster for ladder's sharded seasons: 3 masters with 1 replica each, redis-server
# processes of their own on ports BASE..BASE+5 (default 7000-7005), data under .stack/redis-cluster/
# (another base port: .stack/redis-cluster-<BASE>/, so a private cluster never touches the shared one).
#
#   bash scripts/redis-cluster.sh up            # idempotent: reuses a healthy cluster, restarts
#                                               # stopped nodes (they rejoin from nodes.conf)
#   bash scripts/redis-cluster.sh down          # stops the six nodes, keeps their data
#   bash scripts/redis-cluster.sh down --purge  # and deletes its data folder
#   bash scripts/redis-cluster.sh status        # one line per node: port, role, pid
#
# ladder then runs against it with REDIS_CLUSTER_NODES=127.0.0.1:7000,127.0.0.1:7001,...
# (printed by `up`). Also reached as `REDIS_CLUSTER=1 bash scripts/stack-up.sh` and
# `npm run stack:cluster`. Environment: REDIS_CLUSTER_BASE_PORT=7000, REDIS_CLUSTER_NODE_TIMEOUT_MS=5000
# (how long a silent master stays a master before its replica is promoted; read when a node starts).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE="${REDIS_CLUSTER_BASE_PORT:-7000}"
DIR="$ROOT/.stack/redis-cluster"
[[ "$BASE" == 7000 ]] || DIR+="-$BASE"
NODE_TIMEOUT="${REDIS_CLUSTER_NODE_TIMEOUT_MS:-5000}"
PORTS=()
for i in 0 1 2 3 4 5; do PORTS+=($((BASE + i))); done

log() { printf '[redis-cluster] %s\n' "$*"; }
die() { printf '[redis-cluster] ERROR: %s\n' "$*" >&2; exit 1; }
cli() { redis-cli -h 127.0.0.1 -p "$1" "${@:2}"; }
answers() { [[ "$(cli "$1" ping 2>/dev/null)" == "PONG" ]]; }
cluster_ok() { cli "$1" cluster info 2>/dev/null | tr -d '\r' | grep -q '^cluster_state:ok'; }
known_nodes() { cli "$1" cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_known_nodes://p'; }
# Only signal a pid that is still our redis-server on that port: a stale pidfile may name another process.
is_ours() { kill -0 "$1" 2>/dev/null && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q "redis-server.*:$2"; }

start_node() {
  local port="$1" d="$DIR/$1"
  mkdir -p "$d"
  # No persistence (ladder rebuilds Redis from PostgreSQL), noeviction (a board must never be
  # evicted), nodes.conf kept so a restarted node rejoins with its identity.
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$d" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout "$NODE_TIMEOUT" \
    --save '' --appendonly no --maxmemory-policy noeviction \
    --logfile "$d/redis.log" --pidfile "$d/redis.pid" 9>&- </dev/null >/dev/null 2>&1
}

up() {
  command -v redis-server >/dev/null || die "redis-server is not installed (apt-get install redis-server)"
  mkdir -p "$DIR"
  # Two test files may ask at once: one creates, the other waits and then finds it healthy.
  exec 9>"$DIR/.lock"
  flock 9
  local p
  for p in "${PORTS[@]}"; do
    answers "$p" || start_node "$p"
  done
  for p in "${PORTS[@]}"; do
    for _ in $(seq 1 40); do answers "$p" && break; sleep 0.25; done
    answers "$p" || die "node $p does not answer (see $DIR/$p/redis.log)"
  done
  if [[ "$(known_nodes "${PORTS[0]}")" != "6" ]]; then
    log "creating the cluster (3 masters, 1 replica each)"
    local addrs=()
    for p in "${PORTS[@]}"; do addrs+=("127.0.0.1:$p"); done
    redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/create.log" 2>&1 ||
      die "redis-cli --cluster create failed (see $DIR/create.log; 'down --purge' starts over)"
  fi
  for p in "${PORTS[@]}"; do
    for _ in $(seq 1 80); do cluster_ok "$p" && break; sleep 0.25; done
    cluster_ok "$p" || die "node $p does not report cluster_state:ok (see $DIR/$p/redis.log)"
  done
  local nodes
  nodes="$(printf '127.0.0.1:%s,' "${PORTS[@]}")"
  log "Redis Cluster up: REDIS_CLUSTER_NODES=${nodes%,}"
}

down() {
  local p pid
  for p in "${PORTS[@]}"; do
    pid="$(cat "$DIR/$p/redis.pid" 2>/dev/null || true)"
    if [[ "$pid" =~ ^[0-9]+$ ]] && is_ours "$pid" "$p"; then
      kill -TERM "$pid"
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
      log "stopped node $p (pid $pid)"
    fi
  done
  if [[ "${1:-}" == "--purge" ]]; then
    rm -rf "$DIR"
    log "deleted $DIR"
  fi
}

status() {
  local p
  for p in "${PORTS[@]}"; do
    if answers "$p"; then
      echo "$p $(cli "$p" role 2>/dev/null | head -1) pid $(cat "$DIR/$p/redis.pid" 2>/dev/null || echo '?')"
    else
      echo "$p down"
    fi
  done
}

case "${1:-}" in
  up) up ;;
  down) down "${2:-}" ;;
  status) status ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
esac
