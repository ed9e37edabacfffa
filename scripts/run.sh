#!/usr/bin/env bash
# The run command (`make run`): installs what is missing, builds the console in
# release mode and serves it on http://127.0.0.1:3000 (LEPTOS_SITE_ADDR to
# change), on the embedded SQLite database data/toolwright.db unless
# DATABASE_URL says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-tools.sh run
export PATH="$PWD/scripts/wasm-opt/node_modules/.bin:$HOME/.cargo/bin:$PATH"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"

cargo leptos build --release
scripts/precompress.sh
export LEPTOS_ENV="${LEPTOS_ENV:-PROD}"
export LEPTOS_SITE_ROOT="${LEPTOS_SITE_ROOT:-target/site}"
# The bundle's file names carry their content's hash (hash.txt, beside the binary).
export LEPTOS_HASH_FILES="${LEPTOS_HASH_FILES:-true}"
exec "$target_dir/release/toolwright"
