#!/usr/bin/env bash
# Installs the real services the tests drive when they are missing: a local SMTP server (aiosmtpd, from PyPI),
# a local S3-compatible server (moto_server, from PyPI `moto[server]`), with `--browser` Debian's Chromium for
# the browser journeys and with `--bench` Debian's wrk, the HTTP load generator of `make bench`. Options
# combine (`--browser --bench`). Safe to run again: it only installs what is not there.
set -euo pipefail

browser=false
bench=false
for option in "$@"; do
  case "$option" in
    --browser) browser=true ;;
    --bench) bench=true ;;
    *) echo "test-tools: unknown option $option (use --browser and/or --bench)" >&2; exit 2 ;;
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
