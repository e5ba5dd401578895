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
# Each run builds its own shared sample (test/fixtures/sample.ts) and removes it afterwards:
# no run ever sees what an earlier one left.
export PGDISK_TEST_RUN="run-$$-$(date +%s)"
trap 'rm -rf "${TMPDIR:-/tmp}/pgdisk-test-cache-$PGDISK_TEST_RUN"' EXIT
npx tsx --test --test-concurrency=2 --test-reporter=spec "${files[@]}"
