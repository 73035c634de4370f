#!/usr/bin/env bash
# Checks a built devportal .deb (part of `make test`, through `make test-deb`):
#  1. its contents, modes, conffiles and control fields; the maintainer scripts parse;
#  2. the systemd units: `systemd-analyze verify`, and `systemd-analyze security` of the service (the score
#     is printed; the check fails above EXPOSURE_LIMIT);
#  3. unpacked into a scratch root with `dpkg -x`, the installed binary started from its installed paths with
#     the installed settings file, against a fresh SQLite database: it serves /healthz and the web UI, makes
#     the database private and writes the first-admin setup link to its log;
#  4. with root and no devportal installed on the machine, a real `dpkg -i`, the installed binary started as
#     the service's user through devportal-admin, `dpkg -r` (the data stays) and `dpkg -P` (the data goes).
# Usage: scripts/check-deb.sh PATH/TO/devportal_VERSION_amd64.deb
set -euo pipefail

deb=${1:?usage: scripts/check-deb.sh DEB}
EXPOSURE_LIMIT=${EXPOSURE_LIMIT:-2.0}
work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }
pass() { echo "check-deb: ok: $*"; }

# --- 1. contents -------------------------------------------------------------------------------------------
dpkg-deb --contents "$deb" | awk '{print $1, $6}' >"$work/contents"
for path in ./usr/lib/devportal/app-server ./usr/lib/devportal/backup-nightly ./usr/sbin/devportal-admin \
  ./usr/share/devportal/web/index.html ./etc/devportal/portal.env ./lib/systemd/system/devportal.service \
  ./lib/systemd/system/devportal-backup.service ./lib/systemd/system/devportal-backup.timer \
  ./usr/share/doc/devportal/copyright ./usr/share/doc/devportal/CHANGELOG.md; do
  grep -q " $path\$" "$work/contents" || fail "$path is not in the package"
done
grep -q '^-rwxr-xr-x ./usr/lib/devportal/app-server$' "$work/contents" || fail "app-server is not 0755"
if grep -v '^d' "$work/contents" | grep -q '^-.......w'; then fail "a file is world-writable"; fi
mkdir "$work/control" && dpkg-deb --ctrl-tarfile "$deb" | tar -x -C "$work/control"
[[ $(cat "$work/control/conffiles") == /etc/devportal/portal.env ]] || fail "conffiles is not portal.env alone"
for field in Package Version Architecture Depends Description Installed-Size; do
  grep -q "^$field: ." "$work/control/control" || fail "control has no $field"
done
grep -q '^Depends:.*libpq5' "$work/control/control" || fail "Depends does not name libpq5"
for script in postinst prerm postrm; do
  [[ -x $work/control/$script ]] || fail "$script is missing or not executable"
  sh -n "$work/control/$script" || fail "$script does not parse"
done
pass "contents, modes, conffiles, control ($(grep '^Depends' "$work/control/control"))"

# Every variable the server reads is in the settings file; every one but the package's three is commented.
root=$work/root
dpkg -x "$deb" "$root"
grep -qx 'umask 077' "$root/usr/sbin/devportal-admin" || fail "devportal-admin does not set umask 077"
env_file=$root/etc/devportal/portal.env
here=$(cd "$(dirname "$0")/.." && pwd)
for variable in $(grep -rhoE '"(PORTAL_[A-Z0-9_]+|DATABASE_URL|SMTP_URL|SUPABASE_[A-Z_]+)"' \
  "$here/app-server/src" | tr -d '"' | sort -u); do
  grep -qE "^#?$variable=" "$env_file" || fail "portal.env does not list $variable"
done
for provider in GOOGLE APPLE GITHUB AZURE; do
  grep -q "^#PORTAL_OAUTH_${provider}_ISSUER=" "$env_file" || fail "portal.env does not list $provider"
done
set_lines=$(grep -cE '^[A-Z]' "$env_file")
[[ $set_lines == 3 ]] || fail "portal.env sets $set_lines variables (the package's three: database, data, web UI)"
pass "portal.env lists every variable, commented but the package's paths"

