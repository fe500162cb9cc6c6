#!/usr/bin/env bash
# Builds fuzz targets (all when none is named) with libFuzzer's coverage and AddressSanitizer.
# SwiftPM passes `--sanitize fuzzer --sanitize address` to swiftc as two -sanitize flags, and swiftc keeps only
# the last: the Swift code gets coverage or AddressSanitizer, not both. The combined flag, given last, gets both.
set -euo pipefail
cd "$(dirname "$0")"
products=()
for target in "$@"; do products+=(--product "$target"); done
swift build -c debug --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address "${products[@]}" >/dev/null
