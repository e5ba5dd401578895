#!/usr/bin/env bash
# PostgreSQL 15's regression database, built by Debian's server from the regression suite of its
# source package, then held to pgdisk's differential suite (test/regression/regression-db.ts).
# Needs root (apt-get, and the server runs as postgres), deb-src entries and a C compiler.
# Usage: bash scripts/regression-db.sh [WORKDIR]   (default: a new temp directory, kept)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/pgdisk-regress.XXXXXX")}
mkdir -p "$work" && chmod 755 "$work"
bash scripts/install-postgres.sh
apt-get install -y -qq postgresql-server-dev-15 >/dev/null
bin=/usr/lib/postgresql/15/bin
if [ ! -d "$work/src" ]; then
  grep -rqs '^Types: deb deb-src' /etc/apt/sources.list.d/ || sed -i 's/^Types: deb$/Types: deb deb-src/' /etc/apt/sources.list.d/debian.sources
  apt-get update -qq
  # the installed version's source first, else any version the mirror has whole
  for v in $(dpkg-query -W -f '${Version}' postgresql-15) $(apt-cache showsrc postgresql-15 | sed -n 's/^Version: //p'); do
    (cd "$work" && apt-get source -qq "postgresql-15=$v" >/dev/null 2>&1) && break
  done
  mkdir -p "$work/src" && cp -r "$work"/postgresql-15-*/src/test/regress/. "$work/src/"
fi
cd "$work/src"
gcc -O1 -shared -fPIC -I/usr/include/postgresql/15/server -I/usr/include/postgresql/internal -o regress.so regress.c
chown -R postgres:postgres "$work"
rm -rf "$work/data" "$work/sock" && mkdir -p "$work/sock" && chown postgres "$work/sock"
runuser -u postgres -- "$bin/initdb" -D "$work/data" -U postgres --auth=trust --locale=C --encoding=UTF8 -N >/dev/null
opts="-p 5499 -k $work/sock -c fsync=off -c autovacuum=off -c listen_addresses=''"
runuser -u postgres -- "$bin/pg_ctl" -D "$work/data" -o "$opts" -l "$work/server.log" -w start >/dev/null
# a few tests expect paths or privileges of a source build and fail here; the database is what counts
runuser -u postgres -- env PG_LIBDIR="$work/src" PG_DLSUFFIX=.so PG_ABS_SRCDIR="$work/src" PG_ABS_BUILDDIR="$work/src" \
  /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress --inputdir="$work/src" --outputdir="$work/out" --bindir="$bin" \
  --dlpath="$work/src" --schedule="$work/src/parallel_schedule" --host="$work/sock" --port=5499 --user=postgres --max-connections=4 \
  | tail -3 || true
foreign=$(runuser -u postgres -- "$bin/psql" -X -At -h "$work/sock" -p 5499 -U postgres -d regression \
  -c "select string_agg(t.oid::text, ',') from pg_type t join pg_proc p on p.oid = t.typoutput where p.probin like '%regress%'")
runuser -u postgres -- "$bin/psql" -X -At -h "$work/sock" -p 5499 -U postgres -d regression \
  -c "select count(*) || ' relations' from pg_class where relfilenode <> 0"
runuser -u postgres -- "$bin/pg_ctl" -D "$work/data" -m fast -w stop >/dev/null
cd "$repo"
run="$work/run" && mkdir -p "$run" && chmod 755 "$run"
TMPDIR="$run" PGDISK_REGRESSION_PGDATA="$work/data" PGDISK_REGRESSION_FOREIGN="$foreign" \
  npx tsx --test --test-reporter=spec test/regression/regression-db.ts
