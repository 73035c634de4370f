#!/usr/bin/env bash
# Proves that the domain crate reaches no I/O crate through its normal or build dependencies
# (ARCHITECTURE.md rule 1). A crate is unreachable when `cargo tree -i` says it matches no package.
# Checked with the `openapi` feature on (the schema derives the HTTP adapter enables).
set -euo pipefail
cargo=${CARGO:-cargo}
status=0
for crate in "$@"; do
  if out=$("$cargo" tree -p domain --features openapi -e normal,build -i "$crate" --quiet 2>&1); then
    echo "check-deps: domain reaches $crate:"; echo "$out"; status=1
  elif ! grep -q "did not match any packages" <<<"$out"; then
    echo "check-deps: cargo tree failed for $crate:"; echo "$out"; status=2
  fi
done
[ $status -eq 0 ] && echo "check-deps: domain reaches none of: $*"
exit $status
