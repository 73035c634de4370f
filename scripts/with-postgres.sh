#!/usr/bin/env bash
# Runs a command with PORTAL_TEST_DATABASE_URL pointing at a PostgreSQL server: the machine's own on
# 127.0.0.1:5432 when it answers, otherwise a throwaway cluster (initdb + pg_ctl, as a non-root user, in a
# temporary folder) that is stopped and removed afterwards.
set -euo pipefail

if [ -n "${PORTAL_TEST_DATABASE_URL:-}" ]; then exec "$@"; fi

pg_bin=""
for dir in /usr/lib/postgresql/*/bin; do [ -x "$dir/pg_ctl" ] && pg_bin=$dir; done
ready() { "${pg_bin:+$pg_bin/}pg_isready" -q -h "$1" -p "$2" >/dev/null 2>&1; }

if ready 127.0.0.1 5432; then
  export PORTAL_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres"
  echo "with-postgres: using the PostgreSQL server on 127.0.0.1:5432"
  exec "$@"
fi

if [ -z "$pg_bin" ]; then
  echo "with-postgres: no PostgreSQL answers on 127.0.0.1:5432 and no server binaries are installed" >&2
  echo "with-postgres: install them with: apt-get install postgresql" >&2
  exit 1
fi

dir=$(mktemp -d /tmp/portal-pg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_owner=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir" 2>/dev/null || { id nobody >/dev/null && chown nobody "$dir"; }
  owner=$(stat -c %U "$dir")
  as_owner=(runuser -u "$owner" --)
fi
stop() {
  "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
"${as_owner[@]}" "$pg_bin/initdb" -D "$dir/data" -A trust -U postgres >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
"${as_owner[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }
export PORTAL_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
echo "with-postgres: started a throwaway PostgreSQL cluster on 127.0.0.1:$port"
"$@"
