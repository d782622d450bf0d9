#!/usr/bin/env bash
# Bring up the local stack for ladder: PostgreSQL 15, Redis 7, Apache Kafka 4.
#
#   bash scripts/stack-up.sh        # idempotent: running it again is harmless
#   bash scripts/stack-down.sh      # stops Kafka (PostgreSQL/Redis are left alone)
#
# PostgreSQL and Redis are the machine's services: reused when they answer,
# started only if a local install exists. Kafka has no Debian package and there
# may be no Docker, so it runs straight from Maven Central jars: a single KRaft
# node (broker + controller in one JVM), all its state under .stack/kafka/.
# With Docker, `docker compose up -d` is the alternative (docker-compose.yml).
#
# Environment (all optional):
#   PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres PGDATABASE=ladder PGDATABASE_TEST=ladder_test
#   REDIS_HOST=127.0.0.1 REDIS_PORT=6379
#   KAFKA_PORT=9092 KAFKA_CONTROLLER_PORT=9093
#   KAFKA_HEAP="-Xmx512m -Xms512m"  KAFKA_JVM_OPTS="" (extra JVM flags)
#   KAFKA_START_TIMEOUT=90 (seconds)
#   REDIS_CLUSTER=1: also start the local Redis Cluster (scripts/redis-cluster.sh up)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_DIR="$ROOT/.stack"
KAFKA_DIR="$STACK_DIR/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_PIDFILE="$KAFKA_DIR/kafka.pid"
KAFKA_LOG="$KAFKA_DIR/kafka.log"   # written by log4j2 (scripts/kafka/log4j2.xml)
KAFKA_OUT="$KAFKA_DIR/kafka.out"   # JVM stdout/stderr: WARN+ and crashes
KAFKA_PROPS="$KAFKA_DIR/server.properties"
KAFKA_SRC="$ROOT/scripts/kafka"

PGHOST="${PGHOST:-127.0.0.1}"
PGPORT="${PGPORT:-5432}"
PGUSER="${PGUSER:-postgres}"
PGDATABASE="${PGDATABASE:-ladder}"
PGDATABASE_TEST="${PGDATABASE_TEST:-ladder_test}"
REDIS_HOST="${REDIS_HOST:-127.0.0.1}"
REDIS_PORT="${REDIS_PORT:-6379}"
KAFKA_HOST=127.0.0.1
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_HEAP="${KAFKA_HEAP:--Xmx512m -Xms512m}"
KAFKA_JVM_OPTS="${KAFKA_JVM_OPTS:-}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"

