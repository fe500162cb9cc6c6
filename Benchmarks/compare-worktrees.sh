#!/usr/bin/env bash
# Runs one in-process benchmark in several checkouts (git worktrees) of this repository, alternating
# ROUNDS times, and prints each run's p0 / p50 / mallocs: the way to compare a change with the code
# before it on a noisy machine (the spread between runs is often wider than the change).
#   bash Benchmarks/compare-worktrees.sh ROUNDS FILTER DIR...
# FILTER must match a benchmark's whole name (a regular expression), e.g.
#   git worktree add /tmp/old <rev>; bash Benchmarks/compare-worktrees.sh 3 '.*reorder -> .*steady.*' /tmp/old .
set -euo pipefail
rounds=$1; filter=$2; shift 2
for round in $(seq "$rounds"); do
    for dir in "$@"; do
        (cd "$dir/Benchmarks" && swift package --allow-writing-to-package-directory benchmark --target RTPBenchmarks \
            --filter "$filter" 2>&1) | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | awk -v dir="$dir" -v round="$round" '
            /^╒/ { name = previous }
            { previous = $0 }
            /Malloc \(total\)/ { split($0, f, "│"); mallocs = f[5] + 0 }
            /Time \(wall clock\)/ { split($0, f, "│"); gsub(/ /, "", f[3]); gsub(/ /, "", f[5]);
                printf "round %s  %-20s p0 %6s  p50 %6s  mallocs %s  (%s)\n", round, dir, f[3], f[5], mallocs, name }'
    done
done
