#!/usr/bin/env bash
# The benchmark command (`make bench`): release build, then scripts/bench.py
# (seeded SQLite database, the real server on loopback, wrk) writes BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-tools.sh bench
export PATH="$HOME/.cargo/bin:$PATH"

cargo leptos build --release
cargo build --release --no-default-features --features ssr --bin toolwright-bench
scripts/precompress.sh
python3 scripts/bench.py
