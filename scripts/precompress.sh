#!/usr/bin/env bash
# Writes .gz (and .br, when the brotli tool is there) next to the built
# bundle, which the server then sends as is to browsers that accept it.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg="${LEPTOS_SITE_ROOT:-target/site}/pkg"
for file in "$pkg"/*.wasm "$pkg"/*.js "$pkg"/*.css; do
  [ -f "$file" ] || continue
  gzip -9 -k -f "$file"
  if command -v brotli >/dev/null 2>&1; then
    brotli -q 11 -k -f "$file"
  fi
done
