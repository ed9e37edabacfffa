#!/usr/bin/env bash
# The benchmark command (`make bench`): release build, then scripts/bench.py
# (seeded SQLite database, the real server on loopback, wrk) writes BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-tools.sh bench
export PATH="$HOME/.cargo/bin:$PATH"

cargo leptos build --release --split
# The same RUSTFLAGS as cargo-leptos gives the server (always-erase-components),
# so the helper links against the dependencies that build already made.
RUSTFLAGS="--cfg erase_components" cargo build --release --no-default-features --features ssr --bin toolwright-bench
scripts/precompress.sh
python3 scripts/bench.py
