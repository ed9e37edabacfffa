#!/usr/bin/env bash
# `make screenshots`: regenerates the README's pictures (docs/screenshots/)
# from a fresh debug build on a throwaway database, so they show the console
# as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-tools.sh test
export PATH="$HOME/.cargo/bin:$PATH"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
cargo leptos build
rm -f target/site/pkg/*.gz target/site/pkg/*.br
data="$(mktemp -d -t toolwright-shots-XXXXXX)"
trap 'rm -rf "$data"' EXIT
cd end2end
TOOLWRIGHT_BIN="$target_dir/debug/toolwright" E2E_DATA_DIR="$data" \
  npx playwright test -c screenshots.config.ts
