#!/usr/bin/env bash
# Builds and runs the frontier benchmark: bench/frontier/run.sh [URLS] [HOSTS] [--no-bloom] [--killed]
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-../../target/bench-frontier}"
cargo build --release --quiet
BENCH_DIR="${BENCH_DIR:-/tmp}" "$CARGO_TARGET_DIR/release/trawl-bench-frontier" "$@"
