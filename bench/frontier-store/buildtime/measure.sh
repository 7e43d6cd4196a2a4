#!/usr/bin/env bash
# Clean `cargo build --release` wall time of a tiny crate that depends on ONE store crate only.
# Each crate gets its own fresh target dir, so nothing is shared between the measurements.
# Usage: bench/frontier-store/buildtime/measure.sh [fjall redb rusqlite]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target_root=${CARGO_TARGET_DIR:-/work/main/target/bench-store}/buildtime
declare -A dep=(
  [fjall]='fjall = "3.1"'
  [redb]='redb = "4.5"'
  [rusqlite]='rusqlite = { version = "0.41", features = ["bundled"] }'
)
for name in "${@:-fjall redb rusqlite}"; do
  for n in $name; do
    dir=$(mktemp -d)
    mkdir -p "$dir/src"
    printf '[package]\nname = "bt-%s"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n[workspace]\n\n[dependencies]\n%s\n' "$n" "${dep[$n]}" >"$dir/Cargo.toml"
    echo 'fn main() {}' >"$dir/src/main.rs"
    cp "$here/../Cargo.lock" "$dir/Cargo.lock" 2>/dev/null || true   # same versions as the bench
    rm -rf "$target_root/$n"
    start=$(date +%s.%N)
    (cd "$dir" && CARGO_TARGET_DIR="$target_root/$n" nice -n 10 cargo build --release --quiet)
    end=$(date +%s.%N)
    crates=$(cd "$dir" && cargo tree -e normal --prefix none 2>/dev/null | sort -u | wc -l)
    printf '%s\t%.1f s\t%s crates (incl. root)\tload1 %s\n' "$n" "$(echo "$end - $start" | bc)" "$crates" "$(cut -d' ' -f1 /proc/loadavg)"
    rm -rf "$dir"
  done
done
