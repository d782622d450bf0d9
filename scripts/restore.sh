#!/usr/bin/env bash
# Restores a dump of scripts/backup.sh into an EMPTY PostgreSQL database, then says how to
# rebuild Redis from it (docs/reliability.md#backup-and-restore).
#
#   createdb -T template0 ladder_restored      # or any empty database
#   bash scripts/restore.sh backups/ladder-20261205T0300Z.dump postgres://postgres@127.0.0.1:5432/ladder_restored
#
# The target must be empty: restoring over a ladder database would mix two histories, so the
# script refuses any database that holds a table, function, type or schema of its own.
# pg_restore runs with --no-owner --no-acl (every object belongs to the user restoring, as the
# service's own migrations would have made it), --exit-on-error, and --single-transaction: a
# failed restore leaves the database empty. RESTORE_JOBS=N (N > 1) restores with N parallel
# jobs instead (faster for a large dump, not atomic: drop and recreate the database after a
# failure). Then ANALYZE: a dump carries no planner statistics, and autovacuum never analyzes a
# partitioned parent (match_results, match_claims) by itself.
#
# Arguments: the dump file; the target database URL (default: DATABASE_URL).
# Environment: PG_BIN: the directory of the pg_restore/psql to use (pg_restore must be at least
# the version of the pg_dump that wrote the file).
set -euo pipefail

die() { printf 'restore: %s\n' "$*" >&2; exit 1; }

[[ $# -ge 1 && $# -le 2 && "$1" != -* ]] || die "usage: bash scripts/restore.sh <file.dump> [database-url (default: DATABASE_URL)]"
dump="$1"
url="${2:-${DATABASE_URL:-}}"
[[ -n "$url" ]] || die "no target database: give its URL as the second argument or set DATABASE_URL"
bin="${PG_BIN:+${PG_BIN%/}/}"
shown="$(printf '%s' "$url" | sed -E 's#//[^@/]*@#//#')"
psql_at() { "${bin}psql" --no-psqlrc --quiet --tuples-only --no-align -v ON_ERROR_STOP=1 --dbname="$url" "$@"; }

[[ -r "$dump" ]] || die "cannot read $dump"
"${bin}pg_restore" --list "$dump" >/dev/null || die "$dump is not a dump pg_restore can read (made by scripts/backup.sh?)"

# Empty: nothing of its own outside the system schemas (a database made from template0, or from
# an untouched template1, has only the empty schema public).
objects="$(psql_at -c "
  select (select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_(toast|temp)')
       + (select count(*) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          where n.nspname not in ('pg_catalog', 'information_schema'))
       + (select count(*) from pg_type t join pg_namespace n on n.oid = t.typnamespace
          where n.nspname not in ('pg_catalog', 'information_schema') and t.typtype in ('e', 'd', 'r', 'm'))
       + (select count(*) from pg_namespace
          where nspname not in ('public', 'pg_catalog', 'information_schema') and nspname !~ '^pg_')")" \
  || die "cannot connect to $shown (does the database exist? createdb -T template0 <name> makes an empty one)"
[[ "$objects" == 0 ]] \
  || die "$shown is not empty ($objects objects of its own): restore into a new, empty database (createdb -T template0 <name>) and point DATABASE_URL at it"

jobs="${RESTORE_JOBS:-1}"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "RESTORE_JOBS must be a positive integer, got '$jobs'"
args=(--no-owner --no-acl --exit-on-error --dbname="$url")
if (( jobs > 1 )); then args+=(--jobs="$jobs"); else args+=(--single-transaction); fi

started="$(date +%s%N)"
"${bin}pg_restore" "${args[@]}" "$dump" || die "pg_restore failed$( (( jobs > 1 )) && printf ': the database is half restored, drop and recreate it before trying again' || printf ': nothing was restored')"
psql_at -c 'ANALYZE' || die "ANALYZE failed (the data is restored; run ANALYZE yourself before serving)"
ms=$(( ($(date +%s%N) - started) / 1000000 ))

# What came back. Row figures are the statistics ANALYZE just took (a count(*) of a season's
# billions of rows would take minutes).
read -r migrations results_parts results_rows claims_parts < <(psql_at -F ' ' -c "
  select (select count(*) from drizzle.__drizzle_migrations),
         (select count(*) from pg_partition_tree('match_results') where isleaf),
         (select coalesce(sum(greatest(c.reltuples, 0)), 0)::int8 from pg_partition_tree('match_results') t
            join pg_class c on c.oid = t.relid where t.isleaf),
         (select count(*) from pg_partition_tree('match_claims') where isleaf)") \
  || die "the restored database has no ladder schema (drizzle journal, match_results, match_claims)"
# Seasons that may have boards: started, not final (a final season is read from PostgreSQL).
seasons="$(psql_at -c "select string_agg(id::text, ' ' order by id) from seasons where finalized_at is null and starts_at <= now()")"

printf 'restore: %s -> %s\n' "$dump" "$shown"
printf '  time           %d.%03d s (pg_restore and ANALYZE)\n' $((ms / 1000)) $((ms % 1000))
printf '  migrations     %s in the journal: the service will apply none of them again\n' "$migrations"
printf '  match_results  %s day partitions, about %s rows\n' "$results_parts" "$results_rows"
printf '  match_claims   %s day partitions\n' "$claims_parts"
cat <<EOF

Next:
  1. Point every ladder process at the restored database (DATABASE_URL=$shown) and start them.
  2. Rebuild Redis from it: the boards still hold what they held, which may be newer than the
     dump (and ZADD GT keeps a higher score). With the service's DATABASE_URL and REDIS_URL:
EOF
read -r -a ids <<<"$seasons"
if (( ${#ids[@]} > 6 )); then
  printf '       for s in %s; do npm run cli -- rebuild --season "$s" || break; done\n' "$seasons"
elif (( ${#ids[@]} > 0 )); then
  for id in "${ids[@]}"; do printf '       npm run cli -- rebuild --season %s\n' "$id"; done
else
  printf '       (no season left to rebuild: every season is final, read from PostgreSQL)\n'
fi
cat <<EOF
     A rebuild swaps each board for a copy filled from PostgreSQL. Against an empty Redis the
     service does the same by itself for every ACTIVE season (BOARD_RESTORE_INTERVAL_MS).
     Finalized seasons are read from PostgreSQL and need nothing.
  3. Results accepted after the dump was taken are not in it: docs/reliability.md#backup-and-restore
     says how to replay them from Kafka while it still holds them.
EOF
