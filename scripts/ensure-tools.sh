#!/usr/bin/env bash
# Installs what building, running or testing the console needs, when missing.
# Quick when everything is there: each tool is checked with `command -v` and,
# where it matters, its version.
#
#   scripts/ensure-tools.sh run    # wasm target, cargo-leptos, wasm-bindgen, wasm-opt (npm)
#   scripts/ensure-tools.sh test   # the above but wasm-opt, plus rustfmt, clippy,
#                                  # Debian's chromium and the end2end npm packages
#   scripts/ensure-tools.sh bench  # run's tools, plus Debian's wrk, oha, Debian's
#                                  # chromium and the end2end npm packages
set -euo pipefail

purpose="${1:-run}"
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

CARGO_LEPTOS_VERSION="0.3.11"
# scripts/bench.py reads this version's JSON output.
OHA_VERSION="1.16.0"
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
  say "installing cargo-leptos $CARGO_LEPTOS_VERSION (4 to 6 minutes on 2 cores, once)"
  # --ignore-rust-version: one of its dependencies asks for a newer rustc than it needs.
  # --debug: an optimised cargo-leptos takes 12 minutes to compile on 2 cores and a
  # debug one 5, while a build takes as long with either (the time is rustc's and
  # wasm-opt's; cargo-leptos only starts them), so every fresh machine saves 7 minutes.
  cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked --ignore-rust-version --debug
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (matches Cargo.lock; 1 to 1.5 minutes, once)"
  # Not --locked: its lockfile does not resolve here.
  # --debug: it compiles in 50 s instead of 108 s on 2 cores, and costs
  # 1.5 s more per build (2.0 s against 0.5 s on the release bundle), so a
  # new machine comes out ahead until its fortieth build or so.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --debug
fi

apt_install() {
  say "installing Debian's $*"
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

release_tools() {
  # wasm-opt, which release builds run, from the npm registry (binaryen on
  # Node.js): ready at once, where compiling it takes minutes. Not Debian's
  # binaryen: its older wasm-opt breaks hydration. The scripts put
  # scripts/wasm-opt/node_modules/.bin first on PATH.
  npm_install scripts/wasm-opt "wasm-opt (binaryen, from npm)"
  # Precompressed .br files for the bundle (gzip is always there).
  command -v brotli >/dev/null 2>&1 || apt_install brotli || true
}

# `npm ci` in $1 when its lock file changed since the last install.
npm_install() {
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is not on PATH: install Node.js 20 first." >&2
    exit 1
  fi
  local stamp="$1/node_modules/.package-lock.stamp"
  if [ ! -f "$stamp" ] || ! cmp -s "$1/package-lock.json" "$stamp"; then
    say "installing $2 (npm ci)"
    (cd "$1" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
    cp "$1/package-lock.json" "$stamp"
  fi
}

# Playwright and the browser it drives: the end-to-end tests, and the first
# visit `make bench` measures.
browser_tools() {
  command -v chromium >/dev/null 2>&1 || apt_install chromium
  # Playwright drives Debian's chromium; it never downloads a browser.
  npm_install end2end "the end-to-end test packages"
}

case "$purpose" in
  run)
    release_tools
    ;;
  bench)
    release_tools
    command -v wrk >/dev/null 2>&1 || apt_install wrk
    command -v python3 >/dev/null 2>&1 || apt_install python3
    if [ "$(oha --version 2>/dev/null | awk '{print $2}')" != "$OHA_VERSION" ]; then
      # The load at a steady rate; Debian has no package of it.
      say "installing oha $OHA_VERSION (several minutes on 2 cores, once)"
      cargo install oha --version "$OHA_VERSION" --locked
    fi
    browser_tools
    ;;
  test)
    for component in rustfmt clippy; do
      if ! rustup component list --installed | grep -q "^$component"; then
        say "adding the $component component"
        rustup component add "$component"
      fi
    done
    browser_tools
    ;;
  *)
    echo "usage: $0 run|test|bench" >&2
    exit 2
    ;;
esac
