#!/usr/bin/env bash
# Builds each libFuzzer target with AddressSanitizer and fuzzes it for SECONDS (default 300), starting from
# its committed corpus (Fuzz/Corpus/<target>, plus the fixture captures for the capture and SRTP targets).
# What it finds goes to Fuzz/work/<target>; with MERGE=1 the corpus is then minimized (libFuzzer's -merge:
# the fewest inputs that keep the coverage) back into Fuzz/Corpus/<target>, to be committed. Prints one
# summary line per target; crashes are left in Fuzz/artifacts/. Fuzz/replay.sh runs the corpora once (CI).
# MAX_LEN bounds the inputs (default 65536): FuzzRecorder's are merged with MAX_LEN=20000, which keeps its corpus
# near the others' size.
# usage: [MERGE=1] [MAX_LEN=N] Fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-300}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(bash targets.sh))
mkdir -p artifacts
for target in "${targets[@]}"; do
    bash build.sh "$target"
    corpus="Corpus/$target"
    work="work/$target"
    mkdir -p "$corpus" "$work"
    # libFuzzer fuzzes from folders only (files are for running inputs once): the fixture seeds go into the
    # work folder.
    for seed in $(bash seeds.sh "$target"); do cp "$seed" "$work/"; done
    log="artifacts/$target.log"
    before=$(ls artifacts | grep -c "^$target-crash" || true)
    # New inputs go to the first folder; the others are read.
    SWIFT_BACKTRACE=enable=no ".build/debug/$target" "$work" "$corpus" \
        -max_total_time="$seconds" -max_len="${MAX_LEN:-65536}" -artifact_prefix="artifacts/$target-" >"$log" 2>&1 \
        && status=ok || status="FAILED (see $log)"
    runs=$(grep -oE 'Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || echo "?")
    cov=$(grep -oE ' cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo "?")
    # A target built without coverage mutates blindly; libFuzzer then prints no "cov:" at all.
    [ "$cov" != "?" ] || status="FAILED (no coverage: the target is not instrumented; see $log)"
    after=$(ls artifacts | grep -c "^$target-crash" || true)
    echo "$target: $status, $runs executions in ${seconds}s, coverage $cov edges, new crashes: $((after - before))"
    if [ "${MERGE:-0}" = 1 ]; then
        merged="work/$target-merged"
        rm -rf "$merged" && mkdir -p "$merged"
        SWIFT_BACKTRACE=enable=no ".build/debug/$target" -merge=1 -max_len="${MAX_LEN:-65536}" "$merged" "$corpus" "$work" \
            >"artifacts/$target.merge.log" 2>&1
        rm -rf "$corpus" && mv "$merged" "$corpus"
        echo "$target: corpus minimized to $(ls "$corpus" | wc -l) inputs, $(du -sk "$corpus" | cut -f1) KiB"
    fi
done
