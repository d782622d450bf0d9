#!/usr/bin/env bash
# Stop the Kafka broker started by scripts/stack-up.sh.
#
#   bash scripts/stack-down.sh           # stop Kafka, keep its data (topics, offsets)
#   bash scripts/stack-down.sh --purge   # stop Kafka and delete .stack/kafka/data
#                                        # (the downloaded jars are kept)
# Also stops the local Redis Cluster of scripts/redis-cluster.sh if it runs (--purge: its data too).
#
# PostgreSQL and Redis are left alone: they are the machine's services, shared
# with other work, and stack-up.sh only reuses them.
#
# Environment: KAFKA_STOP_TIMEOUT=30 (seconds before SIGKILL), KAFKA_PORT=9092
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KAFKA_DIR="$ROOT/.stack/kafka"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_PIDFILE="$KAFKA_DIR/kafka.pid"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"

log() { printf '[stack-down] %s\n' "$*"; }
die() { printf '[stack-down] ERROR: %s\n' "$*" >&2; exit 1; }

purge=0
for arg in "$@"; do
  case "$arg" in
    --purge) purge=1 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$arg' (usage: stack-down.sh [--purge])" ;;
  esac
done

# Only signal the PID if it is still our broker: after a reboot the PID in a
# stale file may belong to an unrelated process.
is_our_kafka() {
  kill -0 "$1" 2>/dev/null && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'
}

if [[ -f "$KAFKA_PIDFILE" ]]; then
  pid="$(cat "$KAFKA_PIDFILE" 2>/dev/null || true)"
  if [[ "$pid" =~ ^[0-9]+$ ]] && is_our_kafka "$pid"; then
    # SIGTERM runs Kafka's controlled shutdown (flushes logs, closes the
    # metadata log cleanly), which makes the next start fast and clean.
    log "stopping Kafka (PID $pid)..."
    kill -TERM "$pid"
    deadline=$((SECONDS + KAFKA_STOP_TIMEOUT))
    while is_our_kafka "$pid" && (( SECONDS < deadline )); do sleep 0.5; done
    if is_our_kafka "$pid"; then
      log "Kafka did not stop within ${KAFKA_STOP_TIMEOUT}s, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
    fi
    log "Kafka stopped"
  else
    log "Kafka was not running (stale PID file)"
  fi
  rm -f "$KAFKA_PIDFILE"
else
  log "Kafka was not running (no PID file at ${KAFKA_PIDFILE#"$ROOT/"})"
  # A broker we did not start (e.g. docker compose) is not ours to stop.
  if timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/${KAFKA_PORT:-9092}" 2>/dev/null; then
    log "note: something still listens on 127.0.0.1:${KAFKA_PORT:-9092} (not started by stack-up.sh; left alone)"
  fi
fi

if (( purge )); then
  rm -rf "$KAFKA_DATA"
  log "deleted ${KAFKA_DATA#"$ROOT/"} (jars kept; the next stack-up formats fresh storage)"
fi
# The local Redis Cluster (scripts/redis-cluster.sh) is ours: stopped too, its data kept unless --purge.
if (( purge )); then bash "$ROOT/scripts/redis-cluster.sh" down --purge; else bash "$ROOT/scripts/redis-cluster.sh" down; fi
log "PostgreSQL and Redis left running (machine services)"
