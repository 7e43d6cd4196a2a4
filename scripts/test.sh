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

# Debian's Chromium and its WebDriver drive the web UI test (crates/trawl/tests/browser.rs); the WebDriver
# client links the system OpenSSL.
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
dpkg -s libssl-dev >/dev/null 2>&1 || need+=(libssl-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if ((${#need[@]})); then
    echo "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v chromedriver >/dev/null || { echo "chromium-driver did not install; the browser test needs it" >&2; exit 1; }

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
