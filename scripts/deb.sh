#!/usr/bin/env bash
# Builds the Debian package from built binaries and the built web UI, with dpkg-deb on a staged tree:
#   scripts/deb.sh BIN_DIR WEB_DIR OUT_DIR
# BIN_DIR holds app-server (and devportal, the command-line client, when built); WEB_DIR is frontend/dist.
# Prints the path of the .deb. `make deb` passes the release build; `make test-deb` the debug build.
set -euo pipefail

bin_dir=${1:?usage: scripts/deb.sh BIN_DIR WEB_DIR OUT_DIR}
web_dir=${2:?usage: scripts/deb.sh BIN_DIR WEB_DIR OUT_DIR}
out_dir=${3:?usage: scripts/deb.sh BIN_DIR WEB_DIR OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
pkg=$root/packaging

[[ -x $bin_dir/app-server ]] || { echo "deb: no $bin_dir/app-server (build it first)" >&2; exit 1; }
[[ -f $web_dir/index.html ]] || { echo "deb: no built web UI in $web_dir (cd frontend && npm run build)" >&2; exit 1; }
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$root/Cargo.toml")
[[ -n $version ]] || { echo "deb: no version in Cargo.toml [workspace.package]" >&2; exit 1; }
# (A binary copied a moment ago can still be "busy" for exec on some file systems: one more try.)
app_version=$({ "$bin_dir/app-server" --version 2>/dev/null || { sleep 1; "$bin_dir/app-server" --version; }; } | awk '{print $2}')
[[ $app_version == "$version" ]] || { echo "deb: app-server says $app_version, Cargo.toml $version" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
install -d -m 0755 "$stage/DEBIAN" "$stage/usr/lib/devportal" "$stage/usr/bin" "$stage/usr/sbin" \
  "$stage/usr/share/devportal" "$stage/usr/share/doc/devportal" "$stage/etc/devportal" \
  "$stage/lib/systemd/system"
install -m 0755 "$bin_dir/app-server" "$stage/usr/lib/devportal/app-server"
strip --strip-debug "$stage/usr/lib/devportal/app-server" 2>/dev/null || true
if [[ -x $bin_dir/devportal ]]; then
  install -m 0755 "$bin_dir/devportal" "$stage/usr/bin/devportal"
  strip --strip-debug "$stage/usr/bin/devportal" 2>/dev/null || true
fi
install -m 0755 "$pkg/backup-nightly" "$stage/usr/lib/devportal/backup-nightly"
install -m 0755 "$pkg/devportal-admin" "$stage/usr/sbin/devportal-admin"
cp -r "$web_dir" "$stage/usr/share/devportal/web"
chmod -R u=rwX,go=rX "$stage/usr/share/devportal/web"
install -m 0644 "$pkg/portal.env" "$stage/etc/devportal/portal.env"
install -m 0644 "$pkg"/systemd/devportal.service "$pkg"/systemd/devportal-backup.service \
  "$pkg"/systemd/devportal-backup.timer "$stage/lib/systemd/system/"
install -m 0644 "$root/LICENSE" "$stage/usr/share/doc/devportal/copyright"
install -m 0644 "$root/README.md" "$stage/usr/share/doc/devportal/README.md"
install -m 0644 "$root/CHANGELOG.md" "$stage/usr/share/doc/devportal/CHANGELOG.md"
install -d -m 0755 "$stage/usr/share/doc/devportal/examples"
install -m 0644 "$pkg/proxy/nginx.conf" "$pkg/proxy/Caddyfile" "$stage/usr/share/doc/devportal/examples/"
install -m 0755 "$pkg"/debian/postinst "$pkg"/debian/prerm "$pkg"/debian/postrm "$stage/DEBIAN/"
install -m 0644 "$pkg/debian/conffiles" "$stage/DEBIAN/conffiles"

# The shared libraries the binaries link directly (libc, libpq for PostgreSQL…), as the Debian packages that
# hold them on this machine.
depends_of() {
  local binary=$1 library path
  for library in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(ldd "$binary" | awk -v lib="$library" '$1 == lib && $3 ~ /^\// {print $3}')
    [[ -n $path ]] || continue
    dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null || true
  done
}
depends=$(
  for binary in "$stage/usr/lib/devportal/app-server" "$stage/usr/bin/devportal"; do
    if [[ -f $binary ]]; then depends_of "$binary"; fi
  done | cut -d: -f1 | sort -u | paste -sd, - | sed 's/,/, /g'
)
[[ -n $depends ]] || depends=libc6
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
  "$pkg/debian/control.in" >"$stage/DEBIAN/control"

mkdir -p "$out_dir"
deb="$out_dir/devportal_${version}_amd64.deb"
# DEB_COMPRESSION=gzip for the test's package (xz of a debug binary takes a minute).
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$stage" "$deb" >/dev/null
echo "$deb"
