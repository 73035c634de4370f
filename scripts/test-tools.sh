#!/usr/bin/env bash
# Installs the real services the tests drive when they are missing: a local SMTP server (aiosmtpd, from PyPI),
# a local S3-compatible server (moto_server, from PyPI `moto[server]`), with `--browser` Debian's Chromium for
# the browser journeys, with `--bench` Debian's wrk, the HTTP load generator of `make bench`, with `--deb`
# what building and checking the Debian package needs (dpkg-deb, systemd-analyze, curl, readelf), with `--proxy`
# Debian's nginx and with `--pgbouncer` Debian's PgBouncer (neither started as a service: their checks run their
# own). Options combine (`--browser --bench`). Safe to run again: it only installs what is not there.
set -euo pipefail

browser=false
bench=false
deb=false
proxy=false
pgbouncer=false
for option in "$@"; do
  case "$option" in
    --browser) browser=true ;;
    --bench) bench=true ;;
    --deb) deb=true ;;
    --proxy) proxy=true ;;
    --pgbouncer) pgbouncer=true ;;
    *) echo "test-tools: unknown option $option (use --browser, --bench, --deb, --proxy and/or --pgbouncer)" >&2; exit 2 ;;
  esac
done

if ! python3 -c 'import aiosmtpd' >/dev/null 2>&1; then
  echo "test-tools: installing aiosmtpd (local SMTP server for the e-mail tests)"
  python3 -m pip install --quiet --disable-pip-version-check aiosmtpd \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-aiosmtpd; }
fi

if ! command -v moto_server >/dev/null 2>&1; then
  echo "test-tools: installing moto[server] (local S3-compatible server for the image store tests)"
  python3 -m pip install --quiet --disable-pip-version-check 'moto[server]' \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-moto; }
fi

if ! command -v sqlite3 >/dev/null 2>&1; then
  echo "test-tools: installing Debian's sqlite3 (the uptime benchmark seeds and reads its database with it)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3
fi

# The local OpenID Connect provider of the OAuth tests (oauth2-mock-server; the tests also run this themselves).
mock_dir="$(dirname "$0")/../tests/oidc-mock"
if [ ! -f "$mock_dir/node_modules/oauth2-mock-server/package.json" ]; then
  echo "test-tools: installing the mock OpenID Connect provider (tests/oidc-mock)"
  (cd "$mock_dir" && npm ci --no-audit --no-fund --silent)
fi

apt_updated=false
apt_install() {
  if [[ "$apt_updated" == false ]]; then
    apt-get update -qq
    apt_updated=true
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

if [[ "$browser" == true ]] && ! command -v chromium >/dev/null 2>&1; then
  echo "test-tools: installing Debian's chromium (browser journeys)"
  apt_install chromium
fi

if [[ "$bench" == true ]] && ! command -v wrk >/dev/null 2>&1; then
  echo "test-tools: installing Debian's wrk (the HTTP load generator of make bench)"
  apt_install wrk
fi

if [[ "$deb" == true ]]; then
  for tool in dpkg-deb:dpkg systemd-analyze:systemd curl:curl readelf:binutils; do
    if ! command -v "${tool%%:*}" >/dev/null 2>&1; then
      echo "test-tools: installing Debian's ${tool##*:} (${tool%%:*}, for the Debian package check)"
      apt_install "${tool##*:}"
    fi
  done
fi

# Installs a Debian package whose maintainer scripts would start its service (through its init script when
# there is no systemd): policy-rc.d says no, and under systemd the service is stopped and disabled again.
apt_install_no_service() {
  local service=$1
  shift
  local policy=/usr/sbin/policy-rc.d made_policy=false
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 0755 "$policy"
    made_policy=true
  fi
  local status=0
  "$@" || status=$?
  if [[ "$made_policy" == true ]]; then rm -f "$policy"; fi
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now "$service" >/dev/null 2>&1 || true
  fi
  return "$status"
}

if [[ "$proxy" == true ]] && ! command -v nginx >/dev/null 2>&1; then
  echo "test-tools: installing Debian's nginx (the reverse proxy check runs its own, not the service)"
  install_nginx() { apt_install nginx-light || apt_install nginx; }
  apt_install_no_service nginx install_nginx
fi

if [[ "$pgbouncer" == true ]] && ! command -v pgbouncer >/dev/null 2>&1 && [[ ! -x /usr/sbin/pgbouncer ]]; then
  echo "test-tools: installing Debian's pgbouncer (the connection pooler check runs its own, not the service)"
  apt_install_no_service pgbouncer apt_install pgbouncer
fi
