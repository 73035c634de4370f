#!/usr/bin/env bash
# Runs Debian's nginx with packaging/proxy/nginx.conf (README "Behind a reverse proxy") in front of the portal,
# with a self-signed certificate, and checks through it: the audit log records the real client's address,
# a forged X-Forwarded-For is not believed, the largest allowed image uploads, the Secure cookie is set and
# sent back, HSTS comes once (from the portal), and /metrics is not exposed. Part of `make test`.
# Usage: scripts/check-proxy.sh PATH/TO/app-server WEB_DIR
set -euo pipefail

app=${1:?usage: scripts/check-proxy.sh APP_SERVER WEB_DIR}
web=${2:?usage: scripts/check-proxy.sh APP_SERVER WEB_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
chmod 0755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check-proxy: FAIL: $*" >&2; for log in "$work"/*.log; do echo "--- $log" >&2; tail -20 "$log" >&2; done; exit 1; }
pass() { echo "check-proxy: ok: $*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# README shows the very file this check runs.
awk '/^```nginx$/{on=1; next} /^```$/{on=0} on' "$here/README.md" | diff -u "$here/packaging/proxy/nginx.conf" - \
  || fail "README's nginx configuration differs from packaging/proxy/nginx.conf"
awk '/^```caddy$/{on=1; next} /^```$/{on=0} on' "$here/README.md" | diff -u "$here/packaging/proxy/Caddyfile" - \
  || fail "README's Caddy configuration differs from packaging/proxy/Caddyfile"

app_port=$(free_port)
tls_port=$(free_port)
base="https://localhost:$tls_port"
metrics_token=scrape-token-for-the-proxy-check

# A local SMTP server keeping each e-mail in a maildir (the confirmation link of the sign-up).
smtp_port=$(free_port)
python3 -m aiosmtpd -n -l "127.0.0.1:$smtp_port" -c aiosmtpd.handlers.Mailbox "$work/mail" >"$work/smtp.log" 2>&1 &
pids+=($!)

# The portal as the package runs it behind nginx.
mkdir -p "$work/data"
env -i PATH=/usr/bin:/bin SMTP_URL="smtp://127.0.0.1:$smtp_port" DATABASE_URL="sqlite://$work/data/portal.db" PORTAL_DATA_DIR="$work/data" \
  PORTAL_FRONTEND_DIR="$web" PORTAL_BIND="127.0.0.1:$app_port" PORTAL_PUBLIC_URL="$base" \
  PORTAL_TRUSTED_PROXIES=127.0.0.1 PORTAL_METRICS_TOKEN="$metrics_token" PORTAL_UPTIME_INTERVAL_SECS=0 \
  "$app" serve >"$work/portal.log" 2>&1 &
pids+=($!)

# A self-signed certificate for localhost, and README's nginx.conf with the test's ports and files.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost \
  -keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1
mkdir -p "$work/nginx/tmp"
sed -e "s|server 127.0.0.1:8080;|server 127.0.0.1:$app_port;|" \
  -e "s|listen 443 ssl;|listen 127.0.0.1:$tls_port ssl;|" \
  -e '/listen \[::\]:443 ssl;/d' \
  -e "s|/etc/letsencrypt/live/portal.example.com/fullchain.pem|$work/cert.pem|" \
  -e "s|/etc/letsencrypt/live/portal.example.com/privkey.pem|$work/key.pem|" \
  -e 's|server_name portal.example.com;|server_name localhost;|' \
  "$here/packaging/proxy/nginx.conf" |
  # The port-80 redirect server is left out: the test has no port 80.
  awk 'BEGIN{skip=0} /^server \{/{block=""; inblock=1} inblock{block=block $0 "\n"; if ($0 ~ /^\}/){inblock=0; if (block !~ /listen 80;/) printf "%s", block}; next} {print}' \
  >"$work/nginx/site.conf"
grep -q "listen 127.0.0.1:$tls_port ssl;" "$work/nginx/site.conf" || fail "README's nginx.conf did not take the test's port"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
error_log $work/nginx.log warn;
pid $work/nginx/nginx.pid;
events { worker_connections 64; }
http {
    access_log $work/nginx-access.log;
    client_body_temp_path $work/nginx/tmp/body;
    proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi;
    uwsgi_temp_path $work/nginx/tmp/uwsgi;
    scgi_temp_path $work/nginx/tmp/scgi;
    include $work/nginx/site.conf;
}
CONF
nginx -t -c "$work/nginx/nginx.conf" -p "$work/nginx" >"$work/nginx-t.log" 2>&1 || fail "nginx -t"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -g 'daemon off;' >"$work/nginx-run.log" 2>&1 &
pids+=($!)

for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$app_port/healthz" >/dev/null 2>&1 && curl -fsS --cacert "$work/cert.pem" "$base/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS --cacert "$work/cert.pem" "$base/healthz" >/dev/null || fail "the portal does not answer through nginx"

# The client speaks from 127.0.0.2; nginx reaches the portal from 127.0.0.1 (the trusted proxy).
client() { curl -sS -4 --interface 127.0.0.2 --cacert "$work/cert.pem" "$@"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

# Sign-up over https: the browser cookie is Secure; opening the e-mailed link over https sends it back, and
# the portal, having taken it, spends it (sets it again, expired).
client -D "$work/signup.headers" -c "$work/cookies" -o "$work/signup.json" -X POST "$base/auth/v1/signup" \
  -H 'apikey: built-in' -H 'content-type: application/json' \
  -d '{"email":"proxy@example.com","password":"a sufficiently long passphrase 42"}'
grep -i '^set-cookie: portal-signup-browser=' "$work/signup.headers" | grep -q '; Secure' \
  || fail "the sign-up cookie is not Secure behind the https proxy: $(grep -i set-cookie "$work/signup.headers")"
grep -q 'portal-signup-browser' "$work/cookies" || fail "curl kept no cookie"
[[ $(grep -ci '^strict-transport-security:' "$work/signup.headers") == 1 ]] \
  || fail "Strict-Transport-Security is not sent exactly once"
link=
for _ in $(seq 1 100); do
  link=$(python3 - "$work/mail" <<'PY'
import mailbox, re, sys
for message in mailbox.Maildir(sys.argv[1], create=False):
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            found = re.search(r"https://localhost:\d+/auth/v1/verify\?\S+", part.get_payload(decode=True).decode())
            if found:
                print(found.group(0))
                raise SystemExit
PY
  ) 2>/dev/null || true
  [[ -n $link ]] && break
  sleep 0.1
done
[[ -n $link ]] || fail "no confirmation e-mail within 10 s"
client -D "$work/verify.headers" -b "$work/cookies" -o /dev/null "$link"
grep -i '^set-cookie: portal-signup-browser=;' "$work/verify.headers" | grep -qi 'max-age=0' \
  || fail "the Secure cookie did not come back through nginx (the link did not spend it)"
pass "Secure cookie set through nginx and sent back on the e-mailed link; HSTS once, from the portal"
access=$(grep -i '^location:' "$work/verify.headers" | sed -n 's/.*[#&]access_token=\([^&]*\).*/\1/p' | tr -d '\r')
[[ -n $access ]] || fail "the confirmation link signed nobody in: $(grep -i '^location:' "$work/verify.headers")"
token=$(client -X POST "$base/api/auth/exchange-token" -H 'content-type: application/json' \
  -d "{\"supabaseToken\":\"$access\"}" | json 'd["coreToken"]')

# A forged X-Forwarded-For: nginx appends the real address; the portal believes only that hop.
org=$(client -X POST "$base/api/orgs" -H "authorization: Bearer $token" -H 'content-type: application/json' \
  -H 'X-Forwarded-For: 203.0.113.9' -d '{"name":"Behind nginx"}' | json 'd["data"]["id"]')
ips=$(client "$base/api/orgs/$org/audit-log" -H "authorization: Bearer $token" -H "x-org-id: $org" |
  json '",".join(sorted({e.get("clientIp") or "" for e in d["data"]["entries"]}))')
[[ $ips == 127.0.0.2 ]] || fail "the audit log records $ips, not the client's 127.0.0.2"
pass "the audit log records the real client (127.0.0.2); the forged 203.0.113.9 is not believed"

# The largest image the portal takes (10 MiB less a little, stored PNG) passes through nginx.
python3 - "$work/big.png" <<'PY'
import os, struct, sys, zlib
width, height = 2048, 1706
raw = b"".join(b"\0" + os.urandom(width * 3) for _ in range(height))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b""))
assert 10 * 1024 * 1024 - 16384 < len(png) <= 10 * 1024 * 1024, len(png)
open(sys.argv[1], "wb").write(png)
PY
status=$(client -o "$work/upload.json" -w '%{http_code}' -X POST "$base/api/dev/images/upload" \
  -H "authorization: Bearer $token" -H "x-org-id: $org" -F "file=@$work/big.png;type=image/png")
[[ $status == 200 ]] || fail "the largest image got $status through nginx: $(head -c 300 "$work/upload.json")"
pass "an upload of $(stat -c %s "$work/big.png") bytes (the limit is 10 MiB) passes through nginx"

# /metrics: served to the inside with its token, never through the proxy.
[[ $(curl -s -o /dev/null -w '%{http_code}' -H "authorization: Bearer $metrics_token" "http://127.0.0.1:$app_port/metrics") == 200 ]] \
  || fail "/metrics does not answer the scraper on the inside"
[[ $(client -o /dev/null -w '%{http_code}' -H "authorization: Bearer $metrics_token" "$base/metrics") == 404 ]] \
  || fail "/metrics is exposed through nginx"
pass "/metrics answers inside (200) and not through nginx (404)"
