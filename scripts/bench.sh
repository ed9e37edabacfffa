#!/usr/bin/env bash
# The benchmark command (`make bench`): release build, then scripts/bench.py
# (seeded SQLite database, the real server on loopback, wrk, oha and a
# browser's first visit) writes BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-tools.sh bench
export PATH="$PWD/scripts/wasm-opt/node_modules/.bin:$HOME/.cargo/bin:$PATH"

cargo leptos build --release
# The helper (bench/, the workspace's other member) with the same RUSTFLAGS
# as cargo-leptos gives the server (always-erase-components), so it links
# against the dependencies that build already made.
RUSTFLAGS="--cfg erase_components" cargo build --release -p toolwright-bench
scripts/precompress.sh
python3 scripts/bench.py
