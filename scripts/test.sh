#!/usr/bin/env bash
# The test command (`make test`): formatting, lints for both builds, the Rust
# tests (SQLite always; PostgreSQL too when TEST_POSTGRES_URL is set), then
# the Playwright suite against a freshly built server on a throwaway database.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-tools.sh test
export PATH="$HOME/.cargo/bin:$PATH"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "cargo fmt --check"
cargo fmt --check

step "clippy, server build (ssr)"
cargo clippy --features ssr --all-targets -- -D warnings

step "clippy, the benchmark helper (bench/)"
cargo clippy -p toolwright-bench -- -D warnings

step "clippy, browser build (hydrate, wasm32)"
cargo clippy --lib --features hydrate --target wasm32-unknown-unknown -- -D warnings

step "Rust tests (unit, database, HTTP integration)"
if [ -z "${TEST_POSTGRES_URL:-}" ]; then
  echo "TEST_POSTGRES_URL is not set: the PostgreSQL variants of the database tests will skip."
fi
cargo test --features ssr

step "building the console (cargo leptos build)"
cargo leptos build
# Precompressed files of an earlier release build (make run, make bench)
# would be served in place of this build's bundle.
rm -f target/site/pkg/*.gz target/site/pkg/*.br

step "browser tests (Playwright, Debian chromium)"
e2e_data="$(mktemp -d -t toolwright-e2e-XXXXXX)"
trap 'rm -rf "$e2e_data"' EXIT
(
  cd end2end
  TOOLWRIGHT_BIN="$target_dir/debug/toolwright" \
  E2E_DATA_DIR="$e2e_data" \
  npx playwright test
)
step "all tests passed"
