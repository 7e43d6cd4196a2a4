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

# The replay references in their own virtualenv (target/pyenv): pywb replays the archives in
# crates/trawl/tests/archive.rs, cdxj-indexer is the reference for trawl's CDXJ, py-wacz validates WACZ files.
if [ ! -x target/pyenv/bin/wayback ] || [ ! -x target/pyenv/bin/cdxj-indexer ] || [ ! -x target/pyenv/bin/wacz ]; then
    if ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    fi
    python3 -m venv target/pyenv
    target/pyenv/bin/pip install --quiet --disable-pip-version-check 'pywb==2.10.0' 'cdxj-indexer==1.5.0' 'wacz==0.6.0'
fi
# Django, in the same virtualenv: the real application the form login is tried against
# (crates/trawl/tests/login.rs runs crates/trawl/tests/django/members.py: LoginView, member pages, ways out).
if [ ! -x target/pyenv/bin/django-admin ]; then
    target/pyenv/bin/pip install --quiet --disable-pip-version-check 'Django>=5.2,<5.3'
fi

# Debian's Chromium and its WebDriver drive the web UI test (crates/trawl/tests/browser.rs); the WebDriver
# client links the system OpenSSL.
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
dpkg -s libssl-dev >/dev/null 2>&1 || need+=(libssl-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# A real Redis for the shared frontier's tests (crates/trawl-frontier/src/shared).
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# bench/broad --quick makes its HTTPS hosts' certificate with the openssl command.
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if ((${#need[@]})); then
    echo "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v chromedriver >/dev/null || { echo "chromium-driver did not install; the browser test needs it" >&2; exit 1; }

# On CI's clean clone nothing is built twice, so incremental state only takes disk; the free disk is shown
# first, so a run that fills it says so.
if [ "${CI:-}" = true ]; then
    export CARGO_INCREMENTAL=0
    echo "== disk: $(df -h . | awk 'NR==2 {print $4 " free of " $2}')"
    trap 'echo "== disk at the end: target $(du -sh target 2>/dev/null | cut -f1), $(df -h . | awk '"'"'NR==2 {print $4}'"'"') free"' EXIT
fi

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
# the broad-crawl harness at 60 simulated hosts: every page of the ideal set, no politeness violation
bench/broad --quick
