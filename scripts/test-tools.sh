#!/usr/bin/env bash
# Installs the real services the tests drive when they are missing: a local SMTP server (aiosmtpd, from PyPI)
# and, with `--browser`, Debian's Chromium for the browser journeys. Safe to run again: it only installs
# what is not there.
set -euo pipefail

if ! python3 -c 'import aiosmtpd' >/dev/null 2>&1; then
  echo "test-tools: installing aiosmtpd (local SMTP server for the e-mail tests)"
  python3 -m pip install --quiet --disable-pip-version-check aiosmtpd \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-aiosmtpd; }
fi

if [[ "${1:-}" == "--browser" ]] && ! command -v chromium >/dev/null 2>&1; then
  echo "test-tools: installing Debian's chromium (browser journeys)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
