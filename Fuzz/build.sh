#!/usr/bin/env bash
# Builds fuzz targets (all when none is named) with libFuzzer's coverage and AddressSanitizer.
# SwiftPM passes `--sanitize fuzzer --sanitize address` to swiftc as two -sanitize flags, and swiftc keeps only
# the last: the Swift code gets coverage or AddressSanitizer, not both. The combined flag, given last, gets both.
set -euo pipefail
cd "$(dirname "$0")"
products=()
for target in "$@"; do products+=(--product "$target"); done
# Quiet when it builds; the compiler's errors (on stdout) when it does not.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! swift build -c debug --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address "${products[@]}" \
    >"$log" 2>&1; then
    grep -E "error:" -A3 "$log" | head -60 >&2 || tail -40 "$log" >&2
    exit 1
fi
