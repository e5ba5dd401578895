#!/usr/bin/env bash
# Install PostgreSQL 15 (server, contrib with pageinspect/amcheck) from Debian when missing.
set -euo pipefail
if [ -x /usr/lib/postgresql/15/bin/initdb ] && [ -f /usr/share/postgresql/15/extension/pageinspect.control ] && command -v tmux >/dev/null && command -v pg_filedump >/dev/null; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql-15 postgresql-contrib-15 postgresql-filedump tmux >/dev/null
# Debian starts a default cluster on install; pgdisk's tests run their own private servers.
$SUDO pg_ctlcluster 15 main stop >/dev/null 2>&1 || true
