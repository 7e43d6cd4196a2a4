#!/usr/bin/env bash
# The test command: installs what the tests need, then runs format, lint, unit, integration and self tests.
# Usage: bash scripts/test.sh        (CI runs it through .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== installing test tools"
# warcio is the independent WARC validator the integration tests run over every archive they write.
if ! command -v warcio >/dev/null 2>&1; then
    python3 -m pip install --quiet --disable-pip-version-check 'warcio>=1.7' 2>&1 | grep -v 'Running pip as' || true
fi
command -v warcio >/dev/null || { echo "warcio did not install; it is needed by the integration tests" >&2; exit 1; }

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
cargo test --workspace --locked

echo "== trawl selftest"
cargo run --quiet --release --locked -p trawl -- selftest

echo "== bench quick"
bench/run --quick
