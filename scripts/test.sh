#!/usr/bin/env bash
# The whole test suite: PostgreSQL 15 installed when missing, dependencies installed, typecheck,
# then every test file under node's test runner (explicit file list: Node 20 expands no globs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-postgres.sh
[ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund
npx tsc --noEmit -p .
shopt -s globstar nullglob
files=(test/**/*.test.ts test/**/*.test.tsx)
# Each run works in a temp directory of its own, removed afterwards: no run sees what an earlier
# one left (the shared sample of test/fixtures/sample.ts is built anew each time).
base="${TMPDIR:-/tmp}"
if [ "$(id -u)" -eq 0 ] && [ $(( 0$(stat -c %a "$base") & 1 )) -eq 0 ]; then
  # The servers run as postgres and must reach their clusters: make the base searchable (not listable).
  echo "test.sh: chmod o+x $base (the postgres user must reach the test clusters)"
  chmod o+x "$base"
fi
run_dir=$(mktemp -d "$base/pgdisk-tests.XXXXXX")
chmod 755 "$run_dir"
trap 'rm -rf "$run_dir"' EXIT
export TMPDIR="$run_dir" PGDISK_TEST_RUN="run"
npx tsx --test --test-concurrency=2 --test-reporter=spec "${files[@]}"
