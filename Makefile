# The two commands of README.md, and a few helpers for working on the console.
.PHONY: run test bench check fmt screenshots

## Build in release mode and serve the console on http://127.0.0.1:3000.
run:
	@scripts/run.sh

## Everything CI checks: fmt, clippy (both builds), Rust tests, Playwright.
test:
	@scripts/test.sh

## Release build, seeded database, wrk, oha and a browser on loopback: writes BENCHMARKS.md (a few minutes).
bench:
	@scripts/bench.sh

## Fast type-check of both builds while editing.
check:
	cargo check --features ssr --all-targets
	cargo check --lib --features hydrate --target wasm32-unknown-unknown

fmt:
	cargo fmt

## Regenerate the README's screenshots (docs/screenshots/) from a fresh build.
screenshots:
	@scripts/screenshots.sh
