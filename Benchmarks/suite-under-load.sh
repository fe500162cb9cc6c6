#!/usr/bin/env bash
# Runs the test suite RUNS times in a row while two busy loops keep both cores of this machine kind busy beside
# it (nothing of the suite's own: a machine whose other work takes the CPU), and prints each run's result and
# time, then the failures. The suite must pass every time: a test that fails when the machine is busy is a
# defect in the test or in the library.
# usage: Benchmarks/suite-under-load.sh [RUNS] [LOOPS]   (default 5 runs, 2 loops; build the tests first:
#   swift build -c release --build-tests -Xswiftc -enable-testing)
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
loops="${2:-2}"
busy=()
for _ in $(seq "$loops"); do
    (while :; do :; done) &
    busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null' EXIT
for run in $(seq "$runs"); do
    log="$(mktemp)"
    start=$(date +%s)
    swift test -c release -Xswiftc -enable-testing --skip-build >"$log" 2>&1
    status=$?
    echo "run $run: exit $status in $(( $(date +%s) - start )) s: $(grep -E '^(✔|✘) Test run with' "$log" | tail -1)"
    # Each issue with what it said (its ↳ lines: a tool's stderr, the values compared), for the root cause.
    grep -A12 -E '^✘ Test .* recorded an issue' "$log" | grep -E '^(✘ Test .* recorded an issue|↳|--)' | cut -c1-2000
    rm -f "$log"
done
