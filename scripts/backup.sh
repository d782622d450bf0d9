#!/usr/bin/env bash
# A logical backup of ladder's PostgreSQL database: pg_dump in its custom format (-Fc, compressed).
# Restore it with scripts/restore.sh; docs/reliability.md#backup-and-restore says what it holds
# and what it does not (it is a snapshot, not point-in-time recovery).
#
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/ladder bash scripts/backup.sh backups/ladder-$(date -u +%Y%m%dT%H%MZ).dump
#
# Runs while ladder runs: pg_dump reads one consistent snapshot (a REPEATABLE READ transaction)
# and takes only ACCESS SHARE locks, which ingest's inserts and its partition creation
# (ATTACH takes SHARE UPDATE EXCLUSIVE on the parent) do not wait for. A history archive's
# DETACH ... CONCURRENTLY of a finished season waits until the dump ends.
# Everything in the database comes along: the partitioned match_results and match_claims with
# every partition and its bounds, the SQL functions of drizzle/0005 and 0010 (and 0010's triggers),
# sequences at their values, and drizzle's migration journal (schema "drizzle"), so that the
# service's migrate-at-startup finds nothing to do after a restore.
#
# The file is written as <file>.partial and renamed once pg_dump succeeded and pg_restore could
# read its table of contents back; an existing <file> is never overwritten.
#
# Environment: DATABASE_URL (default: the service's, postgres://postgres@127.0.0.1:5432/ladder);
# PG_BIN: the directory of the pg_dump/pg_restore to use (default: the ones on PATH; pg_dump must
# be at least the server's major version); BACKUP_LOCK_WAIT (default 60s): how long pg_dump
# waits for a table's lock before it gives up rather than queue behind a long ALTER.
set -euo pipefail

die() { printf 'backup: %s\n' "$*" >&2; exit 1; }

[[ $# -eq 1 && -n "$1" && "$1" != -* ]] || die "usage: DATABASE_URL=... bash scripts/backup.sh <file.dump>"
out="$1"
url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/ladder}"
bin="${PG_BIN:+${PG_BIN%/}/}"
# The URL without its credentials, for the report.
shown="$(printf '%s' "$url" | sed -E 's#//[^@/]*@#//#')"

[[ -e "$out" ]] && die "$out exists: not overwriting it (choose another name)"
dir="$(dirname "$out")"
[[ -d "$dir" && -w "$dir" ]] || die "directory $dir does not exist or is not writable"
partial="$out.partial"
rm -f "$partial"
trap 'rm -f "$partial"' EXIT

started="$(date +%s%N)"
"${bin}pg_dump" --format=custom --lock-wait-timeout="${BACKUP_LOCK_WAIT:-60s}" --file="$partial" --dbname="$url" \
  || die "pg_dump of $shown failed (nothing written)"
ms=$(( ($(date +%s%N) - started) / 1000000 ))

# Read the table of contents back: the file is complete, and holds what a restore needs.
toc="$("${bin}pg_restore" --list "$partial")" || die "pg_restore cannot read the dump back: not kept"
count() { grep -c -E "$1" <<<"$toc" || true; }
grep -q -E 'TABLE DATA drizzle __drizzle_migrations' <<<"$toc" \
  || die "the dump has no migration journal (drizzle.__drizzle_migrations): is $shown a ladder database? Not kept"
data="$(count ' TABLE DATA ')"
attached="$(count ' TABLE ATTACH ')"
functions="$(count ' FUNCTION public ladder_')"

mv "$partial" "$out"
trap - EXIT
bytes="$(stat -c %s "$out")"
size="$(numfmt --to=iec-i --suffix=B --format=%.1f "$bytes" 2>/dev/null || printf '%s bytes' "$bytes")"
printf 'backup: %s -> %s\n' "$shown" "$out"
printf '  size      %s (%s bytes)\n' "$size" "$bytes"
printf '  time      %d.%03d s\n' $((ms / 1000)) $((ms % 1000))
printf '  contents  the data of %s tables, %s partitions attached, %s ladder_* functions, the migration journal\n' \
  "$data" "$attached" "$functions"
printf 'restore with: bash scripts/restore.sh %s <empty-database-url>\n' "$out"
