#!/usr/bin/env bash
# Installs what building, running or testing the console needs, when missing.
# Quick when everything is there: each tool is checked with `command -v` and,
# where it matters, its version.
#
#   scripts/ensure-tools.sh run    # wasm target, cargo-leptos, wasm-bindgen, wasm-opt
#   scripts/ensure-tools.sh test   # the above but wasm-opt, plus rustfmt, clippy,
#                                  # Debian's chromium and the end2end npm packages
#   scripts/ensure-tools.sh bench  # run's tools, plus Debian's wrk
set -euo pipefail

purpose="${1:-run}"
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

CARGO_LEPTOS_VERSION="0.3.11"
# The CLI must be exactly the wasm-bindgen version the lockfile resolved.
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is not on PATH: install Rust with rustup first (https://rustup.rs)." >&2
  exit 1
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(cargo leptos --version 2>/dev/null | awk '{print $2}')" != "$CARGO_LEPTOS_VERSION" ]; then
  say "installing cargo-leptos $CARGO_LEPTOS_VERSION (about 9 minutes on 2 cores, once)"
  # --ignore-rust-version: one of its dependencies asks for a newer rustc than it needs.
  cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked --ignore-rust-version
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (matches Cargo.lock)"
  # Not --locked: its lockfile does not resolve here.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

apt_install() {
  say "installing Debian's $*"
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

release_tools() {
  if ! command -v wasm-opt >/dev/null 2>&1; then
    say "installing wasm-opt (binaryen, for release builds; about 5 minutes, once)"
    # Not Debian's binaryen: its older wasm-opt breaks hydration.
    cargo install wasm-opt --locked
  fi
  # Precompressed .br files for the bundle (gzip is always there).
  command -v brotli >/dev/null 2>&1 || apt_install brotli || true
}

case "$purpose" in
  run)
    release_tools
    ;;
  bench)
    release_tools
    command -v wrk >/dev/null 2>&1 || apt_install wrk
    command -v python3 >/dev/null 2>&1 || apt_install python3
    ;;
  test)
    for component in rustfmt clippy; do
      if ! rustup component list --installed | grep -q "^$component"; then
        say "adding the $component component"
        rustup component add "$component"
      fi
    done
    command -v chromium >/dev/null 2>&1 || apt_install chromium
    if ! command -v npm >/dev/null 2>&1; then
      echo "npm is not on PATH: install Node.js 20 first." >&2
      exit 1
    fi
    stamp=end2end/node_modules/.package-lock.stamp
    if [ ! -f "$stamp" ] || ! cmp -s end2end/package-lock.json "$stamp"; then
      say "installing the end-to-end test packages (npm ci)"
      # Playwright drives Debian's chromium; it never downloads a browser.
      (cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
      cp end2end/package-lock.json "$stamp"
    fi
    ;;
  *)
    echo "usage: $0 run|test|bench" >&2
    exit 2
    ;;
esac
