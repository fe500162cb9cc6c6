#!/usr/bin/env bash
# Runs every input of every committed corpus (Fuzz/Corpus/<target>, and the fixture captures for the capture
# targets) through its target once, built with AddressSanitizer: a fixed crash stays fixed. A regression
# run of seconds, not fuzzing (that is Fuzz/run.sh). Exits non-zero on any crash, naming the input.
set -euo pipefail
cd "$(dirname "$0")"
bash build.sh
failed=0
for target in $(bash targets.sh); do
    corpus=()
    [ -d "Corpus/$target" ] && corpus=("Corpus/$target")
    seeds=$(bash seeds.sh "$target")
    if [ ${#corpus[@]} -eq 0 ] && [ -z "$seeds" ]; then
        echo "$target: no corpus in Fuzz/Corpus/$target" >&2
        failed=1
        continue
    fi
    log="$(mktemp)"
    inputs=$( ([ ${#corpus[@]} -eq 0 ] || find "${corpus[@]}" -type f; for seed in $seeds; do echo "$seed"; done) | wc -l)
    # -runs=0: the corpus folder is read (each input run once) and nothing is mutated. The fixture seeds are
    # files, which libFuzzer runs once each, but not beside a folder: a second call.
    if { [ ${#corpus[@]} -eq 0 ] || SWIFT_BACKTRACE=enable=no ".build/debug/$target" -runs=0 -max_len=1048576 \
        "${corpus[@]}"; } >"$log" 2>&1 \
        && { [ -z "$seeds" ] || SWIFT_BACKTRACE=enable=no ".build/debug/$target" $seeds; } >>"$log" 2>&1; then
        # Files alone (no folder) are run one by one, and libFuzzer then reports no coverage.
        echo "$target: $inputs inputs replayed, no crash $(grep -oE 'cov: [0-9]+' "$log" | tail -1)"
    else
        echo "$target: FAILED on its corpus:" >&2
        tail -30 "$log" >&2
        failed=1
    fi
    rm -f "$log"
done
exit "$failed"
