#!/usr/bin/env bash
# The served OpenAPI document tells the truth: Schemathesis (PyPI) generates requests for every operation of
# /api/openapi.json and checks each answer: no server error, a documented status, the documented content
# type and the documented body schema. It runs against the debug build of app-server on a fresh SQLite
# database, signed in with a core token and an organization of that user in x-org-id, generating
# deterministically (the same cases every run) with a bounded number of examples per operation (100: about
# 45 s on two cores). A failure fails the build.
#
#   scripts/schemathesis.sh [path/to/app-server]     (default: the debug build in CARGO_TARGET_DIR)
#   ST_MAX_EXAMPLES=N                                to explore more
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-$HOME/.cache/devportal/target}"
server="${1:-$target/debug/app-server}"
examples="${ST_MAX_EXAMPLES:-100}"

if ! command -v st >/dev/null 2>&1; then
  echo "schemathesis: installing schemathesis (PyPI)"
  python3 -m pip install --quiet --disable-pip-version-check 'schemathesis>=4,<5'
fi

work="$(mktemp -d)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
PORTAL_BIND="127.0.0.1:$port" PORTAL_PUBLIC_URL="$base" PORTAL_DATA_DIR="$work" PORTAL_FRONTEND_DIR="$work" \
  DATABASE_URL="sqlite://$work/portal.db" PORTAL_UPTIME_INTERVAL_SECS=0 RUST_LOG=warn \
  "$server" serve >"$work/server.log" 2>&1 &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  curl -fsS "$base/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
access=$(curl -fsS -X POST "$base/auth/v1/signup" -H 'apikey: built-in' -H 'Content-Type: application/json' \
  -d '{"email":"schemathesis@example.com","password":"a sufficiently long passphrase 42"}' | json '["access_token"]')
core=$(curl -fsS -X POST "$base/api/auth/exchange-token" -H 'Content-Type: application/json' \
  -d "{\"supabaseToken\":\"$access\"}" | json '["coreToken"]')
org=$(curl -fsS "$base/api/orgs" -H "Authorization: Bearer $core" | json '["data"][0]["id"]')

# From the temporary folder: Schemathesis keeps a cache folder where it runs.
cd "$work"
st run "$base/api/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples "$examples" --generation-deterministic --workers 2 \
  -H "Authorization: Bearer $core" -H "x-org-id: $org" \
  || { echo "schemathesis: the server's answers disagree with its OpenAPI document (log: above)"; exit 1; }
