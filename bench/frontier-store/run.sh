#!/usr/bin/env bash
# Runs the issue-6 measurements; output rows are the table in docs/frontier.md.
# Usage: bench/frontier-store/run.sh [killtest|1m|10m] [stores...]
set -uo pipefail
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/main/target/bench-store}
cd "$(dirname "$0")"
nice -n 10 cargo build --release --quiet || exit 1
bin=$CARGO_TARGET_DIR/release/frontier-store-bench
what=${1:-1m}; shift || true
stores=${*:-fjall redb redb-none sqlite}
case $what in
  killtest)
    # Enqueue 20 committed batches, SIGKILL the process, reopen: every reported batch must be there.
    for s in $stores; do
      $bin --store "$s" --urls 1000000 --kill-after-batches 20 2>/dev/null
      $bin --store "$s" --recover
    done ;;
  1m) for s in $stores; do $bin --store "$s" --urls 1000000; done ;;
  10m) for s in $stores; do $bin --store "$s" --urls 10000000; done ;;
  *) echo "unknown: $what" >&2; exit 2 ;;
esac