log()  { printf '[stack-up] %s\n' "$*"; }
warn() { printf '[stack-up] WARNING: %s\n' "$*" >&2; }
die()  { printf '[stack-up] ERROR: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

# True if something accepts TCP connections on host:port. Pure bash (/dev/tcp),
# so it works without nc; `timeout` keeps a filtered port from hanging us.
port_open() {
  local host="$1" port="$2"
  if have timeout; then
    timeout 2 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
  else
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
  fi
}

# ---------------------------------------------------------------- PostgreSQL
pg_up() {
  if have pg_isready; then
    pg_isready -q -h "$PGHOST" -p "$PGPORT"
  else
    port_open "$PGHOST" "$PGPORT"
  fi
}

# psql against the maintenance database. -d postgres: a PGDATABASE in the
# environment must not make psql connect to the database we are about to create.
psql_admin() {
  psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d postgres -X -q -v ON_ERROR_STOP=1 "$@"
}

ensure_postgres() {
  if pg_up; then
    log "PostgreSQL: reusing $PGHOST:$PGPORT"
  else
    # Debian's postgresql-common: start the installed cluster directly
    # (--skip-systemctl-redirect because containers often have no systemd).
    # Pick the cluster configured for $PGPORT (else the newest version's "main").
    local version="" cluster="main"
    if have pg_lsclusters; then
      read -r version cluster < <(pg_lsclusters -h 2>/dev/null | awk -v p="$PGPORT" '$3 == p { print $1, $2; exit }') || true
    elif [[ -d /etc/postgresql ]]; then
      version="$(find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)"
    fi
    if [[ -n "$version" && -d "/etc/postgresql/$version/$cluster" ]] && have pg_ctlcluster; then
      log "PostgreSQL: not answering on $PGHOST:$PGPORT, starting cluster $version/$cluster"
      pg_ctlcluster --skip-systemctl-redirect "$version" "$cluster" start \
        || die "could not start PostgreSQL $version/$cluster (try: sudo pg_ctlcluster $version $cluster start)"
      for _ in $(seq 1 30); do pg_up && break; sleep 0.5; done
      pg_up || die "PostgreSQL $version/$cluster started but $PGHOST:$PGPORT does not answer"
    else
      die "PostgreSQL is not running on $PGHOST:$PGPORT and no local cluster was found.
  Start PostgreSQL 15 yourself (trust auth, user $PGUSER), or with Docker:
    docker compose up -d postgres redis kafka"
    fi
  fi

  # The application and the tests each get their own database.
  if ! have psql; then
    warn "psql not found: cannot check that databases '$PGDATABASE' and '$PGDATABASE_TEST' exist"
    return 0
  fi
  local db exists
  for db in "$PGDATABASE" "$PGDATABASE_TEST"; do
    # SQL goes through stdin because psql only expands :'var' / :"var" there,
    # not in -c strings; that quoting keeps odd database names safe.
    exists="$(printf '%s\n' "SELECT 1 FROM pg_database WHERE datname = :'db';" | psql_admin -At -v db="$db")" \
      || die "cannot connect to PostgreSQL as '$PGUSER' on $PGHOST:$PGPORT (expected trust auth)"
    if [[ "$exists" == "1" ]]; then
      log "PostgreSQL: database '$db' exists"
    else
      printf '%s\n' 'CREATE DATABASE :"db";' | psql_admin -v db="$db" \
        || die "could not create database '$db'"
      log "PostgreSQL: created database '$db'"
    fi
  done
}

# --------------------------------------------------------------------- Redis
redis_up() {
  if have redis-cli; then
    [[ "$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" == "PONG" ]]
  else
    # Speak the inline protocol by hand: "PING\r\n" -> "+PONG\r\n". In a
    # subshell so fd 3 never leaks; read -t bounds the wait for the reply.
    (
      exec 3<>"/dev/tcp/$REDIS_HOST/$REDIS_PORT" || exit 1
      printf 'PING\r\n' >&3
      IFS= read -r -t 2 reply <&3 || exit 1
      [[ "$reply" == +PONG* ]]
    ) 2>/dev/null
  fi
}

ensure_redis() {
  if redis_up; then
    log "Redis: reusing $REDIS_HOST:$REDIS_PORT"
  elif have redis-server; then
    log "Redis: not answering on $REDIS_HOST:$REDIS_PORT, starting redis-server"
    mkdir -p "$STACK_DIR"
    # No persistence: ladder rebuilds Redis from PostgreSQL. noeviction: a
    # leaderboard that silently loses members is worse than a failed write.
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" \
      --save "" --appendonly no --maxmemory-policy noeviction \
      --dir "$STACK_DIR" --logfile "$STACK_DIR/redis.log" --pidfile "$STACK_DIR/redis.pid"
    for _ in $(seq 1 20); do redis_up && break; sleep 0.25; done
    redis_up || die "redis-server started but $REDIS_HOST:$REDIS_PORT does not answer (see $STACK_DIR/redis.log)"
  else
    die "Redis is not running on $REDIS_HOST:$REDIS_PORT and redis-server is not installed.
  Install Redis 7 (apt-get install redis-server) or, with Docker: docker compose up -d redis"
  fi
  # The design relies on Redis never evicting leaderboard keys.
  if have redis-cli; then
    local policy
    policy="$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" config get maxmemory-policy 2>/dev/null | sed -n 2p || true)"
    if [[ -n "$policy" && "$policy" != "noeviction" ]]; then
      warn "Redis maxmemory-policy is '$policy', ladder expects 'noeviction'
  (redis-cli -p $REDIS_PORT config set maxmemory-policy noeviction)"
    fi
  fi
}

