#!/usr/bin/env bash
# Benchmark (not a test): a 40-point sweep of the lee2022 co-design study with -j 1 and with
# -j 2 on this machine, and the ratio of the two wall times (issue 15: at least 1.6x with 2
# cores). Usage: tools/bench/sweep_speedup.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
hetsim=$build/hetsim
[ -x "$hetsim" ] || { echo "sweep_speedup: no $hetsim (build first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/sweep.yaml" <<YAML
sweep: speedup
study: $PWD/configs/studies/lee2022_codesign.yaml
axes:
  platform.components.pim.memspec: [ddr4-2400, ddr4-3200]
  platform.components.dma.forward.bandwidth: [0.125 GB/s, 0.25 GB/s, 0.5 GB/s, 1 GB/s, 4 GB/s]
  workload.seq_len: [16, 32, 48, 64]
YAML
run() {
    local jobs=$1 start end
    start=$(date +%s.%N)
    "$hetsim" sweep "$work/sweep.yaml" -j "$jobs" --out "$work/j$jobs" >/dev/null 2>&1
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}
t1=$(run 1)
t2=$(run 2)
points=$(tail -n +2 "$work/j1/results.csv" | cut -d, -f2 | sort -u | wc -l)
awk -v n="$points" -v a="$t1" -v b="$t2" -v c="$(nproc)" 'BEGIN {
    printf "sweep of %d points: -j 1 %.2f s, -j 2 %.2f s, speed-up %.2fx (%d cores)\n", n, a, b, a / b, c }'
