#!/usr/bin/env bash
# The main job on an embedded default: install what is missing, make a tiny sample cluster on
# the spot (a real PostgreSQL 15, seeded, cleanly stopped), then dump a TOASTed table offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-postgres.sh
[ -d node_modules ] || npm ci --no-audit --no-fund
out="${PGDISK_DEMO_DIR:-/tmp/pgdisk-demo}"
if [ ! -f "$out/data/PG_VERSION" ]; then
  rm -rf "$out"
  ./bin/pgdisk samples make --size tiny --out "$out"
fi
./bin/pgdisk inspect list --pgdata "$out/data" -d pgdisk_sample
./bin/pgdisk inspect dump --pgdata "$out/data" -d pgdisk_sample -t toast_docs --detoast --blocks 0:1
