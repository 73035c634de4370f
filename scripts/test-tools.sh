#!/usr/bin/env bash
# Installs the real services the tests drive when they are missing: a local SMTP server (aiosmtpd, from PyPI),
# a local S3-compatible server (moto_server, from PyPI `moto[server]`), with `--browser` Debian's Chromium for
# the browser journeys, with `--bench` Debian's wrk, the HTTP load generator of `make bench`, and with `--deb`
# what building and checking the Debian package needs (dpkg-deb, systemd-analyze, curl, readelf), and with `--proxy`
# Debian's nginx (not started as a service: the proxy check runs its own). Options combine
# (`--browser --bench`). Safe to run again: it only installs what is not there.
set -euo pipefail

browser=false
bench=false
deb=false
proxy=false
for option in "$@"; do
  case "$option" in
    --browser) browser=true ;;
    --bench) bench=true ;;
    --deb) deb=true ;;
    --proxy) proxy=true ;;
    *) echo "test-tools: unknown option $option (use --browser, --bench, --deb and/or --proxy)" >&2; exit 2 ;;
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

if [[ "$proxy" == true ]] && ! command -v nginx >/dev/null 2>&1; then
  echo "test-tools: installing Debian's nginx (the reverse proxy check runs its own, not the service)"
  # Without systemd, the package would start nginx on port 80 through its init script: policy-rc.d says no.
  policy=/usr/sbin/policy-rc.d
  made_policy=false
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 0755 "$policy"
    made_policy=true
  fi
  apt_install nginx-light || apt_install nginx
  if [[ "$made_policy" == true ]]; then rm -f "$policy"; fi
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now nginx >/dev/null 2>&1 || true
  fi
fi