# --- 2. the units ------------------------------------------------------------------------------------------
units=$root/lib/systemd/system
# verify resolves ExecStart=, the users and the units named (multi-user.target…) inside the root given: the
# scratch root gets the users and the machine's own units beside the package's.
mkdir -p "$root/etc"
printf 'root:x:0:0::/root:/bin/sh\ndevportal:x:998:998::/var/lib/devportal:/usr/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\ndevportal:x:998:\n' >"$root/etc/group"
cp -rn /lib/systemd/system/. "$units/" 2>/dev/null || true
if ! systemd-analyze verify --root="$root" --man=no \
  /lib/systemd/system/devportal.service /lib/systemd/system/devportal-backup.service \
  /lib/systemd/system/devportal-backup.timer >"$work/verify" 2>&1; then
  cat "$work/verify" >&2
  fail "systemd-analyze verify"
fi
# It exits 0 on an unknown key or a bad value, with a warning: any output fails.
if [[ -s $work/verify ]]; then
  cat "$work/verify" >&2
  fail "systemd-analyze verify warns"
fi
pass "systemd-analyze verify (service, backup service, timer)"
systemd-analyze security --offline=true --root="$root" devportal.service >"$work/security" 2>&1 \
  || { cat "$work/security" >&2; fail "systemd-analyze security"; }
score=$(grep -oE 'Overall exposure level for devportal.service: [0-9.]+' "$work/security" | awk '{print $NF}')
[[ -n $score ]] || { cat "$work/security" >&2; fail "no exposure level in systemd-analyze security"; }
echo "check-deb: systemd-analyze security: devportal.service exposure $score ($(grep -o 'exposure level.*' "$work/security" | sed 's/.*[0-9] //'))"
awk -v s="$score" -v l="$EXPOSURE_LIMIT" 'BEGIN { exit !(s <= l) }' || fail "exposure $score is above $EXPOSURE_LIMIT"
pass "systemd-analyze security: exposure $score (limit $EXPOSURE_LIMIT)"

# --- 3. the installed binary, started from its installed paths --------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { # PORT LOG
  for _ in $(seq 1 300); do
    if curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1; then return 0; fi
    kill -0 "$server_pid" 2>/dev/null || { cat "$2" >&2; fail "the installed server stopped while starting"; }
    sleep 0.1
  done
  cat "$2" >&2
  fail "the installed server did not answer /healthz within 30 s"
}
check_serving() { # PORT LOG DATABASE
  wait_up "$1" "$2"
  curl -fsS -o "$work/index.html" "http://127.0.0.1:$1/" || fail "GET / through the installed server"
  grep -q '<title>Developer Portal</title>' "$work/index.html" || fail "the web UI is not served from the package"
  [[ $(stat -c %a "$3") == 600 ]] || fail "the database $3 is not 0600"
  grep -q 'setup-admin?token=' "$2" || { cat "$2" >&2; fail "no first-admin setup link in the log"; }
}
stop_server() {
  kill -TERM "$server_pid"
  wait "$server_pid" || fail "the installed server did not stop cleanly on SIGTERM"
  server_pid=
}

"$root/usr/lib/devportal/app-server" --version | grep -qE '^app-server [0-9]+\.[0-9]+\.[0-9]+' \
  || fail "app-server --version"
port=$(free_port)
state=$work/state
mkdir -p "$state"
(
  cd "$state"
  exec env -i PATH=/usr/bin:/bin DATABASE_URL="sqlite://$state/portal.db" PORTAL_DATA_DIR="$state" \
    PORTAL_FRONTEND_DIR="$root/usr/share/devportal/web" PORTAL_BIND="127.0.0.1:$port" \
    PORTAL_UPTIME_INTERVAL_SECS=0 \
    "$root/usr/lib/devportal/app-server" --env-file "$env_file" serve
) >"$work/scratch.log" 2>&1 &
server_pid=$!
check_serving "$port" "$work/scratch.log" "$state/portal.db"
stop_server
pass "unpacked with dpkg -x: the installed binary serves from its installed paths on a fresh SQLite"

# --- 4. a real install, when this machine allows one -----------------------------------------------------
if [[ $(id -u) != 0 ]]; then
  echo "check-deb: skipped the real install: not root"
  exit 0