# --------------------------------------------------------------------- Kafka
kafka_pid_alive() {
  # Alive AND really our broker: a stale PID file may point at a recycled PID.
  [[ -f "$KAFKA_PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$KAFKA_PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'
}

check_java_and_mvn() {
  have java || die "java not found. Kafka 4 needs Java 17+ (Debian: apt-get install openjdk-17-jre-headless),
  or use Docker: docker compose up -d"
  local spec major
  # java.specification.version is "17" on Java 17 and "1.8" on Java 8.
  spec="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')"
  major="${spec#1.}"; major="${major%%.*}"
  [[ "$major" =~ ^[0-9]+$ ]] || die "could not determine the Java version (got '$spec')"
  (( major >= 17 )) || die "Java $spec found, Kafka 4 needs Java 17 or newer"
}

# Fetch the runtime jars once. The marker holds the pom's hash, so editing the
# pom (e.g. a new Kafka version) triggers a fresh download on the next start.
ensure_kafka_jars() {
  local pom="$KAFKA_SRC/pom.xml" marker="$KAFKA_LIBS/.pom.sha256" want
  want="$(sha256sum "$pom" | cut -d' ' -f1)"
  if [[ -f "$marker" && "$(cat "$marker")" == "$want" ]] && compgen -G "$KAFKA_LIBS/kafka_2.13-*.jar" >/dev/null; then
    return 0
  fi
  have mvn || die "mvn not found: it is needed once to download Kafka from Maven Central
  (Debian: apt-get install maven), or use Docker: docker compose up -d"
  log "Kafka: downloading broker jars from Maven Central (first run only)..."
  # Download into a temp folder and swap, so an interrupted download never
  # leaves a half-filled libs/ that looks complete.
  local tmp="$KAFKA_LIBS.tmp"
  rm -rf "$tmp"
  # Output goes to a file: Maven 3.8 prints stray ANSI codes even with -q -B.
  local mvn_log="$KAFKA_DIR/mvn.log"
  if ! mvn -q -B -f "$pom" dependency:copy-dependencies \
      -DoutputDirectory="$tmp" -DincludeScope=runtime >"$mvn_log" 2>&1; then
    tail -n 30 "$mvn_log" >&2
    die "Maven could not fetch the Kafka jars (is Maven Central reachable?); full output in ${mvn_log#"$ROOT/"}"
  fi
  compgen -G "$tmp/kafka_2.13-*.jar" >/dev/null || die "Maven ran but produced no kafka_2.13 jar in $tmp"
  echo "$want" >"$tmp/.pom.sha256"
  rm -rf "$KAFKA_LIBS"
  mv "$tmp" "$KAFKA_LIBS"
  local jars=("$KAFKA_LIBS"/*.jar)
  log "Kafka: ${#jars[@]} jars in ${KAFKA_LIBS#"$ROOT/"}"
}

# Rendered on every start so KAFKA_PORT / KAFKA_CONTROLLER_PORT changes apply.
render_kafka_config() {
  local data_escaped
  data_escaped="$(printf '%s' "$KAFKA_DATA" | sed 's/[&|\\]/\\&/g')"
  sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
      -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
      -e "s|@KAFKA_DATA_DIR@|$data_escaped|g" \
      "$KAFKA_SRC/server.properties.template" >"$KAFKA_PROPS.tmp"
  mv "$KAFKA_PROPS.tmp" "$KAFKA_PROPS"
}

# Format the storage once. `--standalone` makes this node the single voter of a
# dynamic KRaft quorum; that voter record stores the controller endpoint, so
# the controller port must stay the same for the life of the data directory.
ensure_kafka_storage() {
  local port_marker="$KAFKA_DATA/.controller-port"
  if [[ -f "$KAFKA_DATA/meta.properties" ]]; then
    if [[ -f "$port_marker" && "$(cat "$port_marker")" != "$KAFKA_CONTROLLER_PORT" ]]; then
      die "Kafka data was formatted for controller port $(cat "$port_marker"), not $KAFKA_CONTROLLER_PORT.
  Use KAFKA_CONTROLLER_PORT=$(cat "$port_marker"), or wipe the data: bash scripts/stack-down.sh --purge"
    fi
    return 0
  fi
  mkdir -p "$KAFKA_DATA"
  local cluster_id
  cluster_id="$(java -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
  [[ -n "$cluster_id" ]] || die "kafka.tools.StorageTool random-uuid produced no cluster id"
  log "Kafka: formatting storage (cluster id $cluster_id)"
  java -Dlog4j2.configurationFile="$KAFKA_SRC/log4j2.xml" -Dkafka.logs.dir="$KAFKA_DIR" \
       -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool format --standalone \
       -t "$cluster_id" -c "$KAFKA_PROPS" >>"$KAFKA_OUT" 2>&1 \
    || { tail -n 20 "$KAFKA_OUT" >&2; die "formatting Kafka storage failed (see ${KAFKA_OUT#"$ROOT/"})"; }
  echo "$KAFKA_CONTROLLER_PORT" >"$port_marker"
}

start_kafka() {
  local -a heap extra
  read -r -a heap <<<"$KAFKA_HEAP"
  read -r -a extra <<<"$KAFKA_JVM_OPTS"
  # Remember where the log ends, so we only look for "Kafka Server started"
  # in what this run writes (the file keeps earlier runs).
  local log_offset=0
  [[ -f "$KAFKA_LOG" ]] && log_offset="$(stat -c %s "$KAFKA_LOG")"
  printf '\n===== %s stack-up: starting Kafka =====\n' "$(date -Is)" >>"$KAFKA_OUT"

  # The wrapper shell writes its own PID and then execs java, so the PID file
  # names the JVM itself whatever setsid does. setsid puts the broker in its
  # own session: Ctrl-C in this terminal, or a CI step ending, will not kill it.
  local -a launcher=(nohup)
  have setsid && launcher=(setsid nohup)
  # shellcheck disable=SC2016 # $$, $1, $@ belong to the inner shell
  "${launcher[@]}" bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$KAFKA_PIDFILE" \
    java "${heap[@]}" "${extra[@]}" \
      -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
      -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$KAFKA_SRC/log4j2.xml" \
      -Dkafka.logs.dir="$KAFKA_DIR" \
      -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_PROPS" \
    </dev/null >>"$KAFKA_OUT" 2>&1 &
  disown 2>/dev/null || true

  log "Kafka: starting broker on $KAFKA_HOST:$KAFKA_PORT (log: ${KAFKA_LOG#"$ROOT/"})"
  local deadline=$((SECONDS + KAFKA_START_TIMEOUT)) started=0
  while (( SECONDS < deadline )); do
    sleep 0.5
    if [[ -s "$KAFKA_PIDFILE" ]] && ! kafka_pid_alive; then
      break # the JVM exited: fall through to the error report
    fi
    if [[ -f "$KAFKA_LOG" ]] && tail -c +"$((log_offset + 1))" "$KAFKA_LOG" | grep -q 'Kafka Server started' \
       && port_open "$KAFKA_HOST" "$KAFKA_PORT"; then
      started=1
      break
    fi
  done
  if (( started == 0 )); then
    printf '[stack-up] ---- last lines of %s ----\n' "${KAFKA_LOG#"$ROOT/"}" >&2
    [[ -f "$KAFKA_LOG" ]] && tail -n 30 "$KAFKA_LOG" >&2
    printf '[stack-up] ---- last lines of %s ----\n' "${KAFKA_OUT#"$ROOT/"}" >&2
    tail -n 15 "$KAFKA_OUT" >&2
    if kafka_pid_alive; then
      die "Kafka did not become ready within ${KAFKA_START_TIMEOUT}s (still running as PID $(cat "$KAFKA_PIDFILE"); stop it with scripts/stack-down.sh)"
    fi
    rm -f "$KAFKA_PIDFILE"
    die "Kafka exited during startup"
  fi
  log "Kafka: ready after $(( SECONDS - deadline + KAFKA_START_TIMEOUT ))s (PID $(cat "$KAFKA_PIDFILE"))"
}

ensure_kafka() {
  mkdir -p "$KAFKA_DIR"
  # Belt and braces: .stack/ ignores itself even if the root .gitignore is lost.
  [[ -f "$STACK_DIR/.gitignore" ]] || echo '*' >"$STACK_DIR/.gitignore"

  if kafka_pid_alive; then
    local pid; pid="$(cat "$KAFKA_PIDFILE")"
    # Maybe another stack-up started it a moment ago: give it time to listen.
    for _ in $(seq 1 $((KAFKA_START_TIMEOUT * 2))); do port_open "$KAFKA_HOST" "$KAFKA_PORT" && break; sleep 0.5; done
    port_open "$KAFKA_HOST" "$KAFKA_PORT" || die "Kafka PID $pid is alive but $KAFKA_HOST:$KAFKA_PORT does not answer (see ${KAFKA_LOG#"$ROOT/"})"
    log "Kafka: already running (PID $pid) on $KAFKA_HOST:$KAFKA_PORT"
    return 0
  fi
  rm -f "$KAFKA_PIDFILE" # stale
  if port_open "$KAFKA_HOST" "$KAFKA_PORT"; then
    log "Kafka: something already listens on $KAFKA_HOST:$KAFKA_PORT (not started by this script); reusing it"
    return 0
  fi

  check_java_and_mvn
  ensure_kafka_jars
  render_kafka_config
  ensure_kafka_storage
  start_kafka
}

# ---------------------------------------------------------------------- main
ensure_postgres
ensure_redis
ensure_kafka
# REDIS_CLUSTER=1: also the local Redis Cluster (3 masters + 3 replicas on 7000-7005) for sharded seasons.
if [[ "${REDIS_CLUSTER:-}" == 1 ]]; then bash "$ROOT/scripts/redis-cluster.sh" up; fi

cat <<EOF

ladder stack is up:
  PostgreSQL  postgres://$PGUSER@$PGHOST:$PGPORT/$PGDATABASE   (tests: $PGDATABASE_TEST)
  Redis       redis://$REDIS_HOST:$REDIS_PORT
  Kafka       $KAFKA_HOST:$KAFKA_PORT   (KRaft single node; log ${KAFKA_LOG#"$ROOT/"})
Stop Kafka with: bash scripts/stack-down.sh   (--purge also deletes its data)
EOF