fi
if dpkg-query -W -f='${Status}' devportal 2>/dev/null | grep -q installed || [[ -e /etc/devportal || -e /var/lib/devportal ]]; then
  echo "check-deb: skipped the real install: devportal is already on this machine"
  exit 0
fi
dpkg_retry() { # dpkg waits for nobody: retry while apt or dpkg runs elsewhere.
  for _ in $(seq 1 60); do
    if dpkg "$@" >"$work/dpkg.log" 2>&1; then return 0; fi
    grep -q 'lock' "$work/dpkg.log" || { cat "$work/dpkg.log" >&2; return 1; }
    sleep 2
  done
  cat "$work/dpkg.log" >&2
  return 1
}
dpkg_retry -i "$deb" || fail "dpkg -i"
installed_cleanup() { dpkg -P devportal >/dev/null 2>&1 || true; }
trap 'installed_cleanup; cleanup' EXIT
getent passwd devportal | grep -q ':/usr/sbin/nologin$' || fail "install made no devportal system user"
[[ $(stat -c '%U:%G %a' /var/lib/devportal) == 'devportal:devportal 700' ]] || fail "/var/lib/devportal is not devportal's, 0700"
[[ $(stat -c '%U:%G %a' /etc/devportal/portal.env) == 'root:devportal 640' ]] || fail "portal.env is not root:devportal 0640"
pass "dpkg -i: user, state directory and settings file made"
port=$(free_port)
PORTAL_BIND="127.0.0.1:$port" PORTAL_UPTIME_INTERVAL_SECS=0 devportal-admin serve >"$work/installed.log" 2>&1 &
server_pid=$!
check_serving "$port" "$work/installed.log" /var/lib/devportal/portal.db
[[ $(stat -c %U /var/lib/devportal/portal.db) == devportal ]] || fail "the database is not the service user's"
stop_server
devportal-admin migrate --check | grep -q 'up to date' || fail "devportal-admin migrate --check"
# The nightly backup (as devportal-backup.service runs it: the service's user and settings) keeps the newest.
for _ in 1 2 3; do
  setpriv --reuid=devportal --regid=devportal --init-groups -- env DATABASE_URL=sqlite:///var/lib/devportal/portal.db \
    PORTAL_DATA_DIR=/var/lib/devportal /usr/lib/devportal/backup-nightly /var/backups/devportal 2 >/dev/null \
    || fail "backup-nightly"
  sleep 1.1 # the archives are named by the second
done
[[ $(ls /var/backups/devportal | grep -c '^portal-.*\.tar\.gz$') == 2 ]] || fail "backup-nightly did not keep the newest two"
pass "backup-nightly wrote three backups as devportal and kept the newest two"
# A backup made by devportal-admin unpacks with tar under the usual umask into files of their owner alone.
(umask 022 && devportal-admin backup /var/backups/devportal/check-deb.tar.gz >/dev/null) || fail "devportal-admin backup"
mkdir "$work/unpacked"
(umask 022 && tar -xzf /var/backups/devportal/check-deb.tar.gz -C "$work/unpacked") || fail "tar -x of the backup"
rm -f /var/backups/devportal/check-deb.tar.gz
[[ -f $work/unpacked/portal.db ]] || fail "the backup has no portal.db"
shared=$(find "$work/unpacked" -type f ! -perm 600)
[[ -z $shared ]] || fail "these files of a backup unpack readable by others: $shared"
pass "devportal-admin backup: every file unpacks 0600 with tar under umask 022"
pass "installed: devportal-admin serve ran as devportal on /var/lib/devportal/portal.db"
dpkg_retry -r devportal || fail "dpkg -r"
[[ -f /var/lib/devportal/portal.db && -f /etc/devportal/portal.env ]] || fail "dpkg -r removed the data or the settings"
[[ ! -e /usr/lib/devportal/app-server ]] || fail "dpkg -r left the binary"
dpkg_retry -P devportal || fail "dpkg -P"
[[ ! -e /var/lib/devportal && ! -e /etc/devportal ]] || fail "dpkg -P left the data or the settings"
pass "dpkg -r keeps the data and settings, dpkg -P removes them"
